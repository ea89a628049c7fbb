// Package checks holds the tests of the deployment files in deploy/ (the
// compose file and its env example, the Grafana dashboard, the systemd
// unit, the image's environment) against the real daemon, its
// configuration and the metrics it registers. It is a module of its own
// so that the libraries only these checks need (compose-go, Prometheus'
// PromQL parser) stay out of feedpoller's module; scripts/test.sh runs it.
package checks

// Package deploy holds the deployment files: deploy/compose.yaml with its
// env example, the Grafana dashboard and the systemd unit. It has no code;
// its tests check the files against the real daemon, its configuration
// and the metrics it registers.
package deploy

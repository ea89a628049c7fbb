// Package hostile is an HTTP server on 127.0.0.1 that misbehaves on purpose,
// for the chaos suite and for fetcher tests: it hangs, trickles, resets,
// floods, bombs, redirects to addresses nothing may reach, rate-limits,
// flaps, and serves broken, enormous, mislabelled or mis-encoded documents,
// next to well-behaved feeds that prove the daemon keeps working meanwhile.
//
// Every endpoint is listed, with what it does and the outcome a correct
// client should end with, by Server.Endpoints. The server counts hits per
// endpoint and, separately, every request that reached /secret (Forbidden),
// the target of a redirect to localhost that a client must refuse.
//
// Nothing here dials anywhere: the redirects to 169.254.169.254 and other
// private addresses only name them, and a correct client refuses before
// dialling, so there is no sink to watch for those.
package hostile

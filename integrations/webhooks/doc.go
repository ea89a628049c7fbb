// Package webhooks delivers events (a content item's promotion) to the
// URLs a workspace registered, signed with the webhook's secret.
//
// Delivery is at-least-once and loses nothing: each delivery is a row of an
// outbox written in the same transaction as the event, so no event exists
// without its deliveries. A Worker claims due rows with a lease, POSTs each
// through a Sender, and records the outcome: delivered, retry at a later
// time (exponential backoff with jitter, or the receiver's Retry-After),
// or failed with the reason once the delivery is older than the give-up
// age or the receiver answered that the hook is gone. A daemon killed
// mid-send leaves the row leased; once the lease runs out it is sent
// again with the same delivery id, which receivers deduplicate by.
//
// Targets are held to the address policy of every other outbound request
// at dial time, so a name that resolves inward (or rebinds to an internal
// address after the webhook was created) is never connected to, and
// redirects are never followed.
package webhooks

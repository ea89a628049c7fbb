// Package urls holds feedpoller's URL rules. It resolves the links feeds
// and pages carry into absolute web URLs (Absolute), and it turns the many
// spellings of an article URL into one canonical string, so that the same story reached through different feeds,
// campaigns or share buttons deduplicates to a single feed article.
//
// Normalize applies, in order:
//
//   - only http and https are accepted; anything else is an error;
//   - scheme and host lower-cased; internationalised host names converted to
//     their lower-case punycode (IDNA) form; trailing dots of the host dropped;
//     IPv6 literals written in their canonical compressed form;
//   - the default port dropped (:80 for http, :443 for https) and leading
//     zeros of any other port removed;
//   - the fragment dropped (it never reaches the server);
//   - percent-encoding normalised: hex digits upper-cased, escaped unreserved
//     characters (A-Z a-z 0-9 - . _ ~) decoded, characters that may not
//     appear literally escaped;
//   - the path: empty becomes "/", dot segments ("." and "..") resolved as in
//     RFC 3986 §5.2.4; repeated slashes and letter case are kept because
//     servers may give them meaning;
//   - the query: tracking parameters dropped (see IsTrackingParam), empty
//     pairs removed, the rest sorted by key then value (repeated keys kept),
//     and the "?" left out when nothing remains. A "+" is kept as written:
//     whether it means a space is up to the server.
//
// User information (user:pass@) is kept: removing it would change what the
// URL fetches.
//
// ResolveGoogleNews is the step before Normalize for Google News feeds,
// whose links point at a redirector rather than at the publisher.
package urls

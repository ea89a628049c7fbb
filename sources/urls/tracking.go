package urls

import "strings"

// trackingParams lists query parameters (lower-case) that only identify a
// campaign, a click or a sharer, never the resource. Parameters that some
// sites use for content (ref, source, id, page, ...) are deliberately absent:
// dropping one of those would merge different articles.
var trackingParams = map[string]struct{}{
	// Google Ads / Analytics
	"gclid": {}, "gclsrc": {}, "dclid": {}, "gbraid": {}, "wbraid": {},
	"_ga": {}, "_gl": {},
	// Meta (Facebook, Instagram)
	"fbclid": {}, "igshid": {}, "igsh": {},
	// Microsoft / Bing, Yandex, Twitter/X, TikTok, LinkedIn
	"msclkid": {}, "yclid": {}, "twclid": {}, "ttclid": {}, "li_fat_id": {},
	"ref_src": {}, "ref_url": {},
	// Mailchimp, HubSpot, Marketo, Vero, Outbrain/Taboola-style ids
	"mc_cid": {}, "mc_eid": {},
	"_hsenc": {}, "_hsmi": {}, "__hstc": {}, "__hssc": {}, "__hsfp": {}, "hsctatracking": {},
	"mkt_tok": {},
	"vero_id": {}, "vero_conv": {},
	"oly_anon_id": {}, "oly_enc_id": {},
	"wickedid": {},
	"s_kwcid":  {}, "ef_id": {},
}

// trackingPrefixes are families of campaign parameters, matched on the
// lower-cased name.
var trackingPrefixes = []string{"utm_"}

// IsTrackingParam reports whether a query parameter name (as written, before
// or after percent-decoding of unreserved characters) only carries tracking
// information and is dropped by Normalize. Matching ignores case. The list:
// every utm_* parameter, and gclid, gclsrc, dclid, gbraid, wbraid, _ga, _gl,
// fbclid, igshid, igsh, msclkid, yclid, twclid, ttclid, li_fat_id, ref_src,
// ref_url, mc_cid, mc_eid, _hsenc, _hsmi, __hstc, __hssc, __hsfp,
// hsCtaTracking, mkt_tok, vero_id, vero_conv, oly_anon_id, oly_enc_id,
// wickedid, s_kwcid, ef_id.
func IsTrackingParam(name string) bool {
	key := strings.ToLower(normalizeEscapes(name, queryAllowed))
	if _, ok := trackingParams[key]; ok {
		return true
	}
	for _, p := range trackingPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

package feedfarm

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// feedETag is the strong validator of feed n at version v. It folds in
// everything that shapes the document, so two farms with different options
// never hand out the same tag for different bytes.
func (f *Farm) feedETag(n int, v uint64) string {
	shape := uint64(f.opts.ItemsPerFeed)<<32 | uint64(f.opts.BodyBytes)<<2 | uint64(f.FormatOf(n))
	h := hash4(f.seed, uint64(n), v, shape^saltETag)
	return `"f` + strconv.Itoa(n) + "-v" + strconv.FormatUint(v, 10) + "-" + strconv.FormatUint(h, 36) + `"`
}

// itemETag is the strong validator of an item page, which never changes.
func (f *Farm) itemETag(n, k int) string {
	h := hash4(f.seed, uint64(n), uint64(k), uint64(f.opts.BodyBytes)<<8|saltETag)
	return `"i` + strconv.Itoa(n) + "-" + strconv.Itoa(k) + "-" + strconv.FormatUint(h, 36) + `"`
}

// notModified applies RFC 9110 §13.2.2 for GET: If-None-Match decides when
// present (weak comparison); otherwise If-Modified-Since, at one-second
// resolution because that is all an HTTP date carries.
func notModified(r *http.Request, etag string, lastModified time.Time) bool {
	if inm := r.Header.Values("If-None-Match"); len(inm) > 0 {
		return etagListMatches(inm, etag)
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" {
		return false
	}
	t, err := http.ParseTime(ims)
	if err != nil {
		return false
	}
	return !lastModified.Truncate(time.Second).After(t)
}

// etagListMatches reports whether any entity tag in the If-None-Match header
// values matches etag, or the list is "*".
func etagListMatches(values []string, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == want {
				return true
			}
		}
	}
	return false
}

// setValidators writes the caching headers shared by 200 and 304 answers.
func setValidators(h http.Header, etag string, lastModified time.Time) {
	h.Set("ETag", etag)
	h.Set("Last-Modified", lastModified.UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "no-cache")
}

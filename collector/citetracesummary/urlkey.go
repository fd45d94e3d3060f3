// The one URL identity (citetrace/_urls.py): canonical form and the key under which the summary compares a
// citation, a search result and a fetched page.
package citetracesummary

import (
	"regexp"
	"strconv"
	"strings"
)

var tracking = map[string]bool{
	"gclid": true, "fbclid": true, "mc_cid": true, "mc_eid": true, "ref_src": true, "igshid": true, "msclkid": true,
	"_ga": true, "yclid": true, "dclid": true, "_hsenc": true, "_hsmi": true,
}

func isTracking(key string) bool {
	k := pyLower(key)
	return tracking[k] || strings.HasPrefix(k, "utm_")
}

var defaultPorts = map[string]int{"http": 80, "https": 443}

// canonicalURL is canonical_url: any string in, never an error.
func canonicalURL(url string) string {
	raw := pyStrip(url)
	parts, err := urlsplit(raw)
	if err != nil {
		return raw
	}
	port, hasPort, err := parts.port()
	if err != nil {
		hasPort = false
	}
	scheme := parts.scheme
	if scheme != "http" && scheme != "https" {
		return raw
	}
	host := strings.TrimRight(parts.hostname(), ".")
	netloc := host
	if hasPort && port != defaultPorts[scheme] {
		netloc = host + ":" + strconv.Itoa(port)
	}
	path := quote(unquote(parts.path), "/:@!$&'()*+,;=-._~%")
	if path == "" {
		path = "/"
	} else if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = strings.TrimRight(path, "/")
		if path == "" {
			path = "/"
		}
	}
	var kept []qsPair
	for _, p := range parseQSL(parts.query, "&") {
		if !isTracking(p.key) {
			kept = append(kept, p)
		}
	}
	return urlunsplit(splitResult{scheme: scheme, netloc: netloc, path: path, query: urlencode(kept)})
}

// canonicalKey is canonical_key: the canonical form without the http/https distinction.
func canonicalKey(url string) string {
	canon := canonicalURL(url)
	if scheme, rest, found := strings.Cut(canon, "://"); found && (scheme == "http" || scheme == "https") {
		return rest
	}
	return canon
}

const qch = `[A-Za-z0-9._~-]`

var fastURL = regexp.MustCompile(`\Ahttps?://([a-z0-9.-]+)(/[A-Za-z0-9._~/-]*)?(?:\?(` + qch + `+=` + qch + `*(?:&` + qch + `+=` + qch + `*)*))?(?:#.*)?\z`)

// urlKey is url_key: the canonical key of the redacted URL; two URLs name the same page when their keys are equal.
func urlKey(url string) string {
	url = redactURL(url)
	m := fastURL.FindStringSubmatchIndex(url)
	if m == nil {
		return canonicalKey(url)
	}
	host := strings.TrimRight(url[m[2]:m[3]], ".")
	path := "/"
	if m[4] >= 0 {
		path = url[m[4]:m[5]]
	}
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = strings.TrimRight(path, "/")
		if path == "" {
			path = "/"
		}
	}
	if m[6] >= 0 {
		var kept []string
		for _, pair := range strings.Split(url[m[6]:m[7]], "&") {
			k, _, _ := strings.Cut(pair, "=")
			if !isTracking(k) {
				kept = append(kept, pair)
			}
		}
		if len(kept) > 0 {
			return host + path + "?" + strings.Join(kept, "&")
		}
	}
	return host + path
}

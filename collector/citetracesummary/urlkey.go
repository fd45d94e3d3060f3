// The one URL identity (citetrace/_urls.py): canonical form and the key under which the summary compares a
// citation, a search result and a fetched page.
package citetracesummary

import (
	"strconv"
	"strings"
	"sync"
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

// The fast path of _key_of: Python's _FAST regex,
//
//	https?://([a-z0-9.-]+)(/[A-Za-z0-9._~/-]*)?(?:\?(Q+=Q*(?:&Q+=Q*)*))?(?:#.*)?   Q = [A-Za-z0-9._~-]
//
// matched by hand (RE2 submatches cost a microsecond a URL, the summary's largest cost).
func isHostByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-'
}

func isQByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '~' || c == '-'
}

func isPathByte(c byte) bool { return isQByte(c) || c == '/' }

// fastMatch returns the host, path and query spans of a URL of the fast shape (ok false otherwise).
func fastMatch(url string) (host, path, query string, hasPath, hasQuery, ok bool) {
	var i int
	switch {
	case strings.HasPrefix(url, "https://"):
		i = 8
	case strings.HasPrefix(url, "http://"):
		i = 7
	default:
		return
	}
	start := i
	for i < len(url) && isHostByte(url[i]) {
		i++
	}
	if i == start {
		return
	}
	host = url[start:i]
	if i < len(url) && url[i] == '/' {
		start = i
		for i < len(url) && isPathByte(url[i]) {
			i++
		}
		path, hasPath = url[start:i], true
	}
	if i < len(url) && url[i] == '?' {
		start = i + 1
		j, pairs := start, 0
		for {
			k := j
			for k < len(url) && isQByte(url[k]) {
				k++
			}
			if k == j || k >= len(url) || url[k] != '=' {
				break
			}
			k++
			for k < len(url) && isQByte(url[k]) {
				k++
			}
			pairs++
			j = k
			if j < len(url) && url[j] == '&' && j+1 < len(url) && isQByte(url[j+1]) {
				j++
				continue
			}
			break
		}
		if pairs > 0 {
			query, hasQuery, i = url[start:j], true, j
		}
	}
	if i < len(url) {
		if url[i] != '#' || strings.IndexByte(url[i:], '\n') >= 0 {
			return
		}
	}
	ok = true
	return
}

// keyCache memoises keys as Python's url_key does (cleared when full: agents' URL sets are small).
type keyCache struct {
	mu sync.Mutex
	m  map[string]string
}

// keyCacheMax is small on purpose: the repeats worth caching are a run's own (a result fetched, then cited), and
// a key takes ~130 ns to compute. At 65,536 entries the cache cost the collector more than it saved (about 10 %
// of its CPU in bench_connector.py: cache misses on a table larger than the CPU cache, and a large map of
// strings for the garbage collector to scan every cycle); at 4,096 the connector/forward ratio went 0.60 -> 0.75.
const keyCacheMax = 4096

var keys = keyCache{m: make(map[string]string, keyCacheMax)}

// urlKey is url_key: the canonical key of the redacted URL; two URLs name the same page when their keys are equal.
func urlKey(url string) string {
	if key, ok := plainKey(url); ok {
		return key
	}
	keys.mu.Lock()
	key, ok := keys.m[url]
	keys.mu.Unlock()
	if ok {
		return key
	}
	key = keyOf(url)
	keys.mu.Lock()
	if len(keys.m) >= keyCacheMax {
		clear(keys.m)
	}
	keys.m[url] = key
	keys.mu.Unlock()
	return key
}

// plainKey is the key of the commonest URL shape, https://host/path with nothing after the path, that redaction
// leaves alone and whose key is the URL without its scheme: a substring, so it costs no allocation and needs no
// cache (a lookup in the shared cache costs more than this). ok is false for every other URL; keyOf takes those.
// The result is keyOf's: TestPlainKeyIsKeyOf checks it on the shared URL vector.
func plainKey(url string) (key string, ok bool) {
	host, path, _, hasPath, hasQuery, fast := fastMatch(url)
	if !fast || !hasPath || hasQuery {
		return "", false // not the fast shape ('@' and ';', where redaction acts, are neither host nor path bytes)
	}
	scheme := len("https://")
	if url[4] == ':' {
		scheme = len("http://")
	}
	if scheme+len(host)+len(path) != len(url) || host[len(host)-1] == '.' || (len(path) > 1 && path[len(path)-1] == '/') {
		return "", false // a fragment follows, or a trailing dot or slash is to be trimmed
	}
	return url[scheme:], true
}

func keyOf(url string) string {
	url = redactURL(url)
	rawHost, path, rawQuery, hasPath, hasQuery, ok := fastMatch(url)
	if !ok {
		return canonicalKey(url)
	}
	host := strings.TrimRight(rawHost, ".")
	if !hasPath {
		path = "/"
	}
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = strings.TrimRight(path, "/")
		if path == "" {
			path = "/"
		}
	}
	if hasQuery {
		var kept []string
		for _, pair := range strings.Split(rawQuery, "&") {
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

// Python's urllib.parse, as far as the URL key needs it, reproduced character for character.
//
// The summary compares citations, search results and fetched pages by one key (citetrace/_urls.py url_key),
// which Python computes with urlsplit, unquote, quote, parse_qsl and urlencode. Go's net/url parses and escapes
// differently (it rejects what Python accepts, escapes other characters, decodes "+"), so two implementations
// built on their own standard libraries would disagree on real URLs. These functions follow CPython 3.11's
// Lib/urllib/parse.py line by line instead; the shared test vectors (tests/vectors/summary) hold them to it.
package citetracesummary

import (
	"errors"
	"net/netip"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var errInvalidURL = errors.New("invalid URL")

// splitResult is urllib.parse.SplitResult.
type splitResult struct {
	scheme, netloc, path, query, fragment string
}

const schemeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-."

var usesNetloc = map[string]bool{
	"": true, "ftp": true, "http": true, "gopher": true, "nntp": true, "telnet": true, "imap": true, "wais": true,
	"file": true, "mms": true, "https": true, "shttp": true, "snews": true, "prospero": true, "rtsp": true,
	"rtsps": true, "rtspu": true, "rsync": true, "svn": true, "svn+ssh": true, "sftp": true, "nfs": true,
	"git": true, "git+ssh": true, "ws": true, "wss": true,
}

var ipvFuture = regexp.MustCompile(`\Av[a-fA-F0-9]+\.(?s:.+)\z`)

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isASCIIAlpha(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

// urlsplit is urllib.parse.urlsplit(url) (allow_fragments=True, no default scheme).
func urlsplit(url string) (splitResult, error) {
	url = strings.TrimLeft(url, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	if strings.ContainsAny(url, "\t\r\n") {
		url = strings.NewReplacer("\t", "", "\r", "", "\n", "").Replace(url)
	}
	var r splitResult
	if i := strings.IndexByte(url, ':'); i > 0 && isASCIIAlpha(url[0]) {
		ok := true
		for j := 0; j < i; j++ {
			if strings.IndexByte(schemeChars, url[j]) < 0 {
				ok = false
				break
			}
		}
		if ok {
			r.scheme, url = strings.ToLower(url[:i]), url[i+1:]
		}
	}
	if strings.HasPrefix(url, "//") {
		delim := len(url)
		for _, c := range "/?#" {
			if w := strings.IndexRune(url[2:], c); w >= 0 && w+2 < delim {
				delim = w + 2
			}
		}
		r.netloc, url = url[2:delim], url[delim:]
		open, closed := strings.Contains(r.netloc, "["), strings.Contains(r.netloc, "]")
		if open != closed {
			return r, errInvalidURL
		}
		if open && closed {
			_, after, _ := strings.Cut(r.netloc, "[")
			host, _, _ := strings.Cut(after, "]")
			if err := checkBracketedHost(host); err != nil {
				return r, err
			}
		}
	}
	if before, after, found := strings.Cut(url, "#"); found {
		url, r.fragment = before, after
	}
	if before, after, found := strings.Cut(url, "?"); found {
		url, r.query = before, after
	}
	if err := checkNetloc(r.netloc); err != nil {
		return r, err
	}
	r.path = url
	return r, nil
}

// checkBracketedHost is _check_bracketed_host: an IPvFuture literal or an IPv6 address (never IPv4).
func checkBracketedHost(host string) error {
	if strings.HasPrefix(host, "v") {
		if !ipvFuture.MatchString(host) {
			return errInvalidURL
		}
		return nil
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || addr.Is4() {
		return errInvalidURL
	}
	return nil
}

// checkNetloc is _checknetloc: a non-ASCII netloc whose NFKC form gains a URL delimiter is refused.
func checkNetloc(netloc string) error {
	if netloc == "" || isASCII(netloc) {
		return nil
	}
	n := strings.NewReplacer("@", "", ":", "", "#", "", "?", "").Replace(netloc)
	n2 := norm.NFKC.String(n)
	if n == n2 {
		return nil
	}
	if strings.ContainsAny(n2, "/?#@:") {
		return errInvalidURL
	}
	return nil
}

// urlunsplit is urllib.parse.urlunsplit.
func urlunsplit(r splitResult) string {
	url := r.path
	if r.netloc != "" || (r.scheme != "" && usesNetloc[r.scheme] && !strings.HasPrefix(url, "//")) {
		if url != "" && url[0] != '/' {
			url = "/" + url
		}
		url = "//" + r.netloc + url
	}
	if r.scheme != "" {
		url = r.scheme + ":" + url
	}
	if r.query != "" {
		url += "?" + r.query
	}
	if r.fragment != "" {
		url += "#" + r.fragment
	}
	return url
}

// hostinfo is SplitResult._hostinfo: (hostname, port, has port).
func (r splitResult) hostinfo() (string, string, bool) {
	hostinfo := r.netloc
	if i := strings.LastIndexByte(hostinfo, '@'); i >= 0 {
		hostinfo = hostinfo[i+1:]
	}
	var hostname, port string
	if _, bracketed, open := strings.Cut(hostinfo, "["); open {
		var rest string
		hostname, rest, _ = strings.Cut(bracketed, "]")
		_, port, _ = strings.Cut(rest, ":")
	} else {
		hostname, port, _ = strings.Cut(hostinfo, ":")
	}
	return hostname, port, port != ""
}

// hostname is SplitResult.hostname ("" for None): lower-cased, the zone after "%" kept as it is.
func (r splitResult) hostname() string {
	host, _, _ := r.hostinfo()
	if host == "" {
		return ""
	}
	h, zone, found := strings.Cut(host, "%")
	if found {
		return pyLower(h) + "%" + zone
	}
	return pyLower(h)
}

// port is SplitResult.port: (port, present, error).
func (r splitResult) port() (int, bool, error) {
	_, port, ok := r.hostinfo()
	if !ok {
		return 0, false, nil
	}
	n := 0
	for i := 0; i < len(port); i++ {
		c := port[i]
		if c < '0' || c > '9' {
			return 0, false, errInvalidURL
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return 0, false, errInvalidURL
		}
	}
	return n, true, nil
}

// pyLower is str.lower(): Unicode lower case, with the one unconditional special casing (U+0130).
func pyLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if r == 'İ' {
			b.WriteString("i̇")
			continue
		}
		b.WriteString(strings.ToLower(string(r)))
	}
	return b.String()
}

const alwaysSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"

// quote is urllib.parse.quote(s, safe): UTF-8 bytes, each outside always-safe + safe as %XX (upper case).
func quote(s, safe string) string {
	var tbl [256]bool
	for i := 0; i < len(alwaysSafe); i++ {
		tbl[alwaysSafe[i]] = true
	}
	for i := 0; i < len(safe); i++ {
		if safe[i] < 0x80 {
			tbl[safe[i]] = true
		}
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if !tbl[s[i]] {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if tbl[c] {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// quotePlus is urllib.parse.quote_plus(s, safe="").
func quotePlus(s string) string {
	if !strings.Contains(s, " ") {
		return quote(s, "")
	}
	return strings.ReplaceAll(quote(s, " "), " ", "+")
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// unquote is urllib.parse.unquote(s) (utf-8, errors="replace"): only ASCII stretches are decoded; each decoded
// stretch's bytes become text the way Python's UTF-8 decoder does it, one U+FFFD per maximal invalid subpart.
func unquote(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var out strings.Builder
	i := 0
	for i < len(s) {
		if s[i] >= 0x80 { // a non-ASCII stretch passes through as it is
			j := i
			for j < len(s) && s[j] >= 0x80 {
				j++
			}
			out.WriteString(s[i:j])
			i = j
			continue
		}
		j := i
		for j < len(s) && s[j] < 0x80 {
			j++
		}
		out.WriteString(decodeReplace(unquoteToBytes(s[i:j])))
		i = j
	}
	return out.String()
}

// unquoteToBytes is urllib.parse.unquote_to_bytes on an ASCII string.
func unquoteToBytes(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				out = append(out, hi<<4|lo)
				i += 2
				continue
			}
		}
		out = append(out, s[i])
	}
	return out
}

// decodeReplace is bytes.decode("utf-8", "replace"): a U+FFFD for each maximal subpart of an ill-formed sequence.
func decodeReplace(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			out.WriteRune(r)
			i += size
			continue
		}
		out.WriteRune(utf8.RuneError)
		i += maximalSubpart(b[i:])
	}
	return out.String()
}

// maximalSubpart is how many bytes of an invalid sequence at the start of b one replacement character stands for.
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k == 0 {
			if x < lo || x > hi {
				return n
			}
		} else if x < 0x80 || x > 0xBF {
			return n
		}
		n++
	}
	return n
}

type qsPair struct{ key, value string }

// parseQSL is urllib.parse.parse_qsl(qs, keep_blank_values=True, separator=sep).
func parseQSL(qs, sep string) []qsPair {
	if qs == "" {
		return nil
	}
	var out []qsPair
	for _, nv := range strings.Split(qs, sep) {
		if nv == "" {
			continue
		}
		name, value, _ := strings.Cut(nv, "=")
		out = append(out, qsPair{unquote(strings.ReplaceAll(name, "+", " ")), unquote(strings.ReplaceAll(value, "+", " "))})
	}
	return out
}

// urlencode is urllib.parse.urlencode(pairs, doseq=True) with quote_plus.
func urlencode(pairs []qsPair) string {
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(quotePlus(p.key))
		b.WriteByte('=')
		b.WriteString(quotePlus(p.value))
	}
	return b.String()
}

// pyIsSpace is str.isspace() for one rune.
func pyIsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ', 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pyStrip is str.strip() (no argument).
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pyFields is str.split() (no argument).
func pyFields(s string) []string { return strings.FieldsFunc(s, pyIsSpace) }

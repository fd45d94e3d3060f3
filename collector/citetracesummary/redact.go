// Secret redaction of URLs, as citetrace/_redact.py redact_url does it (the URL key is the canonical form of
// the redacted URL, so a raw citation and a redacted result meet in one key that never holds a secret).
package citetracesummary

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

const redacted = "REDACTED"

// Python's `\s` and `\w` on str patterns are Unicode-aware; RE2's are ASCII, so they are spelled out.
const (
	pySpace = `\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`
	pyWord  = `\p{L}\p{N}_`
)

const secretWords = `key|apikey|token|auth|authorization|secret|password|passwd|pwd|signature|sig|credential|credentials|` +
	`session|sessionid|jsessionid|phpsessid|cookie|bearer|accesstoken|authtoken|refreshtoken|idtoken|` +
	`clientsecret|secretkey|accesskey|privatekey|sessiontoken|apitoken|authkey|` +
	`cookies|tokens|secrets|passwords` // plurals: ``cookies={"sid": ...}`` is requests' cookie jar

var (
	secretWord = regexp.MustCompile(`(?:\A|[_\-.` + pySpace + `])(?:` + secretWords + `)(?:\z|[_\-.` + pySpace + `])`)
	// keyShapes is _KEY_SHAPES without its leading \b, which keyShapeSub checks the Python way.
	keyShapes = regexp.MustCompile(`\A(?i:sk-[A-Za-z0-9_\-]{8,}|[sr]k_(?:live|test)_[A-Za-z0-9]{8,}|tvly-[A-Za-z0-9_\-]{8,}|fc-[A-Za-z0-9]{16,}|` +
		`gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{30,}|` +
		`hf_[A-Za-z0-9]{30,}|xox[abpr]-[A-Za-z0-9\-]{10,}|xapp-[A-Za-z0-9\-]{10,}|whsec_[A-Za-z0-9]{20,}|` +
		`ya29\.[A-Za-z0-9_\-]{20,}|glpat-[A-Za-z0-9_\-]{20,}|npm_[A-Za-z0-9]{36}|` +
		`eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]+)`)
	keyShapeStart = regexp.MustCompile(`(?i)sk-|[sr]k_|tvly-|fc-|gh[pousr]_|github_pat_|AKIA|ASIA|AIza|hf_|xox[abpr]-|xapp-|whsec_|ya29\.|glpat-|npm_|eyJ`)
	authScheme    = regexp.MustCompile(`(?i)\b(bearer|basic)([` + pySpace + `]+)[A-Za-z0-9._~+/=\-]{6,}`)
	namedValue    = regexp.MustCompile(`(?i)([A-Za-z][` + pyWord + `.\-]*)(["']?[` + pySpace + `]*[:=][` + pySpace + `]*["']?)((?:bearer[` + pySpace + `]+|basic[` + pySpace + `]+|token[` + pySpace + `]+)?[^` + pySpace + `"'&,;}\])]+)`)
	// userinfoAt is _USERINFO anchored (its leading \b is checked the Python way): the userinfo of a URL of any
	// scheme in text (postgresql://bob:pw@db)
	userinfoAt = regexp.MustCompile(`\A(?i:([a-z][a-z0-9+.\-]*://)[^` + pySpace + `/?#@'"<>]*@)`)
	// urlAt is _urlfind._URL: a URL's longest possible extent (urlSpans trims it)
	urlAt    = regexp.MustCompile(`(?i)https?://[^` + pySpace + `<>"'\x60\]\[。，、；：！？（）【】「」『』《》〈〉“”‘’„‚«»…]+`)
	tailHint = regexp.MustCompile(`%|s(?:k(?:-|_live|_test)|ecret|ig|ession)|rk_(?:live|test)|t(?:vly-|oken)|fc-|g(?:h[pousr]_|ithub_pat_|lpat-)|` +
		`a(?:kia|sia|iza|uth|29\.)|h(?:f_|sec_)|x(?:oxa-|oxb-|oxp-|oxr-|app-)|eyj|key|p(?:assw|wd|hpsess|m_)|` +
		`c(?:redential|ookie|ode)|bearer`)
)

func isPyWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// camelSnake is _CAMEL.sub("_", name): an underscore between an ASCII lower-case letter or digit and an
// ASCII upper-case letter.
func camelSnake(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if i > 0 && c >= 'A' && c <= 'Z' {
			p := name[i-1]
			if (p >= 'a' && p <= 'z') || (p >= '0' && p <= '9') {
				b.WriteByte('_')
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// isSecretName is is_secret_name(name, in_url=True).
func isSecretName(name string) bool {
	low := pyLower(camelSnake(name))
	return secretWord.MatchString(low) || low == "code"
}

// maskKeyShapes is mask_key_shapes: well-known key shapes replaced, each starting at a word boundary, then
// private key blocks and the userinfo of URLs of any scheme.
func maskKeyShapes(text string) string {
	text = maskShapes(text)
	if strings.Contains(text, "PRIVATE KEY-----") {
		text = maskPEM(text)
	}
	if strings.Contains(text, "://") && strings.Contains(text, "@") {
		text = maskUserinfo(text)
	}
	return text
}

// maskPEM is _PEM.sub: "-----BEGIN <label>PRIVATE KEY-----" up to the first matching END line, or to the end.
func maskPEM(text string) string {
	const begin, tail = "-----BEGIN ", "PRIVATE KEY-----"
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(text[i:], begin)
		if j < 0 {
			break
		}
		start := i + j
		k := start + len(begin)
		for k < len(text) && (text[k] == ' ' || (text[k] >= 'A' && text[k] <= 'Z') || (text[k] >= '0' && text[k] <= '9')) {
			k++
		}
		// [A-Z0-9 ]* backtracks: the label is the longest prefix of that run followed by "PRIVATE KEY-----"
		label := -1
		for l := k; l >= start+len(begin); l-- {
			if strings.HasPrefix(text[l:], tail) {
				label = l
				break
			}
		}
		if label < 0 {
			b.WriteString(text[i : start+1])
			i = start + 1
			continue
		}
		body := label + len(tail)
		end := "-----END " + text[start+len(begin):label] + tail
		stop := len(text)
		if e := strings.Index(text[body:], end); e >= 0 {
			stop = body + e + len(end)
		}
		b.WriteString(text[i:start])
		b.WriteString(redacted)
		i = stop
	}
	if i == 0 {
		return text
	}
	b.WriteString(text[i:])
	return b.String()
}

// maskUserinfo is _USERINFO.sub: scheme://userinfo@ becomes scheme://REDACTED:REDACTED@.
func maskUserinfo(text string) string {
	return subAtBoundaries(text, userinfoAt, func(match string, sub []int) string {
		return match[sub[2]:sub[3]] + redacted + ":" + redacted + "@"
	})
}

// maskShapes is _KEY_SHAPES.sub: well-known key shapes replaced, each starting at a word boundary.
func maskShapes(text string) string {
	if !keyShapeStart.MatchString(text) {
		return text
	}
	return subAtBoundaries(text, keyShapes, func(string, []int) string { return redacted })
}

// subAtBoundaries is re.sub of a pattern that starts with \b, the Python way (Unicode word boundaries, which
// RE2's \b is not): the anchored pattern is tried at each word boundary, left to right, and each non-empty match
// is replaced by repl(match, its submatch indices).
func subAtBoundaries(text string, anchored *regexp.Regexp, repl func(match string, sub []int) string) string {
	var b strings.Builder
	last, i := 0, 0
	for i < len(text) {
		if wordBoundary(text, i) {
			if m := anchored.FindStringSubmatchIndex(text[i:]); m != nil && m[1] > 0 {
				b.WriteString(text[last:i])
				b.WriteString(repl(text[i:i+m[1]], m))
				i += m[1]
				last = i
				continue
			}
		}
		_, size := decodeRuneAt(text, i)
		i += size
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

func decodeRuneAt(s string, i int) (rune, int) { return utf8.DecodeRuneInString(s[i:]) }

// wordBoundary is Python's Unicode \b at byte offset i.
func wordBoundary(s string, i int) bool {
	before := false
	if i > 0 {
		r := lastRuneBefore(s, i)
		before = isPyWord(r)
	}
	after := false
	if i < len(s) {
		r, _ := decodeRuneAt(s, i)
		after = isPyWord(r)
	}
	return before != after
}

func lastRuneBefore(s string, i int) rune {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

// tailAt is _tail_at: where the query or fragment starts.
func tailAt(url string) int {
	q := strings.IndexByte(url, '?')
	end := len(url)
	if q >= 0 {
		end = q
	}
	if h := strings.IndexByte(url[:end], '#'); h >= 0 {
		return h
	}
	if q >= 0 {
		return q
	}
	return len(url)
}

// nesting is _NESTING: URLs and forms inside parameter values are redacted this many levels deep.
const nesting = 3

// redactParams is _redact_params: name=value pairs with each secret-named value replaced and each other value
// that holds a URL or a form redacted inside (nesting levels deep); a query is split at ";" as well as "&";
// pairs that hold no secret are kept byte for byte.
func redactParams(qs, sep string, depth int) string {
	seps := sep
	if sep == "&" && strings.Contains(qs, ";") {
		seps = "&;"
	}
	var pieces []string // names and values at even indices, the separators at odd ones
	start := 0
	for i := 0; i < len(qs); i++ {
		if strings.IndexByte(seps, qs[i]) >= 0 {
			pieces = append(pieces, qs[start:i], qs[i:i+1])
			start = i + 1
		}
	}
	pieces = append(pieces, qs[start:])
	changed := false
	for i := 0; i < len(pieces); i += 2 {
		rawName, rawValue, eq := strings.Cut(pieces[i], "=")
		name := unquotePlus(rawName)
		var piece string
		switch {
		case isSecretName(name):
			piece = quote(name, "") + "=" + redacted
		case eq && (strings.Contains(rawValue, "=") || strings.Contains(rawValue, "%") || strings.Contains(rawValue, "://")):
			value := unquotePlus(rawValue)
			inner := redactNested(value, depth+1)
			if inner == value {
				continue
			}
			if rawValue != value || strings.ContainsAny(inner, "&#") {
				inner = quote(inner, "")
			}
			piece = rawName + "=" + inner
		default:
			continue
		}
		if piece != pieces[i] {
			pieces[i] = piece
			changed = true
		}
	}
	if !changed {
		return qs
	}
	return strings.Join(pieces, "")
}

// unquotePlus is urllib.parse.unquote_plus.
func unquotePlus(s string) string { return unquote(strings.ReplaceAll(s, "+", " ")) }

// redactNested is _redact_nested: a parameter's decoded value with the URLs and the form in it redacted; past
// nesting levels, a value that may hold a secret is replaced whole.
func redactNested(value string, depth int) string {
	if depth > nesting {
		if tailHint.MatchString(pyLower(value)) {
			return redacted
		}
		return value
	}
	if strings.Contains(value, "://") {
		return mapURLs(value, maskKeyShapes, func(u string) string { return redactURLParts(u, depth) })
	}
	if strings.Contains(value, "=") {
		return maskKeyShapes(redactParams(value, "&", depth))
	}
	return value
}

// mapURLs is _map_urls: every URL in text through each, every stretch between URLs through between.
func mapURLs(text string, between, each func(string) string) string {
	var b strings.Builder
	last := 0
	for _, sp := range urlSpans(text) {
		b.WriteString(between(text[last:sp[0]]))
		b.WriteString(each(text[sp[0]:sp[1]]))
		last = sp[1]
	}
	b.WriteString(between(text[last:]))
	return b.String()
}

// urlSpans is _urlfind.url_spans: (start, end) of every URL in text, trailing punctuation and an unbalanced
// closing parenthesis trimmed.
func urlSpans(text string) [][2]int {
	var out [][2]int
	for _, m := range urlAt.FindAllStringIndex(text, -1) {
		start, end := m[0], m[1]
		for end > start {
			c := text[end-1]
			if strings.IndexByte(".,;:!?*_'\"", c) >= 0 ||
				(c == ')' && strings.Count(text[start:end], "(") < strings.Count(text[start:end], ")")) {
				end--
				continue
			}
			break
		}
		if utf8.RuneCountInString(text[start:end]) > len("https://") {
			out = append(out, [2]int{start, end})
		}
	}
	return out
}

// redactPathParams is _redact_path_params.
func redactPathParams(path string) string {
	segments := strings.Split(path, "/")
	for i, seg := range segments {
		if strings.Contains(seg, ";") && strings.Contains(seg, "=") {
			head, params, _ := strings.Cut(seg, ";")
			segments[i] = head + ";" + redactParams(params, ";", nesting)
		}
	}
	return strings.Join(segments, "/")
}

// redactURL is redact_url: userinfo, secret-named parameters and key shapes removed; idempotent.
func redactURL(url string) string {
	if !strings.ContainsAny(url, "@;") {
		at := tailAt(url)
		if at == len(url) || !tailHint.MatchString(pyLower(url[at:])) {
			return url
		}
	}
	return redactURLParts(url, 0)
}

// redactURLParts is _redact_url_parts: redactURL past its early return; depth counts the URLs this one is
// nested in (query values).
func redactURLParts(url string, depth int) string {
	parts, err := urlsplit(url)
	if err != nil {
		return redactProse(url)
	}
	if i := strings.LastIndexByte(parts.netloc, '@'); i >= 0 {
		parts.netloc = redacted + ":" + redacted + "@" + parts.netloc[i+1:]
	}
	if strings.Contains(parts.path, ";") {
		parts.path = redactPathParams(parts.path)
	}
	if parts.query != "" {
		parts.query = maskKeyShapes(redactParams(parts.query, "&", depth))
	}
	if parts.fragment != "" {
		f := parts.fragment
		if strings.Contains(f, "=") {
			f = redactParams(f, "&", depth)
		}
		parts.fragment = maskKeyShapes(f)
	}
	return urlunsplit(parts)
}

// redactProse is _redact_prose: key shapes, Bearer/Basic credentials and secret-named name=value pairs.
func redactProse(text string) string {
	text = maskKeyShapes(text)
	text = authScheme.ReplaceAllString(text, "${1}${2}"+redacted)
	return namedValue.ReplaceAllStringFunc(text, func(m string) string {
		sub := namedValue.FindStringSubmatch(m)
		if !isProseSecretName(sub[1]) {
			return m
		}
		return sub[1] + sub[2] + redacted
	})
}

// isProseSecretName is is_secret_name(name, in_url=False).
func isProseSecretName(name string) bool {
	low := pyLower(camelSnake(name))
	for _, suffix := range []string{"error", "exception", "warning"} {
		if strings.HasSuffix(low, suffix) {
			return false
		}
	}
	return secretWord.MatchString(low)
}

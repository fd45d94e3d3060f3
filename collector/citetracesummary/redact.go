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
	`clientsecret|secretkey|accesskey|privatekey|sessiontoken|apitoken|authkey`

var (
	secretWord = regexp.MustCompile(`(?:\A|[_\-.` + pySpace + `])(?:` + secretWords + `)(?:\z|[_\-.` + pySpace + `])`)
	// keyShapes is _KEY_SHAPES without its leading \b, which keyShapeSub checks the Python way.
	keyShapes = regexp.MustCompile(`\A(?i:sk-[A-Za-z0-9_\-]{8,}|[sr]k_(?:live|test)_[A-Za-z0-9]{8,}|tvly-[A-Za-z0-9_\-]{8,}|fc-[A-Za-z0-9]{16,}|` +
		`gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{30,}|` +
		`hf_[A-Za-z0-9]{30,}|xox[abpr]-[A-Za-z0-9\-]{10,}|` +
		`eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]+)`)
	keyShapeStart = regexp.MustCompile(`(?i)sk-|[sr]k_|tvly-|fc-|gh[pousr]_|github_pat_|AKIA|ASIA|AIza|hf_|xox[abpr]-|eyJ`)
	authScheme    = regexp.MustCompile(`(?i)\b(bearer|basic)([` + pySpace + `]+)[A-Za-z0-9._~+/=\-]{6,}`)
	namedValue    = regexp.MustCompile(`(?i)([A-Za-z][` + pyWord + `.\-]*)(["']?[` + pySpace + `]*[:=][` + pySpace + `]*["']?)((?:bearer[` + pySpace + `]+|basic[` + pySpace + `]+|token[` + pySpace + `]+)?[^` + pySpace + `"'&,;}\])]+)`)
	tailHint      = regexp.MustCompile(`%|s(?:k(?:-|_live|_test)|ecret|ig|ession)|rk_(?:live|test)|t(?:vly-|oken)|fc-|g(?:h[pousr]_|ithub_pat_)|` +
		`a(?:kia|sia|iza|uth)|hf_|xox[abpr]-|eyj|key|p(?:assw|wd|hpsess)|c(?:redential|ookie|ode)|bearer`)
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

// maskKeyShapes is mask_key_shapes: well-known key shapes replaced, each starting at a word boundary.
func maskKeyShapes(text string) string {
	if !keyShapeStart.MatchString(text) {
		return text
	}
	var b strings.Builder
	last, i := 0, 0
	for i < len(text) {
		if wordBoundary(text, i) {
			if m := keyShapes.FindStringIndex(text[i:]); m != nil && m[1] > 0 {
				b.WriteString(text[last:i])
				b.WriteString(redacted)
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

// redactParams is _redact_params.
func redactParams(qs, sep string) string {
	pairs := parseQSL(qs, sep)
	any := false
	for _, p := range pairs {
		if isSecretName(p.key) {
			any = true
			break
		}
	}
	if !any {
		return qs
	}
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		v := redacted
		if !isSecretName(p.key) {
			v = quote(p.value, "")
		}
		parts[i] = quote(p.key, "") + "=" + v
	}
	return strings.Join(parts, sep)
}

// redactPathParams is _redact_path_params.
func redactPathParams(path string) string {
	segments := strings.Split(path, "/")
	for i, seg := range segments {
		if strings.Contains(seg, ";") && strings.Contains(seg, "=") {
			head, params, _ := strings.Cut(seg, ";")
			segments[i] = head + ";" + redactParams(params, ";")
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
		parts.query = maskKeyShapes(redactParams(parts.query, "&"))
	}
	if parts.fragment != "" {
		f := parts.fragment
		if strings.Contains(f, "=") {
			f = redactParams(f, "&")
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

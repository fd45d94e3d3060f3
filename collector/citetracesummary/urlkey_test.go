package citetracesummary

import (
	"encoding/json"
	"os"
	"testing"
)

// TestURLKeys: url_key, redact_url and canonical_url equal Python's on every URL of the shared URL vector.
func TestURLKeys(t *testing.T) {
	raw, err := os.ReadFile("../../tests/vectors/url_keys.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []struct{ URL, Key, Redacted, Canonical string } `json:"cases"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) < 1000 {
		t.Fatalf("only %d URL cases", len(v.Cases))
	}
	bad := 0
	for _, c := range v.Cases {
		if got := redactURL(c.URL); got != c.Redacted {
			t.Errorf("redactURL(%q) = %q, want %q", c.URL, got, c.Redacted)
			bad++
		}
		if got := canonicalURL(c.URL); got != c.Canonical {
			t.Errorf("canonicalURL(%q) = %q, want %q", c.URL, got, c.Canonical)
			bad++
		}
		if got := urlKey(c.URL); got != c.Key {
			t.Errorf("urlKey(%q) = %q, want %q", c.URL, got, c.Key)
			bad++
		}
		if bad > 40 {
			t.Fatal("too many differences")
		}
	}
}

// TestPlainKeyIsKeyOf: wherever the allocation-free path takes a URL of the shared vector, its key is keyOf's
// (and Python's); it takes the plain https://host/path URLs and leaves every other shape to keyOf.
func TestPlainKeyIsKeyOf(t *testing.T) {
	raw, err := os.ReadFile("../../tests/vectors/url_keys.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []struct{ URL, Key string } `json:"cases"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	taken := 0
	for _, c := range append(v.Cases, struct{ URL, Key string }{"https://site3.example/p/12", "site3.example/p/12"}) {
		key, ok := plainKey(c.URL)
		if !ok {
			continue
		}
		taken++
		if key != keyOf(c.URL) || key != c.Key {
			t.Errorf("plainKey(%q) = %q; keyOf gives %q, Python %q", c.URL, key, keyOf(c.URL), c.Key)
		}
	}
	for _, u := range []string{"https://a.example", "https://a.example./p", "https://a.example/p/", "https://a.example/p?q=1",
		"https://a.example/p#f", "https://u:p@a.example/p", "https://a.example/p;s=1", "https://A.example/p", "ftp://a.example/p"} {
		if _, ok := plainKey(u); ok {
			t.Errorf("plainKey took %q, which keyOf must handle", u)
		}
	}
	if taken < 12 {
		t.Fatalf("plainKey took only %d URLs of the vector", taken)
	}
}

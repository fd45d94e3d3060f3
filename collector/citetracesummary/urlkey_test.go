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

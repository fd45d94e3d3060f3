package citetracesummary

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/citetrace/citetracesummary/internal/names"
)

// vectorsDir holds the shared vectors the Python suite generates and runs too.
const vectorsDir = "../../tests/vectors/summary"

type vector struct {
	Name     string         `json:"name"`
	Config   map[string]any `json:"config"`
	Batches  []vectorBatch  `json:"batches"`
	Expected vectorExpected `json:"expected"`
}

type vectorBatch struct {
	At      float64         `json:"at"`
	Request json.RawMessage `json:"request"`
}

type vectorExpected struct {
	Summaries []map[string]any   `json:"summaries"`
	Metrics   map[string]float64 `json:"metrics"`
	Refused   map[string]int64   `json:"refused"`
}

func vectorConfig(t *testing.T, raw map[string]any) *Config {
	cfg := createDefaultConfig()
	num := func(k string) (float64, bool) {
		v, ok := raw[k]
		if !ok {
			return 0, false
		}
		return v.(float64), true
	}
	ints := map[string]*int{"max_searches": &cfg.MaxSearches, "max_failed_reads": &cfg.MaxFailedReads,
		"max_traces": &cfg.MaxTraces, "max_spans_per_trace": &cfg.MaxSpansPerTrace,
		"max_roots_per_trace": &cfg.MaxRootsPerTrace, "max_urls_per_trace": &cfg.MaxURLsPerTrace,
		"max_held_bytes": &cfg.MaxHeldBytes, "max_tool_names": &cfg.MaxToolNames}
	for k := range raw {
		if p, ok := ints[k]; ok {
			v, _ := num(k)
			*p = int(v)
			continue
		}
		switch k {
		case "sample_percent":
			cfg.SamplePercent, _ = num(k)
		case "sample_salt":
			cfg.SampleSalt = raw[k].(string)
		case "grace_seconds":
			cfg.GraceSeconds, _ = num(k)
		case "ttl_seconds":
			cfg.TraceTTLSeconds, _ = num(k)
		default:
			t.Fatalf("unknown vector config key %q", k)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// summaryDict is TraceSummary.to_dict, as JSON would carry it.
func summaryDict(s Summary) map[string]any {
	strs := func(v []string) []any {
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = x
		}
		return out
	}
	return map[string]any{
		"agent": s.Agent, "run_id": s.RunID, "trace_id": s.TraceID,
		"searches": float64(s.Searches), "reads": float64(s.Reads), "repeat_queries": float64(s.RepeatQueries),
		"empty_searches": float64(s.EmptySearches), "failed_reads": float64(s.FailedReads),
		"rate_limited": float64(s.RateLimited), "distinct_urls_seen": float64(s.DistinctURLsSeen),
		"citations": float64(s.Citations), "uncited_from_retrieval": float64(s.UncitedFromRetrieval),
		"cited_not_fetched": float64(s.CitedNotFetched), "pages_from_search": float64(s.PagesFromSearch),
		"unreported_searches": float64(s.UnreportedSearches),
		"slowest_ms":          s.SlowestMs, "total_ms": s.TotalMs,
		"failure_reasons": strs(s.FailureReasons), "failed": s.Failed, "keep": s.Keep,
		"uncited_urls": strs(s.UncitedURLs), "unfetched_urls": strs(s.UnfetchedURLs),
	}
}

func leLabel(b float64) string {
	if math.IsInf(b, 1) {
		return "+Inf"
	}
	s := strconv.FormatFloat(b, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func sampleKey(name string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, labels[k])
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

func labelMap(names []string, key string) map[string]string {
	out := map[string]string{}
	if len(names) == 0 {
		return out
	}
	for i, v := range strings.Split(key, labelSep) {
		out[names[i]] = v
	}
	return out
}

// exposition renders the connector's series the way the Python registry exposes them.
func exposition(m *summaryMetrics) map[string]float64 {
	out := map[string]float64{}
	for _, c := range append(m.counters(), m.ledger.counters()...) {
		for k, v := range c.values {
			out[sampleKey(c.name, labelMap(c.labels, k))] = v
		}
	}
	for k, v := range m.ledger.unresolved {
		out[sampleKey(names.MetricLedgerUnresolved, map[string]string{names.LabelAgent: k})] = v
	}
	hists := []*histogram{m.toolSeconds}
	for _, p := range m.perRun {
		hists = append(hists, p.h)
	}
	for _, h := range hists {
		for k, s := range h.series {
			labels := labelMap(h.labels, k)
			var acc uint64
			for i, c := range s.counts {
				acc += c
				b := math.Inf(1)
				if i < len(h.bounds) {
					b = h.bounds[i]
				}
				bl := map[string]string{"le": leLabel(b)}
				for lk, lv := range labels {
					bl[lk] = lv
				}
				out[sampleKey(h.name+"_bucket", bl)] = float64(acc)
			}
			out[sampleKey(h.name+"_count", labels)] = float64(acc)
			out[sampleKey(h.name+"_sum", labels)] = s.total
		}
	}
	return out
}

type vectorRun struct {
	summaries []Summary
	metrics   map[string]float64
	core      *core
	out       *consumertest.TracesSink
	spansIn   int
}

func runVector(t *testing.T, v vector) vectorRun {
	t.Helper()
	cfg := vectorConfig(t, v.Config)
	c, sink := testCore(t, cfg)
	now := 0.0
	c.mono = func() float64 { return now }
	var run vectorRun
	c.observe = func(s []Summary) { run.summaries = append(run.summaries, s...) }
	ctx := context.Background()
	var um ptrace.JSONUnmarshaler
	for _, b := range v.Batches {
		now = b.At
		c.tick(ctx)
		td, err := um.UnmarshalTraces(b.Request)
		if err != nil {
			t.Fatalf("%s: batch at %v: %v", v.Name, b.At, err)
		}
		run.spansIn += td.SpanCount()
		if err := c.consume(ctx, td); err != nil {
			t.Fatal(err)
		}
	}
	now += cfg.GraceSeconds + 1
	c.tick(ctx)
	now += cfg.TraceTTLSeconds + 1
	c.tick(ctx)
	run.metrics = exposition(c.metrics)
	run.core, run.out = c, sink
	return run
}

func loadVectors(t *testing.T) []vector {
	paths, err := filepath.Glob(filepath.Join(vectorsDir, "*.json"))
	if err != nil || len(paths) < 10 {
		t.Fatalf("expected the shared vectors in %s, found %d (%v)", vectorsDir, len(paths), err)
	}
	var out []vector
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var v vector
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, v)
	}
	return out
}

// TestVectors runs every shared vector through the connector's core: the same summaries in the same order,
// the same metric samples, the same refused spans as the Python implementation.
func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			run := runVector(t, v)
			got := make([]map[string]any, len(run.summaries))
			for i, s := range run.summaries {
				got[i] = summaryDict(s)
			}
			if len(got) != len(v.Expected.Summaries) {
				t.Fatalf("%d summaries, want %d", len(got), len(v.Expected.Summaries))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], v.Expected.Summaries[i]) {
					t.Errorf("summary %d:\n got  %v\n want %v", i, got[i], v.Expected.Summaries[i])
				}
			}
			for k, want := range v.Expected.Metrics {
				if g, ok := run.metrics[k]; !ok || g != want {
					t.Errorf("metric %s = %v (present %v), want %v", k, g, ok, want)
				}
			}
			for k := range run.metrics {
				if _, ok := v.Expected.Metrics[k]; !ok {
					t.Errorf("metric %s = %v not in the Python exposition", k, run.metrics[k])
				}
			}
			refused := map[string]int64{names.RejectInvalidSpan: run.core.stats.invalid.Load(),
				names.RejectAttributeType: run.core.stats.mistyped.Load()}
			if !reflect.DeepEqual(refused, v.Expected.Refused) {
				t.Errorf("refused %v, want %v", refused, v.Expected.Refused)
			}
			checkTracesOut(t, run)
		})
	}
}

// checkTracesOut: every span passes through exactly once, and each summarised root carries its summary.
func checkTracesOut(t *testing.T, run vectorRun) {
	t.Helper()
	out := 0
	byRoot := map[string]Summary{}
	for _, s := range run.summaries {
		byRoot[s.TraceID+"/"+s.RunID] = s
	}
	summarised := 0
	for _, td := range run.out.AllTraces() {
		out += td.SpanCount()
		rss := td.ResourceSpans()
		for i := 0; i < rss.Len(); i++ {
			sss := rss.At(i).ScopeSpans()
			for j := 0; j < sss.Len(); j++ {
				spans := sss.At(j).Spans()
				for k := 0; k < spans.Len(); k++ {
					span := spans.At(k)
					keep, ok := span.Attributes().Get(names.SummaryKeep)
					if !ok {
						continue
					}
					summarised++
					runID, _ := span.Attributes().Get(names.RunId)
					s, found := byRoot[span.TraceID().String()+"/"+runID.Str()]
					if !found {
						t.Errorf("root %s carries a summary no run has", span.SpanID())
						continue
					}
					if keep.Bool() != s.Keep {
						t.Errorf("root %s keep=%v, summary says %v", span.SpanID(), keep.Bool(), s.Keep)
					}
					want := pcommon.NewMap()
					writeSummary(want, &s)
					want.Range(func(k string, v pcommon.Value) bool {
						g, ok := span.Attributes().Get(k)
						if !ok || !reflect.DeepEqual(g.AsRaw(), v.AsRaw()) {
							t.Errorf("root %s: %s = %v, want %v", span.SpanID(), k, g.AsRaw(), v.AsRaw())
						}
						return true
					})
				}
			}
		}
	}
	if copies := int(run.core.stats.rootCopies.Load()); out != run.spansIn-copies {
		t.Errorf("%d spans out, %d in (%d re-sent copies of held roots): every other span must pass through "+
			"exactly once", out, run.spansIn, copies)
	}
	if summarised == 0 && len(run.summaries) > 0 && hasRoots(run.summaries) {
		t.Errorf("no root carries a summary")
	}
}

func hasRoots(sums []Summary) bool {
	for _, s := range sums {
		if s.RunID != "" {
			return true
		}
	}
	return false
}

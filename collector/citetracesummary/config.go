package citetracesummary

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"

	"github.com/citetrace/citetracesummary/internal/names"
)

// Config is the connector's configuration. The thresholds and the sample settings mean what
// CITETRACE_MAX_SEARCHES, CITETRACE_MAX_FAILED_READS, CITETRACE_SAMPLE_PERCENT and CITETRACE_SAMPLE_SALT mean
// in-process; the bounds are citetrace serve's (docs/collector.md).
type Config struct {
	// MaxSearches: more searches than this is too_many_searches.
	MaxSearches int `mapstructure:"max_searches"`
	// MaxFailedReads: more failed reads than this is failed_reads.
	MaxFailedReads int `mapstructure:"max_failed_reads"`
	// SamplePercent of healthy traces is kept, by the tail sampler's FNV-1a hash of the trace id.
	SamplePercent float64 `mapstructure:"sample_percent"`
	// SampleSalt must equal the tail sampler's hash_salt.
	SampleSalt string `mapstructure:"sample_salt"`
	// GraceSeconds after a run's root arrives its trace is finalised (late children still count), and the root,
	// held back until then, goes on with its summary.
	GraceSeconds float64 `mapstructure:"grace_seconds"`
	// TraceTTLSeconds: a trace without a root idle this long is finalised from what arrived.
	TraceTTLSeconds float64 `mapstructure:"trace_ttl_seconds"`
	// MaxTraces in flight; the least recently active is evicted past it.
	MaxTraces int `mapstructure:"max_traces"`
	// MaxSpansPerTrace tool spans; further ones are left out of the summary (and counted).
	MaxSpansPerTrace int `mapstructure:"max_spans_per_trace"`
	// MaxRootsPerTrace invoke_agent roots (runs) per trace.
	MaxRootsPerTrace int `mapstructure:"max_roots_per_trace"`
	// MaxURLsPerTrace URLs per trace (results, pages, url.full, citations).
	MaxURLsPerTrace int `mapstructure:"max_urls_per_trace"`
	// MaxHeldBytes all traces in flight hold together (serve's estimate); the least recently active is evicted past it.
	MaxHeldBytes int `mapstructure:"max_held_bytes"`
	// MaxToolNames caps the distinct agent and tool label values each; further ones become "other".
	MaxToolNames int `mapstructure:"max_tool_names"`
	// MetricsFlushInterval is how often the cumulative metrics go to the metrics pipeline.
	MetricsFlushInterval time.Duration `mapstructure:"metrics_flush_interval"`
	// Tick is how often due traces are finalised.
	Tick time.Duration `mapstructure:"tick"`
	// Instance is the instance label of the metrics (their service.instance.id): stable across restarts and
	// unique per collector, such as the pod name. Empty: the collector's service.instance.id, a new random id per
	// start, so that each restart begins new series whose first sample increase() and rate() cannot count.
	Instance string `mapstructure:"instance"`
	// MetricsOf makes this connector a metrics outlet: the id of the citetracesummary connector whose metrics it
	// sends (e.g. "citetracesummary"). An outlet takes no other setting; it is used as an exporter at the end of
	// that connector's traces output pipeline and as the receiver of a metrics pipeline, so the pipeline feeding
	// the summarising connector has no second consumer and the collector does not copy its batches.
	MetricsOf string `mapstructure:"metrics_of"`
}

func createDefaultConfig() *Config {
	return &Config{
		MaxSearches:          names.DefaultMaxSearches,
		MaxFailedReads:       names.DefaultMaxFailedReads,
		SamplePercent:        names.DefaultSamplePercent,
		SampleSalt:           names.DefaultSampleSalt,
		GraceSeconds:         2,
		TraceTTLSeconds:      600,
		MaxTraces:            10_000,
		MaxSpansPerTrace:     1_000,
		MaxRootsPerTrace:     16,
		MaxURLsPerTrace:      20_000,
		MaxHeldBytes:         256 << 20,
		MaxToolNames:         50,
		MetricsFlushInterval: 15 * time.Second,
		Tick:                 100 * time.Millisecond,
	}
}

// Validate names the first setting out of range.
func (c *Config) Validate() error {
	var errs []error
	positive := func(name string, v int) {
		if v < 1 {
			errs = append(errs, fmt.Errorf("%s must be at least 1, got %d", name, v))
		}
	}
	if c.MaxSearches < 0 {
		errs = append(errs, fmt.Errorf("max_searches must be at least 0, got %d", c.MaxSearches))
	}
	if c.MaxFailedReads < 0 {
		errs = append(errs, fmt.Errorf("max_failed_reads must be at least 0, got %d", c.MaxFailedReads))
	}
	if !(c.SamplePercent >= 0 && c.SamplePercent <= 100) {
		errs = append(errs, fmt.Errorf("sample_percent must be between 0 and 100, got %v", c.SamplePercent))
	}
	positive("max_traces", c.MaxTraces)
	positive("max_spans_per_trace", c.MaxSpansPerTrace)
	positive("max_roots_per_trace", c.MaxRootsPerTrace)
	positive("max_urls_per_trace", c.MaxURLsPerTrace)
	positive("max_held_bytes", c.MaxHeldBytes)
	positive("max_tool_names", c.MaxToolNames)
	if !(c.GraceSeconds >= 0) {
		errs = append(errs, fmt.Errorf("grace_seconds must not be negative, got %v", c.GraceSeconds))
	}
	if !(c.TraceTTLSeconds > 0) {
		errs = append(errs, fmt.Errorf("trace_ttl_seconds must be positive, got %v", c.TraceTTLSeconds))
	}
	if c.MetricsFlushInterval <= 0 {
		errs = append(errs, fmt.Errorf("metrics_flush_interval must be positive, got %v", c.MetricsFlushInterval))
	}
	if c.Tick <= 0 {
		errs = append(errs, fmt.Errorf("tick must be positive, got %v", c.Tick))
	}
	if c.MetricsOf != "" {
		errs = append(errs, c.validateOutlet()...)
	}
	return errors.Join(errs...)
}

// validateOutlet checks an outlet's metrics_of names a citetracesummary connector, and that nothing else is set.
func (c *Config) validateOutlet() []error {
	var errs []error
	if id, _, err := c.metricsOf(); err != nil {
		errs = append(errs, err)
	} else if id.Type() != componentType {
		errs = append(errs, fmt.Errorf("metrics_of must name a %s connector, got %q", typeStr, c.MetricsOf))
	}
	rest := *c
	rest.MetricsOf = ""
	if rest != *createDefaultConfig() {
		errs = append(errs, fmt.Errorf("metrics_of makes a metrics outlet, which takes no other setting: set them on %s", c.MetricsOf))
	}
	return errs
}

// metricsOf is the connector an outlet's metrics_of names (ok false when this is no outlet).
func (c *Config) metricsOf() (id component.ID, ok bool, err error) {
	if c.MetricsOf == "" {
		return id, false, nil
	}
	if err := id.UnmarshalText([]byte(c.MetricsOf)); err != nil {
		return id, true, fmt.Errorf("metrics_of: %w", err)
	}
	return id, true, nil
}

func (c *Config) thresholds() *Thresholds {
	t := &Thresholds{MaxSearches: c.MaxSearches, MaxFailedReads: c.MaxFailedReads, SamplePercent: c.SamplePercent, SampleSalt: c.SampleSalt}
	t.init()
	return t
}

func (c *Config) limits() limits {
	return limits{maxTraces: c.MaxTraces, maxSpans: c.MaxSpansPerTrace, maxRoots: c.MaxRootsPerTrace,
		maxURLs: c.MaxURLsPerTrace, maxHeld: c.MaxHeldBytes, grace: c.GraceSeconds, ttl: c.TraceTTLSeconds}
}

// Package citetracesummary is citetrace's summary as an OpenTelemetry Collector connector: traces in; the
// summary metrics out; and the traces out with citetrace.summary.* and the keep decision on each run's root, so
// a tail sampler downstream in the same collector keeps failed runs. It implements citetrace's Python summary
// exactly; the shared vectors in tests/vectors/summary prove it.
package citetracesummary

import (
	"context"
	"fmt"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

const typeStr = "citetracesummary"

var componentType = component.MustNewType(typeStr)

// NewFactory is the connector's factory (traces to traces, traces to metrics).
func NewFactory() connector.Factory {
	f := &factory{cores: map[*Config]*core{}, byID: map[component.ID]*core{}}
	return connector.NewFactory(componentType, func() component.Config { return createDefaultConfig() },
		connector.WithTracesToTraces(f.tracesToTraces, component.StabilityLevelAlpha),
		connector.WithTracesToMetrics(f.tracesToMetrics, component.StabilityLevelAlpha))
}

// factory shares one core between the two nodes the collector builds for one configured connector, so each span
// is summarised once and both outputs see the same state; and it finds that core for an outlet (metrics_of).
type factory struct {
	mu    sync.Mutex
	cores map[*Config]*core
	byID  map[component.ID]*core // the cores of connectors used traces -> traces, by component id
}

func (f *factory) core(set connector.Settings, cfg component.Config) (*core, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := cfg.(*Config)
	if existing, ok := f.cores[c]; ok {
		return existing, nil
	}
	var created *core
	tel, err := newTelemetry(set.TelemetrySettings, func() int64 {
		if created == nil {
			return 0
		}
		return created.inFlight.Load()
	})
	if err != nil {
		return nil, err
	}
	created = newCore(c, set.Logger, tel, set.Resource)
	f.cores[c] = created
	return created, nil
}

func (f *factory) release(c *core) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range f.cores {
		if v == c && v.started == 0 {
			delete(f.cores, k)
		}
	}
	for k, v := range f.byID {
		if v == c && v.started == 0 {
			delete(f.byID, k)
		}
	}
}

// summarising is the core of the connector id, used traces -> traces (nil if there is none).
func (f *factory) summarising(id component.ID) *core {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byID[id]
}

func (f *factory) tracesToTraces(_ context.Context, set connector.Settings, cfg component.Config, next consumer.Traces) (connector.Traces, error) {
	if of := cfg.(*Config).MetricsOf; of != "" {
		return nil, fmt.Errorf("connector %q has metrics_of (%s), so it is a metrics outlet: use it as an exporter "+
			"of %s's traces output pipeline and a receiver of a metrics pipeline, not in a traces -> traces pair", set.ID, of, of)
	}
	c, err := f.core(set, cfg)
	if err != nil {
		return nil, err
	}
	c.tracesOut = next
	f.mu.Lock()
	f.byID[set.ID] = c
	f.mu.Unlock()
	return &node{core: c, factory: f, leader: true}, nil
}

func (f *factory) tracesToMetrics(_ context.Context, set connector.Settings, cfg component.Config, next consumer.Metrics) (connector.Traces, error) {
	if of, ok, err := cfg.(*Config).metricsOf(); err != nil {
		return nil, err
	} else if ok {
		return &outlet{factory: f, id: set.ID, of: of, next: next}, nil
	}
	c, err := f.core(set, cfg)
	if err != nil {
		return nil, err
	}
	c.metricsOut = next
	return &node{core: c, factory: f}, nil
}

// node is one of the collector's graph nodes for the connector. The traces->traces node (when configured) does
// the work for both; the traces->metrics node then only takes part in the lifecycle.
type node struct {
	core    *core
	factory *factory
	leader  bool
}

func (n *node) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: n.leader}
}

// summarises tells whether this node does the work: the traces node, or the metrics node when there is none.
func (n *node) summarises() bool { return n.leader || n.core.tracesOut == nil }

func (n *node) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	if !n.summarises() {
		return nil
	}
	return n.core.consume(ctx, td)
}

func (n *node) Start(context.Context, component.Host) error {
	n.core.start()
	return nil
}

func (n *node) Shutdown(ctx context.Context) error {
	n.core.shutdown(ctx, n.summarises())
	n.factory.release(n.core)
	return nil
}

// outlet is a connector with metrics_of: the traces -> metrics node that sends another citetracesummary
// connector's metrics. It sits at the end of that connector's traces output pipeline, so the pipeline that feeds
// the summarising connector has it as its only consumer and the collector's fanout hands it the batch itself:
// with a traces -> metrics node of the same connector beside it on that pipeline, the fanout would copy every
// batch for the traces node, which mutates (it takes the roots out), because a read-only consumer shares it
// (about a tenth of the collector's CPU; docs/collector.md). The traces the outlet is given are that pipeline's
// output, already summarised: it drops them.
type outlet struct {
	factory *factory
	id, of  component.ID
	next    consumer.Metrics
	core    *core
}

func (o *outlet) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

func (o *outlet) ConsumeTraces(context.Context, ptrace.Traces) error { return nil }

// Start finds the summarising connector (every component is built before any starts) and takes its metrics.
func (o *outlet) Start(context.Context, component.Host) error {
	c := o.factory.summarising(o.of)
	if c == nil {
		return fmt.Errorf("connector %q: metrics_of %q names no citetracesummary connector that is used traces -> traces "+
			"in this collector", o.id, o.of)
	}
	if err := c.sendMetricsTo(o.next); err != nil {
		return fmt.Errorf("connector %q: %w", o.id, err)
	}
	o.core = c
	c.start()
	return nil
}

func (o *outlet) Shutdown(ctx context.Context) error {
	if o.core == nil {
		return nil
	}
	o.core.shutdown(ctx, false)
	o.factory.release(o.core)
	return nil
}

// Package citetracesummary is citetrace's summary as an OpenTelemetry Collector connector: traces in; the
// summary metrics out; and the traces out with citetrace.summary.* and the keep decision on each run's root, so
// a tail sampler downstream in the same collector keeps failed runs. It implements citetrace's Python summary
// exactly; the shared vectors in tests/vectors/summary prove it.
package citetracesummary

import (
	"context"
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
	f := &factory{cores: map[*Config]*core{}}
	return connector.NewFactory(componentType, func() component.Config { return createDefaultConfig() },
		connector.WithTracesToTraces(f.tracesToTraces, component.StabilityLevelAlpha),
		connector.WithTracesToMetrics(f.tracesToMetrics, component.StabilityLevelAlpha))
}

// factory shares one core between the two nodes the collector builds for one configured connector, so each span
// is summarised once and both outputs see the same state.
type factory struct {
	mu    sync.Mutex
	cores map[*Config]*core
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
}

func (f *factory) tracesToTraces(_ context.Context, set connector.Settings, cfg component.Config, next consumer.Traces) (connector.Traces, error) {
	c, err := f.core(set, cfg)
	if err != nil {
		return nil, err
	}
	c.tracesOut = next
	return &node{core: c, factory: f, leader: true}, nil
}

func (f *factory) tracesToMetrics(_ context.Context, set connector.Settings, cfg component.Config, next consumer.Metrics) (connector.Traces, error) {
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

func (n *node) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	if !n.leader && n.core.tracesOut != nil {
		return nil
	}
	return n.core.consume(ctx, td)
}

func (n *node) Start(context.Context, component.Host) error {
	n.core.start()
	return nil
}

func (n *node) Shutdown(ctx context.Context) error {
	n.core.shutdown(ctx)
	n.factory.release(n.core)
	return nil
}

// Reading the attributes the summary needs from a pdata span, with serve/_schema.py's type check.
package citetracesummary

import (
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/citetrace/citetracesummary/internal/names"
)

const (
	typeString  = "string"
	typeStrings = "array of strings"
	typeBool    = "boolean"
	typeInt     = "integer"
)

var attributeTypes = func() map[string]string {
	m := make(map[string]string, len(names.AttributeTypes))
	for _, t := range names.AttributeTypes {
		m[t.Key] = t.Type
	}
	return m
}()

// attrs is what the summary reads of one span; has* tells a present attribute from an absent one where the
// Python code does.
type attrs struct {
	kind, status, operation, agent, toolName, runID, queryHash, queryText, urlFull string
	hasRunID, hasQueryText, hasURLFull, hasURLsReturned, hasPages, hasErrorType    bool
	hasSourcesReported, sourcesReported, hasContentReturned, contentReturned       bool
	urlsReturned, pagesReturned                                                    strList
	citations                                                                      []string // copied: a root is held
	// the claim ledger's vital signs (iteration spans) and stop reason (its run's root)
	ledger ledgerAttrs
}

type ledgerAttrs struct {
	trigger, stopReason                                        string
	hasTrigger, hasStopReason, hasUnresolved                   bool
	unresolved, unresolvedDelta, toolCalls, newEvidence, flips int64
}

func typeMatches(v pcommon.Value, kind string) bool {
	switch kind {
	case typeString:
		return v.Type() == pcommon.ValueTypeStr
	case typeInt:
		return v.Type() == pcommon.ValueTypeInt
	case typeBool:
		return v.Type() == pcommon.ValueTypeBool
	}
	if v.Type() != pcommon.ValueTypeSlice {
		return false
	}
	s := v.Slice()
	for i := 0; i < s.Len(); i++ {
		if s.At(i).Type() != pcommon.ValueTypeStr {
			return false
		}
	}
	return true
}

// strList is a tool span's URL list read in place from pdata, valid while the span is being added (a tool span's
// lists are read then and never kept, so they are not copied).
type strList struct {
	s pcommon.Slice
	n int
}

func newStrList(v pcommon.Value) strList { s := v.Slice(); return strList{s, s.Len()} }

func (l strList) len() int { return l.n }

func (l strList) at(i int) string { return l.s.At(i).Str() }

func strs(v pcommon.Value) []string {
	s := v.Slice()
	out := make([]string, s.Len())
	for i := range out {
		out[i] = s.At(i).Str()
	}
	return out
}

// readAttrs reads a span's summary attributes; a non-empty problem means a value of the wrong type (the span
// is then left out of the summary, as citetrace serve refuses it).
func readAttrs(m pcommon.Map, a *attrs) string {
	problem := ""
	m.Range(func(k string, v pcommon.Value) bool {
		if !strings.HasPrefix(k, "citetrace.") && !strings.HasPrefix(k, "gen_ai.") && k != names.UrlFull && k != names.ErrorType {
			return true // every key of the schema has one of these forms: most other keys cost no map lookup
		}
		kind, ok := attributeTypes[k]
		if !ok {
			return true
		}
		if !typeMatches(v, kind) {
			problem = fmt.Sprintf("attribute %q must be %s %s, not %s", k, article(kind), kind, describe(v))
			return false
		}
		switch k {
		case names.ToolKind:
			a.kind = v.Str()
		case names.ToolStatus:
			a.status = v.Str()
		case names.GenAiOperationName:
			a.operation = v.Str()
		case names.GenAiAgentName:
			a.agent = v.Str()
		case names.GenAiToolName:
			a.toolName = v.Str()
		case names.RunId:
			a.runID, a.hasRunID = v.Str(), true
		case names.QueryHash:
			a.queryHash = v.Str()
		case names.QueryText:
			a.queryText, a.hasQueryText = v.Str(), true
		case names.UrlFull:
			a.urlFull, a.hasURLFull = v.Str(), true
		case names.UrlsReturned:
			a.urlsReturned, a.hasURLsReturned = newStrList(v), true
		case names.PagesReturned:
			a.pagesReturned, a.hasPages = newStrList(v), true
		case names.Citations:
			a.citations = strs(v)
		case names.ErrorType:
			a.hasErrorType = true
		case names.SearchSourcesReported:
			a.sourcesReported, a.hasSourcesReported = v.Bool(), true
		case names.SearchContentReturned:
			a.contentReturned, a.hasContentReturned = v.Bool(), true
		case names.LedgerTrigger:
			a.ledger.trigger, a.ledger.hasTrigger = v.Str(), true
		case names.LedgerStopReason:
			a.ledger.stopReason, a.ledger.hasStopReason = v.Str(), true
		case names.LedgerUnresolved:
			a.ledger.unresolved, a.ledger.hasUnresolved = v.Int(), true
		case names.LedgerUnresolvedDelta:
			a.ledger.unresolvedDelta = v.Int()
		case names.LedgerToolCalls:
			a.ledger.toolCalls = v.Int()
		case names.LedgerNewEvidence:
			a.ledger.newEvidence = v.Int()
		case names.LedgerFlips:
			a.ledger.flips = v.Int()
		}
		return true
	})
	return problem
}

func article(kind string) string {
	if kind == typeString {
		return "a"
	}
	return "an"
}

func describe(v pcommon.Value) string {
	switch v.Type() {
	case pcommon.ValueTypeMap:
		return "a kvlist"
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		for i := 0; i < s.Len(); i++ {
			if s.At(i).Type() != pcommon.ValueTypeStr {
				return "an array with a " + describe(s.At(i))
			}
		}
		return "an array"
	case pcommon.ValueTypeEmpty:
		return "an empty value"
	}
	return "a " + v.Type().String()
}

func isToolKind(k string) bool { return k == names.ToolKindSearch || k == names.ToolKindFetch }

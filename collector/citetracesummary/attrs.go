// Reading the attributes the summary needs from a pdata span, with serve/_schema.py's type check.
package citetracesummary

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/citetrace/citetracesummary/internal/names"
)

const (
	typeString  = "string"
	typeStrings = "array of strings"
	typeBool    = "boolean"
	typeInt     = "integer"
)

// attrs is what the summary reads of one span; has* tells a present attribute from an absent one where the
// Python code does.
type attrs struct {
	kind, status, operation, agent, toolName, runID, queryHash, queryText, urlFull string
	urlFinal                                                                       string // a redirect's final URL
	unreadable                                                                     string // why a fetch's content gave no text
	hasRunID, hasQueryText, hasURLFull, hasURLsReturned, hasPages, hasErrorType    bool
	hasURLFinal                                                                    bool
	hasSourcesReported, sourcesReported, hasContentReturned, contentReturned       bool
	urlsReturned, pagesReturned                                                    strList
	citations                                                                      []string // copied: a root is held
	// the claim ledger's vital signs (iteration spans) and stop reason (its run's root)
	ledger ledgerAttrs
	// the agent's own summary on a root (citetrace.summary.searches/reads): a root that counts more than arrived
	// here is a fragment (names.EvictIncomplete)
	agentSearches, agentReads       int64
	hasAgentSearches, hasAgentReads bool
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

// setters store each schema attribute (names.AttributeTypes) in attrs; the value's type is checked first.
var setters = map[string]func(a *attrs, v pcommon.Value){
	names.ToolKind:           func(a *attrs, v pcommon.Value) { a.kind = v.Str() },
	names.ToolStatus:         func(a *attrs, v pcommon.Value) { a.status = v.Str() },
	names.GenAiOperationName: func(a *attrs, v pcommon.Value) { a.operation = v.Str() },
	names.GenAiAgentName:     func(a *attrs, v pcommon.Value) { a.agent = v.Str() },
	names.GenAiToolName:      func(a *attrs, v pcommon.Value) { a.toolName = v.Str() },
	names.RunId:              func(a *attrs, v pcommon.Value) { a.runID, a.hasRunID = v.Str(), true },
	names.QueryHash:          func(a *attrs, v pcommon.Value) { a.queryHash = v.Str() },
	names.QueryText:          func(a *attrs, v pcommon.Value) { a.queryText, a.hasQueryText = v.Str(), true },
	names.UrlFull:            func(a *attrs, v pcommon.Value) { a.urlFull, a.hasURLFull = v.Str(), true },
	names.UrlFinal:           func(a *attrs, v pcommon.Value) { a.urlFinal, a.hasURLFinal = v.Str(), true },
	names.UrlsReturned:       func(a *attrs, v pcommon.Value) { a.urlsReturned, a.hasURLsReturned = newStrList(v), true },
	names.PagesReturned:      func(a *attrs, v pcommon.Value) { a.pagesReturned, a.hasPages = newStrList(v), true },
	names.Citations:          func(a *attrs, v pcommon.Value) { a.citations = strs(v) },
	names.ErrorType:          func(a *attrs, _ pcommon.Value) { a.hasErrorType = true },
	names.SearchSourcesReported: func(a *attrs, v pcommon.Value) {
		a.sourcesReported, a.hasSourcesReported = v.Bool(), true
	},
	names.ContentUnreadable: func(a *attrs, v pcommon.Value) { a.unreadable = v.Str() },
	names.SearchContentReturned: func(a *attrs, v pcommon.Value) {
		a.contentReturned, a.hasContentReturned = v.Bool(), true
	},
	names.LedgerTrigger:              func(a *attrs, v pcommon.Value) { a.ledger.trigger, a.ledger.hasTrigger = v.Str(), true },
	names.LedgerStopReason:           func(a *attrs, v pcommon.Value) { a.ledger.stopReason, a.ledger.hasStopReason = v.Str(), true },
	names.LedgerUnresolved:           func(a *attrs, v pcommon.Value) { a.ledger.unresolved, a.ledger.hasUnresolved = v.Int(), true },
	names.LedgerUnresolvedDelta:      func(a *attrs, v pcommon.Value) { a.ledger.unresolvedDelta = v.Int() },
	names.LedgerToolCalls:            func(a *attrs, v pcommon.Value) { a.ledger.toolCalls = v.Int() },
	names.LedgerNewEvidence:          func(a *attrs, v pcommon.Value) { a.ledger.newEvidence = v.Int() },
	names.LedgerFlips:                func(a *attrs, v pcommon.Value) { a.ledger.flips = v.Int() },
	names.SummaryPrefix + "searches": func(a *attrs, v pcommon.Value) { a.agentSearches, a.hasAgentSearches = v.Int(), true },
	names.SummaryPrefix + "reads":    func(a *attrs, v pcommon.Value) { a.agentReads, a.hasAgentReads = v.Int(), true },
}

// schemaKey is one attribute of the schema: its key, the type its value must have, and where it goes.
type schemaKey struct {
	key, kind string
	set       func(*attrs, pcommon.Value)
}

// schemaByLen holds the schema's keys by their length. A span's attributes are mostly not the schema's
// (gen_ai.tool.type, citetrace.result.*, http.*, server.*); a key is found, or not, by its length and a
// comparison or two with the schema's keys of that length, instead of hashing it for a map lookup and then
// switching on it (the summary's largest cost per span after the URL keys). TestSchemaTableIsTheSchema
// checks that every schema key has a setter and no setter is left over.
var schemaByLen = func() [][]schemaKey {
	var table [][]schemaKey
	for _, t := range names.AttributeTypes {
		for len(table) <= len(t.Key) {
			table = append(table, nil)
		}
		table[len(t.Key)] = append(table[len(t.Key)], schemaKey{t.Key, t.Type, setters[t.Key]})
	}
	return table
}()

// schemaOf is the schema entry of the key (nil for a key outside the schema).
func schemaOf(k string) *schemaKey {
	if len(k) >= len(schemaByLen) {
		return nil
	}
	same := schemaByLen[len(k)]
	for i := range same {
		if same[i].key == k {
			return &same[i]
		}
	}
	return nil
}

// readAttrs reads a span's summary attributes; a non-empty problem means a value of the wrong type (the span
// is then left out of the summary, as citetrace serve refuses it).
func readAttrs(m pcommon.Map, a *attrs) string {
	problem := ""
	m.Range(func(k string, v pcommon.Value) bool {
		entry := schemaOf(k)
		if entry == nil {
			return true
		}
		if !typeMatches(v, entry.kind) {
			problem = fmt.Sprintf("attribute %q must be %s %s, not %s", k, article(entry.kind), entry.kind, describe(v))
			return false
		}
		entry.set(a, v)
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

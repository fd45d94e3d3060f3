package citetracesummary

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/citetrace/citetracesummary/internal/names"
)

// TestSchemaTableIsTheSchema: every attribute of the schema is found, has a setter and is type-checked; no setter
// is left over; keys outside the schema (of the same lengths, too) are passed over.
func TestSchemaTableIsTheSchema(t *testing.T) {
	if len(setters) != len(names.AttributeTypes) {
		t.Fatalf("%d setters for %d schema attributes", len(setters), len(names.AttributeTypes))
	}
	wellTyped := map[string]func(m pcommon.Map, k string){
		typeString:  func(m pcommon.Map, k string) { m.PutStr(k, "x") },
		typeStrings: func(m pcommon.Map, k string) { m.PutEmptySlice(k).AppendEmpty().SetStr("x") },
		typeBool:    func(m pcommon.Map, k string) { m.PutBool(k, true) },
		typeInt:     func(m pcommon.Map, k string) { m.PutInt(k, 1) },
	}
	for _, at := range names.AttributeTypes {
		e := schemaOf(at.Key)
		if e == nil || e.set == nil || e.kind != at.Type {
			t.Fatalf("%s: schema entry %+v", at.Key, e)
		}
		good := pcommon.NewMap()
		wellTyped[at.Type](good, at.Key)
		if p := readAttrs(good, &attrs{}); p != "" {
			t.Errorf("%s as %s refused: %s", at.Key, at.Type, p)
		}
		bad := pcommon.NewMap()
		bad.PutDouble(at.Key, 1.5)
		if p := readAttrs(bad, &attrs{}); !strings.Contains(p, at.Key) || !strings.Contains(p, at.Type) {
			t.Errorf("%s as a double: problem %q", at.Key, p)
		}
		other := strings.Repeat("z", len(at.Key))
		if schemaOf(other) != nil || schemaOf(at.Key+"x") != nil || schemaOf(at.Key[1:]) != nil {
			t.Errorf("a key outside the schema was found next to %s", at.Key)
		}
	}
}

// types.go - every EDM type written by the Go client and read back: Go string, int, int64,
// float64, bool, time.Time, uuid.UUID and []byte map to String, Int32, Int64, Double, Boolean,
// DateTime, Guid and Binary (the client annotates Int64, Double, DateTime, Guid and Binary), at
// their extremes; each value then found by a $filter literal of its type, which proves the type
// the gateway stored.
package main

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/storage"
	"github.com/gofrs/uuid"
)

func typeChecks(tsc *storage.TableServiceClient) {
	tb := tsc.GetTableReference(uniqueName("gotypes"))
	check("types: create the table", func(t *T) { t.must(tb.Create(30, storage.EmptyPayload, nil), "create") })
	defer tb.Delete(30, nil)

	guid := uuid.FromStringOrNil("68260b3f-beab-45e2-b900-33e2b442e724")
	dt := time.Date(2014, 8, 22, 0, 50, 44, 123456700, time.UTC)
	dtMin := time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)
	dtMax := time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC)
	long := strings.Repeat("ab", 16384) // 32 768 UTF-16 code units, the longest String
	props := map[string]interface{}{
		"S": "héllo wörld 😀", "SEmpty": "", "SLong": long, "SNumeric": "12345",
		"I32": 2147483647, "I32Min": -2147483648, "I32Zero": 0,
		"I64": int64(9007199254740993), "I64Max": int64(math.MaxInt64), "I64Min": int64(math.MinInt64),
		"D": 1.5, "DWhole": float64(5), "DNegZero": math.Copysign(0, -1), "DNaN": math.NaN(),
		"DTiny": 5e-324, "DHuge": math.MaxFloat64,
		// not ±Infinity: the client writes them "+Inf"/"-Inf" (README)
		"B": true, "BFalse": false,
		"DT": dt, "DTMin": dtMin, "DTMax": dtMax, "DTWhole": time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC),
		"G":   guid,
		"Bin": []byte{0, 1, 2, 0xfe, 0xff}, "BinEmpty": []byte{},
	}
	e := tb.GetEntityReference("types", "all")
	e.Properties = props
	check("insert an entity holding every EDM type at its extremes", func(t *T) {
		t.must(e.Insert(storage.EmptyPayload, nil), "insert")
	})

	var back *storage.Entity
	var raw string
	check("read back: every value as written", func(t *T) {
		back = tb.GetEntityReference("types", "all")
		t.must(back.Get(30, storage.MinimalMetadata, nil), "get")
		raw = string(rec.lastExchange().body)
		p := back.Properties
		t.eq(p["S"], props["S"], "String")
		t.eq(p["SEmpty"], "", "empty String")
		if p["SLong"] != long {
			t.fail("32 768-unit String differs")
		}
		t.eq(p["SNumeric"], "12345", "numeric String stays a String")
		// unannotated JSON numbers: the client reads every one as float64
		t.eq(p["I32"], float64(2147483647), "Int32 max")
		t.eq(p["I32Min"], float64(-2147483648), "Int32 min")
		t.eq(p["I32Zero"], float64(0), "Int32 0")
		t.eq(p["I64"], int64(9007199254740993), "Int64 2^53+1")
		t.eq(p["I64Max"], int64(math.MaxInt64), "Int64 max")
		t.eq(p["I64Min"], int64(math.MinInt64), "Int64 min")
		t.eq(p["D"], 1.5, "Double")
		t.eq(p["DWhole"], float64(5), "whole Double")
		if f, ok := p["DNegZero"].(float64); !ok || f != 0 || !math.Signbit(f) {
			t.fail("negative zero: %v", p["DNegZero"])
		}
		if f, ok := p["DNaN"].(float64); !ok || !math.IsNaN(f) {
			t.fail("NaN: %v", p["DNaN"])
		}
		t.eq(p["DTiny"], 5e-324, "smallest Double")
		t.eq(p["DHuge"], math.MaxFloat64, "largest Double")
		t.eq(p["B"], true, "Boolean")
		t.eq(p["BFalse"], false, "Boolean false")
		for _, k := range []string{"DT", "DTMin", "DTMax", "DTWhole"} {
			got, ok := p[k].(time.Time)
			if !ok || !got.Equal(props[k].(time.Time)) {
				t.fail("%s: got %v, want %v", k, p[k], props[k])
			}
		}
		t.eq(p["G"], guid, "Guid")
		if b, ok := p["Bin"].([]byte); !ok || !bytes.Equal(b, []byte{0, 1, 2, 0xfe, 0xff}) {
			t.fail("Binary: %v", p["Bin"])
		}
		if b, ok := p["BinEmpty"].([]byte); !ok || len(b) != 0 {
			t.fail("empty Binary: %v", p["BinEmpty"])
		}
	})
	check("the service's text: a whole Double as 5.0, DateTime with 7 digits and trailing zeros dropped", func(t *T) {
		for _, want := range []string{`"DWhole":5.0`, `"DT":"2014-08-22T00:50:44.1234567Z"`, `"DTWhole":"2020-01-01T00:00:00Z"`,
			`"DTMax":"9999-12-31T23:59:59.9999999Z"`, `"DTMin":"1601-01-01T00:00:00Z"`, `"I64@odata.type":"Edm.Int64"`} {
			if !strings.Contains(raw, want) {
				t.fail("%s not in %s", want, oneLine(raw))
			}
		}
		if strings.Contains(raw, `"I32@odata.type"`) || strings.Contains(raw, `"S@odata.type"`) || strings.Contains(raw, `"B@odata.type"`) {
			t.fail("minimal metadata annotates a type JSON carries: %s", oneLine(raw))
		}
	})
	check("full metadata: every annotation the client reads (Int32, String and Boolean unannotated)", func(t *T) {
		f := tb.GetEntityReference("types", "all")
		t.must(f.Get(30, storage.FullMetadata, nil), "get")
		t.eq(f.Properties["I64"], int64(9007199254740993), "Int64")
		t.eq(f.Properties["G"], guid, "Guid")
	})
	check("each value found by a $filter literal of its type (the stored types)", func(t *T) {
		for _, f := range []string{
			"S eq 'héllo wörld 😀'", "SNumeric eq '12345'", "I32 eq 2147483647", "I32Min eq -2147483648",
			"I64 eq 9007199254740993L", "I64Max eq 9223372036854775807L", "I64Min eq -9223372036854775808L",
			"D eq 1.5", "DWhole eq 5.0", "DHuge gt 1.0e308", "B eq true", "BFalse eq false",
			"DT eq datetime'2014-08-22T00:50:44.1234567Z'", "DTMin eq datetime'1601-01-01T00:00:00Z'",
			"DTMax eq datetime'9999-12-31T23:59:59.9999999Z'", "G eq guid'68260b3f-beab-45e2-b900-33e2b442e724'",
			"Bin eq X'000102feff'",
			// Int32 and Int64 are distinct types: an Int64 literal never equals an Int32 value
			"not (I32 eq 2147483647L)", "not (SNumeric eq 12345)",
		} {
			res, err := tb.QueryEntities(30, storage.NoMetadata, &storage.QueryOptions{Filter: "PartitionKey eq 'types' and (" + f + ")"})
			t.must(err, f)
			if len(res.Entities) != 1 {
				t.fail("%s: %d entities", f, len(res.Entities))
			}
		}
	})
	check("a merge writes each type again unchanged (Int64, DateTime, Guid, Binary)", func(t *T) {
		m := tb.GetEntityReference("types", "all")
		m.Properties = map[string]interface{}{"I64": back.Properties["I64"], "DT": back.Properties["DT"],
			"G": back.Properties["G"], "Bin": back.Properties["Bin"], "New": "x"}
		t.must(m.Merge(true, nil), "merge")
		res, err := tb.QueryEntities(30, storage.NoMetadata, &storage.QueryOptions{Filter: "I64 eq 9007199254740993L and " +
			"DT eq datetime'2014-08-22T00:50:44.1234567Z' and Bin eq X'000102feff' and New eq 'x' and I32 eq 2147483647"})
		t.must(err, "query")
		t.eq(len(res.Entities), 1, "entities")
	})
	check("a String over 32 768 UTF-16 units: 400 PropertyValueTooLarge", func(t *T) {
		b := tb.GetEntityReference("types", "big")
		b.Properties = map[string]interface{}{"S": long + "x"}
		t.wantErr(b.Insert(storage.EmptyPayload, nil), 400, "PropertyValueTooLarge", "insert")
	})
	check("a property name that is not an identifier: 400 PropertyNameInvalid", func(t *T) {
		b := tb.GetEntityReference("types", "name")
		b.Properties = map[string]interface{}{"1abc": 1}
		err := b.Insert(storage.EmptyPayload, nil)
		t.wantErr(err, 400, "PropertyNameInvalid", fmt.Sprintf("insert %v", err != nil))
	})
}

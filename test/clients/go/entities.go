// entities.go - every entity operation of the Go client: Insert (echoed at each metadata level and
// with return-no-content), Get (with $select), Update and Merge with the ETag of a read, a stale
// ETag and *, both upserts, Delete; keys that need escaping in the URL; the client's Timestamp
// ignored; the service's error codes for each failure.
package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/storage"
)

func entityChecks(tsc *storage.TableServiceClient) {
	tb := tsc.GetTableReference(uniqueName("goent"))
	check("entities: create the table", func(t *T) { t.must(tb.Create(30, storage.EmptyPayload, nil), "create") })
	defer tb.Delete(30, nil)

	ent := func(pk, rk string, props map[string]interface{}) *storage.Entity {
		e := tb.GetEntityReference(pk, rk)
		e.Properties = props
		return e
	}
	read := func(t *T, pk, rk string) *storage.Entity {
		e := tb.GetEntityReference(pk, rk)
		t.must(e.Get(30, storage.MinimalMetadata, nil), "read "+pk+"/"+rk)
		return e
	}

	check("Insert, minimal metadata: 201, the entity echoed with its ETag and Timestamp", func(t *T) {
		e := ent("p", "a", map[string]interface{}{"Name": "Ken", "Age": 23})
		t.must(e.Insert(storage.MinimalMetadata, nil), "insert")
		ex := rec.lastExchange()
		t.eq(ex.status, 201, "status")
		t.eq(ex.reqHeader.Get("Prefer"), "return-content", "the client's Prefer")
		if e.OdataEtag == "" || e.OdataEtag != ex.header.Get("ETag") {
			t.fail("odata.etag %q, ETag header %q", e.OdataEtag, ex.header.Get("ETag"))
		}
		if time.Since(e.TimeStamp) > time.Hour || e.TimeStamp.IsZero() {
			t.fail("Timestamp %v", e.TimeStamp)
		}
		t.eq(e.Properties["Name"], "Ken", "Name")
		t.eq(e.Properties["Age"], 23, "Age")
		if ex.header.Get("Location") == "" {
			t.fail("no Location header")
		}
	})
	check("Insert with Prefer: return-no-content: 204, Preference-Applied and an ETag", func(t *T) {
		t.must(ent("p", "b", map[string]interface{}{"Name": "Jun"}).Insert(storage.EmptyPayload, nil), "insert")
		ex := rec.lastExchange()
		t.eq(ex.status, 204, "status")
		t.eq(ex.header.Get("Preference-Applied"), "return-no-content", "Preference-Applied")
		if !strings.HasPrefix(ex.header.Get("ETag"), `W/"`) || len(ex.body) != 0 {
			t.fail("ETag %q, body %q", ex.header.Get("ETag"), ex.body)
		}
	})
	check("Insert, no metadata: 201 without odata members, the ETag in the header", func(t *T) {
		e := ent("p", "c", map[string]interface{}{"Name": "Don"})
		t.must(e.Insert(storage.NoMetadata, nil), "insert")
		ex := rec.lastExchange()
		t.eq(ex.status, 201, "status")
		if e.OdataEtag != "" || strings.Contains(string(ex.body), "odata.") || ex.header.Get("ETag") == "" {
			t.fail("body %s, ETag %q", ex.body, ex.header.Get("ETag"))
		}
	})
	check("Insert, full metadata: odata.type, odata.id and odata.editLink of the entity", func(t *T) {
		e := ent("p", "d", map[string]interface{}{"Name": "Lee"})
		t.must(e.Insert(storage.FullMetadata, nil), "insert")
		if e.OdataType == "" || !strings.Contains(e.OdataID, "PartitionKey='p',RowKey='d'") || e.OdataEditLink == "" {
			t.fail("type %q id %q editLink %q", e.OdataType, e.OdataID, e.OdataEditLink)
		}
	})
	check("Insert of an existing entity: 409 EntityAlreadyExists", func(t *T) {
		t.wantErr(ent("p", "a", nil).Insert(storage.EmptyPayload, nil), 409, "EntityAlreadyExists", "insert")
	})
	check("Get: the properties, the ETag and the Timestamp; x-ms-client-request-id echoed", func(t *T) {
		e := tb.GetEntityReference("p", "a")
		t.must(e.Get(30, storage.MinimalMetadata, &storage.GetEntityOptions{RequestID: "go-get-1"}), "get")
		ex := rec.lastExchange()
		t.eq(ex.header.Get("x-ms-client-request-id"), "go-get-1", "echoed request id")
		t.eq(e.Properties["Name"], "Ken", "Name")
		t.eq(e.OdataEtag, ex.header.Get("ETag"), "odata.etag = ETag")
	})
	check("Get with $select: only the selected property", func(t *T) {
		e := tb.GetEntityReference("p", "a")
		t.must(e.Get(30, storage.MinimalMetadata, &storage.GetEntityOptions{Select: []string{"Age"}}), "get")
		if _, has := e.Properties["Name"]; has || e.Properties["Age"] != float64(23) {
			t.fail("properties %v", e.Properties)
		}
	})
	check("Get of a missing entity: 404 ResourceNotFound", func(t *T) {
		t.wantErr(tb.GetEntityReference("p", "nope").Get(30, storage.MinimalMetadata, nil), 404, "ResourceNotFound", "get")
	})
	check("Get of an entity of a missing table: 404 TableNotFound", func(t *T) {
		err := tsc.GetTableReference(uniqueName("gonone")).GetEntityReference("p", "a").Get(30, storage.MinimalMetadata, nil)
		t.wantErr(err, 404, "TableNotFound", "get")
	})

	check("Update with the ETag of a read: replaced, properties not sent are gone, a new ETag", func(t *T) {
		e := read(t, "p", "a")
		old := e.OdataEtag
		e.Properties = map[string]interface{}{"Name": "Ken K"}
		t.must(e.Update(false, nil), "update")
		t.eq(rec.lastExchange().reqHeader.Get("If-Match"), old, "If-Match sent")
		if e.OdataEtag == "" || e.OdataEtag == old {
			t.fail("ETag after update %q (before %q)", e.OdataEtag, old)
		}
		back := read(t, "p", "a")
		t.eq(back.OdataEtag, e.OdataEtag, "ETag of the next read")
		if _, has := back.Properties["Age"]; has || back.Properties["Name"] != "Ken K" {
			t.fail("after replace: %v", back.Properties)
		}
	})
	check("Update with a stale ETag: 412 UpdateConditionNotSatisfied, nothing changes", func(t *T) {
		e := read(t, "p", "a")
		stale := e.OdataEtag
		t.must(e.Update(true, nil), "a write in between")
		e.OdataEtag = stale
		e.Properties = map[string]interface{}{"Name": "lost"}
		t.wantErr(e.Update(false, nil), 412, "UpdateConditionNotSatisfied", "update")
		t.eq(read(t, "p", "a").Properties["Name"], "Ken K", "Name")
	})
	check("Update with If-Match *: replaced whatever its ETag", func(t *T) {
		e := tb.GetEntityReference("p", "a")
		e.OdataEtag = `W/"datetime'2000-01-01T00%3A00%3A00Z'"`
		e.Properties = map[string]interface{}{"Name": "forced"}
		t.must(e.Update(true, nil), "update")
		t.eq(rec.lastExchange().reqHeader.Get("If-Match"), "*", "If-Match")
		t.eq(read(t, "p", "a").Properties["Name"], "forced", "Name")
	})
	check("Update of a missing entity: 404 ResourceNotFound", func(t *T) {
		t.wantErr(ent("p", "nope", map[string]interface{}{"X": 1}).Update(true, nil), 404, "ResourceNotFound", "update")
	})
	check("Merge with the ETag of a read: given properties set, the others kept", func(t *T) {
		e := read(t, "p", "b")
		e.Properties = map[string]interface{}{"Age": 47}
		t.must(e.Merge(false, nil), "merge")
		t.eq(rec.lastExchange().method, "MERGE", "verb")
		back := read(t, "p", "b")
		if back.Properties["Name"] != "Jun" || back.Properties["Age"] != float64(47) {
			t.fail("after merge: %v", back.Properties)
		}
	})
	check("Merge with a stale ETag: 412 UpdateConditionNotSatisfied", func(t *T) {
		e := read(t, "p", "b")
		stale := e.OdataEtag
		t.must(e.Merge(true, nil), "a write in between")
		e.OdataEtag = stale
		e.Properties = map[string]interface{}{"Age": 1}
		t.wantErr(e.Merge(false, nil), 412, "UpdateConditionNotSatisfied", "merge")
	})
	check("Merge with If-Match *; of a missing entity: 404 ResourceNotFound", func(t *T) {
		t.must(ent("p", "b", map[string]interface{}{"City": "Oslo"}).Merge(true, nil), "merge")
		back := read(t, "p", "b")
		if back.Properties["City"] != "Oslo" || back.Properties["Name"] != "Jun" {
			t.fail("after merge: %v", back.Properties)
		}
		t.wantErr(ent("p", "nope", map[string]interface{}{"X": 1}).Merge(true, nil), 404, "ResourceNotFound", "merge missing")
	})
	check("Insert Or Replace: creates, then replaces (no If-Match sent)", func(t *T) {
		e := ent("p", "u1", map[string]interface{}{"A": 1, "B": 2})
		t.must(e.InsertOrReplace(nil), "create")
		if rec.lastExchange().reqHeader.Get("If-Match") != "" || e.OdataEtag == "" {
			t.fail("If-Match %q, ETag %q", rec.lastExchange().reqHeader.Get("If-Match"), e.OdataEtag)
		}
		t.must(ent("p", "u1", map[string]interface{}{"C": 3}).InsertOrReplace(nil), "replace")
		back := read(t, "p", "u1")
		if len(back.Properties) != 1 || back.Properties["C"] != float64(3) {
			t.fail("after replace: %v", back.Properties)
		}
	})
	check("Insert Or Merge: creates, then merges", func(t *T) {
		t.must(ent("p", "u2", map[string]interface{}{"A": 1}).InsertOrMerge(nil), "create")
		t.must(ent("p", "u2", map[string]interface{}{"B": 2}).InsertOrMerge(nil), "merge")
		t.eq(rec.lastExchange().status, 204, "status")
		back := read(t, "p", "u2")
		if back.Properties["A"] != float64(1) || back.Properties["B"] != float64(2) {
			t.fail("after merge: %v", back.Properties)
		}
	})
	check("Delete with a stale ETag: 412; with the ETag of a read: 204, gone", func(t *T) {
		e := read(t, "p", "u2")
		good := e.OdataEtag
		e.OdataEtag = `W/"datetime'2000-01-01T00%3A00%3A00Z'"`
		t.wantErr(e.Delete(false, nil), 412, "UpdateConditionNotSatisfied", "stale delete")
		e.OdataEtag = good
		t.must(e.Delete(false, nil), "delete")
		t.eq(rec.lastExchange().status, 204, "status")
		t.wantErr(tb.GetEntityReference("p", "u2").Get(30, storage.MinimalMetadata, nil), 404, "ResourceNotFound", "read after delete")
	})
	check("Delete with If-Match *; of a missing entity: 404 ResourceNotFound", func(t *T) {
		t.must(tb.GetEntityReference("p", "u1").Delete(true, nil), "delete")
		t.wantErr(tb.GetEntityReference("p", "u1").Delete(true, nil), 404, "ResourceNotFound", "delete again")
	})
	check("a Timestamp sent by the client is ignored: the server sets it", func(t *T) {
		e := ent("p", "ts", map[string]interface{}{"Timestamp": time.Date(2000, 1, 2, 3, 4, 5, 0, time.UTC), "V": 1})
		t.must(e.Insert(storage.EmptyPayload, nil), "insert")
		back := read(t, "p", "ts")
		if back.TimeStamp.Year() == 2000 || time.Since(back.TimeStamp) > time.Hour {
			t.fail("Timestamp %v", back.TimeStamp)
		}
		if _, has := back.Properties["Timestamp"]; has {
			t.fail("Timestamp stored as a property")
		}
	})
	check("every write: a new ETag and a Timestamp not earlier than the previous one", func(t *T) {
		e := ent("p", "seq", map[string]interface{}{"N": 0})
		t.must(e.InsertOrReplace(nil), "insert")
		seen := map[string]bool{}
		var last time.Time
		for i := 1; i <= 5; i++ {
			e.Properties = map[string]interface{}{"N": i}
			t.must(e.Merge(true, nil), "merge")
			if seen[e.OdataEtag] {
				t.fail("ETag %s repeated", e.OdataEtag)
			}
			seen[e.OdataEtag] = true
			back := read(t, "p", "seq")
			if back.TimeStamp.Before(last) {
				t.fail("Timestamp %v before %v", back.TimeStamp, last)
			}
			last = back.TimeStamp
		}
	})
	check("keys that need escaping in the URL (space, %, &, +, =, ü, 😀): insert, get, merge, delete", func(t *T) {
		for i, k := range []string{"a b", "100%", "x&y", "a+b", "k=v", "Grüße", "smile😀"} {
			pk := fmt.Sprintf("pk %d %s", i, k)
			e := ent(pk, k, map[string]interface{}{"I": i})
			t.must(e.Insert(storage.EmptyPayload, nil), "insert "+k)
			back := read(t, pk, k)
			t.eq(back.Properties["I"], i, "I of "+k)
			t.must(ent(pk, k, map[string]interface{}{"J": 1}).Merge(true, nil), "merge "+k)
			t.must(tb.GetEntityReference(pk, k).Delete(true, nil), "delete "+k)
		}
	})
	check("empty PartitionKey and RowKey: insert, get, delete", func(t *T) {
		t.must(ent("", "", map[string]interface{}{"E": true}).Insert(storage.EmptyPayload, nil), "insert")
		t.eq(read(t, "", "").Properties["E"], true, "E")
		t.must(tb.GetEntityReference("", "").Delete(true, nil), "delete")
	})
	check("a RowKey with '/', '#' or a control character: 400 InvalidInput", func(t *T) {
		for _, k := range []string{"a/b", "a#b", "a\x01b"} {
			t.wantErr(ent("p", k, nil).Insert(storage.EmptyPayload, nil), 400, "InvalidInput", fmt.Sprintf("insert %q", k))
		}
	})
	check("253 custom properties: 400 TooManyProperties", func(t *T) {
		props := map[string]interface{}{}
		for i := 0; i < 253; i++ {
			props[fmt.Sprintf("P%03d", i)] = i
		}
		t.wantErr(ent("p", "wide", props).Insert(storage.EmptyPayload, nil), 400, "TooManyProperties", "insert")
		delete(props, "P000")
		t.must(ent("p", "wide", props).Insert(storage.EmptyPayload, nil), "252 properties")
	})
}

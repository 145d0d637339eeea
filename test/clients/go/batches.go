// batches.go - TableBatch.ExecuteBatch: the client sends every changeset operation with Prefer:
// return-no-content, so every part of its answers is a 204 (insert, update, merge, both upserts,
// delete), or one error part. Checks: 100 inserts, a mix of every operation with the ETags of
// reads and *, the failing operation's index and code, all or nothing, 101 operations, two
// partitions, one entity twice, a missing table, and an empty changeset.
package main

import (
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/storage"
)

func batchChecks(tsc *storage.TableServiceClient) {
	tb := tsc.GetTableReference(uniqueName("gobatch"))
	check("batches: create the table", func(t *T) { t.must(tb.Create(30, storage.EmptyPayload, nil), "create") })
	defer tb.Delete(30, nil)

	ent := func(pk, rk string, props map[string]interface{}) *storage.Entity {
		e := tb.GetEntityReference(pk, rk)
		e.Properties = props
		return e
	}
	count := func(t *T, filter string) int {
		res, err := tb.QueryEntities(30, storage.NoMetadata, &storage.QueryOptions{Filter: filter})
		t.must(err, "count "+filter)
		n := len(res.Entities)
		for res.NextLink != nil {
			res, err = res.NextResults(nil)
			t.must(err, "next page")
			n += len(res.Entities)
		}
		return n
	}

	check("a batch of 100 inserts: 202, every part 204 No Content, all committed", func(t *T) {
		b := tb.NewBatch()
		for i := 0; i < 100; i++ {
			b.InsertEntity(ent("hundred", fmt.Sprintf("r%03d", i), map[string]interface{}{"N": i}))
		}
		t.must(b.ExecuteBatch(), "execute")
		ex := rec.lastExchange()
		t.eq(ex.status, 202, "status")
		t.eq(strings.Count(string(ex.body), "HTTP/1.1 204 No Content"), 100, "204 parts")
		t.eq(count(t, "PartitionKey eq 'hundred'"), 100, "entities")
	})

	check("a batch of every operation (insert, replace, merge, both upserts, delete) with read ETags and *", func(t *T) {
		for _, rk := range []string{"rep", "mrg", "del", "repstar", "delstar", "upm"} {
			t.must(ent("mix", rk, map[string]interface{}{"Old": 1, "Keep": "k"}).Insert(storage.EmptyPayload, nil), "seed "+rk)
		}
		etag := func(rk string) string {
			e := tb.GetEntityReference("mix", rk)
			t.must(e.Get(30, storage.MinimalMetadata, nil), "read "+rk)
			return e.OdataEtag
		}
		rep := ent("mix", "rep", map[string]interface{}{"New": 2})
		rep.OdataEtag = etag("rep")
		mrg := ent("mix", "mrg", map[string]interface{}{"New": 2})
		mrg.OdataEtag = etag("mrg")
		del := ent("mix", "del", nil)
		del.OdataEtag = etag("del")
		b := tb.NewBatch()
		b.InsertEntity(ent("mix", "ins", map[string]interface{}{"New": 1}))
		b.ReplaceEntity(rep)
		b.MergeEntity(mrg)
		b.InsertOrReplaceEntity(ent("mix", "upr", map[string]interface{}{"New": 3}), false)
		b.InsertOrMergeEntity(ent("mix", "upm", map[string]interface{}{"New": 4}), false)
		b.DeleteEntity(del, false)
		b.ReplaceEntity(ent("mix", "repstar", map[string]interface{}{"New": 5})) // no ETag: If-Match *
		b.DeleteEntityByForce(ent("mix", "delstar", nil), true)
		t.must(b.ExecuteBatch(), "execute")
		ex := rec.lastExchange()
		t.eq(strings.Count(string(ex.body), "HTTP/1.1 204 No Content"), 8, "204 parts")
		t.eq(strings.Count(string(ex.body), "ETag: W/"), 6, "parts with an ETag (all but the deletes)")
		got := func(rk string) map[string]interface{} {
			e := tb.GetEntityReference("mix", rk)
			if err := e.Get(30, storage.MinimalMetadata, nil); err != nil {
				return nil
			}
			return e.Properties
		}
		if p := got("ins"); p == nil || p["New"] != float64(1) {
			t.fail("insert: %v", p)
		}
		if p := got("rep"); p == nil || p["New"] != float64(2) || p["Old"] != nil {
			t.fail("replace: %v", p)
		}
		if p := got("mrg"); p == nil || p["New"] != float64(2) || p["Old"] != float64(1) {
			t.fail("merge: %v", p)
		}
		if p := got("upr"); p == nil || p["New"] != float64(3) {
			t.fail("insert or replace: %v", p)
		}
		if p := got("upm"); p == nil || p["New"] != float64(4) || p["Keep"] != "k" {
			t.fail("insert or merge: %v", p)
		}
		if p := got("repstar"); p == nil || p["New"] != float64(5) || p["Old"] != nil {
			t.fail("replace with *: %v", p)
		}
		if got("del") != nil || got("delstar") != nil {
			t.fail("deleted entities still there")
		}
	})

	check("a failing batch (operation 2 inserts an existing entity): 409 EntityAlreadyExists naming element 2, nothing applied", func(t *T) {
		t.must(ent("fail", "exists", map[string]interface{}{"V": 1}).Insert(storage.EmptyPayload, nil), "seed")
		b := tb.NewBatch()
		b.InsertEntity(ent("fail", "n0", map[string]interface{}{"V": 1}))
		b.InsertOrMergeEntity(ent("fail", "n1", map[string]interface{}{"V": 1}), false)
		b.InsertEntity(ent("fail", "exists", map[string]interface{}{"V": 2}))
		b.InsertEntity(ent("fail", "n3", map[string]interface{}{"V": 1}))
		err := b.ExecuteBatch()
		t.wantErr(err, 409, "EntityAlreadyExists", "execute")
		if !strings.Contains(err.Error(), "Element 2 in the batch returned an unexpected response code") {
			t.fail("the client's message does not name element 2: %s", oneLine(err.Error()))
		}
		t.eq(count(t, "PartitionKey eq 'fail'"), 1, "entities after the failed batch")
	})
	check("a failing batch (a stale ETag): 412 UpdateConditionNotSatisfied, nothing applied", func(t *T) {
		e := tb.GetEntityReference("fail", "exists")
		t.must(e.Get(30, storage.MinimalMetadata, nil), "read")
		stale := e.OdataEtag
		t.must(ent("fail", "exists", map[string]interface{}{"V": 3}).Update(true, nil), "a write in between")
		e.OdataEtag = stale
		e.Properties = map[string]interface{}{"V": 4}
		b := tb.NewBatch()
		b.InsertEntity(ent("fail", "m0", nil))
		b.MergeEntity(e)
		t.wantErr(b.ExecuteBatch(), 412, "UpdateConditionNotSatisfied", "execute")
		t.eq(count(t, "PartitionKey eq 'fail'"), 1, "entities after the failed batch")
	})
	check("a failing batch (a delete of a missing entity): 404 ResourceNotFound", func(t *T) {
		b := tb.NewBatch()
		b.InsertEntity(ent("fail", "d0", nil))
		b.DeleteEntityByForce(ent("fail", "missing", nil), true)
		t.wantErr(b.ExecuteBatch(), 404, "ResourceNotFound", "execute")
	})
	check("101 operations: 400 InvalidInput at element 99", func(t *T) {
		b := tb.NewBatch()
		for i := 0; i < 101; i++ {
			b.InsertEntity(ent("big", fmt.Sprintf("r%03d", i), nil))
		}
		err := b.ExecuteBatch()
		t.wantErr(err, 400, "InvalidInput", "execute")
		if !strings.Contains(err.Error(), "Element 99 ") {
			t.fail("message: %s", oneLine(err.Error()))
		}
	})
	check("two PartitionKeys in one batch: 400 CommandsInBatchActOnDifferentPartitions", func(t *T) {
		b := tb.NewBatch()
		b.InsertEntity(ent("x1", "a", nil))
		b.InsertEntity(ent("x2", "a", nil))
		t.wantErr(b.ExecuteBatch(), 400, "CommandsInBatchActOnDifferentPartitions", "execute")
	})
	check("one entity twice in a batch: 400 InvalidDuplicateRow", func(t *T) {
		b := tb.NewBatch()
		b.InsertOrMergeEntity(ent("dup", "a", nil), false)
		b.InsertOrMergeEntity(ent("dup", "a", nil), false)
		t.wantErr(b.ExecuteBatch(), 400, "InvalidDuplicateRow", "execute")
	})
	check("a batch on a missing table: 404 TableNotFound", func(t *T) {
		nb := tsc.GetTableReference(uniqueName("gonone")).NewBatch()
		nb.InsertEntity(&storage.Entity{PartitionKey: "p", RowKey: "r", Table: nb.Table})
		t.wantErr(nb.ExecuteBatch(), 404, "TableNotFound", "execute")
	})
	check("an empty changeset: 202 with an empty changeset response (the client then reads no part: EOF)", func(t *T) {
		tb.NewBatch().ExecuteBatch() // the client answers io.EOF: it expects at least one part
		ex := rec.lastExchange()
		t.eq(ex.status, 202, "status")
		if !strings.Contains(string(ex.body), "--changesetresponse_") || strings.Contains(string(ex.body), "HTTP/1.1") {
			t.fail("body %s", oneLine(string(ex.body)))
		}
	})
}

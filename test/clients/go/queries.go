// queries.go - Query Entities through the Go client: 30 entities in three partitions, paged with
// $top and NextResults (the continuation headers sent back as NextPartitionKey/NextRowKey), with
// $filter and $select, in PartitionKey/RowKey order, never repeating or skipping an entity.
package main

import (
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/storage"
)

func queryChecks(tsc *storage.TableServiceClient) {
	tb := tsc.GetTableReference(uniqueName("goquery"))
	check("queries: create the table and 30 entities in three partitions (batches)", func(t *T) {
		t.must(tb.Create(30, storage.EmptyPayload, nil), "create")
		for _, pk := range []string{"pa", "pb", "pc"} {
			b := tb.NewBatch()
			for i := 0; i < 10; i++ {
				e := tb.GetEntityReference(pk, fmt.Sprintf("r%02d", i))
				e.Properties = map[string]interface{}{"N": i, "Other": "o" + pk}
				b.InsertEntity(e)
			}
			t.must(b.ExecuteBatch(), "batch "+pk)
		}
	})
	defer tb.Delete(30, nil)

	// all pages of a query: the keys, the page sizes
	pages := func(t *T, opts *storage.QueryOptions) ([]string, []int, []*storage.Entity) {
		res, err := tb.QueryEntities(30, storage.MinimalMetadata, opts)
		t.must(err, "query")
		var keys []string
		var sizes []int
		var all []*storage.Entity
		for {
			sizes = append(sizes, len(res.Entities))
			for _, e := range res.Entities {
				keys = append(keys, e.PartitionKey+"/"+e.RowKey)
				all = append(all, e)
			}
			if res.NextLink == nil {
				break
			}
			if !strings.Contains(*res.NextLink, "NextPartitionKey=") || !strings.Contains(*res.NextLink, "NextRowKey=") {
				t.fail("next link %s", *res.NextLink)
			}
			if len(sizes) > 50 {
				t.fail("more than 50 pages")
			}
			res, err = res.NextResults(nil)
			t.must(err, "next page")
		}
		return keys, sizes, all
	}
	var want []string
	for _, pk := range []string{"pa", "pb", "pc"} {
		for i := 0; i < 10; i++ {
			want = append(want, fmt.Sprintf("%s/r%02d", pk, i))
		}
	}

	check("$top 7: five pages (7,7,7,7,2) across partitions, every entity once, in key order", func(t *T) {
		keys, sizes, _ := pages(t, &storage.QueryOptions{Top: 7})
		t.eq(sizes, []int{7, 7, 7, 7, 2}, "page sizes")
		t.eq(keys, want, "keys")
	})
	check("no $top: one page of 30", func(t *T) {
		keys, sizes, _ := pages(t, nil)
		t.eq(sizes, []int{30}, "page sizes")
		t.eq(keys, want, "keys")
	})
	check("$filter PartitionKey eq 'pb' and N ge 5: five entities", func(t *T) {
		keys, _, _ := pages(t, &storage.QueryOptions{Filter: "PartitionKey eq 'pb' and N ge 5"})
		t.eq(keys, want[15:20], "keys")
	})
	check("$filter N lt 8 with $top 5: 24 entities over five pages", func(t *T) {
		keys, sizes, _ := pages(t, &storage.QueryOptions{Filter: "N lt 8", Top: 5})
		t.eq(len(keys), 24, "entities")
		t.eq(len(sizes), 5, "pages")
	})
	check("$filter with or across partitions: sorted by PartitionKey then RowKey", func(t *T) {
		keys, _, _ := pages(t, &storage.QueryOptions{Filter: "RowKey eq 'r07' or RowKey eq 'r03'"})
		t.eq(keys, []string{"pa/r03", "pa/r07", "pb/r03", "pb/r07", "pc/r03", "pc/r07"}, "keys")
	})
	check("a range on RowKey within a partition", func(t *T) {
		keys, _, _ := pages(t, &storage.QueryOptions{Filter: "PartitionKey eq 'pc' and RowKey ge 'r02' and RowKey lt 'r05'"})
		t.eq(keys, []string{"pc/r02", "pc/r03", "pc/r04"}, "keys")
	})
	check("an inverted range: empty, not an error", func(t *T) {
		keys, _, _ := pages(t, &storage.QueryOptions{Filter: "PartitionKey eq 'pc' and RowKey ge 'r05' and RowKey lt 'r02'"})
		t.eq(len(keys), 0, "entities")
	})
	check("$select N with $top 4: only N (and odata.etag) on every page", func(t *T) {
		_, sizes, all := pages(t, &storage.QueryOptions{Select: []string{"N"}, Top: 4})
		t.eq(len(sizes), 8, "pages")
		for _, e := range all {
			if _, has := e.Properties["Other"]; has || e.Properties["N"] == nil || e.OdataEtag == "" {
				t.fail("entity %v etag %q", e.Properties, e.OdataEtag)
			}
		}
	})
	check("$select of a property no entity has: null in the page", func(t *T) {
		res, err := tb.QueryEntities(30, storage.MinimalMetadata, &storage.QueryOptions{Select: []string{"Nope"}, Top: 1})
		t.must(err, "query")
		if len(res.Entities) != 1 || !strings.Contains(string(rec.lastExchange().body), `"Nope":null`) {
			t.fail("body %s", oneLine(string(rec.lastExchange().body)))
		}
	})
	check("a malformed $filter: 400 InvalidInput", func(t *T) {
		_, err := tb.QueryEntities(30, storage.MinimalMetadata, &storage.QueryOptions{Filter: "PartitionKey eq pa"})
		t.wantErr(err, 400, "InvalidInput", "query")
		_, err = tb.QueryEntities(30, storage.MinimalMetadata, &storage.QueryOptions{Filter: "(N eq 1) und (N eq 2)"})
		t.wantErr(err, 400, "InvalidInput", "query und")
	})
	check("$top 1001: 400 InvalidInput", func(t *T) {
		_, err := tb.QueryEntities(30, storage.MinimalMetadata, &storage.QueryOptions{Top: 1001})
		t.wantErr(err, 400, "InvalidInput", "query")
	})
}

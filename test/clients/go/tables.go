// tables.go - Create Table (echoed and with return-no-content), Get Table at each metadata level,
// Query Tables with $filter and $top across NextTableName pages, Delete Table, and the errors of
// each (TableAlreadyExists, ResourceNotFound).
package main

import (
	"sort"
	"strings"

	"github.com/Azure/azure-sdk-for-go/storage"
)

func tableChecks(tsc *storage.TableServiceClient) {
	prefix := uniqueName("gotab")
	names := []string{prefix + "a", prefix + "b", prefix + "c", prefix + "d", prefix + "e"}

	check("Create Table, minimal metadata: 201 and the table echoed", func(t *T) {
		tb := tsc.GetTableReference(names[0])
		t.must(tb.Create(30, storage.MinimalMetadata, nil), "create")
		ex := rec.lastExchange()
		t.eq(ex.status, 201, "status")
		t.eq(tb.Name, names[0], "TableName in the body")
		if tb.OdataMetadata == "" {
			t.fail("no odata.metadata in the body")
		}
	})
	check("Create Table, full metadata: odata.id, odata.editLink and odata.type", func(t *T) {
		tb := tsc.GetTableReference(names[1])
		t.must(tb.Create(30, storage.FullMetadata, nil), "create")
		if tb.OdataID == "" || tb.OdataEditLink == "" || tb.OdataType == "" {
			t.fail("missing: id %q editLink %q type %q", tb.OdataID, tb.OdataEditLink, tb.OdataType)
		}
	})
	check("Create Table with Prefer: return-no-content: 204 and Preference-Applied", func(t *T) {
		for _, n := range names[2:] {
			t.must(tsc.GetTableReference(n).Create(30, storage.EmptyPayload, nil), "create "+n)
		}
		ex := rec.lastExchange()
		t.eq(ex.status, 204, "status")
		t.eq(ex.header.Get("Preference-Applied"), "return-no-content", "Preference-Applied")
	})
	check("Create Table again, other letter case: 409 TableAlreadyExists", func(t *T) {
		err := tsc.GetTableReference(strings.ToUpper(names[0])).Create(30, storage.EmptyPayload, nil)
		t.wantErr(err, 409, "TableAlreadyExists", "create again")
	})
	check("Get Table at no, minimal and full metadata", func(t *T) {
		for _, ml := range []storage.MetadataLevel{storage.NoMetadata, storage.MinimalMetadata, storage.FullMetadata} {
			tb := tsc.GetTableReference(names[1])
			t.must(tb.Get(30, ml), "get "+string(ml))
			t.eq(tb.Name, names[1], "TableName")
			if (ml == storage.NoMetadata) != (tb.OdataMetadata == "") {
				t.fail("%s: odata.metadata %q", ml, tb.OdataMetadata)
			}
		}
	})
	check("Get Table of a missing table: 404 ResourceNotFound", func(t *T) {
		err := tsc.GetTableReference(prefix+"missing").Get(30, storage.MinimalMetadata)
		t.wantErr(err, 404, "ResourceNotFound", "get")
	})
	check("Query Tables: $filter over TableName, $top 2, three pages through NextTableName", func(t *T) {
		res, err := tsc.QueryTables(storage.MinimalMetadata, &storage.QueryTablesOptions{
			Top: 2, Filter: "TableName ge '" + prefix + "' and TableName lt '" + prefix + "z'"})
		t.must(err, "query")
		var got []string
		pages := 0
		for {
			pages++
			if len(res.Tables) > 2 {
				t.fail("page %d holds %d tables", pages, len(res.Tables))
			}
			for _, tb := range res.Tables {
				got = append(got, tb.Name)
			}
			if res.NextLink == nil {
				break
			}
			res, err = res.NextResults(nil)
			t.must(err, "next page")
		}
		t.eq(pages, 3, "pages")
		t.eq(got, names, "tables in order")
	})
	check("Query Tables without a filter lists this run's tables", func(t *T) {
		res, err := tsc.QueryTables(storage.NoMetadata, nil)
		t.must(err, "query")
		seen := map[string]bool{}
		for {
			for _, tb := range res.Tables {
				seen[tb.Name] = true
			}
			if res.NextLink == nil {
				break
			}
			res, err = res.NextResults(nil)
			t.must(err, "next page")
		}
		var missing []string
		for _, n := range names {
			if !seen[n] {
				missing = append(missing, n)
			}
		}
		sort.Strings(missing)
		t.eq(len(missing), 0, "missing tables")
	})
	check("Delete Table: 204, then gone; again: 404 ResourceNotFound", func(t *T) {
		for _, n := range names {
			t.must(tsc.GetTableReference(n).Delete(30, nil), "delete "+n)
		}
		t.eq(rec.lastExchange().status, 204, "status")
		err := tsc.GetTableReference(names[0]).Get(30, storage.MinimalMetadata)
		t.wantErr(err, 404, "ResourceNotFound", "get after delete")
		err = tsc.GetTableReference(names[0]).Delete(30, nil)
		t.wantErr(err, 404, "ResourceNotFound", "delete again")
	})
}

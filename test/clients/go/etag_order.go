// etag_order.go - the ETag is exactly W/"datetime'<Timestamp>'" with the body's Timestamp (issue
// 27.3), and a point read right after the owning node crashed is 503 ServerBusy (issue 27.11,
// -crash-read, run by test/clients/run.sh after killing a node). The Go client cannot show points 5 and 10: it always sends
// PartitionKey and RowKey, and it keeps properties in Go maps (no order).
package main

import (
	"regexp"
	"strings"

	"github.com/Azure/azure-sdk-for-go/storage"
)

var timestampText = regexp.MustCompile(`"Timestamp":"([^"]*)"`)

// etagOf: the service's ETag for a Timestamp as the body writes it
func etagOf(ts string) string {
	return `W/"datetime'` + strings.ReplaceAll(ts, ":", "%3A") + `'"`
}

func etagChecks(tsc *storage.TableServiceClient) {
	tb := tsc.GetTableReference(uniqueName("goetag"))
	check("ETags: create the table", func(t *T) { t.must(tb.Create(30, storage.EmptyPayload, nil), "create") })
	defer tb.Delete(30, nil)

	check("(issue 27.3): insert: ETag and odata.etag are W/\"datetime'<the body's Timestamp>'\"", func(t *T) {
		e := tb.GetEntityReference("p", "a")
		e.Properties = map[string]interface{}{"V": 1}
		t.must(e.Insert(storage.MinimalMetadata, nil), "insert")
		ex := rec.lastExchange()
		m := timestampText.FindStringSubmatch(string(ex.body))
		if m == nil {
			t.fail("no Timestamp in %s", ex.body)
		}
		t.eq(ex.header.Get("ETag"), etagOf(m[1]), "ETag header")
		t.eq(e.OdataEtag, etagOf(m[1]), "odata.etag")
	})
	check("(issue 27.3): update, merge, upserts: the ETag answered is the next read's Timestamp", func(t *T) {
		e := tb.GetEntityReference("p", "a")
		for i, op := range []func() error{
			func() error { return e.Update(true, nil) }, func() error { return e.Merge(true, nil) },
			func() error { return e.InsertOrReplace(nil) }, func() error { return e.InsertOrMerge(nil) },
		} {
			e.Properties = map[string]interface{}{"V": i}
			t.must(op(), "write")
			etag := e.OdataEtag
			r := tb.GetEntityReference("p", "a")
			t.must(r.Get(30, storage.MinimalMetadata, nil), "read")
			m := timestampText.FindStringSubmatch(string(rec.lastExchange().body))
			if m == nil {
				t.fail("no Timestamp")
			}
			t.eq(etag, etagOf(m[1]), "ETag of write "+string(rune('0'+i)))
		}
	})
	check("(issue 27.3): a batch's ETags are those of the entities' Timestamps", func(t *T) {
		b := tb.NewBatch()
		for _, rk := range []string{"b1", "b2", "b3"} {
			x := tb.GetEntityReference("p", rk)
			x.Properties = map[string]interface{}{"V": 1}
			b.InsertOrReplaceEntityByForce(x)
		}
		t.must(b.ExecuteBatch(), "batch")
		tags := regexp.MustCompile(`ETag: (W/"[^"]*")`).FindAllStringSubmatch(string(rec.lastExchange().body), -1)
		if len(tags) != 3 {
			t.fail("%d ETags", len(tags))
		}
		for i, rk := range []string{"b1", "b2", "b3"} {
			r := tb.GetEntityReference("p", rk)
			t.must(r.Get(30, storage.MinimalMetadata, nil), "read")
			m := timestampText.FindStringSubmatch(string(rec.lastExchange().body))
			t.eq(tags[i][1], etagOf(m[1]), "ETag of "+rk)
		}
	})
}

// crashRead: one point read of an entity (of the development account, through the emulator
// client) whose node was just killed: 503 ServerBusy, never 500.
func crashRead(spec string) {
	p := strings.SplitN(spec, ",", 3)
	if len(p) != 3 {
		usage("-crash-read table,pk,rk")
	}
	c, err := storage.NewEmulatorClient()
	if err != nil {
		panic(err)
	}
	setup(&c)
	tsc := c.GetTableService()
	check("(issue 27.11): a point read right after the owning node crashed: 503 ServerBusy", func(t *T) {
		err := tsc.GetTableReference(p[0]).GetEntityReference(p[1], p[2]).Get(30, storage.MinimalMetadata, nil)
		t.wantErr(err, 503, "ServerBusy", "get")
	})
}

// auth.go - how the Go client authenticates: Shared Key (its default for tables), Shared Key Lite,
// the account's second key, a wrong key; account SAS tokens made by GetAccountSASToken and used
// through NewAccountSASClient (the client has no table SAS); Set/Get Table ACL; Set/Get Table
// Service Properties; and the emulator client's path-style URLs (devstoreaccount1).
package main

import (
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/storage"
	"github.com/Azure/go-autorest/autorest/azure"
)

func hostClient(key string, lite bool) storage.TableServiceClient {
	c, err := storage.NewClient(acctName, key, storage.DefaultBaseURL, storage.DefaultAPIVersion, false)
	if err != nil {
		panic(err)
	}
	setup(&c)
	c.UseSharedKeyLite = lite
	return c.GetTableService()
}

func authChecks(hc *storage.Client) {
	check("Shared Key Lite (UseSharedKeyLite): Query Tables", func(t *T) {
		tsc := hostClient(acctKey1, true)
		_, err := tsc.QueryTables(storage.MinimalMetadata, &storage.QueryTablesOptions{Top: 1})
		t.must(err, "query")
		if !strings.HasPrefix(rec.lastExchange().reqHeader.Get("Authorization"), "SharedKeyLite ") {
			t.fail("Authorization %q", rec.lastExchange().reqHeader.Get("Authorization"))
		}
	})
	check("the account's second key signs too (Shared Key and Shared Key Lite)", func(t *T) {
		for _, lite := range []bool{false, true} {
			tsc := hostClient(acctKey2, lite)
			_, err := tsc.QueryTables(storage.MinimalMetadata, &storage.QueryTablesOptions{Top: 1})
			t.must(err, "query")
		}
	})
	check("a wrong key: 403 AuthenticationFailed", func(t *T) {
		tsc := hostClient("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", false)
		_, err := tsc.QueryTables(storage.MinimalMetadata, nil)
		t.wantErr(err, 403, "AuthenticationFailed", "query")
	})
}

func sasClient(t *T, hc *storage.Client, o storage.AccountSASTokenOptions) storage.TableServiceClient {
	if o.Expiry.IsZero() {
		o.Expiry = time.Now().Add(time.Hour)
	}
	tok, err := hc.GetAccountSASToken(o)
	t.must(err, "GetAccountSASToken")
	c := storage.NewAccountSASClient(acctName, tok, azure.PublicCloud)
	setup(&c)
	return c.GetTableService()
}

var allPerms = storage.Permissions{Read: true, Write: true, Delete: true, List: true, Add: true, Create: true, Update: true}
var tableSvc = storage.Services{Table: true}
var allTypes = storage.ResourceTypes{Service: true, Container: true, Object: true}

func sasChecks(hc *storage.Client, tsc *storage.TableServiceClient) {
	name := uniqueName("gosas")
	check("account SAS (ss=t srt=sco, every permission): create a table, insert, merge, query with a continuation, delete", func(t *T) {
		s := sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: allTypes, Permissions: allPerms})
		tb := s.GetTableReference(name)
		t.must(tb.Create(30, storage.EmptyPayload, nil), "create table")
		if !strings.Contains(rec.lastExchange().url, "sig=") || rec.lastExchange().reqHeader.Get("Authorization") != "" {
			t.fail("the request was not SAS-signed: %s", rec.lastExchange().url)
		}
		e := tb.GetEntityReference("p", "a")
		e.Properties = map[string]interface{}{"V": 1}
		t.must(e.Insert(storage.MinimalMetadata, nil), "insert")
		t.must(e.Merge(false, nil), "merge with the ETag")
		for _, rk := range []string{"b", "c"} {
			t.must(tb.GetEntityReference("p", rk).InsertOrReplace(nil), "insert or replace "+rk)
		}
		res, err := tb.QueryEntities(30, storage.MinimalMetadata, &storage.QueryOptions{Top: 2})
		t.must(err, "query")
		t.eq(len(res.Entities), 2, "first page")
		_, err = res.NextResults(nil)
		t.must(err, "next page")
		t.must(tb.GetEntityReference("p", "a").Delete(true, nil), "delete entity")
	})
	check("account SAS: the client sends a batch without its token (its own gap): 403 AuthenticationFailed, nothing applied", func(t *T) {
		s := sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: allTypes, Permissions: allPerms})
		tb := s.GetTableReference(name)
		b := tb.NewBatch()
		b.InsertOrReplaceEntityByForce(tb.GetEntityReference("p", "batch"))
		b.ExecuteBatch() // the client then reads the JSON error as multipart: "boundary is empty"
		ex := rec.lastExchange()
		if ex.status != 403 || ex.header.Get("x-ms-error-code") != "AuthenticationFailed" || strings.Contains(ex.url, "sig=") {
			t.fail("%s: %d %s", ex.url, ex.status, ex.header.Get("x-ms-error-code"))
		}
		t.wantErr(tb.GetEntityReference("p", "batch").Get(30, storage.MinimalMetadata, nil), 404, "ResourceNotFound", "read")
	})
	check("account SAS read and list only (sp=rl): reads pass, an insert is 403 AuthorizationPermissionMismatch", func(t *T) {
		s := sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: allTypes,
			Permissions: storage.Permissions{Read: true, List: true}})
		tb := s.GetTableReference(name)
		_, err := tb.QueryEntities(30, storage.MinimalMetadata, nil)
		t.must(err, "query")
		_, err = s.QueryTables(storage.MinimalMetadata, nil)
		t.must(err, "query tables")
		e := tb.GetEntityReference("p", "ro")
		t.wantErr(e.Insert(storage.EmptyPayload, nil), 403, "AuthorizationPermissionMismatch", "insert")
		t.wantErr(s.GetTableReference(uniqueName("gosasno")).Create(30, storage.EmptyPayload, nil), 403, "AuthorizationPermissionMismatch", "create table")
	})
	check("account SAS for containers only (srt=c): tables listed, entities 403 AuthorizationResourceTypeMismatch", func(t *T) {
		s := sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: storage.ResourceTypes{Container: true}, Permissions: allPerms})
		_, err := s.QueryTables(storage.MinimalMetadata, nil)
		t.must(err, "query tables")
		_, err = s.GetTableReference(name).QueryEntities(30, storage.MinimalMetadata, nil)
		t.wantErr(err, 403, "AuthorizationResourceTypeMismatch", "query entities")
	})
	check("account SAS for objects only (srt=o): entities pass, creating a table is 403 AuthorizationResourceTypeMismatch", func(t *T) {
		s := sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: storage.ResourceTypes{Object: true}, Permissions: allPerms})
		_, err := s.GetTableReference(name).QueryEntities(30, storage.MinimalMetadata, nil)
		t.must(err, "query entities")
		t.wantErr(s.GetTableReference(uniqueName("gosasno")).Create(30, storage.EmptyPayload, nil), 403, "AuthorizationResourceTypeMismatch", "create table")
	})
	check("account SAS for the blob service only (ss=b): 403 AuthorizationServiceMismatch", func(t *T) {
		s := sasClient(t, hc, storage.AccountSASTokenOptions{Services: storage.Services{Blob: true}, ResourceTypes: allTypes, Permissions: allPerms})
		_, err := s.QueryTables(storage.MinimalMetadata, nil)
		t.wantErr(err, 403, "AuthorizationServiceMismatch", "query tables")
	})
	check("account SAS expired, or not yet valid: 403 AuthenticationFailed", func(t *T) {
		s := sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: allTypes, Permissions: allPerms,
			Expiry: time.Now().Add(-time.Hour)})
		_, err := s.QueryTables(storage.MinimalMetadata, nil)
		t.wantErr(err, 403, "AuthenticationFailed", "expired")
		s = sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: allTypes, Permissions: allPerms,
			Start: time.Now().Add(time.Hour), Expiry: time.Now().Add(2 * time.Hour)})
		_, err = s.QueryTables(storage.MinimalMetadata, nil)
		t.wantErr(err, 403, "AuthenticationFailed", "not yet valid")
	})
	check("account SAS with an IP range: 127.0.0.1 passes, another address is 403 AuthorizationSourceIPMismatch", func(t *T) {
		s := sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: allTypes, Permissions: allPerms, IP: "127.0.0.1"})
		_, err := s.QueryTables(storage.MinimalMetadata, nil)
		t.must(err, "from 127.0.0.1")
		s = sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: allTypes, Permissions: allPerms, IP: "10.1.2.3-10.1.2.9"})
		_, err = s.QueryTables(storage.MinimalMetadata, nil)
		t.wantErr(err, 403, "AuthorizationSourceIPMismatch", "range")
	})
	check("account SAS with a changed signature: 403 AuthenticationFailed", func(t *T) {
		tok, err := hc.GetAccountSASToken(storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: allTypes,
			Permissions: storage.Permissions{Read: true, List: true}, Expiry: time.Now().Add(time.Hour)})
		t.must(err, "token")
		tok.Set("sp", "rwdlacu") // more than was signed
		c := storage.NewAccountSASClient(acctName, tok, azure.PublicCloud)
		setup(&c)
		s := c.GetTableService()
		_, err = s.QueryTables(storage.MinimalMetadata, nil)
		t.wantErr(err, 403, "AuthenticationFailed", "query")
	})
	check("account SAS: delete the table", func(t *T) {
		s := sasClient(t, hc, storage.AccountSASTokenOptions{Services: tableSvc, ResourceTypes: allTypes, Permissions: allPerms})
		t.must(s.GetTableReference(name).Delete(30, nil), "delete")
	})
}

func aclChecks(tsc *storage.TableServiceClient) {
	tb := tsc.GetTableReference(uniqueName("goacl"))
	check("ACL: create the table", func(t *T) { t.must(tb.Create(30, storage.EmptyPayload, nil), "create") })
	defer tb.Delete(30, nil)
	start := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	expiry := time.Date(2099, 6, 7, 8, 9, 10, 0, time.UTC)
	check("Set Table ACL (three policies), Get Table ACL: the same policies in the order set", func(t *T) {
		set := []storage.TableAccessPolicy{
			{ID: "zeta", StartTime: start, ExpiryTime: expiry, CanRead: true},
			{ID: "alpha", StartTime: start, ExpiryTime: expiry, CanRead: true, CanAppend: true, CanUpdate: true, CanDelete: true},
			{ID: "mid", StartTime: start, ExpiryTime: expiry, CanDelete: true},
		}
		t.must(tb.SetPermissions(set, 30, nil), "set")
		t.eq(rec.lastExchange().status, 204, "status")
		got, err := tb.GetPermissions(30, nil)
		t.must(err, "get")
		if len(got) != len(set) {
			t.fail("%d policies", len(got))
		}
		for i := range set {
			g, w := got[i], set[i]
			if g.ID != w.ID || g.CanRead != w.CanRead || g.CanAppend != w.CanAppend || g.CanUpdate != w.CanUpdate ||
				g.CanDelete != w.CanDelete || !g.StartTime.Equal(w.StartTime) || !g.ExpiryTime.Equal(w.ExpiryTime) {
				t.fail("policy %d: got %+v, want %+v", i, g, w)
			}
		}
	})
	check("Set Table ACL with six policies: 400 InvalidXmlDocument", func(t *T) {
		var six []storage.TableAccessPolicy
		for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
			six = append(six, storage.TableAccessPolicy{ID: id, StartTime: start, ExpiryTime: expiry, CanRead: true})
		}
		t.wantErr(tb.SetPermissions(six, 30, nil), 400, "InvalidXmlDocument", "set")
	})
	check("Set Table ACL with no policy: Get Table ACL answers none", func(t *T) {
		t.must(tb.SetPermissions(nil, 30, nil), "set")
		got, err := tb.GetPermissions(30, nil)
		t.must(err, "get")
		t.eq(len(got), 0, "policies")
	})
	check("Get Table ACL of a missing table: 404 TableNotFound", func(t *T) {
		_, err := tsc.GetTableReference(uniqueName("gonone")).GetPermissions(30, nil)
		t.wantErr(err, 404, "TableNotFound", "get")
	})
	check("Set and Get Table Service Properties: a CORS rule kept", func(t *T) {
		props, err := tsc.GetServiceProperties()
		t.must(err, "get")
		props.Cors = &storage.Cors{CorsRule: []storage.CorsRule{{AllowedOrigins: "https://go.example", AllowedMethods: "GET,PUT",
			MaxAgeInSeconds: 60, ExposedHeaders: "x-ms-meta-data", AllowedHeaders: "x-ms-meta-target"}}}
		t.must(tsc.SetServiceProperties(*props), "set")
		got, err := tsc.GetServiceProperties()
		t.must(err, "get again")
		if got.Cors == nil || len(got.Cors.CorsRule) != 1 || got.Cors.CorsRule[0].AllowedOrigins != "https://go.example" ||
			got.Cors.CorsRule[0].MaxAgeInSeconds != 60 {
			t.fail("CORS %+v", got.Cors)
		}
		props.Cors = &storage.Cors{}
		t.must(tsc.SetServiceProperties(*props), "clear")
	})
}

// emulatorChecks: NewEmulatorClient addresses http://127.0.0.1:10002/devstoreaccount1/... with the
// well-known key, as against Azurite (the transport sends it to the gateway's port).
func emulatorChecks() {
	c, err := storage.NewEmulatorClient()
	if err != nil {
		panic(err)
	}
	setup(&c)
	tsc := c.GetTableService()
	tb := tsc.GetTableReference(uniqueName("goemu"))
	check("emulator client (path-style, devstoreaccount1): table, insert, read, batch, query, delete", func(t *T) {
		t.must(tb.Create(30, storage.MinimalMetadata, nil), "create")
		if !strings.Contains(rec.lastExchange().url, "/devstoreaccount1/Tables") {
			t.fail("url %s", rec.lastExchange().url)
		}
		e := tb.GetEntityReference("p", "a")
		e.Properties = map[string]interface{}{"V": 1}
		t.must(e.Insert(storage.FullMetadata, nil), "insert")
		if !strings.Contains(e.OdataID, "/devstoreaccount1/") {
			t.fail("odata.id %s", e.OdataID)
		}
		b := tb.NewBatch()
		e2 := tb.GetEntityReference("p", "b")
		e2.Properties = map[string]interface{}{"V": 2}
		b.InsertEntity(e2)
		e.Properties = map[string]interface{}{"W": 3}
		b.MergeEntity(e)
		t.must(b.ExecuteBatch(), "batch")
		res, err := tb.QueryEntities(30, storage.MinimalMetadata, &storage.QueryOptions{Top: 1})
		t.must(err, "query")
		t.must(func() error { _, err := res.NextResults(nil); return err }(), "next page")
		t.must(tb.Delete(30, nil), "delete")
	})
}

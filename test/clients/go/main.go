// main.go - the Go client of Debian's golang-github-azure-azure-sdk-for-go-dev (package
// github.com/Azure/azure-sdk-for-go/storage, its Table API) against tablestore-gateway: tables,
// every entity operation, every EDM type, batches, queries with continuations, account SAS,
// table ACLs and service properties, each check written from the service's documentation and
// the client's documented behaviour. Prints one line per check and "N passed, N failed"; exits 1
// on a failure. Built offline in GOPATH mode (test/clients/run.sh):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o tsclient-go ./test/clients/go
//	tsclient-go -port N -account name:key1:key2 [-crash-read table,pk,rk]
//
// The account must be configured in the gateway beside the development account
// devstoreaccount1, which the emulator client (path-style URLs) uses.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/storage"
)

// the account the host-style client signs for
var acctName, acctKey1, acctKey2 string

func main() {
	flag.Parse()
	if *flagPort == 0 {
		usage("-port is required")
	}
	parts := strings.Split(*flagAccount, ":")
	if len(parts) != 3 {
		usage("-account name:key1:key2 is required")
	}
	acctName, acctKey1, acctKey2 = parts[0], parts[1], parts[2]
	rec = newTransport(*flagPort)

	// host-style: https://<account>.table.core.windows.net, here over plain HTTP
	hc, err := storage.NewClient(acctName, acctKey1, storage.DefaultBaseURL, storage.DefaultAPIVersion, false)
	if err != nil {
		fmt.Println("FAIL NewClient:", err)
		os.Exit(1)
	}
	setup(&hc)
	tsc := hc.GetTableService()

	switch {
	case *flagCrash != "":
		crashRead(*flagCrash)
	default:
		tableChecks(&tsc)
		entityChecks(&tsc)
		typeChecks(&tsc)
		batchChecks(&tsc)
		queryChecks(&tsc)
		authChecks(&hc)
		sasChecks(&hc, &tsc)
		aclChecks(&tsc)
		emulatorChecks()
		etagChecks(&tsc)
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

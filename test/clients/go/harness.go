// harness.go - what the Go client's checks share: the command line, the check counter (one line
// per check, "N passed, N failed"), an HTTP transport that sends every request to the gateway
// (the client builds https://<account>.table.core.windows.net or 127.0.0.1:10002 URLs itself, as
// it would through /etc/hosts) and keeps the last exchange for the checks that look at the wire,
// and the service error's status and code from whatever error value the client returns.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/storage"
)

var (
	flagPort    = flag.Int("port", 0, "the gateway's port on 127.0.0.1")
	flagAccount = flag.String("account", "", "name:key1:key2 of a configured account (host-style addressing)")
	flagCrash   = flag.String("crash-read", "", "table,pk,rk: one point read whose owning node was just killed")
)

var passed, failed int

// T carries one check's first failure; fail and must end the check.
type T struct{ msg string }

type stop struct{}

func (t *T) fail(format string, a ...interface{}) {
	t.msg = fmt.Sprintf(format, a...)
	panic(stop{})
}

// must ends the check on an unexpected error.
func (t *T) must(err error, what string) {
	if err != nil {
		t.fail("%s: %s", what, oneLine(err.Error()))
	}
}

func (t *T) eq(got, want interface{}, what string) {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.fail("%s: got %v, want %v", what, got, want)
	}
}

// wantErr: err carries the service's status and error code.
func (t *T) wantErr(err error, status int, code string, what string) {
	if err == nil {
		t.fail("%s: succeeded, want %d %s", what, status, code)
	}
	s, c := svcErr(err)
	if s != status || c != code {
		t.fail("%s: got %d %s (%s), want %d %s", what, s, c, oneLine(err.Error()), status, code)
	}
}

func check(name string, fn func(t *T)) {
	t := &T{}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stop); !ok {
					t.msg = fmt.Sprintf("panic: %v", r)
				}
			}
		}()
		fn(t)
	}()
	if t.msg == "" {
		passed++
		fmt.Printf("ok   %s\n", name)
	} else {
		failed++
		fmt.Printf("FAIL %s: %s\n", name, t.msg)
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "\\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

var statusCode = regexp.MustCompile(`StatusCode=(\d+), ErrorCode=([A-Za-z0-9]*)`)

// svcErr: the HTTP status and the service's error code of an error from the client. The client
// returns AzureStorageServiceError, UnexpectedStatusCodeError wrapping one, or (Delete, Update and
// Merge on 412) a fmt.Errorf("Etag didn't match: %v") with its text only.
func svcErr(err error) (int, string) {
	var se storage.AzureStorageServiceError
	if errors.As(err, &se) {
		return se.StatusCode, se.Code
	}
	var ue storage.UnexpectedStatusCodeError
	if errors.As(err, &ue) {
		if errors.As(ue.Inner(), &se) {
			return se.StatusCode, se.Code
		}
		return ue.Got(), ""
	}
	if m := statusCode.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, err.Error()
}

// exchange is one request and its answer as the transport saw them.
type exchange struct {
	method    string
	url       string
	reqHeader http.Header
	status    int
	header    http.Header
	body      []byte
}

// recorder sends every request to the gateway and keeps the last exchange.
type recorder struct {
	mu   sync.Mutex
	base http.RoundTripper
	last exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	ex := exchange{method: req.Method, url: req.URL.String(), reqHeader: req.Header.Clone()}
	if err == nil {
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		ex.status, ex.header, ex.body = resp.StatusCode, resp.Header.Clone(), body
		if rerr != nil {
			err = rerr
		}
	}
	r.mu.Lock()
	r.last = ex
	r.mu.Unlock()
	return resp, err
}

func (r *recorder) lastExchange() exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

var rec *recorder

// newTransport: every connection goes to the gateway, whatever host the client addressed.
func newTransport(port int) *recorder {
	target := fmt.Sprintf("127.0.0.1:%d", port)
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &recorder{base: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "tcp", target)
		},
		MaxIdleConnsPerHost: 4,
	}}
}

// setup gives a client the gateway transport and no retries, so that every answer is judged as it
// came (the client's default sender retries 408, 500, 502, 503 and 504 five times).
func setup(c *storage.Client) {
	c.HTTPClient = &http.Client{Transport: rec, Timeout: 30 * time.Second}
	c.Sender = &storage.DefaultSender{RetryAttempts: 1}
}

// uniqueName: a table name of this run.
func uniqueName(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func usage(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	flag.Usage()
	os.Exit(2)
}

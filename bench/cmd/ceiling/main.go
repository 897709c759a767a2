// Command ceiling is the HTTP ceiling of the benchmark: the least work a Go
// net/http server can do per request. It answers every request with the
// same precomputed JSON body of a given size, so the load generator measures
// the machine, the kernel's loopback and net/http, and nothing else.
//
//	ceiling -addr 127.0.0.1:18081 -size 9000
package main

import (
	"bytes"
	"flag"
	"log"
	"net/http"
	"strconv"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address (loopback)")
	size := flag.Int("size", 8192, "response body size in bytes")
	flag.Parse()
	body := Body(*size)
	length := strconv.Itoa(len(body))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd["Content-Type"] = []string{"application/json"}
		hd["Content-Length"] = []string{length}
		w.Write(body)
	})
	log.Fatal(http.ListenAndServe(*addr, h))
}

// Body is valid JSON of exactly n bytes (n >= 16).
func Body(n int) []byte {
	const head, tail = `{"padding":"`, `"}`
	n = max(n, len(head)+len(tail))
	return append(append([]byte(head), bytes.Repeat([]byte("x"), n-len(head)-len(tail))...), tail...)
}

package server

import (
	"net/http"
	"testing"
)

// BenchmarkCompress is the cost of compressing a typical search answer (20
// stations, about 20 KB of JSON) in each coding: what a cache miss adds
// for a client that accepts compression.
func BenchmarkCompress(b *testing.B) {
	body := serve(newServerWithCache(b, fixedSource{demoIx(b)}, -1), http.MethodGet, "/api/stations?q=radio").Body.Bytes()
	for _, c := range []coding{gzipCoding, zstdCoding} {
		b.Run(c.name(), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var out int
			for b.Loop() {
				out = len(compress(c, body))
			}
			b.ReportMetric(float64(out)/float64(len(body)), "ratio")
		})
	}
}

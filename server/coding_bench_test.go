package server

import (
	"net/http"
	"testing"

	"stationdex/server/core"
)

// BenchmarkCompress is the cost of compressing a typical search answer (20
// stations, about 20 KB of JSON) in each coding: what a cache miss adds
// for a client that accepts compression.
func BenchmarkCompress(b *testing.B) {
	body := serve(newServerWithCache(b, fixedSource{demoIx(b)}, -1), http.MethodGet, "/api/stations?q=radio").Body.Bytes()
	for _, c := range []core.Coding{core.GzipCoding, core.ZstdCoding} {
		b.Run(c.Name(), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var out int
			for b.Loop() {
				out = len(core.Compress(c, body))
			}
			b.ReportMetric(float64(out)/float64(len(body)), "ratio")
		})
	}
}

package core

import (
	"bytes"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Content codings of entities. Encoders are pooled (gzip) or shared (zstd's
// EncodeAll is safe for concurrent use), so compressing a body allocates
// little more than its output.

// Coding is a content coding an entity can be sent in.
type Coding int

const (
	Identity Coding = iota
	GzipCoding
	ZstdCoding
	numCodings
)

// Name is the coding's Content-Encoding token.
func (c Coding) Name() string {
	switch c {
	case GzipCoding:
		return "gzip"
	case ZstdCoding:
		return "zstd"
	}
	return "identity"
}

// Tag is the ETag of the variant in c of an entity whose identity tag is
// tag: a suffix inside the quotes, so each variant has its own strong tag
// (RFC 9110, 8.8.3.3: different content codings are different
// representations).
func (c Coding) Tag(tag string) string {
	switch c {
	case GzipCoding:
		return tag[:len(tag)-1] + `-gz"`
	case ZstdCoding:
		return tag[:len(tag)-1] + `-zst"`
	}
	return tag
}

// codingNamed maps an Accept-Encoding token (already lower-cased) to a
// coding; x-gzip is gzip (RFC 9110, 8.4.1.3).
func codingNamed(name string) (Coding, bool) {
	switch name {
	case "identity":
		return Identity, true
	case "gzip", "x-gzip":
		return GzipCoding, true
	case "zstd":
		return ZstdCoding, true
	}
	return Identity, false
}

// gzipLevel trades size for CPU, which is what a node runs short of: on a
// 20 KB search answer, level 1 takes about 60% of level 5's time
// (BenchmarkCompress) for about 15% more bytes (0.21 of the body, against
// 0.18). zstd at its default level gives 0.18 for a cost between the two
// (measurements on a shared machine are noisy), and decodes faster for the
// client: it is preferred on a tie.
const gzipLevel = 1

var (
	GzipWriters = sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(nil, gzipLevel) // a valid level cannot fail
		return w
	}}
	gzipBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	// zstdEncoder is shared: EncodeAll may be called concurrently. One
	// goroutine per call, and no window larger than our bodies need.
	zstdEncoder, _ = zstd.NewWriter(nil,
		zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithWindowSize(1<<20), zstd.WithZeroFrames(true))
)

// Compress returns body in coding c, in a slice of its own.
func Compress(c Coding, body []byte) []byte {
	switch c {
	case GzipCoding:
		return gzipBytes(body)
	case ZstdCoding:
		return zstdEncoder.EncodeAll(body, make([]byte, 0, len(body)/3+64))
	}
	return body
}

func gzipBytes(body []byte) []byte {
	buf := gzipBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	zw := GzipWriters.Get().(*gzip.Writer)
	zw.Reset(buf)
	_, _ = zw.Write(body) // writes to a bytes.Buffer cannot fail
	_ = zw.Close()
	GzipWriters.Put(zw)
	out := bytes.Clone(buf.Bytes())
	if buf.Cap() <= 1<<20 { // a huge buffer is left to the collector
		gzipBuffers.Put(buf)
	}
	return out
}

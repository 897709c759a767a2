package server

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"stationdex/server/wire"
)

// The one response path. Every answer other than a data dump is an entity:
// a body encoded in full, its media type and its validator. send is the one
// writer of entities: it owns Content-Type, nosniff, the ETag of the
// variant sent, Cache-Control, the conditional GET (304), HEAD, the choice
// of content coding (Vary: Accept-Encoding) and Content-Length. Handlers set
// only what is theirs (CORS, the Content-Security-Policy of a page, Vary:
// Accept of a page with a Markdown twin) and hand send the entity.
//
// Range is ignored on answers computed from the index (RFC 9110, 14.2: a
// server MAY ignore it): they are a few kilobytes, built per request, and
// carry no Accept-Ranges, so clients do not ask. The static files (style
// sheet, icons, robots.txt) take Range: their bodies and compressed
// variants are made once per process, so a range of the variant sent (of
// the compressed bytes, RFC 9110 14.1.2) is a range of stable bytes. The
// data dumps, stored gzip-compressed, keep their own path with Range
// (dump.go).

// entity is one response body with what describes it. Entities held by the
// response cache are shared between requests: nothing in one changes after
// it is built, except the compressed variants, each set once.
type entity struct {
	contentType string
	tag         string // strong ETag of the identity body, quoted; "" for none
	csp         string // Content-Security-Policy of a page; "" for none
	body        []byte // identity: the bytes before any content coding
	// single marks an entity built for one request and not kept: the
	// fields below, made to be sent again, would be made for nothing.
	single   bool
	variants [numCodings]atomic.Pointer[[]byte]
	fields   atomic.Pointer[entityFields]
	tags     [numCodings]atomic.Pointer[[]string] // ETag field per coding, made when first sent
	lengths  [numCodings]atomic.Pointer[lengthField]
}

// lengthField is a Content-Length value as net/http keeps it, with the
// length it says.
type lengthField struct {
	n     int
	field []string
}

// lengthField is the Content-Length field of body, e's body in coding c:
// made once per entity and coding, like its ETag, since a cached entity
// is sent again and again (and made again should a variant's length
// differ, which deterministic compression never makes it).
func (e *entity) lengthField(c coding, body []byte) []string {
	if e.single {
		return []string{strconv.Itoa(len(body))}
	}
	if l := e.lengths[c].Load(); l != nil && l.n == len(body) {
		return l.field
	}
	l := &lengthField{n: len(body), field: []string{strconv.Itoa(len(body))}}
	e.lengths[c].Store(l)
	return l.field
}

// entityFields are e's header values as net/http keeps them, made once
// per entity: a cached entity is sent thousands of times, and Header.Set
// canonicalises its key and allocates a slice for every value it sets.
type entityFields struct {
	contentType, csp []string
}

func (e *entity) headerFields() *entityFields {
	if f := e.fields.Load(); f != nil {
		return f
	}
	for _, f := range commonFields {
		if f.contentType[0] == e.contentType && (f.csp == nil && e.csp == "" || f.csp != nil && f.csp[0] == e.csp) {
			return f
		}
	}
	f := newEntityFields(e.contentType, e.csp)
	e.fields.Store(f) // a race builds equal values twice: harmless
	return f
}

func newEntityFields(contentType, csp string) *entityFields {
	f := &entityFields{contentType: []string{contentType}}
	if csp != "" {
		f.csp = []string{csp}
	}
	return f
}

// commonFields are the fields of the answers built most often, made once:
// a search or a page built for one request would otherwise allocate its
// own.
var commonFields = [...]*entityFields{
	newEntityFields(jsonType, ""),
	newEntityFields(htmlType, pageCSP), newEntityFields(markdownMediaType, pageCSP),
	newEntityFields(htmlType, pageMediaCSP), newEntityFields(markdownMediaType, pageMediaCSP),
}

// tagField is e's ETag field in coding c, made once per coding actually
// sent: an answer built for one request is sent in one coding.
func (e *entity) tagField(c coding) []string {
	if e.single {
		return []string{c.tag(e.tag)}
	}
	if f := e.tags[c].Load(); f != nil {
		return *f
	}
	f := []string{c.tag(e.tag)}
	e.tags[c].Store(&f)
	return f
}

// Header values shared by every response: net/http only reads them, and a
// handler appending to one gets a copy (each has no spare capacity).
var (
	fieldNosniff        = []string{"nosniff"}
	fieldNoReferrer     = []string{"no-referrer"}
	fieldAcceptEncoding = []string{"Accept-Encoding"}
	fieldNoStore        = []string{"no-store"}
	// fieldContentEncoding is the Content-Encoding field of each coding
	// but identity, which is sent without one.
	fieldContentEncoding = [numCodings][]string{gzipCoding: {gzipCoding.name()}, zstdCoding: {zstdCoding.name()}}
)

// compressible reports whether e is worth a content coding: text of at
// least minCompressBytes (smaller bodies fit one packet either way).
func (e *entity) compressible() bool {
	return len(e.body) >= minCompressBytes && isTextType(e.contentType)
}

// minCompressBytes is the smallest body sent compressed.
const minCompressBytes = 1024

func isTextType(ct string) bool {
	return strings.HasPrefix(ct, "text/") || strings.HasPrefix(ct, "application/json") ||
		strings.HasPrefix(ct, "application/xml") || strings.HasPrefix(ct, "image/svg+xml")
}

// reply is how an entity is answered: its status and, for a 200 with a
// tag, its Cache-Control.
type reply struct {
	status       int      // 0: 200
	cacheControl []string // the Cache-Control header value, for a tagged 200
	ranged       bool     // Range requests are answered (static files)
}

// send writes e with status and cacheControl, negotiating the content
// coding. It is the only place that decides 304: an If-None-Match naming
// the variant that would be sent (weak comparison, RFC 9110 13.1.2), or
// "*". store, when not nil, keeps a variant compressed here for the next
// request (the response cache).
func (s *Server) send(w http.ResponseWriter, r *http.Request, e *entity, rp reply, store func(*entity, coding, []byte)) {
	h := w.Header()
	f := e.headerFields()
	// Keys in canonical form, values made once (see entityFields).
	h["Content-Type"] = f.contentType
	h["X-Content-Type-Options"] = fieldNosniff
	if f.csp != nil {
		h["Content-Security-Policy"] = f.csp
	}
	c := identity
	if e.compressible() {
		varyAcceptEncoding(h)
		c = negotiate(r.Header["Accept-Encoding"])
	}
	status := rp.status
	if status == 0 {
		status = http.StatusOK
	}
	if e.tag != "" && status == http.StatusOK {
		tag := e.tagField(c)
		h["Etag"] = tag
		h["Cache-Control"] = rp.cacheControl
		if etagMatches(r.Header["If-None-Match"], tag[0]) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else {
		delete(h, "Etag")
		h["Cache-Control"] = fieldNoStore
	}
	body := s.encoded(e, c, store)
	if c != identity {
		h["Content-Encoding"] = fieldContentEncoding[c]
	}
	if rp.ranged && status == http.StatusOK {
		// net/http parses the Range, answers 206 or 416, and HEAD; the
		// conditional request was decided above with the variant's tag,
		// which ServeContent also sees (and If-Range compares).
		http.ServeContent(w, r, "", zeroTime, bytes.NewReader(body))
		return
	}
	h["Content-Length"] = e.lengthField(c, body)
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		writeBody(w, r, body)
	}
}

// writeBody writes body, the whole of the response after its head. A body
// larger than net/http's per-response buffer goes past it to the
// connection's 4 KiB buffer, which then holds the head: net/http writes
// that buffer full, then the rest of the body, two write(2)s that the
// connection (package wire) sends as one. When the rest is shorter than
// the buffer, net/http copies it there and would write it only once the
// handler returns: it is flushed at once instead, to go with the held
// part. A head and body that fit the buffer together are written once by
// net/http anyway, and so is a body up to the per-response buffer.
//
// One write instead of two spares the node a system call and the client a
// wake-up and a read per answer: in the benchmark suite's crawl (pages of
// 3 to 5 KB, each built once) wrk spent 15 us of CPU per request instead of
// 18 and the node's kernel calls 8 instead of 12. Earlier runs saw wrk's
// p99 widen with it (12-16 ms); in the same rounds the node's own
// histogram put its p99 under 250 us, so that tail is time spent waiting
// for a core (wrk and the node share two), not in writing. A write error
// means the client left; nothing to do.
func writeBody(w http.ResponseWriter, r *http.Request, body []byte) {
	if len(body) <= minHeldBody {
		w.Write(body)
		return
	}
	c := wire.From(r.Context())
	if c == nil {
		w.Write(body)
		return
	}
	c.Hold()
	// Released even through a panic: a held connection would stall. Its
	// error stays with the connection, whose later writes return it.
	defer func() { _ = c.Release() }()
	w.Write(body)
	if c.Held() {
		_ = http.NewResponseController(w).Flush() // the head is written: flushing changes no byte
	}
}

// minHeldBody is net/http's bufferBeforeChunkingSize: a body up to this
// size is copied into the response's buffer and reaches the connection only
// when the handler returns.
const minHeldBody = 2048

// encoded is e's body in coding c: the identity body, a variant already
// compressed, or one compressed now (and offered to store).
func (s *Server) encoded(e *entity, c coding, store func(*entity, coding, []byte)) []byte {
	if c == identity {
		return e.body
	}
	if v := e.variants[c].Load(); v != nil {
		return *v
	}
	z := compress(c, e.body)
	if store != nil {
		store(e, c, z)
	}
	return z
}

// acceptQ is the q value Accept-Encoding gives each coding (RFC 9110,
// 12.5.3), read once per request: the one parser of the header, for the
// answers negotiate codes and for the stored gzip dumps.
//
// "*" stands for any coding not listed, but only for gzip: zstd is sent
// only when named. A client saying "*" (node-fetch, and so Prism's proxy,
// sends exactly that) may decode only gzip, deflate and br, and what
// clients can decode decides. No header: identity only. Identity is
// acceptable unless "identity;q=0", or "*;q=0" without identity, excludes
// it; even then, when no coding is acceptable, identity is sent: an
// answer the client may reject beats a 406 for a read (RFC 9110 allows
// either), and every kind of response does the same.
type acceptQ [numCodings]float64

func parseAcceptEncoding(accept []string) acceptQ {
	var q acceptQ
	if len(accept) == 0 {
		q[identity] = 1
		return q
	}
	var listed [numCodings]bool
	star, starListed := 0.0, false
	for _, field := range accept {
		for part := range strings.SplitSeq(field, ",") {
			name, pq := parseAcceptPart(part)
			if name == "*" {
				star, starListed = max(star, pq), true
				continue
			}
			if c, ok := codingNamed(name); ok {
				q[c], listed[c] = max(q[c], pq), true
			}
		}
	}
	for _, c := range [...]coding{identity, gzipCoding} { // what "*" stands for
		if !listed[c] && starListed {
			q[c] = star
		}
	}
	if !listed[identity] && !starListed {
		q[identity] = 1e-9 // acceptable by default, but below any listed coding
	}
	return q
}

// negotiate picks the content coding: the acceptable coding with the
// highest q, zstd before gzip before identity on a tie, identity when
// none is acceptable (see acceptQ).
func negotiate(accept []string) coding {
	q := parseAcceptEncoding(accept)
	best := identity
	for _, c := range [...]coding{zstdCoding, gzipCoding} { // preference order
		if q[c] > 0 && (q[c] > q[best] || best == identity && q[c] == q[best]) {
			best = c
		}
	}
	return best
}

package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"stationdex/internal/format"
	"stationdex/server/wire"
)

// JSONHead describes every JSON body.
var JSONHead = EntityHead{ContentType: JSONType}

const JSONType = "application/json; charset=utf-8"

// writeJSON writes v, an answer that is not cached (an error), as the JSON
// body of a response with status. Either encoder (the envelopes' own
// appenders, encoding/json for the rest) replaces invalid UTF-8 by U+FFFD and
// escapes <, >, &, U+2028 and U+2029, so no stored text can break the output
// or turn into markup where the JSON is embedded; the data dumps share the
// station appender, so a station is the same bytes in both.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := EncodeResponse(nil, v)
	if err != nil {
		s.Log.Error("encode response", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	s.Send(w, r, &Entity{ContentType: JSONType, Body: body, Single: true}, Reply{Status: status}, nil)
}

// EncodeResponse appends v's body to dst, ending in a newline as
// json.Encoder ends it: through its own appender when it has one (the
// envelopes), else through encoding/json (errors and the rest).
func EncodeResponse(dst []byte, v any) ([]byte, error) {
	if a, ok := v.(JSONAppender); ok {
		return append(a.AppendJSON(dst), '\n'), nil
	}
	buf := bytes.NewBuffer(dst)
	err := json.NewEncoder(buf).Encode(v)
	return buf.Bytes(), err
}

// JSONAppender is a response body that encodes itself without reflection;
// writeJSON prefers it. Each implementation writes exactly what
// encoding/json would (TestEnvelopesAppendAsEncodingJSON).
type JSONAppender interface {
	AppendJSON(dst []byte) []byte
}

// The Markdown twin of every page, rendered from the same Page as the HTML.
// Station text is untrusted: every piece of it goes through mdText, which
// backslash-escapes the ASCII punctuation that could open markup where it
// stands, so no name can open a link, an image, emphasis, code, a heading,
// a list, a table, raw HTML, an entity or an autolink ("https\://",
// "www\." and "a\@b" do not match), while ordinary punctuation reads as
// written.
// Link destinations are ours or http(s) addresses, written in <...> form.

// MarkdownMediaType is the Content-Type of every Markdown response.
const MarkdownMediaType = "text/markdown; charset=utf-8"

// The HTML pages and their Markdown twins. Every page is one pageFunc that
// builds a Page from the index; servePage picks the representation:
// Markdown when the URL ends in index.md or the client asks for
// text/markdown, HTML otherwise (Vary: Accept).

// Security headers of every page. Pages load only their own style sheet
// and icon; a listening page also plays the station's stream, which lives
// elsewhere. No page runs a script; connect-src 'self' lets tools that
// audit a page from inside it (a crawler checking robots.txt) read this
// site's own files.
const (
	PageCSP      = "default-src 'none'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
	PageMediaCSP = PageCSP + "; media-src http: https:"
	HTMLType     = "text/html; charset=utf-8"
)

func ParseAcceptPart(part string) (string, float64) {
	mediaType, params, _ := strings.Cut(part, ";")
	q := 1.0
	for p := range strings.SplitSeq(params, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(name, "q") {
			if v, err := strconv.ParseFloat(value, 64); err == nil && v >= 0 && v <= 1 {
				q = v
			}
		}
	}
	return strings.ToLower(strings.TrimSpace(mediaType)), q
}

// ZeroTime leaves Last-Modified out of http.ServeContent responses: the
// ETag is the validator.
var ZeroTime time.Time

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

// Entity is one response body with what describes it. Entities held by the
// response cache are shared between requests: nothing in one changes after
// it is built, except the compressed variants, each set once.
type Entity struct {
	ContentType string
	Tag         string // strong ETag of the identity body, quoted; "" for none
	CSP         string // Content-Security-Policy of a page; "" for none
	Body        []byte // identity: the bytes before any content coding
	// Single marks an entity built for one request and not kept: the
	// fields below, made to be sent again, would be made for nothing.
	Single   bool
	Variants [numCodings]atomic.Pointer[[]byte]
	fields   atomic.Pointer[entityFields]
	tags     [numCodings]atomic.Pointer[[]string] // ETag field per coding, made when first sent
	lengths  [numCodings]atomic.Pointer[lengthField]
	// identity is the ETag and Content-Length fields of the identity body,
	// made with the tag by setTag in one string: an answer built for one
	// request is sent with them, and a cached one's first send keeps them.
	identity struct {
		tag, length [1]string
		n           int // the length the field says
	}
}

// setTag sets e's ETag, that of the resource key of the snapshot m under
// base, and its identity fields (see Entity.identity): one allocation.
func (e *Entity) setTag(m format.Meta, base, key string) {
	var space [etagLength + 20]byte
	b := strconv.AppendInt(appendETag(space[:0], m, base, key), int64(len(e.Body)), 10)
	text := string(b)
	e.Tag = text[:etagLength]
	e.identity.tag[0], e.identity.length[0], e.identity.n = e.Tag, text[etagLength:], len(e.Body)
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
func (e *Entity) lengthField(c Coding, body []byte) []string {
	if c == Identity && e.identity.length[0] != "" && e.identity.n == len(body) {
		return e.identity.length[:]
	}
	if e.Single {
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

func (e *Entity) headerFields() *entityFields {
	if f := e.fields.Load(); f != nil {
		return f
	}
	for _, f := range commonFields {
		if f.contentType[0] == e.ContentType && (f.csp == nil && e.CSP == "" || f.csp != nil && f.csp[0] == e.CSP) {
			return f
		}
	}
	f := newEntityFields(e.ContentType, e.CSP)
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
	newEntityFields(JSONType, ""),
	newEntityFields(HTMLType, PageCSP), newEntityFields(MarkdownMediaType, PageCSP),
	newEntityFields(HTMLType, PageMediaCSP), newEntityFields(MarkdownMediaType, PageMediaCSP),
}

// tagField is e's ETag field in coding c, made once per coding actually
// sent: an answer built for one request is sent in one coding.
func (e *Entity) tagField(c Coding) []string {
	if c == Identity && e.identity.tag[0] != "" && e.identity.tag[0] == e.Tag {
		return e.identity.tag[:]
	}
	if e.Single {
		return []string{c.Tag(e.Tag)}
	}
	if f := e.tags[c].Load(); f != nil {
		return *f
	}
	f := []string{c.Tag(e.Tag)}
	e.tags[c].Store(&f)
	return f
}

// Header values shared by every response: net/http only reads them, and a
// handler appending to one gets a copy (each has no spare capacity).
var (
	fieldNosniff        = []string{"nosniff"}
	FieldNoReferrer     = []string{"no-referrer"}
	fieldAcceptEncoding = []string{"Accept-Encoding"}
	fieldNoStore        = []string{"no-store"}
	// fieldContentEncoding is the Content-Encoding field of each coding
	// but identity, which is sent without one.
	fieldContentEncoding = [numCodings][]string{GzipCoding: {GzipCoding.Name()}, ZstdCoding: {ZstdCoding.Name()}}
)

// compressible reports whether e is worth a content coding: text of at
// least minCompressBytes (smaller bodies fit one packet either way).
func (e *Entity) compressible() bool {
	return len(e.Body) >= MinCompressBytes && isTextType(e.ContentType)
}

// MinCompressBytes is the smallest body sent compressed.
const MinCompressBytes = 1024

func isTextType(ct string) bool {
	return strings.HasPrefix(ct, "text/") || strings.HasPrefix(ct, "application/json") ||
		strings.HasPrefix(ct, "application/xml") || strings.HasPrefix(ct, "image/svg+xml")
}

// Reply is how an entity is answered: its status and, for a 200 with a
// tag, its Cache-Control.
type Reply struct {
	Status       int      // 0: 200
	CacheControl []string // the Cache-Control header value, for a tagged 200
	Ranged       bool     // Range requests are answered (static files)
}

// Send writes e with status and cacheControl, negotiating the content
// coding. It is the only place that decides 304: an If-None-Match naming
// the variant that would be sent (weak comparison, RFC 9110 13.1.2), or
// "*". store, when not nil, keeps a variant compressed here for the next
// request (the response cache).
func (s *Server) Send(w http.ResponseWriter, r *http.Request, e *Entity, rp Reply, store func(*Entity, Coding, []byte)) {
	h := w.Header()
	f := e.headerFields()
	// Keys in canonical form, values made once (see entityFields).
	h["Content-Type"] = f.contentType
	h["X-Content-Type-Options"] = fieldNosniff
	if f.csp != nil {
		h["Content-Security-Policy"] = f.csp
	}
	c := Identity
	if e.compressible() {
		VaryAcceptEncoding(h)
		c = Negotiate(r.Header["Accept-Encoding"])
	}
	status := rp.Status
	if status == 0 {
		status = http.StatusOK
	}
	if e.Tag != "" && status == http.StatusOK {
		tag := e.tagField(c)
		h["Etag"] = tag
		h["Cache-Control"] = rp.CacheControl
		if etagMatches(r.Header["If-None-Match"], tag[0]) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else {
		delete(h, "Etag")
		h["Cache-Control"] = fieldNoStore
	}
	body := s.encoded(e, c, store)
	if c != Identity {
		h["Content-Encoding"] = fieldContentEncoding[c]
	}
	if rp.Ranged && status == http.StatusOK {
		// net/http parses the Range, answers 206 or 416, and HEAD; the
		// conditional request was decided above with the variant's tag,
		// which ServeContent also sees (and If-Range compares).
		http.ServeContent(w, r, "", ZeroTime, bytes.NewReader(body))
		return
	}
	h["Content-Length"] = e.lengthField(c, body)
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		WriteBody(w, r, body)
	}
}

// WriteBody writes body, the whole of the response after its head. A body
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
func WriteBody(w http.ResponseWriter, r *http.Request, body []byte) {
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
func (s *Server) encoded(e *Entity, c Coding, store func(*Entity, Coding, []byte)) []byte {
	if c == Identity {
		return e.Body
	}
	if v := e.Variants[c].Load(); v != nil {
		return *v
	}
	z := Compress(c, e.Body)
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

func ParseAcceptEncoding(accept []string) acceptQ {
	var q acceptQ
	if len(accept) == 0 {
		q[Identity] = 1
		return q
	}
	var listed [numCodings]bool
	star, starListed := 0.0, false
	for _, field := range accept {
		for part := range strings.SplitSeq(field, ",") {
			name, pq := ParseAcceptPart(part)
			if name == "*" {
				star, starListed = max(star, pq), true
				continue
			}
			if c, ok := codingNamed(name); ok {
				q[c], listed[c] = max(q[c], pq), true
			}
		}
	}
	for _, c := range [...]Coding{Identity, GzipCoding} { // what "*" stands for
		if !listed[c] && starListed {
			q[c] = star
		}
	}
	if !listed[Identity] && !starListed {
		q[Identity] = 1e-9 // acceptable by default, but below any listed coding
	}
	return q
}

// Negotiate picks the content coding: the acceptable coding with the
// highest q, zstd before gzip before identity on a tie, identity when
// none is acceptable (see acceptQ).
func Negotiate(accept []string) Coding {
	q := ParseAcceptEncoding(accept)
	best := Identity
	for _, c := range [...]Coding{ZstdCoding, GzipCoding} { // preference order
		if q[c] > 0 && (q[c] > q[best] || best == Identity && q[c] == q[best]) {
			best = c
		}
	}
	return best
}

// The static resources: the style sheet, the favicon and robots.txt. They
// change only with the binary, so the style sheet is linked under a name
// carrying its digest and cached for a year as immutable; a page built by
// another version of the binary names another file, never a stale one.

// NewStaticAsset is one resource held in memory as an entity, tagged by
// its digest; its compressed variants are made once, when first asked for.
func NewStaticAsset(body []byte, contentType string) *Entity {
	sum := sha256.Sum256(body)
	return &Entity{Body: body, ContentType: contentType, Tag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

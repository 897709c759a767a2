package core

import (
	"bytes"
	"net/http"
	"sync"

	"github.com/julienschmidt/httprouter"
)

// resolver is the one handler shape of everything answered from the index.
// It names the resource a request asks for: its key, the canonical request
// (kind, path and canonical query), which names the body in the response
// cache and is what its ETag is derived from, so that two requests with
// one key have one body; and the builder of that body. A request that names
// no resource (a bad parameter, a malformed id) is an error decided before
// any index is needed, so it is a 400 or 404 even while none is loaded.
type resolver func(r *http.Request, ps httprouter.Params) (key string, build Builder, err error)

// Builder appends the body of a resource, built from ix, to dst and says
// what it is. A resource that turns out not to exist returns an error.
type Builder func(ix Index, dst []byte) (EntityHead, []byte, error)

// EntityHead is what a builder says about the body it built.
type EntityHead struct {
	ContentType string
	Status      int    // 0: 200; anything else is sent uncached, no-store
	CSP         string // pages only
}

// failFunc renders an error in a route group's format: JSON for the API
// and the files, an error page for the pages.
type failFunc func(w http.ResponseWriter, r *http.Request, err error)

// Resource adapts a resolver to the router: it resolves the request,
// acquires the index (503 through fail while none is loaded) and answers.
func (s *Server) Resource(resolve resolver, fail failFunc) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		key, build, err := resolve(r, ps)
		if err != nil {
			fail(w, r, err)
			return
		}
		s.ServeResource(w, r, key, build, fail)
	}
}

// apiResource is resource for the API routes, whose resource is named by
// the request target alone: a target answered from the response cache
// before is answered again without resolving it (see
// responseCache.getTarget). The answers are those of resource.
func (s *Server) apiResource(resolve resolver, fail failFunc) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		ix, release := s.Acquire()
		if ix != nil {
			defer release()
			if e, key := s.Cache.GetTarget(ix, r.RequestURI); e != nil {
				s.sendCached(w, r, ix, key, e)
				return
			}
		}
		key, build, err := resolve(r, ps)
		if err == nil && ix == nil {
			err = ErrNoIndex
		}
		if err == nil {
			err = s.answer(w, r, ix, key, r.RequestURI, build)
		}
		if err != nil {
			fail(w, r, err)
		}
	}
}

// ServeResource answers the resource key from the current index.
func (s *Server) ServeResource(w http.ResponseWriter, r *http.Request, key string, build Builder, fail failFunc) {
	ix, release := s.Acquire()
	if ix == nil {
		fail(w, r, ErrNoIndex)
		return
	}
	defer release()
	if err := s.answer(w, r, ix, key, "", build); err != nil {
		fail(w, r, err)
	}
}

// ServeTarget answers the resource key names, as ServeResource does, for a
// request whose target (the path and query as sent) names that resource
// alone, as an API request's does (see apiResource): a target answered
// from the response cache before is answered again before key is called,
// so a hit makes no key. A page whose representation the Accept header
// picks is not named by its target alone: it is served by ServeResource.
func (s *Server) ServeTarget(w http.ResponseWriter, r *http.Request, key func() string, build Builder, fail failFunc) {
	ix, release := s.Acquire()
	if ix == nil {
		fail(w, r, ErrNoIndex)
		return
	}
	defer release()
	if e, k := s.Cache.GetTarget(ix, r.RequestURI); e != nil {
		s.sendCached(w, r, ix, k, e)
		return
	}
	if err := s.answer(w, r, ix, key(), r.RequestURI, build); err != nil {
		fail(w, r, err)
	}
}

// answer sends the resource named key: from the response cache, or built
// now, tagged, and stored for the next request when it is a 200. A cached
// entry is remembered under target, the request as sent ("" for none),
// for apiResource's lookup before parsing.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, ix Index, key, target string, build Builder) error {
	if e := s.Cache.Get(ix, key, target); e != nil {
		s.sendCached(w, r, ix, key, e)
		return nil
	}
	if s.revalidatedEarly(w, r, ix, key) {
		return nil
	}
	buf := GetBuffer()
	defer PutBuffer(buf)
	head, body, err := build(ix, (*buf)[:0])
	if body != nil {
		*buf = body[:0] // keep the grown buffer for the next request
	}
	if err != nil {
		return err
	}
	e := &Entity{ContentType: head.ContentType, CSP: head.CSP, Body: body, Single: true}
	if head.Status != 0 && head.Status != http.StatusOK {
		s.Send(w, r, e, Reply{Status: head.Status}, nil)
		return nil
	}
	e.setTag(ix.Meta(), s.Base, key)
	if !s.Cache.admit(ix, key) {
		s.Send(w, r, e, Reply{CacheControl: s.CacheControl}, nil) // no variant to keep
		return nil
	}
	e.Single = false
	e.Body = bytes.Clone(body) // the cache keeps it; the buffer goes back to the pool
	s.Cache.Put(ix, key, target, e)
	s.Send(w, r, e, Reply{CacheControl: s.CacheControl}, s.storeVariant(ix, key))
	return nil
}

// sendCached sends e, held in the response cache under key for ix.
func (s *Server) sendCached(w http.ResponseWriter, r *http.Request, ix Index, key string, e *Entity) {
	s.Send(w, r, e, Reply{CacheControl: s.CacheControl}, s.storeVariant(ix, key))
}

// storeVariant keeps a variant compressed by send in the cache entry of
// key, for the next request in that coding.
func (s *Server) storeVariant(ix Index, key string) func(*Entity, Coding, []byte) {
	return func(e *Entity, c Coding, z []byte) { s.Cache.AddVariant(ix, key, e, c, z) }
}

// revalidatedEarly answers 304 without building the body when the
// request's If-None-Match names the tag of the compressed variant that
// would be sent: the server sent that tag only because this key's body, the
// same for the whole snapshot, is large enough to compress, so the 304 and
// its headers (Vary: Accept-Encoding included) are known before the body
// exists. An identity tag is left to send, after the body is built: whether
// its 200 would say Vary depends on the body's size. So is "*", which must
// not answer 304 for a resource that turns out not to exist.
func (s *Server) revalidatedEarly(w http.ResponseWriter, r *http.Request, ix Index, key string) bool {
	inm := r.Header.Values("If-None-Match")
	if len(inm) == 0 {
		return false
	}
	c := Negotiate(r.Header.Values("Accept-Encoding"))
	if c == Identity {
		return false
	}
	tag := c.Tag(etag(ix.Meta(), s.Base, key))
	if !etagListed(inm, tag, false) {
		return false
	}
	h := w.Header()
	VaryAcceptEncoding(h)
	h.Set("ETag", tag)
	h["Cache-Control"] = s.CacheControl
	w.WriteHeader(http.StatusNotModified)
	return true
}

// KeepVariant stores a compressed variant in an entity that lives as long
// as the server (static files, the OpenAPI document): compressed once.
func KeepVariant(e *Entity, c Coding, z []byte) { e.Variants[c].CompareAndSwap(nil, &z) }

// Body buffers are pooled: a response is built into one, sent, and the
// buffer reused, so building a body allocates nothing once warm. Buffers
// grown past maxPooledBuffer (a sitemap) are left to the collector, so the
// pool never pins megabytes.
const maxPooledBuffer = 256 << 10

var bodyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func GetBuffer() *[]byte { return bodyBuffers.Get().(*[]byte) }

func PutBuffer(b *[]byte) {
	if cap(*b) <= maxPooledBuffer {
		*b = (*b)[:0]
		bodyBuffers.Put(b)
	}
}

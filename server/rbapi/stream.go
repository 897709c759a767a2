package rbapi

import (
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
)

// A station list of the Radio Browser API may hold every station (upstream's
// default limit is 100000): it is sent as it is read, rbChunk stations at
// a time, each chunk read in a transaction of its own and spliced into a
// pooled buffer, so that neither the answer nor a transaction grows with
// the list or waits on the client. Such answers skip the response cache
// and ETags (a whole list would evict the cache), and are compressed as
// they are sent, in the coding the client accepts best (negotiate).

// RBChunk is the stations read and written at a time: about 1.4 MB of
// JSON on the real data.
const RBChunk = 1000

// streamRBStations answers the stations sel selects, from offset, at most
// limit, as a JSON array.
func (s *Server) streamRBStations(w http.ResponseWriter, r *http.Request, sel query.RBAPISelect, offset, limit int) {
	ix, release := s.Acquire()
	if ix == nil {
		s.WriteError(w, r, core.ErrNoIndex)
		return
	}
	defer release()
	page := core.GetBuffer()
	defer core.PutBuffer(page)
	// The first chunk is read before anything is sent, so that an error
	// in it is still an error answer.
	stations, err := ix.RBAPIStations(sel)
	var n int
	if err == nil && limit > 0 {
		*page, n, err = ix.RBAPIPageOf(stations, offset, min(limit, RBChunk), (*page)[:0])
	}
	if err != nil {
		s.WriteError(w, r, fmt.Errorf("stations %+v: %w", sel, err))
		return
	}
	c := core.Negotiate(r.Header.Values("Accept-Encoding"))
	h := w.Header()
	h.Set("Content-Type", core.JSONType)
	h["Cache-Control"] = s.CacheControl
	core.VaryAcceptEncoding(h)
	if c != core.Identity {
		h.Set("Content-Encoding", c.Name())
	}
	if n < RBChunk || n >= limit {
		s.writeRBWhole(w, r, c, *page)
		return
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	out, end := streamEncoder(w, c)
	s.writeRBChunks(out, r, ix, stations, page, n, offset, limit)
	if err := end(); err != nil {
		panic(http.ErrAbortHandler) // the client left before the end
	}
}

// writeRBWhole answers an array that is all in page, as one body with
// its length: most answers are one chunk, and streaming them cost a
// chunked encoding and a write(2) per part (a fifth of the node's CPU
// on the upstream stage's traffic went to writes).
func (s *Server) writeRBWhole(w http.ResponseWriter, r *http.Request, c core.Coding, page []byte) {
	body := core.GetBuffer()
	defer core.PutBuffer(body)
	*body = s.appendRBArray((*body)[:0], page)
	out := core.Compress(c, *body)
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(out))}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		core.WriteBody(w, r, out)
	}
}

// appendRBArray appends the JSON array of the stations in page (stored
// objects separated by commas), the base URL spliced in.
func (s *Server) appendRBArray(dst, page []byte) []byte {
	return append(stationjson.Splice(append(dst, '['), page, s.BaseJSON), "]\n"...)
}

// writeRBChunks writes the array whose first chunk, n stations from
// offset, is in page, and its other chunks up to limit stations.
func (s *Server) writeRBChunks(out io.Writer, r *http.Request, ix core.Index, stations *query.RBAPISelection, page *[]byte, n, offset, limit int) {
	body := core.GetBuffer()
	defer core.PutBuffer(body)
	*body = stationjson.Splice(append((*body)[:0], '['), *page, s.BaseJSON)
	var err error
	for sent := n; n == RBChunk && sent < limit; sent += n {
		flushChunk(out, body)
		*page, n, err = ix.RBAPIPageOf(stations, offset+sent, min(limit-sent, RBChunk), (*page)[:0])
		if err != nil {
			s.abortStream(r, err)
		}
		if n > 0 {
			*body = stationjson.Splice(append(*body, ','), *page, s.BaseJSON)
		}
	}
	*body = append(*body, "]\n"...)
	flushChunk(out, body)
}

// streamEncoder is w in coding c, and the call that ends the coding's
// stream: gzip from the pool the built answers use, zstd made for the
// answer (one goroutine, a window of 1 MiB).
func streamEncoder(w io.Writer, c core.Coding) (io.Writer, func() error) {
	switch c {
	case core.GzipCoding:
		zw := core.GzipWriters.Get().(*gzip.Writer)
		zw.Reset(w)
		return zw, func() error {
			err := zw.Close()
			core.GzipWriters.Put(zw)
			return err
		}
	case core.ZstdCoding:
		zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
		if err == nil {
			return zw, zw.Close
		}
	}
	return w, func() error { return nil }
}

// flushChunk writes the buffered part of a streamed answer; a client gone
// away ends the stream.
func flushChunk(out io.Writer, body *[]byte) {
	if _, err := out.Write(*body); err != nil {
		panic(http.ErrAbortHandler) // the client left: nothing more to send
	}
	*body = (*body)[:0]
}

// abortStream ends an answer whose status is sent: the connection is cut,
// so that the client sees a broken list rather than a short one.
func (s *Server) abortStream(r *http.Request, err error) {
	s.Log.Error("streamed answer failed", "path", r.URL.Path, "err", err)
	panic(http.ErrAbortHandler)
}

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
func (s *Server) streamRBStations(w http.ResponseWriter, r *http.Request, f *rbFormat, sel query.RBAPISelect, offset, limit int) {
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
	h.Set("Content-Type", f.ContentType)
	h["Cache-Control"] = s.CacheControl
	core.VaryAcceptEncoding(h)
	if c != core.Identity {
		h.Set("Content-Encoding", c.Name())
	}
	if n < RBChunk || n >= limit {
		s.writeRBWhole(w, r, c, f, *page, n)
		return
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	out, end := streamEncoder(w, c)
	total := min(limit, max(0, stations.Len()-offset))
	s.writeRBChunks(out, r, f, ix, stations, page, n, offset, limit, total)
	if err := end(); err != nil {
		panic(http.ErrAbortHandler) // the client left before the end
	}
}

// writeRBWhole answers a list that is all in page (n stations), as one
// body with its length: most answers are one chunk, and streaming them
// cost a chunked encoding and a write(2) per part (a fifth of the node's
// CPU on the upstream stage's traffic went to writes).
func (s *Server) writeRBWhole(w http.ResponseWriter, r *http.Request, c core.Coding, f *rbFormat, page []byte, n int) {
	body := core.GetBuffer()
	defer core.PutBuffer(body)
	var err error
	if *body, err = s.appendRBList((*body)[:0], f, page, n); err != nil {
		s.WriteError(w, r, err)
		return
	}
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

// appendRBList appends the whole list of the n stations in page in
// format f.
func (s *Server) appendRBList(dst []byte, f *rbFormat, page []byte, n int) ([]byte, error) {
	if f == FormatJSON {
		return s.appendRBArray(dst, page), nil
	}
	dst, err := s.appendRBPart(f.head(dst, n), f, page, 0)
	return f.tail(dst, n), err
}

// appendRBPart appends the stations of page in format f (not JSON), the
// first of them the first-th of the answer.
func (s *Server) appendRBPart(dst []byte, f *rbFormat, page []byte, first int) ([]byte, error) {
	array := core.GetBuffer()
	defer core.PutBuffer(array)
	*array = s.appendRBArray((*array)[:0], page)
	dst, _, err := appendStationsIn(dst, f, *array, first)
	return dst, err
}

// writeRBChunks writes the list whose first chunk, n stations from
// offset, is in page, and its other chunks up to limit stations: total
// of them in all.
func (s *Server) writeRBChunks(out io.Writer, r *http.Request, f *rbFormat, ix core.Index, stations *query.RBAPISelection, page *[]byte, n, offset, limit, total int) {
	body := core.GetBuffer()
	defer core.PutBuffer(body)
	add := func(first int) {
		var err error
		switch {
		case f != FormatJSON:
			*body, err = s.appendRBPart(*body, f, *page, first)
		case first > 0:
			*body = stationjson.Splice(append(*body, ','), *page, s.BaseJSON)
		default:
			*body = stationjson.Splice(*body, *page, s.BaseJSON)
		}
		if err != nil {
			s.abortStream(r, err)
		}
	}
	if f == FormatJSON {
		*body = append((*body)[:0], '[')
	} else {
		*body = f.head((*body)[:0], total)
	}
	add(0)
	var err error
	for sent := n; n == RBChunk && sent < limit; sent += n {
		flushChunk(out, body)
		*page, n, err = ix.RBAPIPageOf(stations, offset+sent, min(limit-sent, RBChunk), (*page)[:0])
		if err != nil {
			s.abortStream(r, err)
		}
		if n > 0 {
			add(sent)
		}
	}
	if f == FormatJSON {
		*body = append(*body, "]\n"...)
	} else {
		*body = f.tail(*body, total)
	}
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

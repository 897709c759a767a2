package server

import (
	"fmt"
	"net/http"

	"stationdex/indexer/stationjson"
	"stationdex/query"
)

// A station list of the compatible API may hold every station (upstream's
// default limit is 100000): it is sent as it is read, upChunk stations at
// a time, each chunk read in a transaction of its own and spliced into a
// pooled buffer, so that neither the answer nor a transaction grows with
// the list or waits on the client. Such answers skip the response cache
// and ETags (a whole list would evict the cache), and are sent
// uncompressed.

// upChunk is the stations read and written at a time: about 1.4 MB of
// JSON on the real data.
const upChunk = 1000

// streamUpStations answers the stations sel selects, from offset, at most
// limit, as a JSON array.
func (s *Server) streamUpStations(w http.ResponseWriter, r *http.Request, sel query.UpstreamSelect, offset, limit int) {
	ix, release := s.acquire()
	if ix == nil {
		s.writeError(w, r, errNoIndex)
		return
	}
	defer release()
	page, body := getBuffer(), getBuffer()
	defer putBuffer(page)
	defer putBuffer(body)
	// The first chunk is read before anything is sent, so that an error
	// in it is still an error answer.
	stations, err := ix.UpstreamStations(sel)
	var n int
	if err == nil && limit > 0 {
		*page, n, err = ix.UpstreamPageOf(stations, offset, min(limit, upChunk), (*page)[:0])
	}
	if err != nil {
		s.writeError(w, r, fmt.Errorf("stations %+v: %w", sel, err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", jsonType)
	h["Cache-Control"] = s.cacheControl
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	*body = stationjson.Splice(append((*body)[:0], '['), *page, s.baseJSON)
	for sent := n; n == upChunk && sent < limit; sent += n {
		s.flushChunk(w, r, body)
		*page, n, err = ix.UpstreamPageOf(stations, offset+sent, min(limit-sent, upChunk), (*page)[:0])
		if err != nil {
			s.abortStream(r, err)
		}
		if n > 0 {
			*body = stationjson.Splice(append(*body, ','), *page, s.baseJSON)
		}
	}
	*body = append(*body, "]\n"...)
	s.flushChunk(w, r, body)
}

// flushChunk writes the buffered part of a streamed answer; a client gone
// away ends the stream.
func (s *Server) flushChunk(w http.ResponseWriter, r *http.Request, body *[]byte) {
	if _, err := w.Write(*body); err != nil {
		panic(http.ErrAbortHandler) // the client left: nothing more to send
	}
	*body = (*body)[:0]
}

// abortStream ends an answer whose status is sent: the connection is cut,
// so that the client sees a broken list rather than a short one.
func (s *Server) abortStream(r *http.Request, err error) {
	s.log.Error("streamed answer failed", "path", r.URL.Path, "err", err)
	panic(http.ErrAbortHandler)
}

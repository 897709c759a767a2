package files

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
)

// The data dumps, /data/stations.json and /data/stations.ndjson: every
// station in the API's Station shape, made at index time and stored
// gzip-compressed in the index (format: BucketFiles).
//
// Serving: a client that accepts gzip gets the stored bytes as they are,
// with Content-Encoding: gzip; any other client gets them decompressed on
// the fly. Both go through http.ServeContent, so both have Content-Length,
// ETag (one per representation), conditional requests and Range. Nothing
// is built in memory per request: the gzip bytes are read in place from
// the memory-mapped index, and decompression streams.
//
// Base URLs: the stored dumps build station URLs on the base URL the
// indexer was given (its manifest says which). When this server's base URL
// differs, it rewrites both dumps once per index, on the first request that
// needs them, into a temporary directory: streaming, one station at a time,
// with the same encoder (stationjson.Dump), so the bytes are what the
// indexer would have written for this base URL. Later requests serve those
// files the same way.

// dumpSource opens the gzip stream of one dump for the duration of fn.
type dumpSource func(fn func(gz io.ReadSeeker, size int64) error) error

// dumpSet is the manifest of the dumps this server serves for one index,
// and where their gzip streams are.
type dumpSet struct {
	manifest format.FilesManifest
	open     func(info format.FileInfo) dumpSource
}

func (s *Server) serveDump(name string) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		ix, release := s.Acquire()
		if ix == nil {
			s.WriteError(w, r, core.ErrNoIndex)
			return
		}
		defer release()
		set, err := s.dumps(ix)
		if err != nil {
			s.WriteError(w, r, err)
			return
		}
		info, ok := set.manifest.File(name)
		if !ok {
			s.WriteError(w, r, core.Errorf(core.CodeNotFound, "this index has no %s dump", name))
			return
		}
		// The records carry no snapshot time; the catalog states it, and
		// the source, for the dumps.
		w.Header().Set("Link", "<"+s.Base+core.PathCatalog+">; rel=\"describedby\"")
		if err := serveGzipFile(w, r, info, set.open(info), s.CacheControl[0]); err != nil {
			s.WriteError(w, r, err)
		}
	}
}

// serveGzipFile serves one stored gzip document in the representation the
// client accepts. Errors are returned only while nothing was written.
func serveGzipFile(w http.ResponseWriter, r *http.Request, info format.FileInfo, src dumpSource, cacheControl string) error {
	h := w.Header()
	h.Set("Content-Type", info.MediaType+"; charset=utf-8")
	h.Set("Cache-Control", cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	core.SetCORS(h, r)
	core.VaryAcceptEncoding(h)
	gz := acceptsGzip(r)
	if gz {
		h.Set("ETag", `"`+info.GzipSHA256[:32]+`-gz"`)
	} else {
		h.Set("ETag", `"`+info.SHA256[:32]+`"`)
	}
	return src(func(content io.ReadSeeker, size int64) error {
		if gz {
			http.ServeContent(&gzipEncoded{ResponseWriter: w}, r, "", core.ZeroTime, content)
		} else {
			http.ServeContent(w, r, "", core.ZeroTime, &gunzipSeeker{src: content, size: info.Size})
		}
		return nil
	})
}

// gzipEncoded labels a response carrying stored gzip bytes with
// Content-Encoding: gzip as its header is sent. Set earlier,
// http.ServeContent would leave Content-Length out, thinking it cannot know
// the encoded length; here the encoded bytes are the content it serves.
type gzipEncoded struct{ http.ResponseWriter }

func (g *gzipEncoded) WriteHeader(code int) {
	if code == http.StatusOK || code == http.StatusPartialContent {
		g.Header().Set("Content-Encoding", "gzip")
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipEncoded) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// acceptsGzip: Accept-Encoding makes gzip acceptable (by name or by
// "*"). The dumps are stored gzip, so their choice is that or identity,
// whatever the client prefers.
func acceptsGzip(r *http.Request) bool {
	return core.ParseAcceptEncoding(r.Header.Values("Accept-Encoding"))[core.GzipCoding] > 0
}

// gunzipSeeker is the decompressed view of a gzip stream, seekable so that
// http.ServeContent can answer Range requests: the size is known from the
// manifest, a forward seek skips decompressed bytes, a backward one starts
// decompressing again. Memory is the inflater's window, whatever the size.
type gunzipSeeker struct {
	src  io.ReadSeeker
	size int64
	pos  int64 // position asked for
	zpos int64 // position of zr
	br   *bufio.Reader
	zr   *gzip.Reader
}

func (g *gunzipSeeker) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += g.pos
	case io.SeekEnd:
		offset += g.size
	}
	if offset < 0 {
		return 0, errors.New("gunzip: seek before start")
	}
	g.pos = offset
	return offset, nil
}

func (g *gunzipSeeker) Read(p []byte) (int, error) {
	if g.pos >= g.size {
		return 0, io.EOF
	}
	if err := g.reach(); err != nil {
		return 0, err
	}
	n, err := g.zr.Read(p[:min(int64(len(p)), g.size-g.pos)])
	g.pos += int64(n)
	g.zpos += int64(n)
	if err == io.EOF && g.pos < g.size {
		err = io.ErrUnexpectedEOF // the manifest promised more
	}
	return n, err
}

// reach positions the inflater at pos.
func (g *gunzipSeeker) reach() error {
	if g.zr == nil || g.zpos > g.pos {
		if _, err := g.src.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if g.br == nil {
			g.br = bufio.NewReader(g.src)
		} else {
			g.br.Reset(g.src)
		}
		var err error
		if g.zr == nil {
			g.zr, err = gzip.NewReader(g.br)
		} else {
			err = g.zr.Reset(g.br)
		}
		if err != nil {
			return fmt.Errorf("gunzip: %w", err)
		}
		g.zpos = 0
	}
	if g.zpos < g.pos {
		n, err := io.CopyN(io.Discard, g.zr, g.pos-g.zpos)
		g.zpos += n
		if err != nil {
			return fmt.Errorf("gunzip: skip: %w", err)
		}
	}
	return nil
}

// RebasedDumps holds the dumps this server rewrote for its base URL, for
// the index it last served them from (see the file comment).
type RebasedDumps struct {
	mu  sync.Mutex
	Cur *rebased
}

type rebased struct {
	ix   core.Index
	once sync.Once
	Dir  string
	set  *dumpSet
	err  error
}

// dumps returns the dumps to serve from ix under this server's base URL.
func (s *Server) dumps(ix core.Index) (*dumpSet, error) {
	m, err := readManifest(ix)
	if err != nil {
		return nil, err
	}
	if m.BaseURL == s.Base {
		return &dumpSet{manifest: m, open: func(info format.FileInfo) dumpSource {
			return func(fn func(io.ReadSeeker, int64) error) error { return ix.File(info.Key, fn) }
		}}, nil
	}
	rb := s.Rebased.forIndex(ix, s.Log)
	rb.once.Do(func() { rb.set, rb.err = rebaseDumps(ix, m, s.Base, rb) })
	return rb.set, rb.err
}

func readManifest(ix core.Index) (format.FilesManifest, error) {
	m, err := ix.Manifest()
	if errors.Is(err, query.ErrNoFile) {
		return m, core.Errorf(core.CodeNotFound, "this index was built without data dumps; rebuild it to serve them")
	}
	return m, err
}

// forIndex returns the entry for ix, replacing (and deleting the files of)
// an entry made for an index no longer served.
func (d *RebasedDumps) forIndex(ix core.Index, log *slog.Logger) *rebased {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Cur != nil && d.Cur.ix == ix {
		return d.Cur
	}
	if err := d.removeLocked(); err != nil {
		// Files of a snapshot no longer served; the new ones go elsewhere.
		log.Warn("remove rewritten dumps", "err", err)
	}
	d.Cur = &rebased{ix: ix}
	return d.Cur
}

// Close deletes the rewritten files, for Server.Close.
func (d *RebasedDumps) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.removeLocked()
}

// removeLocked deletes the current entry's files. Requests still reading
// them keep them open; on Unix removing an open file is safe.
func (d *RebasedDumps) removeLocked() error {
	if d.Cur == nil || d.Cur.Dir == "" {
		return nil
	}
	err := os.RemoveAll(d.Cur.Dir)
	d.Cur = nil
	return err
}

// rebaseDumps rewrites the stored NDJSON dump for base into both dumps in
// a new temporary directory.
func rebaseDumps(ix core.Index, m format.FilesManifest, base string, rb *rebased) (*dumpSet, error) {
	dir, err := os.MkdirTemp("", "stationdex-dumps-")
	if err != nil {
		return nil, fmt.Errorf("rebase dumps: %w", err)
	}
	rb.Dir = dir
	infos, err := writeRebased(ix, m.BaseURL, base, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("rebase dumps: %w", err)
	}
	set := &dumpSet{manifest: format.FilesManifest{BaseURL: base, Stations: m.Stations, Files: infos}}
	set.open = func(info format.FileInfo) dumpSource {
		return func(fn func(io.ReadSeeker, int64) error) error {
			f, err := os.Open(filepath.Join(dir, info.Key))
			if err != nil {
				return err
			}
			defer f.Close()
			return fn(f, info.GzipSize)
		}
	}
	return set, nil
}

func writeRebased(ix core.Index, from, to, dir string) ([]format.FileInfo, error) {
	jsonOut, err := os.Create(filepath.Join(dir, format.FileStationsJSON))
	if err != nil {
		return nil, err
	}
	defer jsonOut.Close()
	ndjsonOut, err := os.Create(filepath.Join(dir, format.FileStationsNDJSON))
	if err != nil {
		return nil, err
	}
	defer ndjsonOut.Close()
	jw, nw := bufio.NewWriter(jsonOut), bufio.NewWriter(ndjsonOut)
	d := stationjson.NewDump(jw, nw)
	defer d.Abort()
	err = ix.File(format.FileStationsNDJSON, func(gz io.ReadSeeker, _ int64) error {
		return EachDumpedStation(gz, func(st *stationjson.Station) error {
			stationjson.Rebase(st, from, to)
			return d.Add(st)
		})
	})
	if err != nil {
		return nil, err
	}
	infos, err := d.Close()
	if err != nil {
		return nil, err
	}
	for _, w := range []*bufio.Writer{jw, nw} {
		if err := w.Flush(); err != nil {
			return nil, err
		}
	}
	for _, f := range []*os.File{jsonOut, ndjsonOut} {
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	return infos, nil
}

// MaxDumpLine bounds one station's line in the NDJSON dump.
const MaxDumpLine = 4 << 20

// EachDumpedStation decodes the gzip NDJSON dump one line at a time.
func EachDumpedStation(gz io.Reader, fn func(*stationjson.Station) error) error {
	zr, err := gzip.NewReader(gz)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 64<<10), MaxDumpLine)
	for sc.Scan() {
		var st stationjson.Station
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			return fmt.Errorf("%w: dumped station: %v", format.ErrCorrupt, err)
		}
		if err := fn(&st); err != nil {
			return err
		}
	}
	return sc.Err()
}

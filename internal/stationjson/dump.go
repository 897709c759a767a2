package stationjson

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"

	"stationdex/internal/format"
)

// The two data dumps: every station in the API's Station shape, as one JSON
// array and as NDJSON (one station per line). Both the indexer (which
// stores them in the index) and the server (which rewrites them for another
// base URL) write them with Dump, so they are the same bytes either way.
const (
	DumpJSON   = "stations.json"
	DumpNDJSON = "stations.ndjson"
)

// Media types of the dumps.
const (
	MediaJSON   = "application/json"
	MediaNDJSON = "application/x-ndjson"
)

// Dump writes both dumps gzip-compressed, one station at a time, counting
// sizes and digests of the documents and of their gzip streams as it goes.
type Dump struct {
	docs [2]*dumpDoc // JSON array, NDJSON
	line []byte      // the station being added, as one NDJSON line
	n    int
}

// NewDump writes the gzip stream of stations.json to jsonOut and that of
// stations.ndjson to ndjsonOut.
func NewDump(jsonOut, ndjsonOut io.Writer) *Dump {
	d := &Dump{docs: [2]*dumpDoc{
		newDumpDoc(DumpJSON, MediaJSON, jsonOut),
		newDumpDoc(DumpNDJSON, MediaNDJSON, ndjsonOut),
	}}
	// Stations are encoded with Station.AppendJSON, as the API encodes
	// them, so a dumped station is byte for byte the API's.
	return d
}

// Add appends one station to both dumps.
func (d *Dump) Add(s *Station) error {
	d.line = s.AppendJSON(d.line[:0])
	return d.add()
}

// AddStored appends one station given in its stored form (AppendStored),
// with base, escaped as EscapeBase escapes it, spliced in: the same bytes
// Add writes for the station, without encoding it again.
func (d *Dump) AddStored(stored []byte, base string) error {
	d.line = Splice(d.line[:0], stored, base)
	return d.add()
}

// add appends d.line, one station's JSON, to both dumps.
func (d *Dump) add() error {
	d.line = append(d.line, '\n')
	sep := ",\n"
	if d.n == 0 {
		sep = "[\n"
	}
	d.n++
	line := d.line // ends in '\n'
	if err := d.docs[0].write([]byte(sep), line[:len(line)-1]); err != nil {
		return err
	}
	return d.docs[1].write(line)
}

// Close ends both documents and returns their descriptions; the keys are
// the files-bucket keys of format.
func (d *Dump) Close() ([]format.FileInfo, error) {
	defer d.Abort() // after an error, the other document's goroutine too
	end := "\n]\n"
	if d.n == 0 {
		end = "[]\n"
	}
	if err := d.docs[0].write([]byte(end)); err != nil {
		return nil, err
	}
	infos := make([]format.FileInfo, len(d.docs))
	for i, doc := range d.docs {
		info, err := doc.close()
		if err != nil {
			return nil, err
		}
		infos[i] = info
	}
	return infos, nil
}

// Abort stops both documents' goroutines without describing them; use it
// (deferred) when a dump may be abandoned before Close. After Close it does
// nothing.
func (d *Dump) Abort() {
	for _, doc := range d.docs {
		_ = doc.end() // an abandoned dump's error has no reader
	}
}

// Stations is the number of stations added.
func (d *Dump) Stations() int { return d.n }

// dumpDoc is one document: raw bytes -> sha256/size -> gzip -> sha256/size
// -> out. Hashing and compressing run on a goroutine of their own, one per
// document, fed with batches of raw bytes: they are most of the cost of a
// dump, and the two documents (and the caller encoding stations) then use
// separate cores.
type dumpDoc struct {
	name, mediaType string
	raw, gz         counter
	zw              *gzip.Writer

	batch []byte      // raw bytes not yet handed to the goroutine
	full  chan []byte // batches to compress
	empty chan []byte // batches compressed, for reuse
	done  chan error  // the goroutine's result, once full is closed
	err   error       // the goroutine's error, once known
	ended bool        // full is closed
}

// dumpLevel is the dumps' gzip level. Compressing them was the largest
// single cost of a build (a seventh of its CPU time at 5M stations); at
// the fastest level it takes 44% of the default level's time, for
// streams 17% larger (measured on 1M stations' NDJSON, 827 MB: 1.8 s and
// 106 MB against 4.2 s and 91 MB).
const dumpLevel = gzip.BestSpeed

// Batching: the unit handed to the compressing goroutine, and how many
// batches may wait for it.
const (
	dumpBatch   = 64 << 10
	dumpBatches = 4
)

func newDumpDoc(name, mediaType string, out io.Writer) *dumpDoc {
	d := &dumpDoc{
		name: name, mediaType: mediaType,
		full: make(chan []byte, dumpBatches), empty: make(chan []byte, dumpBatches+1),
		done: make(chan error, 1),
	}
	d.gz = counter{w: out, h: sha256.New()}
	// The default gzip header has no name and no time, so the same
	// stations give the same bytes: the index stays deterministic.
	d.zw, _ = gzip.NewWriterLevel(&d.gz, dumpLevel) // a valid level cannot fail
	d.raw = counter{w: d.zw, h: sha256.New()}
	for range dumpBatches + 1 {
		d.empty <- make([]byte, 0, dumpBatch)
	}
	d.batch = <-d.empty
	go d.compress()
	return d
}

// compress hashes and compresses batches until full is closed, then ends
// the gzip stream. After an error it only recycles batches, so that the
// writer never blocks.
func (d *dumpDoc) compress() {
	var err error
	for b := range d.full {
		if err == nil {
			_, err = d.raw.Write(b)
		}
		d.empty <- b[:0]
	}
	if err == nil {
		err = d.zw.Close()
	}
	d.done <- err
}

func (d *dumpDoc) write(parts ...[]byte) error {
	if d.ended {
		return fmt.Errorf("write %s: already closed", d.name)
	}
	for _, p := range parts {
		d.batch = append(d.batch, p...)
	}
	if len(d.batch) >= dumpBatch {
		d.full <- d.batch
		d.batch = <-d.empty
	}
	return nil
}

// end hands over the last batch, waits for the goroutine and returns its
// error. It may be called more than once.
func (d *dumpDoc) end() error {
	if !d.ended {
		d.ended = true
		if len(d.batch) > 0 {
			d.full <- d.batch
		}
		close(d.full)
		d.err = <-d.done
	}
	if d.err != nil {
		return fmt.Errorf("write %s: %w", d.name, d.err)
	}
	return nil
}

func (d *dumpDoc) close() (format.FileInfo, error) {
	if err := d.end(); err != nil {
		return format.FileInfo{}, err
	}
	return format.FileInfo{
		Key: d.name + ".gz", Name: d.name, MediaType: d.mediaType,
		Size: d.raw.n, SHA256: hex.EncodeToString(d.raw.h.Sum(nil)),
		GzipSize: d.gz.n, GzipSHA256: hex.EncodeToString(d.gz.h.Sum(nil)),
	}, nil
}

// counter passes writes on, counting bytes and hashing them.
type counter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	c.h.Write(p)
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Rebase moves every URL of s from base from to base to (both without a
// trailing slash). Every service URL New builds starts with its base, so
// Rebase(New(from, r), from, to) equals New(to, r).
func Rebase(s *Station, from, to string) {
	move := func(u *string) {
		if rest, ok := strings.CutPrefix(*u, from); ok {
			*u = to + rest
		}
	}
	for _, u := range []*string{&s.PageURL, &s.ListenURL, &s.CountryURL} {
		move(u)
	}
	for _, l := range [][]string{s.LanguageURLs, s.GenreURLs} {
		for i := range l {
			move(&l[i])
		}
	}
	if s.LocationURL != nil {
		move(s.LocationURL)
	}
}

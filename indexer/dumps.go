package indexer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/s2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
)

// DefaultBaseURL is the base URL the stored data dumps build station URLs
// on: the address `stationdex serve` listens on by default. A server with
// another base URL rewrites the dumps once (see package server), so the
// stored ones are right for the common local case and cost nothing there.
const DefaultBaseURL = "http://127.0.0.1:8080"

// dumpWriter makes the data dumps of the files bucket (see format:
// BucketFiles) and the station_json bucket (format.BucketStationJSON) from
// the record blocks of the stations bucket, which it gets in record order.
//
// Each station is encoded once, in its stored form (stationjson.
// AppendStored, the base URL left as a mark), on a goroutine of its own
// while the stations bucket is written, and spilled to a temporary file,
// station by station: bbolt writes one bucket at a time, and holding them
// in memory would break the build's memory bound. That file is read twice
// afterwards: into blocks matching the record blocks for the station_json
// bucket, and into both dumps, with the base URL spliced in. It is
// compressed with S2 (see newSpillWriter): at millions of stations the
// plain spill, gigabytes, did not stay in the page cache, and writing it
// and reading it back from disk held up the stations bucket more than
// compressing it costs.
//
// The dumps are made on a goroutine of their own (and compressed on one
// per document, inside stationjson.Dump) that starts once the stations
// bucket is written and runs while the ids, posting and station_json
// buckets are: those leave a core mostly idle, whereas compressing while
// the stations bucket was written held up its writer, the two cores being
// busy then with the writer and the encoding. Only the files bucket waits
// for the dumps. The gzip streams go to two more temporary files, from
// which they are copied into the index chunk by chunk.
type dumpWriter struct {
	base    string
	escBase string      // base as escaped in JSON (stationjson.EscapeBase)
	files   [3]*os.File // stations.json.gz, stations.ndjson.gz, stored stations
	bufs    [3]*bufio.Writer
	spill   *s2.Writer    // compresses bufs[2] into files[2]; nil once closed
	r       format.Record // scratch of the encoding goroutine
	stored  []byte        // scratch: a station's length and stored form
	blocks  chan []byte   // record blocks to encode; nil once closed (wait)
	done    chan error    // the encoding goroutine's result

	// The dumps' goroutine (dump), once started: quit stops it early,
	// and dumped delivers its result.
	quit   chan struct{}
	dumped chan dumpResult
}

// dumpResult is what the dumps' goroutine made of the stored stations.
type dumpResult struct {
	infos    []format.FileInfo
	stations int
	err      error
}

// dumpBlocksQueued is how many record blocks (about a megabyte each at most)
// may wait for the encoding goroutine.
const dumpBlocksQueued = 2

func newDumpWriter(dir, base string) (*dumpWriter, error) {
	w := &dumpWriter{base: base, escBase: stationjson.EscapeBase(base)}
	for i, name := range []string{format.FileStationsJSON, format.FileStationsNDJSON, storedStationsFile} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			w.abort()
			return nil, fmt.Errorf("data dumps: %w", err)
		}
		w.files[i], w.bufs[i] = f, bufio.NewWriterSize(f, 64<<10)
	}
	w.spill = newSpillWriter(w.files[2])
	w.bufs[2].Reset(w.spill)
	w.blocks, w.done = make(chan []byte, dumpBlocksQueued), make(chan error, 1)
	go w.encode(w.blocks)
	return w, nil
}

// addBlock hands one record block (format.AppendBlock) to the dumps. The
// block must not change afterwards. An error in encoding it is reported by
// startDumps: the goroutine keeps draining blocks after one, so this never
// blocks for good.
func (w *dumpWriter) addBlock(block []byte) {
	w.blocks <- block
}

// encode spills the stored form of the records of every block until
// blocks is closed. After an error it only drains.
func (w *dumpWriter) encode(blocks <-chan []byte) {
	var err error
	for block := range blocks {
		if err == nil {
			err = w.addRecords(block)
		}
	}
	w.done <- err
}

func (w *dumpWriter) addRecords(block []byte) error {
	n, err := format.BlockLen(block)
	if err != nil {
		return err
	}
	for slot := range n {
		rec, err := format.BlockRecord(block, slot)
		if err != nil {
			return err
		}
		if err := format.DecodeRecord(rec, &w.r); err != nil {
			return err
		}
		w.stored = stationjson.AppendStored(append(w.stored[:0], 0, 0, 0, 0), &w.r)
		binary.LittleEndian.PutUint32(w.stored, uint32(len(w.stored)-4))
		if _, err := w.bufs[2].Write(w.stored); err != nil {
			return err
		}
	}
	return nil
}

// wait ends the encoding goroutine and returns its error.
func (w *dumpWriter) wait() error {
	close(w.blocks)
	w.blocks = nil
	return <-w.done
}

// storedStationsFile is the temporary file of the stored stations, in record
// order, each as a uint32 little-endian length and the JSON, in an S2
// stream.
const storedStationsFile = "station_json.blocks"

// newSpillWriter compresses the stored stations into f. S2 at its default
// level makes the stations' JSON several times smaller at hundreds of
// megabytes a second, on as many goroutines as there are cores, so that
// the core the stations bucket's writer leaves idle does it.
func newSpillWriter(f io.Writer) *s2.Writer {
	return s2.NewWriter(f, s2.WriterBlockSize(spillBlock))
}

// newSpillReader reads back what newSpillWriter wrote to f.
func newSpillReader(f io.Reader) io.Reader {
	return bufio.NewReaderSize(s2.NewReader(f, s2.ReaderMaxBlockSize(spillBlock)), 64<<10)
}

// spillBlock is the block size of the S2 stream of the stored stations.
// The writer holds two blocks per goroutine, each reader two: larger
// blocks compress little better and cost the build's memory bound.
const spillBlock = 256 << 10

// closeSpill flushes the stored stations and ends their S2 stream.
func (w *dumpWriter) closeSpill() error {
	if err := w.bufs[2].Flush(); err != nil {
		return err
	}
	err := w.spill.Close()
	w.spill = nil
	return err
}

// startDumps is called once every record block has been added: it ends
// the encoding, starts the dumps' goroutine on the stored stations, and
// returns the contents of the station_json bucket, read from them too.
func (w *dumpWriter) startDumps() (kvSource, error) {
	if err := w.wait(); err != nil {
		return nil, err
	}
	if err := w.closeSpill(); err != nil {
		return nil, err
	}
	// A handle of its own, so that its offset is not the bucket's.
	f, err := os.Open(w.files[2].Name())
	if err != nil {
		return nil, err
	}
	if _, err := w.files[2].Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	w.quit, w.dumped = make(chan struct{}), make(chan dumpResult, 1)
	go func() {
		defer f.Close()
		w.dumped <- w.dump(newSpillReader(f))
	}()
	return jsonBlocksSource(newSpillReader(w.files[2])), nil
}

// dump writes both dumps from the stored stations in r, until they end or
// quit is closed.
func (w *dumpWriter) dump(r io.Reader) dumpResult {
	d := stationjson.NewDump(w.bufs[0], w.bufs[1])
	defer d.Abort()
	var stored []byte
	for {
		select {
		case <-w.quit:
			return dumpResult{err: errors.New("abandoned")}
		default:
		}
		var err error
		stored, err = readStored(r, stored[:0])
		if err == io.EOF {
			break
		}
		if err == nil {
			err = d.AddStored(stored, w.escBase)
		}
		if err != nil {
			return dumpResult{err: err}
		}
	}
	infos, err := d.Close()
	return dumpResult{infos: infos, stations: d.Stations(), err: err}
}

// readStored appends the next stored station of r to dst; io.EOF when
// there is none.
func readStored(r io.Reader, dst []byte) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err == io.EOF {
		return dst, io.EOF
	} else if err != nil {
		return dst, fmt.Errorf("%s: %w", storedStationsFile, err)
	}
	start := len(dst)
	dst = append(dst, make([]byte, binary.LittleEndian.Uint32(size[:]))...)
	if _, err := io.ReadFull(r, dst[start:]); err != nil {
		return dst, fmt.Errorf("%s: %w", storedStationsFile, err)
	}
	return dst, nil
}

// finish waits for the dumps and returns the contents of the files bucket.
func (w *dumpWriter) finish() (*filesSource, error) {
	res := <-w.dumped
	w.dumped = nil
	if res.err != nil {
		return nil, res.err
	}
	for i, b := range w.bufs[:2] {
		if err := b.Flush(); err != nil {
			return nil, err
		}
		if _, err := w.files[i].Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	manifest, err := json.Marshal(format.FilesManifest{BaseURL: w.base, Stations: res.stations, Files: res.infos})
	if err != nil {
		return nil, err
	}
	// Ascending: manifest.json < stations.json.gz < stations.ndjson.gz.
	return &filesSource{files: []storedFile{
		{format.FileManifest, bytes.NewReader(manifest)},
		{format.FileStationsJSON, w.files[0]},
		{format.FileStationsNDJSON, w.files[1]},
	}}, nil
}

// jsonBlocksSource yields the station_json bucket from the stored
// stations: blocks of format.RecordsPerBlock, as the record blocks (every
// block but the last full), each in a fresh buffer (bbolt refers to a value
// until commit).
func jsonBlocksSource(r io.Reader) kvSource {
	var b uint32
	var data []byte                          // the block's stations
	var offs [format.RecordsPerBlock + 1]int // where each starts in data
	return func(*bolt.Tx) ([]byte, []byte, error) {
		data = data[:0]
		n := 0
		for ; n < format.RecordsPerBlock; n++ {
			var err error
			start := len(data)
			if data, err = readStored(r, data); err == io.EOF {
				break
			} else if err != nil {
				return nil, nil, err
			}
			offs[n], offs[n+1] = start, len(data)
		}
		if n == 0 {
			return nil, nil, nil
		}
		stations := make([][]byte, n)
		for i := range stations {
			stations[i] = data[offs[i]:offs[i+1]]
		}
		v := format.AppendBlock(make([]byte, 0, 4*(n+2)+len(data)), stations)
		k := format.BlockKey(b)
		b++
		return k, v, nil
	}
}

// abort stops the goroutines and closes the temporary files; the build's
// temporary directory, where they are, is removed with them.
func (w *dumpWriter) abort() {
	if w.blocks != nil {
		_ = w.wait() // abandoned: its error has no reader
	}
	if w.spill != nil {
		_ = w.spill.Close() // ends its goroutines; the file is abandoned
	}
	if w.dumped != nil {
		close(w.quit)
		<-w.dumped
		w.dumped = nil
	}
	for _, f := range w.files {
		if f != nil {
			f.Close()
		}
	}
}

// storedFile is one file of the files bucket and where its bytes come from.
type storedFile struct {
	name string
	r    io.Reader
}

// filesSource yields the files bucket: each file in chunks of
// format.FileChunkSize, and at least one chunk per file.
type filesSource struct {
	files []storedFile
	chunk uint32 // next chunk of files[0]
}

func (s *filesSource) next(*bolt.Tx) ([]byte, []byte, error) {
	for len(s.files) > 0 {
		f := s.files[0]
		buf := make([]byte, format.FileChunkSize)
		n, err := io.ReadFull(f.r, buf)
		switch {
		case err == io.EOF && s.chunk > 0:
			s.files, s.chunk = s.files[1:], 0
			continue
		case err != nil && err != io.EOF && err != io.ErrUnexpectedEOF:
			return nil, nil, fmt.Errorf("file %s: %w", f.name, err)
		}
		key := format.FileChunkKey(f.name, s.chunk)
		s.chunk++
		return key, buf[:n:n], nil
	}
	return nil, nil, nil
}

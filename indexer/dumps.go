package indexer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
	"stationdex/indexer/stationjson"
)

// DefaultBaseURL is the base URL the stored data dumps build station URLs
// on: the address `stationdex serve` listens on by default. A server with
// another base URL rewrites the dumps once (see package server), so the
// stored ones are right for the common local case and cost nothing there.
const DefaultBaseURL = "http://127.0.0.1:8080"

// dumpWriter makes the data dumps of the files bucket (see format:
// BucketFiles) while the stations bucket is written: it gets every record
// block in record order, and writes both gzip streams to temporary files,
// from which they are copied into the index chunk by chunk. Decoding the
// records and encoding them as JSON runs on a goroutine of its own (and
// compressing on one per document, inside stationjson.Dump), off the path
// of the stations bucket's writer.
//
// Each station is encoded once, in its stored form (stationjson.
// AppendStored, the base URL left as a mark): the dumps get it with the
// base URL spliced in, and the station_json bucket (format.
// BucketStationJSON) gets it as it is. Those are spilled to a third
// temporary file, station by station, until the stations bucket is written
// (bbolt writes one bucket at a time, and holding them in memory would
// break the build's memory bound), and read back into blocks matching the
// record blocks.
type dumpWriter struct {
	base    string
	escBase string      // base as escaped in JSON (stationjson.EscapeBase)
	files   [3]*os.File // stations.json.gz, stations.ndjson.gz, JSON blocks
	bufs    [3]*bufio.Writer
	d       *stationjson.Dump
	r       format.Record // scratch of the encoding goroutine
	stored  []byte        // scratch: a station's length and stored form
	blocks  chan []byte   // record blocks to encode; nil once closed (wait)
	done    chan error    // the encoding goroutine's result
}

// dumpBlocksQueued is how many record blocks (about a megabyte each at most)
// may wait for the encoding goroutine.
const dumpBlocksQueued = 2

func newDumpWriter(dir, base string) (*dumpWriter, error) {
	w := &dumpWriter{base: base, escBase: stationjson.EscapeBase(base)}
	for i, name := range []string{format.FileStationsJSON, format.FileStationsNDJSON, jsonBlocksFile} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			w.abort()
			return nil, fmt.Errorf("data dumps: %w", err)
		}
		w.files[i], w.bufs[i] = f, bufio.NewWriterSize(f, 64<<10)
	}
	w.d = stationjson.NewDump(w.bufs[0], w.bufs[1])
	w.blocks, w.done = make(chan []byte, dumpBlocksQueued), make(chan error, 1)
	go w.encode(w.blocks)
	return w, nil
}

// addBlock hands one record block (format.AppendBlock) to the dumps. The
// block must not change afterwards. An error in encoding it is reported by
// finish: the goroutine keeps draining blocks after one, so this never
// blocks for good.
func (w *dumpWriter) addBlock(block []byte) {
	w.blocks <- block
}

// encode adds the records of every block to both dumps until blocks is
// closed. After an error it only drains.
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
		if err := w.d.AddStored(w.stored[4:], w.escBase); err != nil {
			return err
		}
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

// jsonBlocksFile is the temporary file of the stored stations, in record
// order, each as a uint32 little-endian length and the JSON.
const jsonBlocksFile = "station_json.blocks"

// finish ends both dumps and returns the contents of the files bucket and
// of the station_json bucket.
func (w *dumpWriter) finish() (*filesSource, kvSource, error) {
	if err := w.wait(); err != nil {
		return nil, nil, err
	}
	infos, err := w.d.Close()
	if err != nil {
		return nil, nil, err
	}
	for i, b := range w.bufs {
		if err := b.Flush(); err != nil {
			return nil, nil, err
		}
		if _, err := w.files[i].Seek(0, io.SeekStart); err != nil {
			return nil, nil, err
		}
	}
	manifest, err := json.Marshal(format.FilesManifest{BaseURL: w.base, Stations: w.d.Stations(), Files: infos})
	if err != nil {
		return nil, nil, err
	}
	// Ascending: manifest.json < stations.json.gz < stations.ndjson.gz.
	return &filesSource{files: []storedFile{
		{format.FileManifest, bytes.NewReader(manifest)},
		{format.FileStationsJSON, w.files[0]},
		{format.FileStationsNDJSON, w.files[1]},
	}}, jsonBlocksSource(bufio.NewReaderSize(w.files[2], 64<<10)), nil
}

// jsonBlocksSource yields the station_json bucket from the spilled
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
			var size [4]byte
			if _, err := io.ReadFull(r, size[:]); err == io.EOF {
				break
			} else if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", jsonBlocksFile, err)
			}
			start := len(data)
			data = append(data, make([]byte, binary.LittleEndian.Uint32(size[:]))...)
			if _, err := io.ReadFull(r, data[start:]); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", jsonBlocksFile, err)
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

// abort closes the temporary files; the build's temporary directory, where
// they are, is removed with them.
func (w *dumpWriter) abort() {
	if w.d != nil {
		if w.blocks != nil {
			_ = w.wait() // abandoned: its error has no reader
		}
		w.d.Abort()
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

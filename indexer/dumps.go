package indexer

import (
	"bytes"
	"encoding/json"
	"fmt"

	"stationdex/indexer/format"
	"stationdex/indexer/stationjson"
)

// DefaultBaseURL is the base URL the stored data dumps build station URLs
// on: the address `stationdex serve` listens on by default. A server with
// another base URL rewrites the dumps once (see package server), so the
// stored ones are right for the common local case and cost nothing there.
const DefaultBaseURL = "http://127.0.0.1:8080"

// filesBucket holds the data dumps (see format: BucketFiles), made from the
// records in record order. Both dumps are written in one pass and kept
// gzip-compressed in memory until the bucket is written; the encoded
// records are already in memory for the build and are decoded one at a time.
func (ix *index) filesBucket(base string) bucketWriter {
	kvs, err := ix.dumpFiles(base)
	return bucketWriter{format.BucketFiles, len(kvs), func(i int) ([]byte, []byte, error) {
		if err != nil {
			return nil, nil, fmt.Errorf("data dumps: %w", err)
		}
		return kvs[i][0], kvs[i][1], nil
	}}
}

// dumpFiles returns the files bucket's keys and values in key order.
func (ix *index) dumpFiles(base string) ([][2][]byte, error) {
	var jsonGz, ndjsonGz bytes.Buffer
	d := stationjson.NewDump(&jsonGz, &ndjsonGz)
	var r format.Record
	for _, t := range ix.order {
		if err := format.DecodeRecord(ix.recs[t], &r); err != nil {
			return nil, err
		}
		st := stationjson.New(base, &r)
		if err := d.Add(&st); err != nil {
			return nil, err
		}
	}
	infos, err := d.Close()
	if err != nil {
		return nil, err
	}
	manifest, err := json.Marshal(format.FilesManifest{BaseURL: base, Stations: d.Stations(), Files: infos})
	if err != nil {
		return nil, err
	}
	// Ascending: manifest.json < stations.json.gz < stations.ndjson.gz.
	return [][2][]byte{
		{[]byte(format.FileManifest), manifest},
		{[]byte(format.FileStationsJSON), jsonGz.Bytes()},
		{[]byte(format.FileStationsNDJSON), ndjsonGz.Bytes()},
	}, nil
}

package indexer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"stationdex/indexer/demo"
	"stationdex/internal/format"
)

// BuildDemo writes the index of the embedded demo snapshot (package demo)
// to dir/demo.db and returns its path. The demo has every section, so it
// serves the Radio Browser API under /json/ too.
func BuildDemo(ctx context.Context, dir string) (string, error) {
	path := filepath.Join(dir, "demo.db")
	opts := Options{SnapshotAt: demo.SnapshotAt, Source: demo.Source, Sections: format.SectionRBAPI}
	in := Input{Name: "demo/stations.ndjson", R: bytes.NewReader(demo.NDJSON)}
	if _, err := Build(ctx, path, opts, in); err != nil {
		return "", fmt.Errorf("build demo index: %w", err)
	}
	return path, nil
}

// BuildDemoTemp builds the demo index in a new temporary directory. The
// caller removes the directory (the returned cleanup does) when done.
func BuildDemoTemp(ctx context.Context) (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "stationdex-demo-")
	if err != nil {
		return "", nil, fmt.Errorf("demo index: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if path, err = BuildDemo(ctx, dir); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}

package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
)

// Names in a published directory.
const (
	// ManifestName is the manifest a follower fetches first.
	ManifestName = "latest.json"
	// SignatureSuffix is appended to the manifest's name for its minisign
	// signature.
	SignatureSuffix = ".minisig"
	// filePrefix and fileSuffix frame a snapshot file's name.
	filePrefix = "stationdex-"
	fileSuffix = ".db"
)

// MaxManifestBytes bounds what a follower reads of a manifest or a
// signature: a real one is a few hundred bytes.
const MaxManifestBytes = 64 << 10

// Manifest describes the current snapshot of a published directory.
type Manifest struct {
	// File is the snapshot's file name in the same directory (never a
	// path: a follower refuses a name with a slash).
	File string `json:"file"`
	// Size is the file's length in bytes.
	Size int64 `json:"size"`
	// SHA256 is the hex SHA-256 of the file.
	SHA256 string `json:"sha256"`
	// SnapshotAt is the snapshot time from the index's meta document.
	SnapshotAt time.Time `json:"snapshot_at"`
	// FormatVersion is the index format version (format.Version of the
	// build that wrote the file).
	FormatVersion int `json:"format_version"`
	// Stations is the number of stations, for people reading the file.
	Stations int `json:"stations"`
}

// ErrManifest: the manifest is not one this package writes.
var ErrManifest = errors.New("not a stationdex snapshot manifest")

// ParseManifest decodes and checks a manifest.
func ParseManifest(b []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%w: %v", ErrManifest, err)
	}
	return m, m.check()
}

func (m Manifest) check() error {
	switch {
	case m.File == "" || strings.ContainsAny(m.File, `/\`) || m.File == "." || m.File == ".." || path.Base(m.File) != m.File:
		return fmt.Errorf("%w: file %q is not a plain file name", ErrManifest, m.File)
	case m.Size <= 0:
		return fmt.Errorf("%w: size %d", ErrManifest, m.Size)
	case len(m.SHA256) != 64 || strings.Trim(m.SHA256, "0123456789abcdef") != "":
		return fmt.Errorf("%w: sha256 %q is not 64 lower-case hex digits", ErrManifest, m.SHA256)
	case m.SnapshotAt.IsZero():
		return fmt.Errorf("%w: no snapshot_at", ErrManifest)
	case m.FormatVersion <= 0:
		return fmt.Errorf("%w: no format_version", ErrManifest)
	}
	return nil
}

// Marshal encodes the manifest as indented JSON ending in a newline.
func (m Manifest) Marshal() []byte {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		panic(err) // a struct of strings, numbers and a time always encodes
	}
	return append(b, '\n')
}

// FileName is the name a snapshot of time t is published under:
// stationdex-20250227T124000Z.db. Names sort in time order.
func FileName(t time.Time) string {
	return filePrefix + t.UTC().Format("20060102T150405Z") + fileSuffix
}

// isSnapshotFile reports whether name is one FileName makes.
func isSnapshotFile(name string) bool {
	stamp, ok := strings.CutPrefix(name, filePrefix)
	if !ok {
		return false
	}
	stamp, ok = strings.CutSuffix(stamp, fileSuffix)
	if !ok {
		return false
	}
	_, err := time.Parse("20060102T150405Z", stamp)
	return err == nil
}

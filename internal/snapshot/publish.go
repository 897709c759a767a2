package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"aead.dev/minisign"
)

// Options control Publish.
type Options struct {
	// Keep is how many earlier snapshot files stay in the directory beside
	// the current one, for followers still downloading them.
	Keep int
	// Key signs the manifest when not nil.
	Key *minisign.PrivateKey
	// Now is the signing time; nil: time.Now.
	Now func() time.Time
}

// Snapshot describes the index being published, from its meta document.
type Snapshot struct {
	SnapshotAt    time.Time
	FormatVersion int
	Stations      int
}

// Publish copies the index file at src into dir under FileName of its
// snapshot time, then writes the signature (with a key) and the manifest,
// the manifest last, so a follower that sees a new manifest finds its file
// complete. Every write goes to a temporary name first, is synced and
// renamed into place. Snapshot files beyond the current one and opts.Keep
// earlier ones are removed. On error the manifest is left as it was.
func Publish(dir, src string, s Snapshot, opts Options) (Manifest, error) {
	m := Manifest{File: FileName(s.SnapshotAt), SnapshotAt: s.SnapshotAt.UTC(), FormatVersion: s.FormatVersion, Stations: s.Stations}
	in, err := os.Open(src)
	if err != nil {
		return m, err
	}
	defer in.Close()
	h := sha256.New()
	m.Size, err = writeAtomic(dir, m.File, io.TeeReader(in, h), time.Time{})
	if err != nil {
		return m, err
	}
	m.SHA256 = hex.EncodeToString(h.Sum(nil))
	body := m.Marshal()
	sigName := ManifestName + SignatureSuffix
	if opts.Key != nil {
		now := time.Now
		if opts.Now != nil {
			now = opts.Now
		}
		if _, err := writeAtomicBytes(dir, sigName, Sign(*opts.Key, body, now()), laterThan(filepath.Join(dir, sigName))); err != nil {
			return m, err
		}
	} else if err := os.Remove(filepath.Join(dir, sigName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		// A signature of an earlier manifest would now be a lie.
		return m, err
	}
	if _, err := writeAtomicBytes(dir, ManifestName, body, laterThan(filepath.Join(dir, ManifestName))); err != nil {
		return m, err
	}
	return m, prune(dir, m.File, opts.Keep)
}

// prune removes the snapshot files other than current and the keep newest
// before it.
func prune(dir, current string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var older []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && isSnapshotFile(n) && n != current {
			older = append(older, n)
		}
	}
	slices.Sort(older) // time order: the names embed the snapshot time
	if len(older) <= keep {
		return nil
	}
	var errs []error
	for _, n := range older[:len(older)-keep] {
		errs = append(errs, os.Remove(filepath.Join(dir, n)))
	}
	return errors.Join(errs...)
}

func writeAtomicBytes(dir, name string, b []byte, mtime time.Time) (int64, error) {
	return writeAtomic(dir, name, bytes.NewReader(b), mtime)
}

// laterThan is the modification time a new version of the file at path
// gets: now, or a second past the old version's when that is not earlier.
// Static servers derive Last-Modified and ETag from the time (to the
// second) and the size, and a manifest republished within a second has the
// same size: without this, followers would be told 304 Not Modified.
func laterThan(path string) time.Time {
	now := time.Now().Truncate(time.Second)
	if st, err := os.Stat(path); err == nil {
		if next := st.ModTime().Truncate(time.Second).Add(time.Second); !next.Before(now) {
			return next
		}
	}
	return now
}

// writeAtomic writes r to dir/name through a temporary file beside it:
// written, synced, renamed, and the directory synced, so after a crash the
// name holds the old contents or the new ones, never a part. A non-zero
// mtime is set on it. The temporary file is removed on any error.
func writeAtomic(dir, name string, r io.Reader, mtime time.Time) (n int64, err error) {
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("publish %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
			err = fmt.Errorf("publish %s: %w", name, err)
		}
	}()
	if n, err = io.Copy(tmp, r); err != nil {
		return n, err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return n, err
	}
	if err = tmp.Sync(); err != nil {
		return n, err
	}
	if err = tmp.Close(); err != nil {
		return n, err
	}
	if !mtime.IsZero() {
		if err = os.Chtimes(tmp.Name(), mtime, mtime); err != nil {
			return n, err
		}
	}
	if err = os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return n, err
	}
	return n, SyncDir(dir)
}

// SyncDir makes a rename in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

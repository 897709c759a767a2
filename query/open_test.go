package query

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// damaged copies the small index and changes it with fn in a write
// transaction: the way to make the damaged files Open and Check must catch.
func damaged(t *testing.T, fn func(tx *bolt.Tx) error) string {
	t.Helper()
	small(t)
	path := copyFile(t, smallPath)
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	return path
}

func copyFile(t *testing.T, src string) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	dst := filepath.Join(t.TempDir(), "copy.idx")
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "file.idx")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func put(bucket, key, value string) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error { return tx.Bucket([]byte(bucket)).Put([]byte(key), []byte(value)) }
}

func truncated(t *testing.T, fraction float64) string {
	t.Helper()
	small(t)
	path := copyFile(t, smallPath)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(float64(st.Size())*fraction)); err != nil {
		t.Fatal(err)
	}
	return path
}

func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func foreignBolt(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "foreign.db")
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		return b.Put([]byte("format"), []byte("someone-else"))
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name string
		path func(t *testing.T) string
		want error
	}{
		{"missing file", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope.idx") }, fs.ErrNotExist},
		{"directory", func(t *testing.T) string { return t.TempDir() }, format.ErrNotIndex},
		{"empty file", func(t *testing.T) string { return writeFile(t, nil) }, format.ErrNotIndex},
		{"random bytes", func(t *testing.T) string { return writeFile(t, randomBytes(1<<16)) }, format.ErrNotIndex},
		{"text file", func(t *testing.T) string {
			return writeFile(t, []byte(strings.Repeat("not an index\n", 1000)))
		}, format.ErrNotIndex},
		{"foreign bbolt file", foreignBolt, format.ErrNotIndex},
		{"truncated to a tenth", func(t *testing.T) string { return truncated(t, 0.1) }, nil},
		{"truncated to half", func(t *testing.T) string { return truncated(t, 0.5) }, nil},
		{"wrong version", func(t *testing.T) string { return damaged(t, put("meta", "version", strconv.Itoa(format.Version+1))) }, format.ErrVersion},
		{"garbled version", func(t *testing.T) string { return damaged(t, put("meta", "version", "x")) }, format.ErrCorrupt},
		{"bad meta document", func(t *testing.T) string { return damaged(t, put("meta", "meta", "{")) }, format.ErrCorrupt},
		{"missing bucket", func(t *testing.T) string {
			return damaged(t, func(tx *bolt.Tx) error { return tx.DeleteBucket(format.BucketGenres) })
		}, format.ErrCorrupt},
		{"stations fewer than meta says", func(t *testing.T) string {
			return damaged(t, func(tx *bolt.Tx) error {
				c := tx.Bucket(format.BucketStations).Cursor()
				c.Last()
				return c.Delete()
			})
		}, format.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t)
			ix, err := Open(path)
			if err == nil {
				ix.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), "open index "+path) {
				t.Errorf("error %q does not name the file", err)
			}
			if tt.want == nil { // truncation: either verdict is right, silence is not
				if !errors.Is(err, format.ErrCorrupt) && !errors.Is(err, format.ErrNotIndex) {
					t.Errorf("err %v, want ErrCorrupt or ErrNotIndex", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
}

func TestOpenVersionErrorNamesBothVersions(t *testing.T) {
	_, err := Open(damaged(t, put("meta", "version", "7")))
	var ve *format.VersionError
	if !errors.As(err, &ve) || ve.File != 7 || ve.Supported != format.Version {
		t.Fatalf("err %v, want a VersionError 7 vs %d", err, format.Version)
	}
	want := fmt.Sprintf("version %d", format.Version)
	if msg := err.Error(); !strings.Contains(msg, "version 7") || !strings.Contains(msg, want) {
		t.Errorf("message %q does not name both versions", msg)
	}
}

func TestOpenReadsMeta(t *testing.T) {
	ix, _ := small(t)
	m := ix.Meta()
	if m.Stations != len(smallSet) || !m.SnapshotAt.Equal(testSnapshot) || m.SchemaVersion != format.SchemaVersion {
		t.Errorf("meta %+v", m)
	}
}

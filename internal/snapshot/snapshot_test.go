package snapshot

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"aead.dev/minisign"

	"stationdex/indexer/realdata"
)

var t0 = time.Date(2025, 2, 27, 12, 40, 0, 0, time.UTC)

func publishBytes(t *testing.T, dir string, at time.Time, body string, opts Options) Manifest {
	t.Helper()
	src := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Publish(dir, src, Snapshot{SnapshotAt: at, FormatVersion: 14, Stations: 3}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestPublishManifestAndKeep(t *testing.T) {
	dir := t.TempDir()
	var last time.Time
	for i := range 4 {
		publishBytes(t, dir, t0.Add(time.Duration(i)*time.Hour), strings.Repeat("x", i+1), Options{Keep: 2})
		st, err := os.Stat(filepath.Join(dir, ManifestName))
		if err != nil {
			t.Fatal(err)
		}
		// Static servers' validators are the time to the second and the
		// size: each manifest must get a later second than the one before.
		if !st.ModTime().After(last) {
			t.Errorf("publish %d: manifest time %v not after the previous %v", i, st.ModTime(), last)
		}
		last = st.ModTime()
	}
	got := names(t, dir)
	want := []string{"latest.json", FileName(t0.Add(1 * time.Hour)), FileName(t0.Add(2 * time.Hour)), FileName(t0.Add(3 * time.Hour))}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("directory holds %v, want %v (the current file, two earlier ones, the manifest, no temporary)", got, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("xxxx"))
	if m.File != FileName(t0.Add(3*time.Hour)) || m.Size != 4 || m.SHA256 != hex.EncodeToString(sum[:]) ||
		!m.SnapshotAt.Equal(t0.Add(3*time.Hour)) || m.FormatVersion != 14 {
		t.Fatalf("manifest %+v", m)
	}
}

func TestParseManifestRefuses(t *testing.T) {
	good := Manifest{File: FileName(t0), Size: 1, SHA256: strings.Repeat("a", 64), SnapshotAt: t0, FormatVersion: 14}
	if _, err := ParseManifest(good.Marshal()); err != nil {
		t.Fatalf("good manifest refused: %v", err)
	}
	for name, m := range map[string]Manifest{
		"path":    {File: "../etc/passwd", Size: 1, SHA256: good.SHA256, SnapshotAt: t0, FormatVersion: 14},
		"size":    {File: good.File, SHA256: good.SHA256, SnapshotAt: t0, FormatVersion: 14},
		"sha":     {File: good.File, Size: 1, SHA256: "abc", SnapshotAt: t0, FormatVersion: 14},
		"time":    {File: good.File, Size: 1, SHA256: good.SHA256, FormatVersion: 14},
		"version": {File: good.File, Size: 1, SHA256: good.SHA256, SnapshotAt: t0},
	} {
		if _, err := ParseManifest(m.Marshal()); !errors.Is(err, ErrManifest) {
			t.Errorf("%s: got %v, want ErrManifest", name, err)
		}
	}
	if _, err := ParseManifest([]byte("<html>")); !errors.Is(err, ErrManifest) {
		t.Errorf("garbage: got %v, want ErrManifest", err)
	}
}

func TestSignAndVerifyOwnKeys(t *testing.T) {
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	publishBytes(t, dir, t0, "index", Options{Key: &priv})
	body, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	sig, err := os.ReadFile(filepath.Join(dir, ManifestName+SignatureSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(pub, body, sig); err != nil {
		t.Fatalf("own signature refused: %v", err)
	}
	if err := Verify(other, body, sig); !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), "another key") && !strings.Contains(err.Error(), "signed by key") {
		t.Errorf("other key: got %v", err)
	}
	if err := Verify(pub, bytes.Replace(body, []byte("14"), []byte("15"), 1), sig); !errors.Is(err, ErrSignature) {
		t.Errorf("altered manifest: got %v", err)
	}
	// Publishing unsigned afterwards removes the stale signature.
	publishBytes(t, dir, t0.Add(time.Hour), "index2", Options{})
	if _, err := os.Stat(filepath.Join(dir, ManifestName+SignatureSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale signature left beside an unsigned manifest: %v", err)
	}
}

// TestMinisignTool checks the signature against the minisign tool both
// ways: the tool signs and Verify accepts, Sign signs and the tool accepts.
func TestMinisignTool(t *testing.T) {
	tool, err := exec.LookPath("minisign")
	if err != nil {
		realdata.Missing(t, "the minisign tool (apt-get install minisign)")
	}
	dir := t.TempDir()
	sec, pubFile := filepath.Join(dir, "key.sec"), filepath.Join(dir, "key.pub")
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
			t.Fatalf("minisign %v: %v\n%s", args, err, out)
		}
	}
	run("-G", "-W", "-s", sec, "-p", pubFile)
	key, err := ReadSecretKey(sec)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ReadPublicKey(pubFile)
	if err != nil {
		t.Fatal(err)
	}
	pubLine := strings.TrimSpace(string(untrusted(mustRead(t, pubFile))))
	if _, err := ReadPublicKey(pubLine); err != nil {
		t.Fatalf("the key as a line: %v", err)
	}

	pubDir := filepath.Join(dir, "pub")
	if err := os.Mkdir(pubDir, 0o755); err != nil {
		t.Fatal(err)
	}
	publishBytes(t, pubDir, t0, "index", Options{Key: &key})
	manifest := filepath.Join(pubDir, ManifestName)
	t.Run("go signs, minisign verifies", func(t *testing.T) {
		run("-V", "-p", pubFile, "-m", manifest)
	})
	t.Run("minisign signs, go verifies", func(t *testing.T) {
		for _, legacy := range []bool{false, true} {
			args := []string{"-S", "-s", sec, "-m", manifest, "-x", filepath.Join(dir, "tool.minisig")}
			if legacy {
				args = append(args, "-l")
			}
			run(args...)
			if err := Verify(pub, mustRead(t, manifest), mustRead(t, filepath.Join(dir, "tool.minisig"))); err != nil {
				t.Fatalf("legacy=%v: the tool's signature refused: %v", legacy, err)
			}
		}
	})
	t.Run("minisign refuses an altered manifest", func(t *testing.T) {
		altered := filepath.Join(dir, "altered.json")
		if err := os.WriteFile(altered, append(mustRead(t, manifest), ' '), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(tool, "-V", "-p", pubFile, "-m", altered, "-x", manifest+SignatureSuffix)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("minisign accepted an altered manifest:\n%s", out)
		}
	})
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package follow_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"stationdex/internal/format"
	"stationdex/internal/snapshot"
	"stationdex/server/follow"
)

// TestFaults is the fault matrix: a node serving the old snapshot follows
// a directory whose new snapshot cannot be had for one reason per case.
// Each time the old snapshot keeps serving, no temporary is left beside
// the live file, and the metric and the log name the reason.
func TestFaults(t *testing.T) {
	_, newIx := demoIndexes(t)
	newBytes, err := os.ReadFile(newIx)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := newKey(t)
	_, otherKey := newKey(t)
	cases := []struct {
		name   string
		result string
		// setup changes the publisher or the follower's config.
		setup func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config)
	}{
		{"source down", follow.ResultUnreachable, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			down := httptest.NewServer(http.NotFoundHandler())
			down.Close()
			cfg.Source = down.URL + "/latest.json"
		}},
		{"500", follow.ResultHTTPStatus, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			p.set("/latest.json", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
		}},
		{"manifest is garbage", follow.ResultBadManifest, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			p.set("/latest.json", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>maintenance</html>")) })
		}},
		{"manifest slow beyond the timeout", follow.ResultTimeout, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			cfg.Timeout = 100 * time.Millisecond
			p.set("/latest.json", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		}},
		{"file stalls mid-body", follow.ResultTimeout, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			cfg.Timeout = 100 * time.Millisecond
			p.set("/"+m.File, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", strconv.Itoa(len(newBytes)))
				_, _ = w.Write(newBytes[:len(newBytes)/2])
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			})
		}},
		{"truncated body", follow.ResultTruncated, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			p.set("/"+m.File, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", strconv.Itoa(len(newBytes)))
				_, _ = w.Write(newBytes[:len(newBytes)/2])
			})
		}},
		{"server killed mid-download", follow.ResultTruncated, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			p.set("/"+m.File, func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write(newBytes[:len(newBytes)/3]) // chunked: no length to hold it to
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			})
		}},
		{"file shorter than the manifest says", follow.ResultTruncated, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			m.Size++
			p.writeManifest(t, m)
		}},
		{"wrong SHA-256", follow.ResultChecksum, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			m.SHA256 = strings.Repeat("0", 64)
			p.writeManifest(t, m)
		}},
		{"damaged file", follow.ResultInvalidIndex, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			damaged := append([]byte(nil), newBytes...)
			for page := 2; page < len(damaged)/4096; page++ { // past bbolt's two meta pages
				for i := page*4096 + 100; i < page*4096+164; i++ {
					damaged[i] ^= 0xff
				}
			}
			if err := os.WriteFile(filepath.Join(p.dir, m.File), damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(damaged)
			m.SHA256 = hex.EncodeToString(sum[:]) // the publisher's own mistake: a consistent manifest
			p.writeManifest(t, m)
		}},
		{"foreign format version", follow.ResultFormatVersion, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			m.FormatVersion = format.Version + 1
			p.writeManifest(t, m)
		}},
		{"unsigned manifest", follow.ResultSignature, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			cfg.Key = &pub
		}},
		{"signed by another key", follow.ResultSignature, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			cfg.Key = &pub
			_, newIx := demoIndexes(t)
			p.publish(t, newIx, &otherKey)
		}},
		{"no free space (injected)", follow.ResultDiskFull, func(t *testing.T, p *publisher, m snapshot.Manifest, cfg *follow.Config) {
			cfg.FreeSpace = func(string) (uint64, error) { return uint64(m.Size) / 2, nil }
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPublisher(t)
			m := p.publish(t, newIx, nil)
			n := newNodeSide(t, "", true)
			cfg := follow.Config{Source: p.manifestURL()}
			c.setup(t, p, m, &cfg)
			f := n.follower(t, cfg)
			result, err := f.Once(context.Background())
			if result != c.result || err == nil {
				t.Fatalf("result %q, err %v; want %q and an error", result, err, c.result)
			}
			expectRefused(t, n, c.result)
			if c.result == follow.ResultFormatVersion || c.result == follow.ResultSignature || c.result == follow.ResultDiskFull {
				if got := p.count("/" + m.File); got != 0 {
					t.Errorf("the file was requested %d times; a refused manifest downloads nothing", got)
				}
			}
		})
	}
}

// expectRefused checks what every failed attempt leaves: the old snapshot
// served, no temporary, the metric and the log naming the reason.
func expectRefused(t *testing.T, n *nodeSide, result string) {
	t.Helper()
	if got := n.served(); !got.Equal(oldAt) {
		t.Errorf("serving snapshot %v after a failed attempt, want the old %v", got, oldAt)
	}
	if left := n.leftovers(t); len(left) > 0 {
		t.Errorf("temporaries left beside the live file: %v", left)
	}
	if v := n.metric(t, "stationdex_follow_last_result", result); v != 1 {
		t.Errorf("stationdex_follow_last_result{result=%q} = %v, want 1", result, v)
	}
	if v := n.metric(t, "stationdex_follow_attempts_total", result); v != 1 {
		t.Errorf("stationdex_follow_attempts_total{result=%q} = %v, want 1", result, v)
	}
	if v := n.metric(t, "stationdex_follow_consecutive_failures", ""); v != 1 {
		t.Errorf("stationdex_follow_consecutive_failures = %v, want 1", v)
	}
	if !n.log.has(`"reason":"`+result+`"`) || !n.log.has(`"still_serving_snapshot_at":"`+oldAt.Format(time.RFC3339)+`"`) {
		t.Errorf("the log does not say why and what is still served:\n%s", n.log)
	}
}

// TestDiskFullTmpfs follows into a file system too small for the new
// snapshot: a 256 KiB tmpfs holding the live file. The free-space check
// refuses before downloading; told there is room (as a file system that
// misreports would), the download hits ENOSPC and is removed.
func TestDiskFullTmpfs(t *testing.T) {
	old, newIx := demoIndexes(t)
	st, err := os.Stat(old)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	size := st.Size() + st.Size()/2 // the live file fits, a second one does not
	if out, err := mount(dir, size); err != nil {
		t.Skipf("cannot mount a tmpfs here (needs root): %v %s; the injected free-space case of TestFaults covers the check", err, out)
	}
	t.Cleanup(func() { _ = unmount(dir) })
	for _, c := range []struct {
		name string
		free func(string) (uint64, error)
	}{
		{"free space checked first", nil},
		{"ENOSPC during the download", func(string) (uint64, error) { return 1 << 40, nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newPublisher(t)
			m := p.publish(t, newIx, nil)
			n := newNodeSide(t, dir, true)
			f := n.follower(t, follow.Config{Source: p.manifestURL(), FreeSpace: c.free})
			result, err := f.Once(context.Background())
			if result != follow.ResultDiskFull {
				t.Fatalf("result %q (%v), want %q", result, err, follow.ResultDiskFull)
			}
			expectRefused(t, n, follow.ResultDiskFull)
			want := 0
			if c.free != nil {
				want = 1
			}
			if got := p.count("/" + m.File); got != want {
				t.Errorf("file requested %d times, want %d", got, want)
			}
		})
	}
}

// TestSignedSwapAndNotModified follows a signed directory: the first
// check swaps to the new snapshot, the next is answered 304 and downloads
// nothing, and every request names stationdex in its User-Agent.
func TestSignedSwapAndNotModified(t *testing.T) {
	_, newIx := demoIndexes(t)
	pub, priv := newKey(t)
	p := newPublisher(t)
	m := p.publish(t, newIx, &priv)
	n := newNodeSide(t, "", true)
	f := n.follower(t, follow.Config{Source: p.manifestURL(), Key: &pub})
	if result, err := f.Once(context.Background()); result != follow.ResultSwapped || err != nil {
		t.Fatalf("first check: %q, %v; want swapped", result, err)
	}
	if got := n.served(); !got.Equal(newAt) {
		t.Fatalf("serving %v, want the new snapshot %v", got, newAt)
	}
	var notModified int
	p.set("/latest.json", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-Modified-Since") == "" {
			t.Errorf("the second manifest request is not conditional")
		}
		notModified++
		w.WriteHeader(http.StatusNotModified)
	})
	if result, err := f.Once(context.Background()); result != follow.ResultUnchanged || err != nil {
		t.Fatalf("second check: %q, %v; want unchanged", result, err)
	}
	if notModified != 1 || p.count("/"+m.File) != 1 {
		t.Errorf("304s %d, file downloads %d; want 1 and 1", notModified, p.count("/"+m.File))
	}
	if left := n.leftovers(t); len(left) > 0 {
		t.Errorf("temporaries left: %v", left)
	}
	if v := n.metric(t, "stationdex_follow_attempts_total", follow.ResultSwapped); v != 1 {
		t.Errorf("swapped attempts %v, want 1", v)
	}
	if v := n.metric(t, "stationdex_follow_download_duration_seconds", ""); v != 1 {
		t.Errorf("downloads observed %v, want 1", v)
	}
	for _, ua := range p.agents {
		if ua != "stationdex/test" {
			t.Errorf("User-Agent %q", ua)
		}
	}
}

// TestSameSnapshotAfterRestart: a node whose live file is the published
// one (a restart) downloads nothing.
func TestSameSnapshotAfterRestart(t *testing.T) {
	old, _ := demoIndexes(t)
	p := newPublisher(t)
	m := p.publish(t, old, nil)
	n := newNodeSide(t, "", true)
	f := n.follower(t, follow.Config{Source: p.manifestURL()})
	if result, err := f.Once(context.Background()); result != follow.ResultUnchanged || err != nil {
		t.Fatalf("%q, %v; want unchanged", result, err)
	}
	if got := p.count("/" + m.File); got != 0 {
		t.Errorf("the file was downloaded %d times", got)
	}
}

// TestNotReadyUntilFirstSnapshot: a node without a live file serves
// nothing until the first check installs one.
func TestNotReadyUntilFirstSnapshot(t *testing.T) {
	_, newIx := demoIndexes(t)
	p := newPublisher(t)
	p.publish(t, newIx, nil)
	n := newNodeSide(t, "", false)
	if !n.served().IsZero() {
		t.Fatal("serving before the first snapshot")
	}
	f := n.follower(t, follow.Config{Source: p.manifestURL()})
	if result, err := f.Once(context.Background()); result != follow.ResultSwapped {
		t.Fatalf("%q, %v; want swapped", result, err)
	}
	if got := n.served(); !got.Equal(newAt) {
		t.Errorf("serving %v, want %v", got, newAt)
	}
}

// TestLeftoverOfKilledNodeRemoved: a temporary a killed node left beside
// the live file is removed when the next follower starts.
func TestLeftoverOfKilledNodeRemoved(t *testing.T) {
	n := newNodeSide(t, "", true)
	left := filepath.Join(n.dir, ".stationdex-follow-123456")
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "stationdex-x.db"), []byte("half a download"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.follower(t, follow.Config{Source: "http://127.0.0.1:1/latest.json"})
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the leftover is still there: %v", err)
	}
}

// TestParseSource tells manifests from dumps.
func TestParseSource(t *testing.T) {
	for src, want := range map[string]string{
		"https://snap.example.org/stationdex/latest.json":                  "manifest",
		"/srv/snapshots/latest.json":                                       "manifest",
		"https://de1.api.radio-browser.info/json/stations":                 "dumps",
		"https://a.example/json/stations, https://b.example/json/stations": "dumps",
		"stations.json.gz": "dumps",
		"":                 "error",
		"a/latest.json,https://b.example/json/stations": "error",
		"-": "error",
	} {
		manifest, dumps, err := follow.ParseSource(src)
		got := "error"
		switch {
		case err != nil:
		case manifest != "":
			got = "manifest"
		case len(dumps) > 0:
			got = "dumps"
		}
		if got != want {
			t.Errorf("ParseSource(%q) = %q, %v, %v; want %s", src, manifest, dumps, err, want)
		}
	}
}

// TestSignatureReadAcrossAPublish: the manifest is read before a publish
// and its signature after (the publisher writes the signature first); the
// follower reads both again and swaps, instead of failing the check.
func TestSignatureReadAcrossAPublish(t *testing.T) {
	old, newIx := demoIndexes(t)
	pub, priv := newKey(t)
	before := newPublisher(t)
	before.publish(t, old, &priv)
	oldManifest, err := os.ReadFile(filepath.Join(before.dir, snapshot.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	p := newPublisher(t)
	p.publish(t, newIx, &priv)
	var reads int
	p.set("/latest.json", func(w http.ResponseWriter, r *http.Request) {
		reads++
		if reads == 1 { // the manifest of the publish before
			_, _ = w.Write(oldManifest)
			return
		}
		http.ServeFile(w, r, filepath.Join(p.dir, snapshot.ManifestName))
	})
	n := newNodeSide(t, "", false)
	f := n.follower(t, follow.Config{Source: p.manifestURL(), Key: &pub})
	if result, err := f.Once(context.Background()); result != follow.ResultSwapped {
		t.Fatalf("%q, %v; want swapped after reading both again", result, err)
	}
	if reads != 2 || !n.served().Equal(newAt) {
		t.Errorf("manifest read %d times, serving %v; want 2 and the new snapshot", reads, n.served())
	}
}

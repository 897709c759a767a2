package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"stationdex/internal/format"
	"stationdex/query"
)

// A Reloader replaces the served snapshot with the index file at a fixed
// path: on SIGHUP in the command, and optionally when the file changes. A new
// snapshot is published by writing a new file and renaming it over the path
// (as `stationdex index` does), never by rewriting the file in place: the
// old snapshot stays mapped, and reads from a file truncated under the
// mapping would fault.
type Reloader struct {
	path   string
	holder *query.Holder
	obs    SwapObserver
	log    *slog.Logger
	mu     sync.Mutex  // one reload at a time: a signal and the watcher may race
	seen   os.FileInfo // the file last loaded or refused, for Watch; nil: unknown
}

// SwapObserver is told the outcome of every swap attempt; package metrics
// implements it.
type SwapObserver interface {
	SwapSucceeded(meta format.Meta)
	SwapFailed()
}

// ErrChangedDuringCheck: the file at the path was replaced between the full
// check and the open, so what was checked is not what would be served.
var ErrChangedDuringCheck = errors.New("index file changed while it was being checked; retry")

// NewReloader returns a Reloader swapping path into holder. obs and log may
// be nil.
func NewReloader(path string, holder *query.Holder, obs SwapObserver, log *slog.Logger) *Reloader {
	if obs == nil {
		obs = nopSwap{}
	}
	if log == nil {
		log = slog.Default()
	}
	// The file at path now is the one the caller has just opened and
	// handed to holder, so Watch starts from it and not from whatever the
	// path holds when Watch's goroutine first runs.
	seen, _ := os.Stat(path)
	return &Reloader{path: path, holder: holder, obs: obs, log: log, seen: seen}
}

// Reload checks the file at the path in full (query.Check), opens it and
// swaps it in. Requests already running finish on the old index, which the
// holder closes after the last of them. A file that is damaged, of another
// format version or not an index at all is refused: the error is logged and
// counted, and the old snapshot keeps serving.
func (r *Reloader) Reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := time.Now()
	// Stat before the check: if the file is replaced during it, Watch sees
	// a change on its next poll and tries again.
	r.seen, _ = os.Stat(r.path)
	old := r.currentMeta()
	ix, err := OpenChecked(r.path)
	if err != nil {
		r.obs.SwapFailed()
		r.log.Error("snapshot swap refused", "path", r.path, "err", err,
			"still_serving_snapshot_at", old.SnapshotAt)
		return err
	}
	r.swap(ix, old, start)
	return nil
}

// Install is Reload for a new file made beside the path (a download or a
// build): it checks tmp in full and opens it, renames it over the path and
// swaps it in, the same swap as Reload's. A refused file is removed, and
// the old snapshot keeps serving. tmp must be on the path's file system.
func (r *Reloader) Install(tmp string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := time.Now()
	old := r.currentMeta()
	ix, err := OpenChecked(tmp)
	if err == nil {
		// The open index maps the file, not its name: it survives the rename.
		if err = os.Rename(tmp, r.path); err != nil {
			_ = ix.Close()
		}
	}
	if err != nil {
		_ = os.Remove(tmp)
		r.obs.SwapFailed()
		r.log.Error("snapshot swap refused", "path", tmp, "err", err,
			"still_serving_snapshot_at", old.SnapshotAt)
		return err
	}
	syncDir(filepath.Dir(r.path))
	r.seen, _ = os.Stat(r.path)
	r.swap(ix, old, start)
	return nil
}

// Path is the live index file the Reloader swaps in.
func (r *Reloader) Path() string { return r.path }

// Serving is the meta document of the snapshot served now, and false
// while none is.
func (r *Reloader) Serving() (format.Meta, bool) {
	ix, release := r.holder.Acquire()
	defer release()
	if ix == nil {
		return format.Meta{}, false
	}
	return ix.Meta(), true
}

func (r *Reloader) swap(ix *query.Index, old format.Meta, start time.Time) {
	r.holder.Swap(ix)
	meta := ix.Meta()
	r.obs.SwapSucceeded(meta)
	r.log.Info("snapshot swapped", "path", r.path,
		"from_snapshot_at", old.SnapshotAt, "to_snapshot_at", meta.SnapshotAt,
		"stations", meta.Stations, "took", time.Since(start).Round(time.Millisecond))
}

// syncDir makes a rename in dir durable; a failure only weakens that, so
// it is not an error of the swap.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// OpenChecked runs the full check (query.Check), then opens the file and
// makes sure it is still the one that was checked. The command uses it at
// start-up too, so a node never starts serving a file a swap would refuse.
func OpenChecked(path string) (*query.Index, error) {
	rep, err := query.Check(path)
	if err != nil {
		return nil, err
	}
	ix, err := query.Open(path)
	if err != nil {
		return nil, err
	}
	if !sameSnapshot(rep.Meta, ix.Meta()) {
		_ = ix.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrChangedDuringCheck)
	}
	return ix, nil
}

func sameSnapshot(a, b format.Meta) bool {
	return a.SnapshotAt.Equal(b.SnapshotAt) && a.Source == b.Source &&
		a.Stations == b.Stations && a.BuiltBy == b.BuiltBy && a.Tokens == b.Tokens
}

func (r *Reloader) currentMeta() format.Meta {
	ix, release := r.holder.Acquire()
	defer release()
	if ix == nil {
		return format.Meta{}
	}
	return ix.Meta()
}

// Watch polls the file every interval until ctx is done and reloads when it
// has changed since the last load or refusal: another inode (renamed into
// place), size or modification time. A refused file is not retried until it
// changes again, so a broken publish is logged once, not every interval.
func (r *Reloader) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if r.changed() {
			_ = r.Reload() // logged and counted inside
		}
	}
}

// changed reports whether the path holds another file than the one last
// seen. A missing file is a publish in progress, not a change.
func (r *Reloader) changed() bool {
	fi, err := os.Stat(r.path)
	if err != nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen == nil || !sameFile(r.seen, fi)
}

func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

type nopSwap struct{}

func (nopSwap) SwapSucceeded(format.Meta) {}
func (nopSwap) SwapFailed()               {}

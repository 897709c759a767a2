package follow

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"
)

// tempPrefix starts the name of every temporary a follower makes beside
// the live file; New removes those an earlier process left.
const tempPrefix = ".stationdex-follow-"

// validators identify what a location held when it was last fetched: an
// HTTP ETag and Last-Modified, or a file's size and modification time.
type validators struct {
	etag, lastModified string
	size               int64
	mtime              time.Time
}

// fetched is an open location: its body, its length when known (-1
// otherwise) and its validators, or notModified.
type fetched struct {
	body        io.ReadCloser
	size        int64
	v           validators
	notModified bool
	stalled     func() bool
}

func isURL(loc string) bool {
	return strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://")
}

// errStalled is the cause of a request cancelled by the stall timeout.
var errStalled = errors.New("no answer or no bytes within the timeout")

// open opens loc. With the validators of an earlier fetch, an HTTP request
// is conditional and a file unchanged since is notModified. The caller
// closes body when it is not nil.
func (f *Follower) open(ctx context.Context, loc string, prev validators) (*fetched, error) {
	if !isURL(loc) {
		return openFile(loc, prev)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(f.cfg.Timeout, func() { cancel(errStalled) })
	stalled := func() bool { return errors.Is(context.Cause(ctx), errStalled) }
	done := func() { timer.Stop(); cancel(nil) }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		done()
		return nil, fail(ResultUnreachable, err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	if prev.etag != "" {
		req.Header.Set("If-None-Match", prev.etag)
	}
	if prev.lastModified != "" {
		req.Header.Set("If-Modified-Since", prev.lastModified)
	}
	resp, err := f.cfg.Client.Do(req)
	if err != nil {
		done()
		if stalled() {
			return nil, fail(ResultTimeout, fmt.Errorf("GET %s: no answer within %s", loc, f.cfg.Timeout))
		}
		return nil, fail(ResultUnreachable, err)
	}
	switch resp.StatusCode {
	case http.StatusNotModified:
		_ = resp.Body.Close()
		done()
		return &fetched{notModified: true}, nil
	case http.StatusOK:
	default:
		_ = resp.Body.Close()
		done()
		return nil, fail(ResultHTTPStatus, fmt.Errorf("GET %s: HTTP %s", loc, resp.Status))
	}
	body := &stallReader{r: resp.Body, timer: timer, d: f.cfg.Timeout, closeFn: func() error {
		err := resp.Body.Close()
		done()
		return err
	}}
	return &fetched{
		body: body, size: resp.ContentLength, stalled: stalled,
		v: validators{etag: resp.Header.Get("ETag"), lastModified: resp.Header.Get("Last-Modified")},
	}, nil
}

func openFile(path string, prev validators) (*fetched, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fail(ResultUnreachable, err)
	}
	st, err := fh.Stat()
	if err != nil {
		_ = fh.Close()
		return nil, fail(ResultUnreachable, err)
	}
	v := validators{size: st.Size(), mtime: st.ModTime()}
	if v == prev {
		_ = fh.Close()
		return &fetched{notModified: true}, nil
	}
	return &fetched{body: fh, size: st.Size(), v: v, stalled: func() bool { return false }}, nil
}

// stallReader pushes the stall timeout back whenever bytes arrive.
type stallReader struct {
	r       io.Reader
	timer   *time.Timer
	d       time.Duration
	closeFn func() error
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.timer.Reset(s.d)
	}
	return n, err
}

func (s *stallReader) Close() error { return s.closeFn() }

// readError names why reading a body failed: the stall timeout, or a cut.
func (fe *fetched) readError(loc string, err error) error {
	if fe.stalled != nil && fe.stalled() {
		return fail(ResultTimeout, fmt.Errorf("%s: %w", loc, errStalled))
	}
	return fail(ResultTruncated, fmt.Errorf("%s: download cut: %w", loc, err))
}

// readSmall reads a manifest or a signature: at most limit bytes.
func (fe *fetched) readSmall(loc string, limit int64) ([]byte, error) {
	defer fe.body.Close()
	b, err := io.ReadAll(io.LimitReader(fe.body, limit+1))
	if err != nil {
		return nil, fe.readError(loc, err)
	}
	if int64(len(b)) > limit {
		return nil, fail(ResultBadManifest, fmt.Errorf("%s: longer than %d bytes", loc, limit))
	}
	return b, nil
}

// download copies the body into a new file at dst, through h when given,
// and returns the bytes written; at most limit+1 are read, so a body
// longer than expected is noticed without filling the disk. The file is
// synced before it is closed. Memory stays at one copy buffer.
func (f *Follower) download(fe *fetched, loc, dst string, limit int64, h hash.Hash) (int64, error) {
	start := time.Now()
	defer fe.body.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, fail(ResultLocal, err)
	}
	var w io.Writer = out
	if h != nil {
		w = io.MultiWriter(out, h)
	}
	n, err := io.Copy(w, io.LimitReader(fe.body, limit+1))
	if err != nil {
		_ = out.Close()
		var pe *os.PathError
		if errors.As(err, &pe) || errors.Is(err, syscall.ENOSPC) {
			return n, localError(err)
		}
		return n, fe.readError(loc, err)
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return n, localError(err)
	}
	if err := out.Close(); err != nil {
		return n, localError(err)
	}
	f.cfg.Observer.Downloaded(time.Since(start))
	return n, nil
}

// localError is a write that failed here: a full disk says so.
func localError(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fail(ResultDiskFull, err)
	}
	return fail(ResultLocal, err)
}

// need refuses to start a download that would not fit: need bytes, plus
// a margin of a sixteenth, must be free beside the live file.
func (f *Follower) need(need int64) error {
	free, err := f.cfg.FreeSpace(f.dir)
	if err != nil {
		return fail(ResultLocal, fmt.Errorf("free space in %s: %w", f.dir, err))
	}
	want := uint64(need) + uint64(need)/16
	if free < want {
		return fail(ResultDiskFull, fmt.Errorf("%s has %d MiB free, the new snapshot needs %d MiB", f.dir, free>>20, want>>20))
	}
	return nil
}

func freeSpace(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// workDir makes the attempt's temporary directory beside the live file,
// on its file system, so the verified file is renamed into place.
func (f *Follower) workDir() (string, func(), error) {
	dir, err := os.MkdirTemp(f.dir, tempPrefix+"*")
	if err != nil {
		return "", nil, fail(ResultLocal, err)
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}

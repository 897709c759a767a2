package follow

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// maxDumpBytes bounds a dump of unknown length: the real upstream list is
// about 50 MB of JSON.
const maxDumpBytes = 64 << 30

// dump makes one attempt on the dumps: the first that answers decides; a
// source down, stalled or answering an error passes to the next.
func (f *Follower) dump(ctx context.Context) error {
	var last error
	for _, loc := range f.dumps {
		err := f.dumpFrom(ctx, loc)
		switch resultOf(err) {
		case ResultUnreachable, ResultTimeout, ResultHTTPStatus:
			if ctx.Err() != nil {
				return err
			}
			f.cfg.Log.Warn("follow: dump source failed, trying the next", "source", loc, "err", err)
			last = err
			continue
		}
		return err
	}
	return last
}

// dumpFrom fetches one dump conditionally (a 304, or a file unchanged
// since the last build, builds nothing), downloads a URL's body to a
// temporary file, builds the index beside the live file and installs it.
func (f *Follower) dumpFrom(ctx context.Context, loc string) error {
	fe, err := f.open(ctx, loc, f.seen[loc])
	if err != nil {
		return err
	}
	if fe.notModified {
		return errUnchanged
	}
	defer fe.body.Close()
	var live int64
	if st, err := os.Stat(f.cfg.Installer.Path()); err == nil {
		live = st.Size()
	}
	// The dump (when downloaded), the new index and the build's spilled
	// runs, each about the size of the live index.
	if err := f.need(max(fe.size, 0) + 2*live); err != nil {
		return err
	}
	work, cleanup, err := f.workDir()
	if err != nil {
		return err
	}
	defer cleanup()
	src := io.Reader(fe.body)
	if isURL(loc) {
		limit := int64(maxDumpBytes)
		if fe.size >= 0 {
			limit = fe.size
		}
		path := filepath.Join(work, "dump")
		n, err := f.download(fe, loc, path, limit, nil)
		if err != nil {
			return err
		}
		if fe.size >= 0 && n != fe.size {
			return fail(ResultTruncated, fmt.Errorf("%s: got %d bytes of %d", loc, n, fe.size))
		}
		in, err := os.Open(path)
		if err != nil {
			return fail(ResultLocal, err)
		}
		defer in.Close()
		src = in
	}
	start := time.Now()
	out := filepath.Join(work, "index.db")
	if err := f.cfg.Build(ctx, out, work, src); err != nil {
		if ctx.Err() != nil {
			return fail(ResultBuild, ctx.Err())
		}
		return fail(ResultBuild, fmt.Errorf("build from %s: %w", loc, err))
	}
	if err := f.install(out, start); err != nil {
		return err
	}
	f.seen[loc] = fe.v
	return errSwapped
}

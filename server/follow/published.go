package follow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"stationdex/internal/format"
	"stationdex/internal/snapshot"
)

// published makes one attempt on a published directory: the manifest,
// fetched conditionally; with a key, its signature; then, when it names
// another snapshot than the one served, the file, downloaded beside the
// live one, verified (size, SHA-256) and installed (full check, rename,
// swap).
func (f *Follower) published(ctx context.Context) error {
	loc := f.manifest
	m, v, err := f.readManifest(ctx, loc, f.seen[loc])
	if errors.Is(err, snapshot.ErrMismatch) {
		// Read either side of a publish (the signature is written just
		// before the manifest): read both again, once.
		f.cfg.Log.Info("follow: manifest and signature of different publishes; reading both again", "source", loc)
		m, v, err = f.readManifest(ctx, loc, validators{})
	}
	if err != nil {
		return err
	}
	if m.FormatVersion != format.Version {
		return fail(ResultFormatVersion, fmt.Errorf("%s names a snapshot of index format version %d; this build reads version %d: upgrade the node or the publisher",
			loc, m.FormatVersion, format.Version))
	}
	if f.serving(m) {
		f.seen[loc], f.sha = v, m.SHA256
		return errUnchanged
	}
	if err := f.fetchPublished(ctx, resolve(loc, m.File), m); err != nil {
		return err
	}
	f.seen[loc], f.sha = v, m.SHA256
	return errSwapped
}

// readManifest fetches the manifest (conditionally, with prev), parses it
// and, with a key, verifies its signature. A 304 is errUnchanged.
func (f *Follower) readManifest(ctx context.Context, loc string, prev validators) (snapshot.Manifest, validators, error) {
	fe, err := f.open(ctx, loc, prev)
	if err != nil {
		return snapshot.Manifest{}, validators{}, err
	}
	if fe.notModified {
		return snapshot.Manifest{}, validators{}, errUnchanged
	}
	body, err := fe.readSmall(loc, snapshot.MaxManifestBytes)
	if err != nil {
		return snapshot.Manifest{}, validators{}, err
	}
	m, err := snapshot.ParseManifest(body)
	if err != nil {
		return m, validators{}, fail(ResultBadManifest, fmt.Errorf("%s: %w", loc, err))
	}
	return m, fe.v, f.verify(ctx, loc, body)
}

// verify checks the manifest's signature when a key is set: a manifest
// without one, or signed by another key, is refused.
func (f *Follower) verify(ctx context.Context, loc string, manifest []byte) error {
	if f.cfg.Key == nil {
		return nil
	}
	sigLoc := loc + snapshot.SignatureSuffix
	fe, err := f.open(ctx, sigLoc, validators{})
	if err != nil {
		if r := resultOf(err); r == ResultHTTPStatus || r == ResultUnreachable {
			return fail(ResultSignature, fmt.Errorf("unsigned manifest: no signature at %s (%v)", sigLoc, err))
		}
		return err
	}
	sig, err := fe.readSmall(sigLoc, snapshot.MaxManifestBytes)
	if err != nil {
		return err
	}
	if err := snapshot.Verify(*f.cfg.Key, manifest, sig); err != nil {
		return fail(ResultSignature, fmt.Errorf("%s: %w", loc, err))
	}
	return nil
}

// serving reports whether m names the snapshot already served: the file
// last installed, or (after a restart) the live file of the same snapshot
// time and size.
func (f *Follower) serving(m snapshot.Manifest) bool {
	if f.sha != "" {
		return f.sha == m.SHA256
	}
	meta, ok := f.cfg.Installer.Serving()
	if !ok || !meta.SnapshotAt.Equal(m.SnapshotAt) {
		return false
	}
	st, err := os.Stat(f.cfg.Installer.Path())
	return err == nil && st.Size() == m.Size
}

// fetchPublished downloads the file m names into a temporary directory
// beside the live file, verifies its size and SHA-256 and installs it.
func (f *Follower) fetchPublished(ctx context.Context, loc string, m snapshot.Manifest) error {
	if err := f.need(m.Size); err != nil {
		return err
	}
	work, cleanup, err := f.workDir()
	if err != nil {
		return err
	}
	defer cleanup()
	fe, err := f.open(ctx, loc, validators{})
	if err != nil {
		return err
	}
	if fe.notModified { // cannot happen without validators; a file is never new
		return fail(ResultHTTPStatus, fmt.Errorf("%s: not modified to an unconditional request", loc))
	}
	if fe.size >= 0 && fe.size != m.Size {
		_ = fe.body.Close()
		return fail(ResultTruncated, fmt.Errorf("%s is %d bytes, the manifest says %d", loc, fe.size, m.Size))
	}
	tmp := filepath.Join(work, m.File)
	h := sha256.New()
	n, err := f.download(fe, loc, tmp, m.Size, h)
	if err != nil {
		return err
	}
	if n != m.Size {
		return fail(ResultTruncated, fmt.Errorf("%s: got %d bytes, the manifest says %d", loc, n, m.Size))
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != m.SHA256 {
		return fail(ResultChecksum, fmt.Errorf("%s: SHA-256 %s, the manifest says %s", loc, sum, m.SHA256))
	}
	return f.install(tmp, time.Now())
}

// install hands a verified file to the node, which checks it in full;
// the build duration observed runs from start (a build's, or the check's).
func (f *Follower) install(tmp string, start time.Time) error {
	err := f.cfg.Installer.Install(tmp)
	f.cfg.Observer.Built(time.Since(start))
	switch {
	case errors.Is(err, format.ErrVersion):
		return fail(ResultFormatVersion, err)
	case err != nil:
		return fail(ResultInvalidIndex, err)
	}
	return nil
}

// resolve gives the location of a file named in the manifest at loc: a
// URL beside it, or a path in its directory.
func resolve(loc, name string) string {
	if !isURL(loc) {
		return filepath.Join(filepath.Dir(loc), name)
	}
	base, err := url.Parse(loc)
	if err != nil {
		return loc // open reports the bad URL
	}
	return base.ResolveReference(&url.URL{Path: url.PathEscape(name)}).String()
}

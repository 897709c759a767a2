package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"aead.dev/minisign"

	"stationdex/internal/format"
	"stationdex/internal/snapshot"
	"stationdex/server/node"
)

var publishHelp = commandHelp{
	synopsis: "publish -dir DIR [-keep N] [-key SECRETKEYFILE] INDEX",
	summary:  "Publish an index into a directory that nodes follow (serve -follow DIR-URL/latest.json).",
	about: `Checks INDEX in full (as stationdex check does), copies it into DIR under a
name of its snapshot time (stationdex-20250227T124000Z.db), and writes
DIR/latest.json, the manifest nodes follow: the file's name, size, SHA-256,
snapshot time and format version. The manifest is written last, and every
file through a temporary name, synced and renamed, so a reader never sees a
part. The previous -keep files stay for nodes still downloading them; older
ones are removed.

With -key (a minisign secret key: minisign -G -W -s FILE makes one without
a password; an encrypted one takes its password from $STATIONDEX_KEY_PASSWORD,
and its decryption, minisign's scrypt, takes about 1 GiB and many seconds)
the manifest is signed into DIR/latest.json.minisig, which
minisign -V -p KEY.pub -m latest.json verifies, and serve -follow-key
requires. Serve DIR with any static server or object store with public reads.`,
}

// runPublish implements `stationdex publish`: 0 published, 1 refused or
// failed, 2 usage error.
func runPublish(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("publish", stderr)
	dir := fs.String("dir", "", "`DIR` to publish into (required; must exist)")
	keep := fs.Int("keep", 2, "earlier snapshot files to keep beside the current one")
	keyFile := fs.String("key", "", "minisign secret key `FILE` to sign the manifest with")
	if err := parseCommand(fs, publishHelp, args, stdout, stderr); err != nil {
		return exitStatus(err)
	}
	msg := ""
	switch {
	case *dir == "":
		msg = "-dir DIR is required"
	case fs.NArg() != 1:
		msg = "want exactly one INDEX file"
	case *keep < 0:
		msg = "-keep must not be negative"
	}
	if msg != "" {
		publishHelp.usageError(stderr, fs, msg)
		return 2
	}
	if err := publish(*dir, fs.Arg(0), *keep, *keyFile, stdout); err != nil {
		fmt.Fprintln(stderr, "stationdex publish:", err)
		return 1
	}
	return 0
}

func publish(dir, index string, keep int, keyFile string, stdout io.Writer) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("-dir %s: not a directory (create it first)", dir)
	}
	var key *minisign.PrivateKey
	if keyFile != "" {
		k, err := snapshot.ReadSecretKey(keyFile)
		if err != nil {
			return err
		}
		key = &k
	}
	ix, err := node.OpenChecked(index)
	if err != nil {
		return fmt.Errorf("%s refused by the full check, nothing published: %w", index, err)
	}
	meta := ix.Meta()
	if err := ix.Close(); err != nil {
		return err
	}
	m, err := snapshot.Publish(dir, index, snapshot.Snapshot{
		SnapshotAt: meta.SnapshotAt, FormatVersion: format.Version, Stations: meta.Stations,
	}, snapshot.Options{Keep: keep, Key: key})
	if err != nil {
		return errors.Join(errors.New("publish failed; the manifest is unchanged"), err)
	}
	signed := "unsigned"
	if key != nil {
		signed = "signed, " + snapshot.ManifestName + snapshot.SignatureSuffix
	}
	fmt.Fprintf(stdout, "published %s (%d bytes, sha256 %s, snapshot_at %s, %d stations) in %s; %s written (%s)\n",
		m.File, m.Size, m.SHA256, m.SnapshotAt.Format(time.RFC3339), m.Stations, dir, snapshot.ManifestName, signed)
	return nil
}

// Package snapshot is what a publisher and a follower of published index
// snapshots agree on: the manifest (latest.json) that names the current
// file with its size, SHA-256, snapshot time and format version, its
// minisign signature (latest.json.minisig, Ed25519), and the publishing of
// a directory: the file copied under a name of its snapshot time, the
// signature and then the manifest written last, each atomically (temporary
// file, fsync, rename, fsync of the directory), and older files pruned.
//
// Any static server or object store with public reads serves the
// directory; a node fetches the manifest, then the file it names.
//
// File map:
//   - doc.go: this comment
//   - manifest.go: Manifest, its JSON, its checks, and the file name of a
//     snapshot time
//   - sign.go: minisign keys read from files, signing and verifying a
//     manifest
//   - publish.go: Publish: the copy, the signature, the manifest, the
//     pruning, and the atomic writes they use
package snapshot

// Command gendocs writes the dimension table's entries (package dim's
// rows) into the API's two documents, server/files/openapi.json and
// server/API.md: each dimension's search parameter, its echo, its facet
// and the lists of facets and parameters. The rest of both documents is
// written by hand; a dimension's words are in its row (dim.Doc), so a new
// dimension takes no line of either by hand.
//
//	go generate ./internal/dim    (runs: go run ./cmd/gendocs)
//
// TestDocumentsAreGenerated fails when a committed document is not what
// this program writes from the rows.
//
// File map:
//   - main.go: this comment; reading and writing the two documents
//   - json.go: JSON values that keep their members' order and their
//     scalars' text, written back as the document is indented
//   - openapi.go: the rows' entries of the OpenAPI document
//   - apimd.go: the rows' lines of API.md
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The documents, relative to the repository's root.
const (
	openAPIFile = "server/files/openapi.json"
	apiMDFile   = "server/API.md"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	docs, err := generate(*root)
	if err == nil {
		for name, b := range docs {
			if err = os.WriteFile(filepath.Join(*root, name), b, 0o644); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// generate is the two documents under root, with the rows' entries
// written into them.
func generate(root string) (map[string][]byte, error) {
	raw, err := os.ReadFile(filepath.Join(root, openAPIFile))
	if err != nil {
		return nil, err
	}
	doc, err := parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", openAPIFile, err)
	}
	if err := openAPI(doc); err != nil {
		return nil, err
	}
	var b strings.Builder
	doc.write(&b, "")
	b.WriteString("\n")
	md, err := os.ReadFile(filepath.Join(root, apiMDFile))
	if err != nil {
		return nil, err
	}
	text, err := apiMD(string(md))
	if err != nil {
		return nil, err
	}
	return map[string][]byte{openAPIFile: []byte(b.String()), apiMDFile: []byte(text)}, nil
}

// stale lists the documents under root that differ from what generate
// writes.
func stale(root string) ([]string, error) {
	docs, err := generate(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range []string{openAPIFile, apiMDFile} {
		committed, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(committed, docs[name]) {
			out = append(out, name)
		}
	}
	return out, nil
}

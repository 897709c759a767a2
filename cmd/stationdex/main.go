// Command stationdex builds, checks and serves stationdex index files.
//
//	stationdex index -o FILE [-base-url URL] [-snapshot-at RFC3339] [-source NAME] INPUT...
//	stationdex serve [-index FILE] [-addr HOST:PORT] [-base-url URL] [-admin-addr HOST:PORT]
//	stationdex check FILE
//	stationdex version
//
// main only parses the subcommand and hands over; the work lives in the
// indexer, query, server and metrics packages.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

const usage = `stationdex: a read-only radio station directory served from a precomputed index

Usage:
  stationdex index -o FILE [-base-url URL] [-snapshot-at RFC3339] [-source NAME] INPUT...
        Build an index from Radio Browser dumps (JSON array or NDJSON, plain
        or gzip; files, - for stdin, or an http(s) URL of /json/stations).
  stationdex serve [-index FILE] [-addr HOST:PORT] [-base-url URL] [-admin-addr HOST:PORT]
        Serve the JSON API and pages. Without -index, serves the embedded demo.
  stationdex check FILE
        Verify an index file; exits non-zero on a damaged or foreign file.
  stationdex version
        Print the build version.

Run "stationdex COMMAND -h" for the flags of a command.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code:
// 0 success, 1 failure, 2 usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "index":
		return runIndex(args[1:])
	case "serve":
		return runServe(args[1:])
	case "check":
		return runCheck(args[1:])
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "stationdex", version())
		return 0
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "stationdex: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}

// version is the module version stamped by the Go toolchain, plus the VCS
// revision when the binary was built from a checkout.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v + " " + info.GoVersion
}

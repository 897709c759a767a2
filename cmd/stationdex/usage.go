package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// commandHelp is what `stationdex COMMAND -h` prints, in the same shape for
// every command: the synopsis, what the command does, then its flags. The
// top-level usage lists every command's synopsis and summary from the
// same values, so the two never disagree.
type commandHelp struct {
	synopsis string // the command line, after "stationdex "
	summary  string // one line for the top-level usage
	about    string // the paragraphs after the synopsis
}

var (
	indexHelp = commandHelp{
		synopsis: "index -o FILE [-compat] [-base-url URL] [-snapshot-at RFC3339] [-source NAME] [-memory MIB] [-tmpdir DIR] [-cpuprofile FILE] INPUT...",
		summary:  "Build an index file from Radio Browser dumps.",
		about: `Builds an index file from Radio Browser dumps. An INPUT is a file, - for
standard input, or an http(s) URL of the upstream /json/stations endpoint;
each may be a JSON array or NDJSON, plain or gzip. The index is written to a
temporary file and renamed to FILE only when complete.

Memory stays bounded whatever the input size: the build buffers at most
-memory MiB of records and posting lists before it spills sorted runs to
-tmpdir, and otherwise holds 4 bytes per station. The spilled runs and the
temporary index need free space there of about twice the index size.`,
	}
	serveHelp = commandHelp{
		synopsis: "serve [-index FILE] [-addr HOST:PORT] [-base-url URL] [-admin-addr HOST:PORT] [-follow SOURCE -every DURATION [-follow-key PUBKEY]]",
		summary:  "Serve the JSON API, pages and data files; without -index, the embedded demo.",
		about: `Serves the JSON API, the HTML pages, their Markdown twins and the data files
of one index file, or of the embedded demo snapshot without -index.

Links are absolute and built on -base-url. Without it they name -addr; an
-addr without a host or with every interface (":8080", "0.0.0.0:8080",
"[::]:8080") gives links to 127.0.0.1 and a warning: pass -base-url with
the address clients use. SIGHUP (or -watch) swaps in a new index file;
SIGTERM or SIGINT drains the requests in flight and exits 0.

With -follow the node keeps -index current by itself: every -every it
checks SOURCE, a directory made by stationdex publish (its .../latest.json,
signed when -follow-key is given) or dumps (files or URLs, comma-separated,
tried in turn; fetched with If-None-Match/If-Modified-Since, so a 304
builds nothing, and built by a niced child process). A new snapshot is
downloaded or built beside -index, verified (size, SHA-256, signature, the
full check) and swapped in as SIGHUP does; on any failure the old snapshot
keeps serving and the check is retried with backoff. Without a valid
-index at start the node answers 503 until the first snapshot arrives.`,
	}
	checkHelp = commandHelp{
		synopsis: "check FILE",
		summary:  "Verify an index file; exits 1 on a damaged, foreign or other-version file.",
		about: `Verifies an index file completely: format version, page tree and bucket
checksums, every bitmap, record order, ids, stored JSON, counts and data
dumps. Exit status 0: sound; 1: damaged, foreign, of another version or
unreadable; 2: usage error.`,
	}
	versionHelp = commandHelp{
		synopsis: "version",
		summary:  "Print the build version.",
		about:    `Prints the module version, the VCS revision and the Go version of the build.`,
	}
)

// commands lists the subcommands in the order the usage shows them.
var commands = []commandHelp{indexHelp, serveHelp, checkHelp, publishHelp, versionHelp}

// topUsage is the usage of stationdex itself.
func topUsage() string {
	var b strings.Builder
	b.WriteString("stationdex: a read-only radio station directory served from a precomputed index\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  stationdex %s\n        %s\n", c.synopsis, c.summary)
	}
	b.WriteString("\nRun \"stationdex COMMAND -h\" for what a command does and its flags.\n")
	return b.String()
}

// newFlagSet returns a command's flag set: errors go to stderr, and help is
// left to parseCommand, which knows whether it was asked for.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	return fs
}

// errHelpShown ends a command that printed the help asked for; its exit
// status is 0.
var errHelpShown = errors.New("help shown")

// parseCommand parses a command's flags. -h or -help prints the help to
// stdout and returns errHelpShown; a bad flag has its message and the help
// printed to stderr and returns the error (exit status 2).
func parseCommand(fs *flag.FlagSet, h commandHelp, args []string, stdout, stderr io.Writer) error {
	// The flag package prints its own wording of an error; ours follows.
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		h.print(stdout, fs)
		return errHelpShown
	case err != nil:
		h.usageError(stderr, fs, flagMessage(fs, err))
	}
	return err
}

// usageError prints a command's message for arguments it refuses, then
// its help, to stderr.
func (h commandHelp) usageError(stderr io.Writer, fs *flag.FlagSet, msg string) {
	fmt.Fprintf(stderr, "stationdex %s: %s\n\n", fs.Name(), msg)
	h.print(stderr, fs)
}

func (h commandHelp) print(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: stationdex %s\n\n%s\n", h.synopsis, h.about)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if !hasFlags {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// exitStatus maps a command's parse outcome to its exit status: 0 after
// the help asked for, 2 after a usage error.
func exitStatus(err error) int {
	if errors.Is(err, errHelpShown) {
		return 0
	}
	return 2
}

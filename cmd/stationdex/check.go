package main

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"

	"stationdex/internal/format"
	"stationdex/query"
)

// runCheckTo implements `stationdex check FILE`: it verifies the whole index
// and prints a short report. Exit status 0: the index is sound; 1: it is
// damaged, foreign, of another version or unreadable; 2: usage error.
func runCheckTo(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", stderr)
	if err := parseCommand(fs, checkHelp, args, stdout, stderr); err != nil {
		return exitStatus(err)
	}
	if fs.NArg() != 1 {
		checkHelp.usageError(stderr, fs, "want exactly one FILE")
		return 2
	}
	rep, err := query.Check(fs.Arg(0))
	if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, iofs.ErrPermission) {
		indexFileError(fs.Arg(0), "", err).print(stderr, "check")
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "stationdex check: %v\n%s\n", err, checkAdvice(err))
		return 1
	}
	printCheckReport(stdout, rep)
	return 0
}

// checkAdvice says what to do about the kinds of failure a user can act on.
func checkAdvice(err error) string {
	switch {
	case errors.Is(err, format.ErrVersion):
		return "The index was written by another version of stationdex: rebuild it with `stationdex index`."
	case errors.Is(err, format.ErrNotIndex):
		return "The file is not a stationdex index: build one with `stationdex index -o FILE DUMP`."
	case errors.Is(err, format.ErrCorrupt):
		return "The index is damaged (truncated or overwritten?): rebuild it with `stationdex index`."
	default:
		return "The index could not be read."
	}
}

func printCheckReport(w io.Writer, rep query.CheckReport) {
	m := rep.Meta
	fmt.Fprintf(w, "%s: stationdex index, format version %d, schema %s\n", rep.Path, rep.Version, m.SchemaVersion)
	fmt.Fprintf(w, "  snapshot  %s from %s\n", m.SnapshotAt.UTC().Format("2006-01-02 15:04:05 MST"), m.Source)
	fmt.Fprintf(w, "  built by  %s\n", m.BuiltBy)
	fmt.Fprintf(w, "  stations  %d records decoded, numbered in name order, ids consistent\n", rep.Records)
	fmt.Fprintf(w, "  postings  %d bitmaps valid\n", rep.Bitmaps)
	if m.RBAPI {
		fmt.Fprintf(w, "  orders    popular and bitrate list every station once, sorted\n")
	} else {
		fmt.Fprintf(w, "  orders    popular and bitrate list every station once; bitrate sorted (popular's votes and clicks are kept only with -compat)\n")
	}
	if rep.Files > 0 {
		fmt.Fprintf(w, "  files     %d data dumps match their manifest\n", rep.Files)
	}
	if m.RBAPI {
		fmt.Fprintf(w, "  compat    upstream objects, /json/ postings and sorted orders valid (built with -compat)\n")
	} else {
		fmt.Fprintf(w, "  compat    none: /json/ is not served (stationdex index -compat writes it)\n")
	}
	fmt.Fprintf(w, "  counts    %d tokens, %d countries, %d languages, %d genres (as in meta)\n",
		m.Tokens, m.Countries, m.Languages, m.Genres)
	fmt.Fprintf(w, "  buckets  ")
	for _, b := range rep.Buckets {
		fmt.Fprintf(w, " %s=%d", b.Name, b.Keys)
	}
	fmt.Fprintf(w, "\nok\n")
}

// Command stationdex builds, checks and serves stationdex index files.
//
//	stationdex index -o FILE [-compat] [-base-url URL] [-snapshot-at RFC3339] [-source NAME] [-memory MIB] [-tmpdir DIR] INPUT...
//	stationdex serve [-index FILE] [-addr HOST:PORT] [-base-url URL] [-admin-addr HOST:PORT]
//	stationdex check FILE
//	stationdex publish -dir DIR [-keep N] [-key SECRETKEYFILE] INDEX
//	stationdex version
//
// main only parses the subcommand and hands over; the work lives in the
// indexer, query, server and metrics packages.
//
// File map:
//   - main.go: this comment; the dispatch to a subcommand and `version`
//   - usage.go: the help of every command in one shape, and the parsing
//     of a command's flags into an exit status
//   - index.go: `stationdex index`: its arguments, the inputs opened
//     before the build, the CPU profile and the summary
//   - check.go: `stationdex check`: the full check and its report
//   - advice.go: the messages that say what to do: a missing or foreign
//     index file, a folder that cannot be written, a flag's error
//   - publish.go: `stationdex publish`: the full check, then the copy,
//     the signed manifest and the pruning of internal/snapshot
//   - follow.go: serve's -follow flags, the follower started beside the
//     node, and the background build in a niced child process
//   - serve.go: `stationdex serve`: its flags, the logger, the base URL,
//     the index opened or the demo built, the node wired to the server
//     and the metrics, and reloading on SIGHUP or a changed file
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code:
// 0 success, 1 failure, 2 usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage())
		return 2
	}
	switch args[0] {
	case "index":
		return runIndex(args[1:], stdout, stderr)
	case "serve":
		return runServe(args[1:], stdout, stderr)
	case "check":
		return runCheckTo(args[1:], stdout, stderr)
	case "publish":
		return runPublish(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		return runVersion(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, topUsage())
		return 0
	default:
		fmt.Fprintf(stderr, "stationdex: unknown command %q\n\n%s", args[0], topUsage())
		return 2
	}
}

// runVersion implements `stationdex version`.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", stderr)
	if err := parseCommand(fs, versionHelp, args, stdout, stderr); err != nil {
		return exitStatus(err)
	}
	if fs.NArg() > 0 {
		versionHelp.usageError(stderr, fs, fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
		return 2
	}
	fmt.Fprintln(stdout, "stationdex", version())
	return 0
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

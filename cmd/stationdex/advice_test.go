package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goWording is what a message must never say: the system's or the Go
// flag package's words where ours belong, and the build's own folders.
var goWording = []string{"no such file or directory", "context canceled", "flag provided but not defined",
	"parse error", "strconv", "temporary directory", ".stationdex-build", "bbolt"}

func saysNoGoWording(t *testing.T, what, out string) {
	t.Helper()
	for _, w := range goWording {
		if strings.Contains(out, w) {
			t.Errorf("%s says %q:\n%s", what, w, out)
		}
	}
}

// TestIndexOutputFolderSaysWhatToDo: -o into a folder that is missing, a
// file or not writable, -o naming a folder, and a missing -tmpdir fail at
// once, with exit status 1, naming the folder as the user named it and
// saying what to do; nothing is left behind.
func TestIndexOutputFolderSaysWhatToDo(t *testing.T) {
	fixture, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("plain", []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("out", 0o755); err != nil {
		t.Fatal(err)
	}
	// A folder this process cannot write: a read-only one, or, for root,
	// who writes in any, the kernel's /sys.
	readOnly := "locked"
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		readOnly = "/sys"
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-o", "no/such/stations.db", fixture},
			[]string{"the folder no/such (of -o no/such/stations.db) does not exist", "mkdir -p no/such"}},
		{[]string{"-o", "plain/stations.db", fixture},
			[]string{"the folder plain (of -o plain/stations.db) is a file, not a folder", "another -o"}},
		{[]string{"-o", readOnly + "/stations.db", fixture},
			[]string{"cannot write in the folder " + readOnly + " (of -o " + readOnly + "/stations.db)", "Name a folder you can write in"}},
		{[]string{"-o", "out", fixture}, []string{"-o out is a folder", "-o out/stations.db"}},
		{[]string{"-o", "out/stations.db", "-tmpdir", "scratch", fixture},
			[]string{"the folder scratch (-tmpdir) does not exist", "mkdir -p scratch"}},
	} {
		code, stdout, stderr := runIndexArgs(t, tc.args...)
		if code != 1 || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q; want 1 and nothing", tc.args, code, stdout)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%q: stderr lacks %q:\n%s", tc.args, w, stderr)
			}
		}
		if !strings.HasPrefix(stderr, "stationdex index: ") {
			t.Errorf("%q: stderr does not start with the command:\n%s", tc.args, stderr)
		}
		saysNoGoWording(t, strings.Join(tc.args, " "), stderr)
	}
	for _, d := range []string{".", "out", "locked"} {
		if left, _ := os.ReadDir(d); d == "." && len(left) != 3 || d != "." && len(left) != 0 {
			t.Errorf("%s holds %d entries after the failures", d, len(left))
		}
	}
}

// TestIndexInterruptedSaysSo: a build stopped by Ctrl-C (its context
// cancelled) says "interrupted" and that the file was not written.
func TestIndexInterruptedSaysSo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "stations.db")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr strings.Builder
	code := runIndexTo(ctx, []string{"-o", out, fixture}, &stdout, &stderr, false)
	want := "stationdex index: interrupted: " + out + " was not written.\n"
	if code != 1 || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
	saysNoGoWording(t, "an interrupted build", stderr.String())
	if _, err := os.Stat(out); err == nil {
		t.Error("an interrupted build wrote the index")
	}
}

// TestIndexMissingInputSaysWhatToDo: an INPUT that is not there is named
// as given, with what an INPUT can be.
func TestIndexMissingInputSaysWhatToDo(t *testing.T) {
	t.Chdir(t.TempDir())
	code, _, stderr := runIndexArgs(t, "-o", "stations.db", "dump.json")
	if code != 1 || !strings.Contains(stderr, "stationdex index: no input file at dump.json\n") || !strings.Contains(stderr, "https://") {
		t.Errorf("exit %d, stderr %q; want 1, the input named and what an input can be", code, stderr)
	}
	saysNoGoWording(t, "a missing input", stderr)
}

// TestIndexUsageNamesEveryFlag: the synopsis of index, in its help and in
// the top usage, names every flag the command has, -compat among them.
func TestIndexUsageNamesEveryFlag(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run([]string{"index", "-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("index -h: exit %d", code)
	}
	help := stdout.String()
	synopsis, _, _ := strings.Cut(help, "\n")
	top := topUsage()
	flags := 0
	for line := range strings.SplitSeq(help, "\n") {
		name, ok := strings.CutPrefix(line, "  -")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		flags++
		named := regexp.MustCompile(`\[?-` + regexp.QuoteMeta(name) + `[ \]]`)
		if !named.MatchString(synopsis) || !named.MatchString(top) {
			t.Errorf("the synopsis of index leaves out -%s:\n%s\n%s", name, synopsis, top)
		}
	}
	if flags < 8 {
		t.Fatalf("read %d flags from the help of index:\n%s", flags, help)
	}
}

// TestFlagErrorsInWords: a flag error says what is wrong in the command's
// words, exits 2 and shows the help.
func TestFlagErrorsInWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "-o", "x.db", "-nosuchflag", "a.json"}, "stationdex index: unknown flag -nosuchflag (see stationdex index -h)"},
		{[]string{"index", "-o", "x.db", "-memory", "lots", "a.json"}, `stationdex index: -memory "lots": want a whole number`},
		{[]string{"index", "-o"}, "stationdex index: -o needs a value"},
		{[]string{"serve", "-watch", "often"}, `stationdex serve: -watch "often": want a duration such as 30s or 5m`},
		{[]string{"serve", "-access-log=maybe"}, `stationdex serve: -access-log "maybe": want true or false`},
		{[]string{"check", "-x"}, "stationdex check: unknown flag -x (see stationdex check -h)"},
	} {
		var stdout, stderr strings.Builder
		code := run(tc.args, &stdout, &stderr)
		if code != 2 || !strings.HasPrefix(stderr.String(), tc.want+"\n") || !strings.Contains(stderr.String(), "usage: stationdex ") {
			t.Errorf("%q: exit %d, stderr %q; want 2, %q and the usage", tc.args, code, stderr.String(), tc.want)
		}
		saysNoGoWording(t, strings.Join(tc.args, " "), stderr.String())
	}
}

// TestCheckMissingFileSaysWhatToDo: check of a file that is not there
// names it and the command that builds one.
func TestCheckMissingFileSaysWhatToDo(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout, stderr strings.Builder
	code := run([]string{"check", "stations.db"}, &stdout, &stderr)
	want := "stationdex check: no index file at stations.db\nBuild one with: stationdex index -o stations.db DUMP"
	if code != 1 || !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
	saysNoGoWording(t, "check of a missing file", stderr.String())
}

// TestServeMissingIndexSaysWhatToDo: serve -index of a file that is not
// there, with the default text log, prints the two lines a person needs
// (the file as named, the command that builds it) and no log line.
func TestServeMissingIndexSaysWhatToDo(t *testing.T) {
	code, out := runChild(t, "serve", "-index", "stations.db", "-addr", "127.0.0.1:0")
	want := "stationdex serve: no index file at stations.db (-index)\nBuild one with: stationdex index -o stations.db DUMP"
	if code != 1 || !strings.Contains(out, want) || strings.Contains(out, "level=ERROR") {
		t.Errorf("exit %d, output %q; want 1 and %q without a log line", code, out, want)
	}
	saysNoGoWording(t, "serve of a missing index", out)
}

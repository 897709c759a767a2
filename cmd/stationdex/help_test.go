package main

import (
	"strings"
	"testing"
)

// TestCommandHelp: every command answers -h and -help with its synopsis
// and description on stdout and exit status 0, in the same shape; version
// -h is help, not the version.
func TestCommandHelp(t *testing.T) {
	for _, h := range commands {
		name, _, _ := strings.Cut(h.synopsis, " ")
		firstLine, _, _ := strings.Cut(h.about, "\n")
		for _, flag := range []string{"-h", "-help", "--help"} {
			var stdout, stderr strings.Builder
			code := run([]string{name, flag}, &stdout, &stderr)
			out := stdout.String()
			if code != 0 || !strings.HasPrefix(out, "usage: stationdex "+name) || !strings.Contains(out, firstLine) {
				t.Errorf("stationdex %s %s: exit %d, stdout %q, stderr %q; want 0 and the help", name, flag, code, out, stderr.String())
			}
			if strings.Contains(out, version()) {
				t.Errorf("stationdex %s %s printed the version", name, flag)
			}
		}
	}
}

// TestCommandUsageErrors: a bad flag or argument exits 2 with the message
// and the help on stderr, nothing on stdout.
func TestCommandUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"index", "-nosuchflag"}, {"serve", "-nosuchflag"}, {"check", "-nosuchflag"}, {"version", "-nosuchflag"},
		{"check"}, {"version", "extra"}, {"serve", "extra"}, {"serve", "-addr", "localhost"},
	} {
		var stdout, stderr strings.Builder
		code := run(args, &stdout, &stderr)
		if code != 2 || stdout.Len() > 0 || !strings.Contains(stderr.String(), "usage: stationdex "+args[0]) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and the help on stderr", args, code, stdout.String(), stderr.String())
		}
	}
}

// TestTopUsageListsEveryCommand: the top-level help names each command.
func TestTopUsageListsEveryCommand(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run([]string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, h := range commands {
		if !strings.Contains(stdout.String(), "stationdex "+h.synopsis) {
			t.Errorf("usage lacks %q", h.synopsis)
		}
	}
}

package deploy

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// serveFlagDef finds the flags `stationdex serve` defines in its source:
// fs.StringVar(&f.index, "index", ...).
// and the follow flags of follow.go: fs.StringVar(&ff.source, "follow", ...).
var serveFlagDef = regexp.MustCompile(`fs\.\w+Var\(&ff?\.\w+, "([a-z-]+)"`)

// flagUse finds flags passed on a command line: " -name value" or "-name=value".
var flagUse = regexp.MustCompile(`(?:^|[\s"'\[,])-([a-z][a-z-]*)(?:[=\s"']|$)`)

// TestDeployedFlagsExist: every flag that the systemd unit and the
// Kubernetes Deployment pass to `stationdex serve` is one the command
// defines, so renaming a flag breaks this test and not a deployment.
func TestDeployedFlagsExist(t *testing.T) {
	src, err := os.ReadFile("../cmd/stationdex/serve.go")
	if err != nil {
		t.Fatal(err)
	}
	follow, err := os.ReadFile("../cmd/stationdex/follow.go")
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, follow...)
	defined := map[string]bool{}
	for _, m := range serveFlagDef.FindAllStringSubmatch(string(src), -1) {
		defined[m[1]] = true
	}
	if len(defined) < 5 {
		t.Fatalf("found %d flag definitions in serve.go; the pattern is stale", len(defined))
	}
	for _, file := range []string{"systemd/stationdex.service", "kubernetes/deployment.yaml",
		"systemd/stationdex-follow.service", "kubernetes/follow/nodes.yaml"} {
		used := serveFlags(t, file)
		if len(used) == 0 {
			t.Fatalf("%s: no serve flags found", file)
		}
		t.Logf("%s passes %v", file, used)
		for _, f := range used {
			if !defined[f] {
				t.Errorf("%s passes -%s, which `stationdex serve` does not define", file, f)
			}
		}
	}
}

// serveFlags returns the flags on the serve command line of file: the
// ExecStart= of the unit, or the args of the serving container.
func serveFlags(t *testing.T, file string) []string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cmdline strings.Builder
	in := false
	for line := range strings.Lines(string(raw)) {
		trimmed := strings.TrimSpace(line)
		if in && strings.HasPrefix(trimmed, "#") {
			continue // a comment between the arguments does not end them
		}
		switch {
		case strings.HasPrefix(trimmed, "ExecStart=") || trimmed == "- serve":
			in = true
		case in && !(strings.HasSuffix(strings.TrimSpace(cmdline.String()), `\`) || strings.HasPrefix(trimmed, "- -")):
			in = false
		}
		if in {
			cmdline.WriteString(trimmed + "\n")
		}
	}
	var flags []string
	for _, m := range flagUse.FindAllStringSubmatch(cmdline.String(), -1) {
		flags = append(flags, m[1])
	}
	return flags
}

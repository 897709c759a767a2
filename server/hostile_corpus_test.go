package server_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The committed corpus, server/testdata/hostile/*.txt: one request a line,
//
//	EXPECT REQUEST
//
// EXPECT is the allowed statuses joined by '|', prefixed "net:" when
// net/http answers before any handler; a pipelined line has one such
// expectation per request, joined by ','. REQUEST is written with Go
// string escapes (\r, \n, \x00, \\); anywhere on the line, {N*text}
// stands for text repeated N times. A REQUEST without an empty line
// (\r\n\r\n) is a head without Host: "\r\nHost: stationdex.test" and the
// empty line are appended; one with an empty line is sent as it is. '#'
// starts a comment line.

// loadHostileCorpus reads every corpus file; finding none fails.
func loadHostileCorpus(t testing.TB) []hostileCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "hostile", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile corpus files (%v)", err)
	}
	var cases []hostileCase
	for _, f := range files {
		cs, err := readCorpusFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, cs...)
	}
	return cases
}

func readCorpusFile(path string) ([]hostileCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []hostileCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := parseCorpusLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		c.name = fmt.Sprintf("%s:%d", filepath.Base(path), n)
		cases = append(cases, c)
	}
	return cases, sc.Err()
}

func parseCorpusLine(line string) (hostileCase, error) {
	expect, request, ok := strings.Cut(expandRepeats(line), " ")
	if !ok {
		return hostileCase{}, fmt.Errorf("want EXPECT REQUEST")
	}
	var c hostileCase
	for e := range strings.SplitSeq(expect, ",") {
		x, err := parseExpectation(e)
		if err != nil {
			return c, err
		}
		c.want = append(c.want, x)
	}
	raw, err := strconv.Unquote(`"` + request + `"`)
	if err != nil {
		return c, fmt.Errorf("request: %v", err)
	}
	if !strings.Contains(raw, "\r\n\r\n") {
		raw += "\r\nHost: " + hostileHost + "\r\n\r\n"
	}
	c.raw = []byte(raw)
	return c, nil
}

func parseExpectation(s string) (expectation, error) {
	var x expectation
	s, x.byNetHTTP = strings.CutPrefix(s, "net:")
	for part := range strings.SplitSeq(s, "|") {
		code, err := strconv.Atoi(part)
		if err != nil || code < 100 || code > 599 {
			return x, fmt.Errorf("bad status %q", part)
		}
		x.statuses = append(x.statuses, code)
	}
	return x, nil
}

var repeatPattern = regexp.MustCompile(`\{(\d+)\*([^}]*)\}`)

// expandRepeats replaces every {N*text} by N copies of text.
func expandRepeats(s string) string {
	return repeatPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := repeatPattern.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[1])
		return strings.Repeat(sub[2], n)
	})
}

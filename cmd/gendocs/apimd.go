package main

import (
	"fmt"
	"regexp"
	"strings"

	"stationdex/internal/dim"
)

// apiMD writes the rows' entries into API.md: each dimension's line of the
// table of search parameters, the facets' line's choices and the list of
// the envelope's echoes present only when given.
func apiMD(doc string) (string, error) {
	lines := strings.Split(doc, "\n")
	prev := "q"
	for d := range dim.Count {
		r := &dim.Rows[d]
		lines = setLine(lines, r.Name, "| `"+r.Name+"` | "+r.Doc.Table+" | none |", prev)
		prev = r.Name
	}
	i := tableLine(lines, "facets")
	if i < 0 || tableLine(lines, "q") < 0 {
		return "", fmt.Errorf("API.md: no table of search parameters with q and facets")
	}
	var names []string
	for _, n := range facetNames() {
		names = append(names, "`"+n+"`")
	}
	lines[i] = facetChoices.ReplaceAllLiteralString(lines[i], "one or more of "+strings.Join(names, ", ")+", comma-separated")
	var echoes []string
	for d := range dim.Count {
		if !dim.Rows[d].Param.EchoAlways {
			echoes = append(echoes, "`"+d.Name()+"`")
		}
	}
	text := strings.Join(lines, "\n")
	return echoList.ReplaceAllLiteralString(text, "and "+strings.Join(echoes, ", ")+" and `distinct`, present only when given"), nil
}

// facetChoices is the list of the facets' line; echoList the envelope's
// echoes present only when given.
var (
	facetChoices = regexp.MustCompile("one or more of `[a-z_]+`(, `[a-z_]+`)*, comma-separated")
	echoList     = regexp.MustCompile("and (`[a-z_]+`, )*`[a-z_]+` and `distinct`, present only when given")
)

// tableLine is the index of the line of the search parameter name, -1
// when there is none.
func tableLine(lines []string, name string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, "| `"+name+"` |") {
			return i
		}
	}
	return -1
}

// setLine puts line in the place of the line of the parameter name, else
// after the line of the one named after.
func setLine(lines []string, name, line, after string) []string {
	if i := tableLine(lines, name); i >= 0 {
		lines[i] = line
		return lines
	}
	at := tableLine(lines, after) + 1
	return append(lines[:at], append([]string{line}, lines[at:]...)...)
}

# Prints `make help` from the Makefile's comments: "## target: text" (and
# "## " lines continuing it) describe a target, "##= VAR: text" (and "##= "
# lines continuing it) a variable. Texts are wrapped to 100 columns.
function wrap(indent, first, text,    words, n, i, line, out) {
	n = split(text, words, " ")
	line = first
	for (i = 1; i <= n; i++) {
		if (length(line) + 1 + length(words[i]) > 100 && line !~ /^ *$/) {
			out = out line "\n"
			line = indent
		}
		line = line (line ~ / $/ ? "" : " ") words[i]
	}
	return out line
}
function flush() {
	if (name != "") print wrap(sprintf("%17s", ""), sprintf("  %-15s", name), text)
	name = ""; text = ""
}
/^## [a-z][a-z-]*:/ {
	flush()
	if (!targets++) print "Targets:"
	name = substr($2, 1, length($2) - 1)
	text = substr($0, length($2) + 5)
	next
}
/^##= [A-Z_, ]+:/ { flush(); vars[++nvars] = substr($0, 5); next }
/^##= / { vars[nvars] = vars[nvars] " " substr($0, 5); next }
/^## / { if (name != "") text = text " " substr($0, 4); next }
{ flush() }
END {
	flush()
	print "\nVariables (make TARGET VAR=value):"
	for (i = 1; i <= nvars; i++) print wrap("      ", "  ", vars[i])
}

//go:build race

package testindex

// Race is whether the race detector is built in: with it, indexing and
// scanning the real snapshot takes minutes, so Real skips.
const Race = true

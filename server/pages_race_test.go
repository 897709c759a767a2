//go:build race

package server

// pagesRace is true under the race detector, ten times slower: the
// real-snapshot tests then skip (the non-race run has them).
const pagesRace = true

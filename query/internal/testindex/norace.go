//go:build !race

package testindex

// Race is whether the race detector is built in (see race.go).
const Race = false

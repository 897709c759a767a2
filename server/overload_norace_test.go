//go:build !race

package server_test

// raceDetector: the race detector is on, and every timing bound is looser.
const raceDetector = false

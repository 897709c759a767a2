//go:build !race

package server

const pagesRace = false

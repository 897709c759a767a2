package main

import (
	"io"
	"testing"

	"stationdex/server"
)

// TestCacheBytesFlag: -cache-bytes defaults to the server's default, 0
// disables the cache (a negative server.Config.CacheBytes), and a negative
// value is refused.
func TestCacheBytesFlag(t *testing.T) {
	f, err := parseServeFlags(nil, io.Discard, io.Discard)
	if err != nil || f.cacheBytes != server.DefaultCacheBytes || configCacheBytes(f.cacheBytes) != server.DefaultCacheBytes {
		t.Errorf("default: %d, %v; want %d", f.cacheBytes, err, server.DefaultCacheBytes)
	}
	f, err = parseServeFlags([]string{"-cache-bytes", "0"}, io.Discard, io.Discard)
	if err != nil || configCacheBytes(f.cacheBytes) >= 0 {
		t.Errorf("-cache-bytes 0: config %d, %v; want a negative (disabled) value", configCacheBytes(f.cacheBytes), err)
	}
	f, err = parseServeFlags([]string{"-cache-bytes", "1048576"}, io.Discard, io.Discard)
	if err != nil || configCacheBytes(f.cacheBytes) != 1<<20 {
		t.Errorf("-cache-bytes 1048576: config %d, %v", configCacheBytes(f.cacheBytes), err)
	}
	if _, err := parseServeFlags([]string{"-cache-bytes", "-1"}, io.Discard, io.Discard); err == nil {
		t.Error("-cache-bytes -1 accepted")
	}
}

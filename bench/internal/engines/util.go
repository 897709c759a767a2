package engines

import (
	"context"
	"io"

	"stationdex/bench/internal/raw"
)

func contextBackground() context.Context { return context.Background() }

func openDump(path string) (io.ReadCloser, error) { return raw.Open(path) }

package node

import (
	"log/slog"
	"net/http"
	"time"

	"stationdex/server/wire"
)

// accessLog logs one line per public request. It is off by default: at the
// request rates this service is built for, a line per request costs more
// than the answer, and the metrics already count every request by route and
// status. It wraps the limiter, so shed requests are logged too.
func accessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		cw := &wire.Recorder{}
		cw.Reset(w)
		next.ServeHTTP(cw, r)
		log.LogAttrs(r.Context(), slog.LevelInfo, "access",
			slog.String("method", r.Method),
			slog.String("uri", r.URL.RequestURI()),
			slog.Int("status", cw.Status()),
			slog.Int64("bytes", cw.Bytes()),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr),
			slog.String("user_agent", r.UserAgent()),
		)
	})
}

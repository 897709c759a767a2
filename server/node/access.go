package node

import (
	"log/slog"
	"net/http"
	"time"
)

// accessLog logs one line per public request. It is off by default: at the
// request rates this service is built for, a line per request costs more
// than the answer, and the metrics already count every request by route and
// status. It wraps the limiter, so shed requests are logged too.
func accessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		cw := &recorder{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		log.LogAttrs(r.Context(), slog.LevelInfo, "access",
			slog.String("method", r.Method),
			slog.String("uri", r.URL.RequestURI()),
			slog.Int("status", cw.status()),
			slog.Int64("bytes", cw.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr),
			slog.String("user_agent", r.UserAgent()),
		)
	})
}

// recorder remembers the status and counts the body bytes of one response
// for the access log.
type recorder struct {
	http.ResponseWriter
	code  int
	bytes int64
}

func (w *recorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *recorder) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

package server

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"stationdex/query"
)

func TestErrorStatus(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		code   Code
	}{
		{errorf(CodeInvalidParameter, "x"), http.StatusBadRequest, CodeInvalidParameter},
		{errorf(CodeUnknownParameter, "x"), http.StatusBadRequest, CodeUnknownParameter},
		{errorf(CodeRepeatedParameter, "x"), http.StatusBadRequest, CodeRepeatedParameter},
		{errNoStation, http.StatusNotFound, CodeNotFound},
		{fmt.Errorf("station x: %w", query.ErrNotFound), http.StatusNotFound, CodeNotFound},
		{errorf(CodeMethodNotAllowed, "x"), http.StatusMethodNotAllowed, CodeMethodNotAllowed},
		{errNoIndex, http.StatusServiceUnavailable, CodeUnavailable},
		{fmt.Errorf("wrapped: %w", errNoIndex), http.StatusServiceUnavailable, CodeUnavailable},
		{errors.New("disk on fire at /var/lib/x"), http.StatusInternalServerError, CodeInternal},
	} {
		status, e := errorStatus(tc.err)
		if status != tc.status || e.Code != tc.code {
			t.Errorf("errorStatus(%v) = %d %s, want %d %s", tc.err, status, e.Code, tc.status, tc.code)
		}
		if tc.code == CodeInternal && e.Message == tc.err.Error() {
			t.Errorf("internal error text reaches the client: %q", e.Message)
		}
	}
}

package core

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
		{Errorf(CodeInvalidParameter, "x"), http.StatusBadRequest, CodeInvalidParameter},
		{Errorf(CodeUnknownParameter, "x"), http.StatusBadRequest, CodeUnknownParameter},
		{Errorf(CodeRepeatedParameter, "x"), http.StatusBadRequest, CodeRepeatedParameter},
		{ErrNoStation, http.StatusNotFound, CodeNotFound},
		{fmt.Errorf("station x: %w", query.ErrNotFound), http.StatusNotFound, CodeNotFound},
		{Errorf(CodeMethodNotAllowed, "x"), http.StatusMethodNotAllowed, CodeMethodNotAllowed},
		{ErrNoIndex, http.StatusServiceUnavailable, CodeUnavailable},
		{fmt.Errorf("wrapped: %w", ErrNoIndex), http.StatusServiceUnavailable, CodeUnavailable},
		{errors.New("disk on fire at /var/lib/x"), http.StatusInternalServerError, CodeInternal},
	} {
		status, e := ErrorStatus(tc.err)
		if status != tc.status || e.Code != tc.code {
			t.Errorf("errorStatus(%v) = %d %s, want %d %s", tc.err, status, e.Code, tc.status, tc.code)
		}
		if tc.code == CodeInternal && e.Message == tc.err.Error() {
			t.Errorf("internal error text reaches the client: %q", e.Message)
		}
	}
}

package indexer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"stationdex/internal/format"
)

// HTTP fetching of the upstream /json/stations endpoint. The whole download
// (about 60 MB of JSON for 50k stations) must finish within httpTimeout;
// a server that does not even answer is given up on much sooner.
const (
	httpTimeout       = 10 * time.Minute
	httpHeaderTimeout = 30 * time.Second
	userAgent         = "stationdex-indexer"
)

// maxLineBytes bounds one NDJSON line. Real lines are under 40 KB; a longer
// one is skipped as malformed instead of being buffered whole.
const maxLineBytes = 4 << 20

// readBufferSize is the read buffer of an input; real lines fit in it.
const readBufferSize = 64 << 10

// OpenInput opens one input argument: "-" is standard input, an http(s) URL
// is fetched (the upstream /json/stations endpoint), anything else is a file
// path. The caller closes the returned Closer after the build.
func OpenInput(ctx context.Context, arg string) (Input, io.Closer, error) {
	switch {
	case arg == "-":
		return Input{Name: "-", R: os.Stdin}, io.NopCloser(nil), nil
	case strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://"):
		return openURL(ctx, arg)
	}
	f, err := os.Open(arg)
	if err != nil {
		return Input{}, nil, fmt.Errorf("open input: %w", err)
	}
	return Input{Name: arg, R: f}, f, nil
}

var httpClient = &http.Client{
	Timeout: httpTimeout,
	Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		ResponseHeaderTimeout: httpHeaderTimeout,
		TLSHandshakeTimeout:   httpHeaderTimeout,
	},
}

func openURL(ctx context.Context, u string) (Input, io.Closer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Input{}, nil, fmt.Errorf("input %s: %w", u, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		return Input{}, nil, fmt.Errorf("input %s: %w", u, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body.Close()
		return Input{}, nil, fmt.Errorf("input %s: HTTP %s", u, resp.Status)
	}
	return Input{Name: u, R: resp.Body}, resp.Body, nil
}

// rawHandler receives each top-level record of an input: its position for
// messages and its raw JSON bytes, which are only valid during the call
// (nil for a line too long to keep). An error from it stops reading.
type rawHandler func(pos position, raw []byte) error

// position locates a record in its input: "line 7" of NDJSON, "element 3" of
// an array. It is formatted only when a warning needs it.
type position struct {
	unit string
	n    int
}

func (p position) String() string { return fmt.Sprintf("%s %d", p.unit, p.n) }

// readInput detects the encoding of in (gzip or not, JSON array or NDJSON)
// and hands every record to fn. Errors name the input.
func readInput(ctx context.Context, in Input, fn rawHandler) error {
	r, err := decompress(in.R)
	if err != nil {
		return fmt.Errorf("input %s: %w", in.Name, err)
	}
	br := bufio.NewReaderSize(r, readBufferSize) // r itself for plain input
	first, err := firstByte(br)
	switch {
	case err == io.EOF:
		return nil // an empty input holds no stations; not an error by itself
	case err != nil:
		return fmt.Errorf("input %s: %w", in.Name, err)
	case first == '[':
		err = readArray(ctx, br, fn)
	case first == '{':
		err = readLines(ctx, br, fn)
	default:
		err = fmt.Errorf("neither a JSON array nor NDJSON: starts with %q", first)
	}
	if err != nil {
		return fmt.Errorf("input %s: %w", in.Name, err)
	}
	return nil
}

// decompress recognises gzip by its magic bytes rather than by a file name,
// since stdin and URLs have none.
func decompress(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, readBufferSize)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return gzipErrors{zr}, nil
	}
	return br, nil
}

// gzipErrors makes read errors of the decompressor say where they come from
// ("gzip: unexpected EOF" rather than a bare "unexpected EOF").
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("gzip: %w", err)
	}
	return n, err
}

// firstByte peeks at the first byte that is not white space or a UTF-8 BOM.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if c == 0xEF { // UTF-8 byte order mark, EF BB BF
			if bom, _ := br.Peek(2); len(bom) == 2 && bom[0] == 0xBB && bom[1] == 0xBF {
				br.Discard(2)
				continue
			}
		}
		if !isJSONSpace(c) {
			return c, br.UnreadByte()
		}
	}
}

func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// readArray walks a JSON array token by token, decoding one element at a
// time so that memory holds one element, never the array. A syntax error
// inside the array is fatal: the decoder cannot find the next element.
func readArray(ctx context.Context, r io.Reader, fn rawHandler) error {
	dec := json.NewDecoder(r)
	if _, err := dec.Token(); err != nil { // the '[' firstByte saw
		return fmt.Errorf("json: %w", err)
	}
	var raw json.RawMessage
	for i := 1; dec.More(); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw = raw[:0]
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("json array element %d: %w", i, err)
		}
		if err := fn(position{"element", i}, raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("json: end of array: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("json: data after the end of the array")
	}
	return nil
}

// readLines reads NDJSON. Each line is decoded on its own, so one broken
// line is skipped as malformed instead of ending the input, which a single
// json.Decoder over the stream could not do.
func readLines(ctx context.Context, br *bufio.Reader, fn rawHandler) error {
	var line []byte
	for n := 1; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var tooLong bool
		var err error
		line, tooLong, err = readLine(br, line[:0])
		if err != nil && err != io.EOF {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 || tooLong {
			if tooLong {
				t = nil // handed on as malformed
			}
			if ferr := fn(position{"line", n}, t); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// readLine appends the next line (without its newline) to buf. A line over
// maxLineBytes is consumed to its end but not kept: tooLong reports it.
func readLine(br *bufio.Reader, buf []byte) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxLineBytes {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return bytes.TrimSuffix(buf, []byte("\n")), tooLong, nil
		default:
			return buf, tooLong, err
		}
	}
}

// decodeStation parses one raw record. It fails for anything but a JSON
// object whose used fields have the source's types.
//
// The fields of rawUpstream are decoded only when sections has
// format.SectionRBAPI, which stores them; otherwise they are skipped as any
// unused key is, so a value of theirs is never a reason to refuse a record.
func decodeStation(raw []byte, st *rawInput, sections format.Sections) error {
	if raw == nil {
		return fmt.Errorf("longer than %d bytes", maxLineBytes)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return errors.New("not a JSON object")
	}
	*st = rawInput{}
	upstreamFields := sections.Has(format.SectionRBAPI)
	if decodeStationFast(raw, st, upstreamFields) {
		return nil
	}
	*st = rawInput{} // the fast path may have filled some fields
	return unmarshalStation(raw, st, upstreamFields)
}

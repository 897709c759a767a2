package engines

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	_ "github.com/go-sql-driver/mysql"

	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
	"stationdex/internal/iso"
)

// MariaDB is the upstream directory's own approach: one InnoDB table as in
// ../shared/anchors/upstream-search.md, loaded with the raw snapshot, and the
// upstream search statement (full scan, LIKE, filesort, LIMIT offset, limit).
// It runs on a private mariadbd started on loopback with its own data
// directory under a temp dir; Close stops it and removes the directory.
type MariaDB struct {
	db   *sql.DB
	cmd  *exec.Cmd
	dir  string
	stmt map[string]*sql.Stmt
}

// MariaDBAvailable reports whether the Debian mariadb-server programs exist.
func MariaDBAvailable() error {
	for _, p := range []string{"mariadb-install-db", "mariadbd"} {
		if _, err := lookPath(p); err != nil {
			return fmt.Errorf("%s: %w (apt-get install mariadb-server)", p, ErrNotAvailable)
		}
	}
	return nil
}

func lookPath(p string) (string, error) {
	if f, err := exec.LookPath(p); err == nil {
		return f, nil
	}
	for _, d := range []string{"/usr/sbin", "/usr/bin"} {
		if _, err := os.Stat(filepath.Join(d, p)); err == nil {
			return filepath.Join(d, p), nil
		}
	}
	return "", exec.ErrNotFound
}

const mariadbTable = `CREATE TABLE Station (
  StationID bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
  StationUuid char(36) NOT NULL, ChangeUuid char(36) NOT NULL, ServerUuid char(36),
  Name text COLLATE utf8mb4_unicode_ci,
  Subcountry varchar(50) COLLATE utf8mb4_unicode_ci,
  Country varchar(250) COLLATE utf8mb4_bin,
  CountryCode varchar(2) COLLATE utf8mb4_bin,
  Language varchar(100) COLLATE utf8mb4_bin, Tags text COLLATE utf8mb4_bin,
  LanguageCodes text, Url text, UrlCache text, Homepage text, Favicon text,
  Codec varchar(20),
  Bitrate int NOT NULL DEFAULT 0, Votes int DEFAULT 0, clickcount int DEFAULT 0, ClickTrend int DEFAULT 0,
  LastCheckOK tinyint(1), Hls tinyint(1), SslError tinyint(1), ExtendedInfo tinyint(1),
  Creation datetime, LastCheckTime datetime, LastCheckOkTime datetime, LastLocalCheckTime datetime, ClickTimestamp datetime,
  GeoLat double, GeoLong double, CountrySubdivisionCode varchar(6),
  UNIQUE KEY (StationUuid), UNIQUE KEY (ChangeUuid), KEY (ServerUuid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`

// StartMariaDB initialises a data directory under a new temp dir, starts
// mariadbd on 127.0.0.1 and loads the stations. log receives progress.
func StartMariaDB(ctx context.Context, stations []raw.Station, log func(string, ...any)) (_ *MariaDB, err error) {
	if err := MariaDBAvailable(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "stationdex-bench-mariadb-")
	if err != nil {
		return nil, err
	}
	m := &MariaDB{dir: dir, stmt: map[string]*sql.Stmt{}}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	user := []string{}
	if os.Geteuid() == 0 {
		user = []string{"--user=root"}
	}
	install, _ := lookPath("mariadb-install-db")
	args := append([]string{"--no-defaults", "--datadir=" + filepath.Join(dir, "data"), "--skip-test-db", "--auth-root-authentication-method=normal"}, user...)
	if out, err := exec.CommandContext(ctx, install, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mariadb-install-db: %w\n%s", err, tail(out))
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	mariadbd, _ := lookPath("mariadbd")
	args = append([]string{"--no-defaults", "--datadir=" + filepath.Join(dir, "data"), "--socket=" + filepath.Join(dir, "sock"),
		"--bind-address=127.0.0.1", "--port=" + strconv.Itoa(port), "--skip-grant-tables", "--skip-log-bin",
		"--pid-file=" + filepath.Join(dir, "pid"), "--log-error=" + filepath.Join(dir, "error.log")}, user...)
	m.cmd = exec.Command(mariadbd, args...)
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := m.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start mariadbd: %w", err)
	}
	m.db, err = sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/?charset=utf8mb4&collation=utf8mb4_unicode_ci&interpolateParams=false", port))
	if err != nil {
		return nil, err
	}
	m.db.SetMaxOpenConns(1)
	if err := m.wait(ctx, 60*time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return nil, fmt.Errorf("mariadbd did not answer: %w\n%s", err, tail(log))
	}
	for _, s := range []string{"CREATE DATABASE radio", "USE radio", mariadbTable} {
		if _, err := m.db.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("mariadb %.40s: %w", s, err)
		}
	}
	t0 := time.Now()
	if err := m.load(ctx, stations); err != nil {
		return nil, err
	}
	log("mariadb: %d rows loaded in %s (port %d, datadir %s)", len(stations), time.Since(t0).Round(time.Millisecond), port, dir)
	return m, nil
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (m *MariaDB) wait(ctx context.Context, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		err := m.db.PingContext(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		if m.cmd.ProcessState != nil {
			return fmt.Errorf("mariadbd exited")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

const mariadbCols = 30

func (m *MariaDB) load(ctx context.Context, stations []raw.Station) error {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	const batch = 200
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", mariadbCols), ",") + ")"
	for i := 0; i < len(stations); i += batch {
		part := stations[i:min(i+batch, len(stations))]
		var args []any
		for j := range part {
			args = append(args, mariadbRow(&part[j])...)
		}
		s := "INSERT INTO Station (StationUuid, ChangeUuid, ServerUuid, Name, Subcountry, Country, CountryCode, Language, Tags," +
			" LanguageCodes, Url, UrlCache, Homepage, Favicon, Codec, Bitrate, Votes, clickcount, ClickTrend, LastCheckOK, Hls," +
			" SslError, ExtendedInfo, Creation, LastCheckTime, LastCheckOkTime, LastLocalCheckTime, ClickTimestamp, GeoLat, GeoLong) VALUES " +
			strings.TrimSuffix(strings.Repeat(row+",", len(part)), ",")
		if _, err := tx.ExecContext(ctx, s, args...); err != nil {
			return fmt.Errorf("mariadb insert rows %d-%d: %w", i, i+len(part), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = m.db.ExecContext(ctx, "ANALYZE TABLE Station")
	return err
}

// cut fits s into a varchar(n) column (the upstream server validates lengths
// before it stores a station).
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

func nullTime(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func mariadbRow(s *raw.Station) []any {
	b := func(v int64) any { return v != 0 }
	var lat, long any
	if s.GeoLat != nil {
		lat = *s.GeoLat
	}
	if s.GeoLong != nil {
		long = *s.GeoLong
	}
	return []any{s.StationUUID, s.ChangeUUID, s.ServerUUID, s.Name, cut(s.State, 50), cut(s.Country, 250),
		cut(s.CountryCode, 2), cut(s.Language, 100), s.Tags, s.LanguageCodes, s.URL, s.URLResolved, s.Homepage,
		s.Favicon, cut(s.Codec, 20), min(s.Bitrate, 1<<31-1), min(s.Votes, 1<<31-1), min(s.ClickCount, 1<<31-1), s.ClickTrend,
		b(s.LastCheckOK), b(s.HLS), b(s.SSLError), s.HasExtendedInfo, nullTime(s.LastChangeTime), nullTime(s.LastCheckTime),
		nullTime(s.LastCheckOKTime), nullTime(s.LastLocalCheckTime), nullTime(s.ClickTimestamp), lat, long}
}

func (m *MariaDB) Name() string { return "mariadb" }

// upstreamLanguage is the upstream `language` parameter a user would send
// for our filter value: upstream stores lower-case English labels
// ("german"), so a code or name is given as its English name.
func upstreamLanguage(v string) string {
	if c, ok := iso.LanguageCode(v); ok {
		if n := iso.LanguageName(c); n != "" {
			return strings.ToLower(n)
		}
	}
	return strings.ToLower(strings.TrimSpace(v))
}

// exact is the upstream "exact" list test on a comma list column.
func exact(col string) string {
	return "(" + col + " = ? OR " + col + " LIKE CONCAT('%,', ?, ',%') OR " + col + " LIKE CONCAT('%,', ?) OR " + col + " LIKE CONCAT(?, ',%'))"
}

// Search runs the upstream statement: name, countrycode, languageExact and
// tagExact in the upstream order, ORDER BY Name, LIMIT offset, limit. The
// upstream server does not count matches: total is -1.
func (m *MariaDB) Search(q mix.Query, ids bool) (int, []string, error) {
	where := "Bitrate >= ? AND Bitrate <= ?"
	args := []any{0, 1000000}
	if q.Q != "" {
		where += " AND Name LIKE CONCAT('%', ?, '%')"
		args = append(args, q.Q)
	}
	if q.Country != "" {
		where += " AND UPPER(CountryCode) = UPPER(?)"
		args = append(args, q.Country)
	}
	if q.Language != "" {
		l := upstreamLanguage(q.Language)
		where += " AND " + exact("Language")
		args = append(args, l, l, l, l)
	}
	if q.Genre != "" {
		g := strings.ToLower(strings.TrimSpace(q.Genre))
		where += " AND " + exact("Tags")
		args = append(args, g, g, g, g)
	}
	s := "SELECT * FROM Station WHERE " + where + " ORDER BY Name ASC LIMIT ?, ?"
	st, ok := m.stmt[s]
	if !ok {
		var err error
		if st, err = m.db.Prepare(s); err != nil {
			return 0, nil, err
		}
		m.stmt[s] = st
	}
	rows, err := st.Query(append(args, q.Offset, q.Limit)...)
	if err != nil {
		return 0, nil, fmt.Errorf("mariadb search: %w", err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, nil, err
		}
		if ids {
			out = append(out, string(vals[1]))
		}
	}
	return -1, out, rows.Err()
}

// Close stops mariadbd and removes its data directory.
func (m *MariaDB) Close() error {
	for _, s := range m.stmt {
		s.Close()
	}
	if m.db != nil {
		m.db.Close()
	}
	if m.cmd != nil && m.cmd.Process != nil && m.cmd.ProcessState == nil {
		m.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { m.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			m.cmd.Process.Kill()
			<-done
		}
	}
	return os.RemoveAll(m.dir)
}

// upstreamOrder is the upstream whitelist of order values and the column
// each sorts by (upstream-read-api.md: filter_order; random is RAND()).
var upstreamOrder = map[string]string{
	"": "Name", "name": "Name", "url": "Url", "homepage": "Homepage", "favicon": "Favicon", "tags": "Tags",
	"country": "Country", "state": "Subcountry", "language": "Language", "votes": "Votes", "codec": "Codec",
	"bitrate": "Bitrate", "lastcheckok": "LastCheckOK", "lastchecktime": "LastCheckTime",
	"clicktimestamp": "ClickTimestamp", "clickcount": "clickcount", "clicktrend": "ClickTrend",
	"changetimestamp": "Creation", "random": "RAND()",
}

// upstreamWhere is the WHERE of the upstream search statement for u, its
// clauses in upstream's order, and their arguments.
func upstreamWhere(u mix.UpSearch) (string, []any) {
	where := "Bitrate >= ? AND Bitrate <= ?"
	args := []any{0, 1000000}
	if u.Name != "" {
		where += " AND Name LIKE CONCAT('%', ?, '%')"
		args = append(args, u.Name)
	}
	if u.CountryCode != "" {
		where += " AND UPPER(CountryCode) = UPPER(?)"
		args = append(args, u.CountryCode)
	}
	for _, f := range []struct {
		col, v string
		exact  bool
	}{{"Language", u.Language, u.LanguageExact}, {"Tags", u.Tag, u.TagExact}} {
		switch {
		case f.v == "":
		case f.exact:
			where += " AND " + exact(f.col)
			args = append(args, f.v, f.v, f.v, f.v)
		default:
			where += " AND " + f.col + " LIKE CONCAT('%', ?, '%')"
			args = append(args, f.v)
		}
	}
	if u.Codec != "" {
		where += " AND LOWER(Codec) = LOWER(?)"
		args = append(args, u.Codec)
	}
	if u.HideBroken {
		where += " AND LastCheckOK = TRUE"
	}
	return where, args
}

// UpstreamSearch runs the upstream statement of a /json/stations/search
// request (all columns, the WHERE above, ORDER BY one column with no
// tie-breaker, LIMIT offset, limit) and returns the rows it sent.
func (m *MariaDB) UpstreamSearch(u mix.UpSearch) (int, error) {
	col, ok := upstreamOrder[u.Order]
	if !ok {
		col = "Name" // upstream: an unknown order is silently Name
	}
	dir := " ASC"
	if u.Reverse {
		dir = " DESC"
	}
	where, args := upstreamWhere(u)
	s := "SELECT * FROM Station WHERE " + where + " ORDER BY " + col + dir + " LIMIT ?, ?"
	st, ok := m.stmt[s]
	if !ok {
		var err error
		if st, err = m.db.Prepare(s); err != nil {
			return 0, err
		}
		m.stmt[s] = st
	}
	rows, err := st.Query(append(args, u.Offset, u.Limit)...)
	if err != nil {
		return 0, fmt.Errorf("mariadb upstream search: %w", err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		n++
	}
	return n, rows.Err()
}

package engines

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers driver "sqlite" (pure Go, FTS5 built in)

	"stationdex/bench/internal/mix"
	"stationdex/internal/format"
)

// SQLite is the FTS5 peer. Stations get rowids in our rank order, the text
// columns hold the same folded tokens our engine indexes (so tokenisation is
// equal), filters are indexed side tables, and the ORDER BY spells out our
// three tiers (exact name key, name match, other) with a second MATCH
// restricted to the name column.
type SQLite struct {
	db *sql.DB
	// stmts caches prepared statements by text. cmd/peerhttp calls Page
	// from concurrent handlers, so the cache is locked: unlocked, two
	// first uses of a statement at once were a concurrent map write, which
	// the runtime ends the process for.
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

const sqliteSchema = `
PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
CREATE TABLE st(rn INTEGER PRIMARY KEY, id TEXT, name TEXT, namekey TEXT, cc TEXT, country TEXT,
  location TEXT, languages TEXT, language_codes TEXT, genres TEXT, bitrate INT, homepage TEXT, stream TEXT);
CREATE TABLE st_lang(key TEXT, rn INT, PRIMARY KEY(key, rn)) WITHOUT ROWID;
CREATE TABLE st_genre(key TEXT, rn INT, PRIMARY KEY(key, rn)) WITHOUT ROWID;
CREATE VIRTUAL TABLE fts USING fts5(name, other, content='', prefix='1 2 3',
  tokenize="unicode61 remove_diacritics 0");
`

// NewSQLite loads recs (in rank order) into a database file under dir.
func NewSQLite(dir string, recs []format.Record) (*SQLite, error) {
	db, err := sql.Open("sqlite", filepath.Join(dir, "peer.sqlite")+"?_pragma=mmap_size(1073741824)&_pragma=cache_size(-262144)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(sqliteSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite schema: %w", err)
	}
	if err := sqliteLoad(db, recs); err != nil {
		db.Close()
		return nil, err
	}
	for _, s := range []string{"CREATE INDEX st_cc ON st(cc)", "CREATE INDEX st_namekey ON st(namekey)", "INSERT INTO fts(fts) VALUES('optimize')", "ANALYZE"} {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			return nil, fmt.Errorf("sqlite %s: %w", s, err)
		}
	}
	return &SQLite{db: db, stmts: map[string]*sql.Stmt{}}, nil
}

func sqliteLoad(db *sql.DB, recs []format.Record) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.Prepare("INSERT INTO st VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)")
	if err != nil {
		return err
	}
	insF, _ := tx.Prepare("INSERT INTO fts(rowid, name, other) VALUES(?,?,?)")
	insL, _ := tx.Prepare("INSERT INTO st_lang VALUES(?,?)")
	insG, _ := tx.Prepare("INSERT INTO st_genre VALUES(?,?)")
	for rn := range recs {
		r := &recs[rn]
		k := KeysOf(r)
		if _, err := ins.Exec(rn, r.ID.String(), r.Name, k.NameKey, k.Country, r.Country, r.Location,
			strings.Join(r.Languages, ","), strings.Join(r.LanguageCodes, ","), strings.Join(r.Genres, ","),
			r.BitrateKbps, r.OfficialURL, r.StreamURL); err != nil {
			return fmt.Errorf("sqlite insert: %w", err)
		}
		if _, err := insF.Exec(rn, strings.Join(k.NameTokens, " "), strings.Join(k.AllTokens, " ")); err != nil {
			return fmt.Errorf("sqlite fts insert: %w", err)
		}
		for _, l := range k.Langs {
			if _, err := insL.Exec(l, rn); err != nil {
				return err
			}
		}
		for _, g := range k.Genres {
			if _, err := insG.Exec(g, rn); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

func (e *SQLite) Name() string { return "sqlite-fts5" }

// ftsExpr is an FTS5 expression: every word as a prefix query, AND-ed.
func ftsExpr(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + strings.ReplaceAll(w, `"`, `""`) + `"*`)
	}
	return b.String()
}

// where builds the shared WHERE clause and its arguments.
func (e *SQLite) where(k QueryKeys) (string, []any) {
	var conds []string
	var args []any
	if len(k.Words) > 0 {
		conds = append(conds, "rn IN (SELECT rowid FROM fts WHERE fts MATCH ?)")
		args = append(args, ftsExpr(k.Words))
	}
	if k.Country != "" {
		conds = append(conds, "cc = ?")
		args = append(args, k.Country)
	}
	if k.Language {
		ph := strings.TrimSuffix(strings.Repeat("?,", len(k.Langs)), ",")
		conds = append(conds, "rn IN (SELECT rn FROM st_lang WHERE key IN ("+ph+"))")
		for _, l := range k.Langs {
			args = append(args, l)
		}
	}
	if k.Genre != "" {
		conds = append(conds, "rn IN (SELECT rn FROM st_genre WHERE key = ?)")
		args = append(args, k.Genre)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

func (e *SQLite) stmt(s string) (*sql.Stmt, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if st, ok := e.stmts[s]; ok {
		return st, nil
	}
	st, err := e.db.Prepare(s)
	if err != nil {
		return nil, err
	}
	e.stmts[s] = st
	return st, nil
}

func (e *SQLite) Search(q mix.Query, ids bool) (int, []string, error) {
	total, rows, err := e.query(q, "id, name, cc, country, location, languages, language_codes, genres, bitrate, homepage, stream")
	if err != nil || rows == nil {
		return total, nil, err
	}
	defer rows.Close()
	var out []string
	var r struct {
		id, name, cc, country, loc, langs, codes, genres, home, stream string
		bitrate                                                        int
	}
	for rows.Next() {
		if err := rows.Scan(&r.id, &r.name, &r.cc, &r.country, &r.loc, &r.langs, &r.codes, &r.genres, &r.bitrate, &r.home, &r.stream); err != nil {
			return 0, nil, err
		}
		if ids {
			out = append(out, r.id)
		}
	}
	return total, out, rows.Err()
}

// query counts q's matches and opens its page: cols of the rows in our rank
// order (the tiers spelled out as ORDER BY CASE). rows is nil when q has
// words but nothing searchable, which matches nothing, as in our engine.
func (e *SQLite) query(q mix.Query, cols string) (int, *sql.Rows, error) {
	k := QueryKeysOf(q)
	if q.Q != "" && len(k.Words) == 0 {
		return 0, nil, nil
	}
	where, args := e.where(k)
	cnt, err := e.stmt("SELECT count(*) FROM st" + where)
	if err != nil {
		return 0, nil, err
	}
	var total int
	if err := cnt.QueryRow(args...).Scan(&total); err != nil {
		return 0, nil, fmt.Errorf("sqlite count: %w", err)
	}
	order := " ORDER BY rn"
	if len(k.Words) > 0 {
		order = " ORDER BY CASE WHEN namekey = ? THEN 0 WHEN rn IN (SELECT rowid FROM fts WHERE fts MATCH ?) THEN 1 ELSE 2 END, rn"
		args = append(args, k.Key, "name : ("+ftsExpr(k.Words)+")")
	}
	page, err := e.stmt("SELECT " + cols + " FROM st" + where + order + " LIMIT ? OFFSET ?")
	if err != nil {
		return 0, nil, err
	}
	rows, err := page.Query(append(args, q.Limit, q.Offset)...)
	if err != nil {
		return 0, nil, fmt.Errorf("sqlite page: %w", err)
	}
	return total, rows, nil
}

func (e *SQLite) Close() error {
	for _, s := range e.stmts {
		s.Close()
	}
	return e.db.Close()
}

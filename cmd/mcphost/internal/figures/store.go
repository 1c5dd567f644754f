//go:build !js

package figures

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/mcphost/mcphost/cmd/mcphost/internal/docserver"
)

// Batching of Record's events.
const (
	queueSize     = 8192
	batchSize     = 512
	flushInterval = 250 * time.Millisecond
)

// maxClients is the most clients Figures returns (those with the most
// sessions).
const maxClients = 1000

// maxSessions is the most session rows kept: past it, SaveEvaluation
// forgets the oldest, so a flood of connections cannot fill the disk.
const maxSessions = 1_000_000

// migrations[i] takes the schema from version i to i+1.
var migrations = []string{
	`CREATE TABLE sessions (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL, version TEXT NOT NULL, known INTEGER NOT NULL,
		started INTEGER NOT NULL, -- Unix milliseconds
		lists INTEGER NOT NULL DEFAULT 0, reads INTEGER NOT NULL DEFAULT 0,
		fetches INTEGER NOT NULL DEFAULT 0, duplicates INTEGER NOT NULL DEFAULT 0,
		searches INTEGER NOT NULL DEFAULT 0, links INTEGER NOT NULL DEFAULT 0);
	CREATE INDEX sessions_started ON sessions (started);
	CREATE TABLE evaluations (
		at INTEGER NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, known INTEGER NOT NULL,
		sessions INTEGER NOT NULL, listing INTEGER NOT NULL, reading INTEGER NOT NULL,
		list_without_read INTEGER NOT NULL, read_without_list INTEGER NOT NULL,
		fetches INTEGER NOT NULL, duplicates INTEGER NOT NULL, searches INTEGER NOT NULL, links INTEGER NOT NULL);
	CREATE INDEX evaluations_at ON evaluations (at);
	CREATE TABLE decisions (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		at INTEGER NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, known INTEGER NOT NULL,
		fetch INTEGER NOT NULL, reason TEXT NOT NULL,
		sessions INTEGER NOT NULL, listing INTEGER NOT NULL, reading INTEGER NOT NULL,
		list_without_read INTEGER NOT NULL, read_without_list INTEGER NOT NULL,
		fetches INTEGER NOT NULL, duplicates INTEGER NOT NULL, searches INTEGER NOT NULL, links INTEGER NOT NULL,
		gate_window_ms INTEGER NOT NULL, gate_reach REAL NOT NULL, gate_duplicates REAL NOT NULL,
		gate_min_sessions INTEGER NOT NULL, gate_every_ms INTEGER NOT NULL);
	CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
}

// SchemaVersion is the schema this package writes.
var SchemaVersion = len(migrations)

// A Store is the SQLite database of the figures; it implements
// docserver.FiguresStore. Its methods may be called concurrently; Close
// writes what is queued and closes the database.
type Store struct {
	db         *sql.DB
	persistent bool
	log        *slog.Logger

	queue   chan docserver.Event
	flushes chan chan error
	stop    chan struct{}
	done    chan struct{}
	dropped atomic.Int64
	closing sync.Once
}

var _ docserver.FiguresStore = (*Store)(nil)

// Open opens (creating and migrating) the figures database at path, or an
// in-memory one when path is "" (the log then says the figures will not
// survive a restart). It fails, with the reason, on a path that cannot be
// created or written, or on a schema newer than this package's.
func Open(path string, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dsn := ":memory:"
	if path != "" {
		if strings.ContainsAny(path, "?#") {
			return nil, fmt.Errorf("figures %s: the path may not contain ? or #", path)
		}
		dsn = "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("figures %s: %w", path, err)
	}
	// One connection: each connection to ":memory:" is a database of its
	// own, and one writer at a time is all SQLite has anyway.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, persistent: path != "", log: log, queue: make(chan docserver.Event, queueSize),
		flushes: make(chan chan error), stop: make(chan struct{}), done: make(chan struct{})}
	if err := s.migrate(); err != nil {
		db.Close()
		if path == "" {
			return nil, fmt.Errorf("figures (in memory): %w", err)
		}
		return nil, fmt.Errorf("figures %s: %w", path, err)
	}
	if path == "" {
		log.Warn("figures: in memory (no -figures FILE): the figures and the gate's decisions will not survive a restart")
	} else {
		log.Info("figures: stored in a file", "path", path, "schema", SchemaVersion)
	}
	go s.writer()
	return s, nil
}

// migrate brings the schema to SchemaVersion and proves the database
// writable (a file opened read-only fails here, not at the first session).
func (s *Store) migrate() error {
	ctx := context.Background()
	var v int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("schema version %d is newer than this mcphost's (%d): use a newer mcphost or another file", v, SchemaVersion)
	}
	for ; v < SchemaVersion; v++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate schema %d → %d: %w", v, v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate schema %d → %d: %w", v, v+1, err)
		}
	}
	_, err := s.db.ExecContext(ctx, "INSERT OR REPLACE INTO meta (key, value) VALUES ('opened', ?)", time.Now().UTC().Format(time.RFC3339))
	return err
}

// Persistent reports whether the figures are in a file.
func (s *Store) Persistent() bool { return s.persistent }

// Dropped returns how many events were lost: dropped by a full queue or in
// a batch that could not be written.
func (s *Store) Dropped() int64 { return s.dropped.Load() }

// Record queues e; it never blocks (a full queue, or a closed store, drops
// it).
func (s *Store) Record(e docserver.Event) {
	select {
	case <-s.stop:
		return
	default:
	}
	select {
	case s.queue <- e:
	default:
		if s.dropped.Add(1) == 1 {
			s.log.Warn("figures: event queue full; dropping events (counted on /figures)")
		}
	}
}

// Flush writes every event queued so far.
func (s *Store) Flush(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case s.flushes <- reply:
	case <-s.done:
		return errors.New("figures: store closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is queued and closes the database. It is idempotent.
func (s *Store) Close() error {
	s.closing.Do(func() { close(s.stop) })
	<-s.done
	return s.db.Close()
}

// delta is one session's counts in a batch.
type delta struct {
	start                                              *docserver.Event
	lists, reads, fetches, duplicates, searches, links int64
}

func (s *Store) writer() {
	defer close(s.done)
	t := time.NewTicker(flushInterval)
	defer t.Stop()
	batch := map[string]*delta{}
	n := 0
	add := func(e docserver.Event) {
		d := batch[e.Session]
		if d == nil {
			d = &delta{}
			batch[e.Session] = d
		}
		switch e.Kind {
		case docserver.EventSessionStart:
			e := e
			d.start = &e
		case docserver.EventList:
			d.lists++
		case docserver.EventRead:
			d.reads++
		case docserver.EventFetch:
			d.fetches++
		case docserver.EventDuplicate:
			d.duplicates++
		case docserver.EventSearch:
			d.searches++
		case docserver.EventLinkFollowed:
			d.links++
		}
		n++
	}
	drain := func() {
		for {
			select {
			case e := <-s.queue:
				add(e)
			default:
				return
			}
		}
	}
	// A failing disk is logged once a minute, with the events lost since.
	var lost int
	var lastLog time.Time
	flush := func() error {
		drain()
		if n == 0 {
			return nil
		}
		err := s.write(batch)
		if err != nil {
			s.dropped.Add(int64(n))
			lost += n
			if time.Since(lastLog) >= time.Minute {
				s.log.Warn("figures: write failed; events lost", "events", lost, "err", err)
				lost, lastLog = 0, time.Now()
			}
		}
		batch, n = map[string]*delta{}, 0
		return err
	}
	for {
		select {
		case e := <-s.queue:
			add(e)
			if n >= batchSize {
				flush()
			}
		case <-t.C:
			flush()
		case reply := <-s.flushes:
			reply <- flush()
		case <-s.stop:
			flush()
			return
		}
	}
}

func (s *Store) write(batch map[string]*delta) error {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for id, d := range batch {
		if e := d.start; e != nil {
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO sessions (id, name, version, known, started) VALUES (?, ?, ?, ?, ?)",
				id, e.Client.Name, e.Client.Version, e.Client.Known, e.At.UnixMilli()); err != nil {
				return err
			}
		}
		if d.lists|d.reads|d.fetches|d.duplicates|d.searches|d.links == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET lists = lists + ?, reads = reads + ?, fetches = fetches + ?,
			duplicates = duplicates + ?, searches = searches + ?, links = links + ? WHERE id = ?`,
			d.lists, d.reads, d.fetches, d.duplicates, d.searches, d.links, id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Figures returns each client's counts over the sessions started at or
// after since (most sessions first, at most 1,000 clients), after writing
// the queue.
func (s *Store) Figures(ctx context.Context, since time.Time) ([]docserver.Figures, error) {
	if err := s.Flush(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT name, version, known, COUNT(*),
		SUM(lists > 0), SUM(reads > 0), SUM(lists > 0 AND reads = 0), SUM(reads > 0 AND lists = 0),
		SUM(fetches), SUM(duplicates), SUM(searches), SUM(links)
		FROM sessions WHERE started >= ? GROUP BY name, version, known
		ORDER BY COUNT(*) DESC, name, version LIMIT ?`, since.UnixMilli(), maxClients)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []docserver.Figures
	for rows.Next() {
		var f docserver.Figures
		if err := rows.Scan(&f.Client.Name, &f.Client.Version, &f.Client.Known, &f.Sessions, &f.Listing, &f.Reading,
			&f.ListWithoutRead, &f.ReadWithoutList, &f.Fetches, &f.Duplicates, &f.Searches, &f.LinksFollowed); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// SaveEvaluation stores the evaluation at at and its decisions in one
// transaction, and forgets sessions and evaluations older than before
// (and the oldest sessions past 1,000,000 rows).
func (s *Store) SaveEvaluation(ctx context.Context, at time.Time, figs []docserver.Figures, decided []docserver.Decision, before time.Time) error {
	if err := s.Flush(ctx); err != nil { // so that pruning sees every session
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, f := range figs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO evaluations (at, name, version, known, sessions, listing, reading,
			list_without_read, read_without_list, fetches, duplicates, searches, links) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			at.UnixMilli(), f.Client.Name, f.Client.Version, f.Client.Known, f.Sessions, f.Listing, f.Reading,
			f.ListWithoutRead, f.ReadWithoutList, f.Fetches, f.Duplicates, f.Searches, f.LinksFollowed); err != nil {
			return err
		}
	}
	for _, d := range decided {
		f, g := d.Figures, d.Gate
		if _, err := tx.ExecContext(ctx, `INSERT INTO decisions (at, name, version, known, fetch, reason, sessions, listing, reading,
			list_without_read, read_without_list, fetches, duplicates, searches, links,
			gate_window_ms, gate_reach, gate_duplicates, gate_min_sessions, gate_every_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			d.At.UnixMilli(), d.Client.Name, d.Client.Version, d.Client.Known, d.Fetch, d.Reason, f.Sessions, f.Listing, f.Reading,
			f.ListWithoutRead, f.ReadWithoutList, f.Fetches, f.Duplicates, f.Searches, f.LinksFollowed,
			g.Window.Milliseconds(), g.Reach, g.Duplicates, g.MinSessions, g.Every.Milliseconds()); err != nil {
			return err
		}
	}
	for _, q := range []string{"DELETE FROM sessions WHERE started < ?", "DELETE FROM evaluations WHERE at < ?"} {
		if _, err := tx.ExecContext(ctx, q, before.UnixMilli()); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE rowid IN
		(SELECT rowid FROM sessions ORDER BY started DESC LIMIT -1 OFFSET ?)`, maxSessions); err != nil {
		return err
	}
	return tx.Commit()
}

// Decisions returns up to perClient latest decisions of each client, each
// client's oldest first.
func (s *Store) Decisions(ctx context.Context, perClient int) ([]docserver.Decision, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT at, name, version, known, fetch, reason, sessions, listing, reading,
		list_without_read, read_without_list, fetches, duplicates, searches, links,
		gate_window_ms, gate_reach, gate_duplicates, gate_min_sessions, gate_every_ms FROM
		(SELECT *, ROW_NUMBER() OVER (PARTITION BY name, version, known ORDER BY id DESC) AS n FROM decisions)
		WHERE n <= ? ORDER BY name, version, known, id`, perClient)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []docserver.Decision
	for rows.Next() {
		var (
			d          docserver.Decision
			at, win, e int64
		)
		f := &d.Figures
		if err := rows.Scan(&at, &d.Client.Name, &d.Client.Version, &d.Client.Known, &d.Fetch, &d.Reason, &f.Sessions, &f.Listing,
			&f.Reading, &f.ListWithoutRead, &f.ReadWithoutList, &f.Fetches, &f.Duplicates, &f.Searches, &f.LinksFollowed,
			&win, &d.Gate.Reach, &d.Gate.Duplicates, &d.Gate.MinSessions, &e); err != nil {
			return nil, err
		}
		d.At, f.Client = time.UnixMilli(at).UTC(), d.Client
		d.Gate.Window, d.Gate.Every = time.Duration(win)*time.Millisecond, time.Duration(e)*time.Millisecond
		out = append(out, d)
	}
	return out, rows.Err()
}

// Series returns each client's reach at the evaluations since since,
// oldest first, the latest perClient of each.
func (s *Store) Series(ctx context.Context, since time.Time, perClient int) ([]docserver.Point, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT at, name, version, known, sessions, reading FROM
		(SELECT *, ROW_NUMBER() OVER (PARTITION BY name, version, known ORDER BY at DESC) AS n FROM evaluations WHERE at >= ?)
		WHERE n <= ? ORDER BY name, version, known, at`, since.UnixMilli(), perClient)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []docserver.Point
	for rows.Next() {
		var (
			p           docserver.Point
			at, reading int64
		)
		if err := rows.Scan(&at, &p.Client.Name, &p.Client.Version, &p.Client.Known, &p.Sessions, &reading); err != nil {
			return nil, err
		}
		p.At = time.UnixMilli(at).UTC()
		if p.Sessions > 0 {
			p.Reach = float64(reading) / float64(p.Sessions)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

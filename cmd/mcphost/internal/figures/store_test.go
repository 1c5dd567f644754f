//go:build !js

package figures

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/docserver"
)

func open(t *testing.T, path string) (*Store, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	s, err := Open(path, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	return s, &logs
}

// session records one session of c started at at, with the given events.
func session(s *Store, id string, c docserver.Client, at time.Time, kinds ...docserver.EventKind) {
	s.Record(docserver.Event{Session: id, Kind: docserver.EventSessionStart, Client: c, At: at})
	for _, k := range kinds {
		s.Record(docserver.Event{Session: id, Kind: k})
	}
}

var (
	alpha = docserver.Client{Name: "alpha", Version: "1", Known: true}
	beta  = docserver.Client{Name: "beta", Version: "2", Known: true}
	anon  = docserver.Client{}
)

// seed records a fixed set of sessions at now.
func seed(s *Store, now time.Time) {
	ev := func(k docserver.EventKind, n int) []docserver.EventKind {
		out := make([]docserver.EventKind, n)
		for i := range out {
			out[i] = k
		}
		return out
	}
	session(s, "a1", alpha, now, docserver.EventList, docserver.EventRead, docserver.EventRead)
	session(s, "a2", alpha, now, docserver.EventList)
	session(s, "a3", alpha, now, append(ev(docserver.EventFetch, 3), docserver.EventDuplicate, docserver.EventSearch, docserver.EventLinkFollowed)...)
	session(s, "a4", alpha, now, docserver.EventRead) // read without list
	session(s, "b1", beta, now, docserver.EventList, docserver.EventRead)
	session(s, "u1", anon, now, docserver.EventList)
}

func TestStoreFigures(t *testing.T) {
	t.Parallel()
	s, logs := open(t, "")
	defer s.Close()
	if s.Persistent() || !strings.Contains(logs.String(), "will not survive a restart") {
		t.Errorf("in memory: persistent %v, log %q", s.Persistent(), logs)
	}
	now := time.Now()
	seed(s, now)
	session(s, "old", alpha, now.Add(-2*time.Hour), docserver.EventRead)
	figs, err := s.Figures(context.Background(), now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []docserver.Figures{
		{Client: alpha, Sessions: 4, Listing: 2, Reading: 2, ListWithoutRead: 1, ReadWithoutList: 1, Fetches: 3, Duplicates: 1, Searches: 1, LinksFollowed: 1},
		{Client: anon, Sessions: 1, Listing: 1, ListWithoutRead: 1},
		{Client: beta, Sessions: 1, Listing: 1, Reading: 1},
	}
	if fmt.Sprint(figs) != fmt.Sprint(want) {
		t.Errorf("Figures =\n%+v\nwant\n%+v", figs, want)
	}
	if f := figs[0]; f.Reach() != 0.5 || f.ListWithoutReadRate() != 0.25 || f.DuplicateRate() != 1.0/3 {
		t.Errorf("rates: reach %v, list-without-read %v, duplicates %v", f.Reach(), f.ListWithoutReadRate(), f.DuplicateRate())
	}
}

// TestStorePersists writes figures, an evaluation and a decision to a file,
// reopens it, and finds them all.
func TestStorePersists(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "figures.db")
	s, logs := open(t, path)
	if !s.Persistent() || strings.Contains(logs.String(), "will not survive") {
		t.Errorf("a file: persistent %v, log %q", s.Persistent(), logs)
	}
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	seed(s, now)
	figs, err := s.Figures(ctx, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	g := docserver.Gate{Window: time.Hour, Reach: 0.2, Duplicates: 0.3, MinSessions: 1, Every: time.Minute}
	d := docserver.Decision{At: now, Client: alpha, Fetch: true, Reason: "why", Figures: figs[0], Gate: g}
	if err := s.SaveEvaluation(ctx, now, figs, []docserver.Decision{d}, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	session(s, "late", beta, now, docserver.EventRead) // queued, written by Close
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	s.Record(docserver.Event{Session: "x", Kind: docserver.EventRead}) // after Close: dropped, no panic

	s, _ = open(t, path)
	defer s.Close()
	again, err := s.Figures(ctx, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 3 || again[0] != figs[0] || again[1].Client != beta || again[1].Sessions != 2 {
		t.Errorf("after reopening: %+v, before: %+v", again, figs)
	}
	ds, err := s.Decisions(ctx, 5)
	if err != nil || len(ds) != 1 {
		t.Fatalf("Decisions = %+v, %v", ds, err)
	}
	d.At = d.At.UTC()
	if fmt.Sprintf("%+v", ds[0]) != fmt.Sprintf("%+v", d) {
		t.Errorf("decision\n%+v\nwant\n%+v", ds[0], d)
	}
	pts, err := s.Series(ctx, now.Add(-time.Hour), 10)
	if err != nil || len(pts) != 3 || pts[1].Client != alpha || pts[1].Reach != 0.5 || pts[1].Sessions != 4 || !pts[1].At.Equal(now) {
		t.Errorf("Series = %+v, %v", pts, err)
	}
}

// TestStoreDecisionsAndPruning keeps the latest decisions per client and
// forgets sessions and evaluations older than the window.
func TestStoreDecisionsAndPruning(t *testing.T) {
	t.Parallel()
	s, _ := open(t, "")
	defer s.Close()
	ctx := context.Background()
	t0 := time.Now().Add(-10 * time.Hour).Truncate(time.Millisecond)
	session(s, "old", alpha, t0)
	session(s, "new", alpha, t0.Add(5*time.Hour))
	for i := range 4 {
		at := t0.Add(time.Duration(i) * time.Hour)
		d := docserver.Decision{At: at, Client: alpha, Fetch: i%2 == 0, Reason: fmt.Sprint(i)}
		figs := []docserver.Figures{{Client: alpha, Sessions: int64(i + 1), Reading: int64(i)}}
		if err := s.SaveEvaluation(ctx, at, figs, []docserver.Decision{d, {At: at, Client: beta, Reason: "b"}}, t0.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := s.Decisions(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ds {
		got = append(got, d.Client.Name+":"+d.Reason)
	}
	if strings.Join(got, " ") != "alpha:2 alpha:3 beta:b beta:b" {
		t.Errorf("latest 2 per client, oldest first: %v", got)
	}
	if err := s.SaveEvaluation(ctx, t0.Add(6*time.Hour), nil, nil, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	figs, _ := s.Figures(ctx, time.Time{})
	pts, _ := s.Series(ctx, time.Time{}, 100)
	if len(figs) != 1 || figs[0].Sessions != 1 || len(pts) != 2 {
		t.Errorf("after pruning before t0+2h: figures %+v, points %+v", figs, pts)
	}
}

// TestStoreOpenFails names the reason: a path that cannot be created, a
// folder, a schema from a newer mcphost.
func TestStoreOpenFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.db")
	db, err := sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, c := range []struct{ name, path, want string }{
		{"missing folder", filepath.Join(dir, "no", "f.db"), "figures " + filepath.Join(dir, "no", "f.db") + ": "},
		{"a folder", dir, "figures " + dir + ": "},
		{"newer schema", newer, fmt.Sprintf("schema version %d is newer than this mcphost's (%d)", SchemaVersion+1, SchemaVersion)},
		{"query characters", filepath.Join(dir, "a?b"), "may not contain ? or #"},
	} {
		s, err := Open(c.path, nil)
		if err == nil {
			s.Close()
			t.Errorf("%s: Open succeeded", c.name)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestStoreMigrates opens a file of schema 0 (an empty database) and finds
// it at SchemaVersion.
func TestStoreMigrates(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "empty.db")
	db, _ := sql.Open("sqlite", path)
	if _, err := db.Exec("CREATE TABLE unrelated (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, _ := open(t, path)
	var v int
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion {
		t.Errorf("user_version = %d, %v; want %d", v, err, SchemaVersion)
	}
	s.Close()
	s, _ = open(t, path) // already migrated: opens again
	s.Close()
}

// TestRecordDoesNotWaitForTheDisk holds the database file locked by
// another connection while the writer is writing a batch: Record still
// returns at once, and every event is written once the lock goes.
func TestRecordDoesNotWaitForTheDisk(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "figures.db")
	s, _ := open(t, path)
	defer s.Close()
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	lock, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	session(s, "first", alpha, now, docserver.EventRead)
	flushed := make(chan error, 1)
	go func() { flushed <- s.Flush(ctx) }() // the writer waits for the lock
	for i := range 1000 {
		session(s, fmt.Sprint(i), beta, now, docserver.EventList) // must not wait
	}
	if _, err := lock.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	lock.Close()
	if err := <-flushed; err != nil {
		t.Fatalf("the batch written after the lock: %v", err)
	}
	figs, err := s.Figures(ctx, now.Add(-time.Minute))
	if err != nil || len(figs) != 2 || figs[0].Sessions != 1000 || figs[0].Listing != 1000 || figs[1].Reading != 1 || s.Dropped() != 0 {
		t.Errorf("Figures = %+v, %v; dropped %d", figs, err, s.Dropped())
	}
}

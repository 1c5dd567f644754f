//go:build !js

package docserver

import (
	"context"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/sampledocs"
)

// testConfig is the configuration mcphost's flag defaults give the server.
func testConfig() Config {
	return Config{PageSize: 50, ResourceBlind: []string{"resource-blind-demo"}, Version: "test"}
}

// startDocs serves the documents server on a loopback endpoint, as mcphost
// does: over the sample documents, or over the folder dir (watched every
// 40 ms) when it is set; with ps, only to connections with a token of
// theirs. It returns host:port and the server's log.
func startDocs(tb testing.TB, cfg Config, dir string, ps *Principals) (string, *mcptest.LogBuffer) {
	tb.Helper()
	log, logs := mcptest.Logger()
	cfg.Log = log
	if dir == "" {
		cfg.FS, cfg.ModTime = sampledocs.FS, time.Now()
	} else {
		cfg.Dir = dir // as mcphost -docs does
	}
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if dir != "" {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); s.Watch(ctx, 40*time.Millisecond) }()
		tb.Cleanup(func() { cancel(); <-done })
	}
	opts := &bridge.EndpointOptions{Logger: log}
	if ps != nil {
		opts.Authenticate = ps.Authenticate
	}
	host := mcptest.Serve(tb, opts, func(ctx context.Context, c *bridge.Conn) {
		s.Serve(ctx, c, ps.Lookup(c.Principal()))
	})
	return host, logs
}

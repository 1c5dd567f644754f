//go:build !js

package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// e2eDir returns the npm folder, failing with a clear message when the peers
// are not installed (make test installs them: make test-deps).
func e2eDir(t *testing.T, pkg string) string {
	t.Helper()
	dir, _ := filepath.Abs("../e2e")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
		t.Fatalf("npm package %s is missing in %s: run `make test-deps` (npm ci from the committed lockfile)", pkg, dir)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH")
	}
	return dir
}

// TestTypeScriptSDKClient connects the TypeScript SDK's WebSocketClientTransport
// to a bridge-served go-sdk server: it lists across pages and reads.
func TestTypeScriptSDKClient(t *testing.T) {
	dir := e2eDir(t, "@modelcontextprotocol/sdk")
	g := newGoServer(t, 10)
	url := serve(t, bridge.ServerHandler(nil, func(*bridge.Conn) *mcp.Server { return g.Server }))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "ts-client.mjs", url, "mem://doc/07")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var got struct {
		Server    struct{ Name string }
		Resources []string
		Templates []string
		Read      struct {
			Contents []struct{ URI, Text string }
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Server.Name != "go-sdk-test" || len(got.Resources) != 12 || len(got.Templates) != 1 ||
		len(got.Read.Contents) != 1 || got.Read.Contents[0].Text != "document 7" {
		t.Fatalf("TS client saw %+v", got)
	}
}

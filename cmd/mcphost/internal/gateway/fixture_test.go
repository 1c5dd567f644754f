//go:build !js

package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixtureFlag makes the test binary a stdio MCP server (see TestMain): a
// go-sdk server with the one resource mem://fixture. Its arguments are a
// mode, "modern" (go-sdk as is: it answers server/discover) or
// "exit-on-discover" (it exits with status 3 when it receives
// server/discover, as some servers do), and a file to which it appends
// "start" when it starts and "discover" when it gets server/discover. Mode
// "slow=DURATION" writes a line to stderr and sleeps that long before
// reading anything (a cold "npx -y" start), then behaves as "modern".
const fixtureFlag = "-stdio-fixture"

func stdioFixture(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: -stdio-fixture modern|exit-on-discover LOGFILE")
		return 2
	}
	mode, logPath := args[0], args[1]
	note := func(s string) {
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, s)
			f.Close()
		}
	}
	note("start")
	if d, ok := strings.CutPrefix(mode, "slow="); ok {
		dur, err := time.ParseDuration(d)
		if err != nil {
			return 2
		}
		fmt.Fprintln(os.Stderr, "stdio-fixture: warming up")
		time.Sleep(dur)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "stdio-fixture", Version: "1"}, nil)
	s.AddResource(&mcp.Resource{URI: "mem://fixture", Name: "fixture", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://fixture", MIMEType: "text/plain", Text: "fixture"}}}, nil
		})
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m struct {
				Method string `json:"method"`
			}
			json.Unmarshal(sc.Bytes(), &m)
			if m.Method == "server/discover" {
				note("discover")
				if mode == "exit-on-discover" {
					fmt.Fprintln(os.Stderr, "stdio-fixture: unknown method server/discover before initialize; exiting")
					os.Exit(3)
				}
			}
			pw.Write(append(sc.Bytes(), '\n'))
		}
		pw.Close()
	}()
	if err := s.Run(context.Background(), &mcp.IOTransport{Reader: pr, Writer: os.Stdout}); err != nil {
		return 1
	}
	return 0
}

package dedupe_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcphost/mcphost/dedupe"
)

func ExampleLedger_Filter() {
	const server = "ws://127.0.0.1:8080/mcp"
	l := dedupe.New(dedupe.Options{})

	// The user attached the runbook at the start of the session.
	text := "1. Restart the service.\n2. Check the queue."
	l.RecordRead()
	l.Attach(server, "file:///ops/runbook.md", []dedupe.Part{{URI: "file:///ops/runbook.md", Text: &text}})

	// Later the model calls a fetch tool that returns the same runbook.
	result := json.RawMessage(`{"content":[` +
		`{"type":"resource","resource":{"uri":"file:///ops/runbook.md","text":"1. Restart the service.\n2. Check the queue."}},` +
		`{"type":"resource_link","uri":"file:///ops/runbook.md","name":"runbook.md"}]}`)
	out, report, err := l.Filter(server, result)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	for _, d := range report.Dropped {
		fmt.Println(d.Index, d.URI, d.Reason)
	}
	r := l.Figures().Ratios()
	fmt.Printf("read reach %.0f%%, duplicate delivery %.0f%%\n", 100*r.ReadReach, 100*r.DuplicateDelivery)
	// Output:
	// {"content":[{"type":"text","text":"Omitted: already in the context as attached resources: file:///ops/runbook.md"}]}
	// 0 file:///ops/runbook.md duplicate
	// 1 file:///ops/runbook.md link_to_attached
	// read reach 100%, duplicate delivery 100%
}

package dedupe

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestFilter(t *testing.T) {
	const s = "ws://srv"
	runbook := textPart("mem://runbook", "step 1\nstep 2")
	image := `{"type":"image","data":"AQID","mimeType":"image/png"}`
	audio := `{"type":"audio","data":"AQID","mimeType":"audio/wav"}`
	unknown := `{"type":"hologram","uri":"mem://runbook","x":[1,2]}`

	tests := []struct {
		name    string
		policy  NewerPolicy
		setup   func(*Ledger)
		in      json.RawMessage
		keep    []int // indexes of original blocks kept
		dropped []Dropped
		super   []string
		stale   []string
		state   State // of mem://runbook afterwards, if attached
	}{{
		name:    "duplicate embedded resource",
		in:      result(text("here"), embed(t, runbook)),
		keep:    []int{0},
		dropped: []Dropped{{1, "mem://runbook", ReasonDuplicate}},
		state:   Fresh,
	}, {
		name:  "newer copy replaces by default",
		in:    result(embed(t, textPart("mem://runbook", "step 1\nstep 2b"))),
		keep:  []int{0},
		super: []string{"mem://runbook"},
		state: Superseded,
	}, {
		name:   "newer copy kept and attachment flagged stale",
		policy: KeepNewer,
		in:     result(embed(t, textPart("mem://runbook", "step 1\nstep 2b"))),
		keep:   []int{0},
		stale:  []string{"mem://runbook"},
		state:  Stale,
	}, {
		name:    "newer copy then the same newer copy again",
		in:      result(embed(t, textPart("mem://runbook", "v2")), text("t"), embed(t, textPart("mem://runbook", "v2"))),
		keep:    []int{0, 1},
		dropped: []Dropped{{2, "mem://runbook", ReasonDuplicate}},
		super:   []string{"mem://runbook"},
		state:   Superseded,
	}, {
		name:    "keep-newer: old copy and new copy both deduplicated afterwards",
		policy:  KeepNewer,
		in:      result(embed(t, textPart("mem://runbook", "v2")), embed(t, runbook), embed(t, textPart("mem://runbook", "v2"))),
		keep:    []int{0},
		dropped: []Dropped{{1, "mem://runbook", ReasonDuplicate}, {2, "mem://runbook", ReasonDuplicate}},
		stale:   []string{"mem://runbook"},
		state:   Stale,
	}, {
		name:    "link to attached URI",
		in:      result(link("mem://runbook"), text("more")),
		keep:    []int{1},
		dropped: []Dropped{{0, "mem://runbook", ReasonLinkToAttached}},
		state:   Fresh,
	}, {
		name:  "link and embed of unattached URIs pass",
		in:    result(link("mem://other"), embed(t, textPart("mem://other", "x"))),
		keep:  []int{0, 1},
		state: Fresh,
	}, {
		name:  "text, image, audio and unknown types pass",
		in:    result(text("step 1\\nstep 2"), image, audio, unknown, `"not an object"`, `{"type":"resource"}`, `{"type":"resource","resource":{"uri":"mem://runbook"}}`),
		keep:  []int{0, 1, 2, 3, 4, 5, 6},
		state: Fresh,
	}, {
		name:  "blob copy of text content is not a duplicate",
		in:    result(embed(t, blobPart("mem://runbook", []byte("step 1\nstep 2")))),
		keep:  []int{0},
		super: []string{"mem://runbook"},
		state: Superseded,
	}, {
		name:    "stale attachment still deduplicates",
		setup:   func(l *Ledger) { l.MarkStale(s, "mem://runbook", "updated") },
		in:      result(text("a"), embed(t, runbook), link("mem://runbook")),
		keep:    []int{0},
		dropped: []Dropped{{1, "mem://runbook", ReasonDuplicate}, {2, "mem://runbook", ReasonLinkToAttached}},
		state:   Stale,
	}, {
		name:  "gone attachment is not in the context: copy and link pass",
		setup: func(l *Ledger) { l.MarkGone(s, "mem://runbook") },
		in:    result(link("mem://runbook"), embed(t, runbook)),
		keep:  []int{0, 1},
		super: []string{"mem://runbook"},
		state: Superseded,
	}, {
		name:    "gone attachment with keep-newer stays gone",
		policy:  KeepNewer,
		setup:   func(l *Ledger) { l.MarkGone(s, "mem://runbook") },
		in:      result(embed(t, runbook), embed(t, runbook)),
		keep:    []int{0},
		dropped: []Dropped{{1, "mem://runbook", ReasonDuplicate}},
		state:   Gone,
	}, {
		name:  "other server's URI is another document",
		in:    result(text("x")),
		setup: func(l *Ledger) {},
		keep:  []int{0},
		state: Fresh,
	}, {
		name: "refresh after supersede makes the read copy current again",
		setup: func(l *Ledger) {
			l.Filter(s, result(embed(t, textPart("mem://runbook", "v2"))))
			l.Refresh(s, "mem://runbook", []Part{textPart("mem://runbook", "v3")})
		},
		in:      result(embed(t, textPart("mem://runbook", "v3")), embed(t, textPart("mem://runbook", "v2"))),
		keep:    []int{1},
		dropped: []Dropped{{0, "mem://runbook", ReasonDuplicate}},
		super:   []string{"mem://runbook"},
		state:   Superseded,
	}, {
		name:    "every block dropped leaves a note",
		in:      result(embed(t, runbook), link("mem://runbook"), link("mem://dir/")),
		keep:    nil,
		dropped: []Dropped{{0, "mem://runbook", ReasonDuplicate}, {1, "mem://runbook", ReasonLinkToAttached}, {2, "mem://dir/", ReasonLinkToAttached}},
		state:   Fresh,
	}, {
		name:    "multi-part document: link to its URI, embed of its part",
		in:      result(link("mem://dir/"), embed(t, textPart("mem://dir/a", "A")), embed(t, textPart("mem://dir/", "?"))),
		keep:    []int{2},
		dropped: []Dropped{{0, "mem://dir/", ReasonLinkToAttached}, {1, "mem://dir/a", ReasonDuplicate}},
		state:   Fresh,
	}, {
		name:  "empty content",
		in:    result(),
		state: Fresh,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(Options{OnNewer: tt.policy})
			mustAttach(t, l, s, "mem://runbook", runbook)
			mustAttach(t, l, s, "mem://dir/", textPart("mem://dir/a", "A"), textPart("mem://dir/b", "B"))
			mustAttach(t, l, "ws://other", "mem://other", textPart("mem://other", "x"))
			if tt.setup != nil {
				tt.setup(l)
			}
			out, rep, err := l.Filter(s, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			orig := contentOf(t, tt.in)
			got := contentOf(t, out)
			want := []json.RawMessage{}
			for _, i := range tt.keep {
				want = append(want, orig[i])
			}
			if len(tt.keep) == 0 && len(tt.dropped) > 0 {
				if len(got) != 1 || !strings.Contains(string(got[0]), `"type":"text"`) ||
					!strings.Contains(string(got[0]), "mem://runbook, mem://dir/") {
					t.Fatalf("all dropped: content = %s", got)
				}
			} else if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("content = %s\nwant %s", got, want)
			}
			if tt.dropped == nil {
				tt.dropped = []Dropped{}
			}
			if tt.super == nil {
				tt.super = []string{}
			}
			if tt.stale == nil {
				tt.stale = []string{}
			}
			wantRep := Report{tt.dropped, tt.super, tt.stale}
			if !reflect.DeepEqual(rep, wantRep) {
				t.Errorf("report = %+v\nwant %+v", rep, wantRep)
			}
			if len(rep.Dropped) == 0 && !bytes.Equal(out, tt.in) {
				t.Errorf("nothing dropped but the result changed:\n%s", out)
			}
			if st := partState(t, l, s, "mem://runbook"); st != tt.state {
				t.Errorf("runbook state = %s, want %s", st, tt.state)
			}
		})
	}
}

func TestFilterPreservesBytes(t *testing.T) {
	l := New(Options{})
	mustAttach(t, l, "s", "mem://a", textPart("mem://a", "A"))
	in := json.RawMessage(`{ "_meta" : {"k": [1, 2]},
  "structuredContent":{"z":1,"a":"\u00e9"} ,"content" : [ {"type":"text","text":"x",  "annotations":{"priority":0.5}} ,
    {"type":"resource","resource":{"uri":"mem://a","text":"A"}}, {"type":"future","weird": true } ],
  "unknownTop": null , "isError": false }`)
	out, rep, err := l.Filter("s", in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{ "_meta" : {"k": [1, 2]},
  "structuredContent":{"z":1,"a":"\u00e9"} ,"content" : [{"type":"text","text":"x",  "annotations":{"priority":0.5}},{"type":"future","weird": true }],
  "unknownTop": null , "isError": false }`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if len(rep.Dropped) != 1 || rep.Dropped[0].Index != 1 {
		t.Errorf("report = %+v", rep)
	}
	b, _ := json.Marshal(rep)
	if string(b) != `{"dropped":[{"index":1,"uri":"mem://a","reason":"duplicate"}],"superseded":[],"stale":[]}` {
		t.Errorf("report JSON = %s", b)
	}
}

func TestFilterIsErrorUntouched(t *testing.T) {
	l := New(Options{})
	mustAttach(t, l, "s", "mem://a", textPart("mem://a", "A"))
	in := json.RawMessage(`{"content":[{"type":"resource","resource":{"uri":"mem://a","text":"A"}},{"type":"resource_link","uri":"mem://a","name":"a"}],"isError":true}`)
	out, rep, err := l.Filter("s", in)
	if err != nil || !bytes.Equal(out, in) || len(rep.Dropped)+len(rep.Superseded)+len(rep.Stale) != 0 {
		t.Fatalf("isError result changed: %v %+v %s", err, rep, out)
	}
	f := l.Figures()
	if f.ToolResults != 1 || f.ToolResultsWithAttachment != 0 || f.ToolResultsCarryingAttached != 0 {
		t.Errorf("figures = %+v", f)
	}
}

func TestFilterErrors(t *testing.T) {
	l := New(Options{})
	mustAttach(t, l, "s", "mem://a", textPart("mem://a", "A"))
	for _, tt := range []struct{ in, err string }{
		{`[]`, "not a JSON object"},
		{``, "not a JSON object"},
		{`{"isError":false}`, `no "content"`},
		{`{"content":{}}`, "content is not an array"},
		{`{"content":null}`, "content is not an array"},
		{`{"content":[],"content":[]}`, "appears twice"},
		{`{"content":[]} x`, "after top-level value"},
		{`{"content":[}`, "tool result"},
		{`{"content":[{"type":"resource","resource":{"uri":"mem://a","text":"A"}}]`, "tool result"},
	} {
		out, rep, err := l.Filter("s", json.RawMessage(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Filter(%s): err = %v, want %q", tt.in, err, tt.err)
		}
		if string(out) != tt.in || rep.Dropped == nil || len(rep.Dropped) != 0 {
			t.Errorf("Filter(%s) on error returned %s, %+v", tt.in, out, rep)
		}
	}
}

func TestFilterNormalizedURIs(t *testing.T) {
	l := New(Options{NormalizeURIs: true})
	mustAttach(t, l, "s", "https://Docs.example:443/run%7ebook", textPart("https://Docs.example:443/run%7ebook", "x"))
	out, rep, err := l.Filter("s", result(link("HTTPS://docs.EXAMPLE/run~book"), embed(t, textPart("https://docs.example/run%7Ebook", "x")), link("https://docs.example/./run~book")))
	if err != nil {
		t.Fatal(err)
	}
	want := []Dropped{{0, "HTTPS://docs.EXAMPLE/run~book", ReasonLinkToAttached}, {1, "https://docs.example/run%7Ebook", ReasonDuplicate}}
	if !reflect.DeepEqual(rep.Dropped, want) {
		t.Errorf("dropped = %+v", rep.Dropped)
	}
	if got := contentOf(t, out); len(got) != 1 || !strings.Contains(string(got[0]), "/./") {
		t.Errorf("dot-segment URI must not match: %s", got)
	}
}

// TestEverythingFixtures filters results captured from server-everything
// against reads of the same resources captured in the same session.
func TestEverythingFixtures(t *testing.T) {
	const srv = "stdio:server-everything"
	attach := func(t *testing.T, l *Ledger, fixture string) {
		var r struct{ Contents []Part }
		if err := json.Unmarshal(readFixture(t, fixture), &r); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Attach(srv, r.Contents[0].URI, r.Contents); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		attached []string
		call     string
		dropped  []Dropped
		keptLen  int
	}{
		{"embedded text resource, attached", []string{"read-text-1.json"}, "get-resource-reference-text-1.json",
			[]Dropped{{1, "demo://resource/dynamic/text/1", ReasonDuplicate}}, 2},
		{"embedded blob resource, attached", []string{"read-blob-2.json"}, "get-resource-reference-blob-2.json",
			[]Dropped{{1, "demo://resource/dynamic/blob/2", ReasonDuplicate}}, 2},
		{"embedded resource, other one attached", []string{"read-blob-2.json"}, "get-resource-reference-text-1.json",
			[]Dropped{}, 3},
		{"resource links, one attached", []string{"read-blob-1.json", "read-text-1.json"}, "get-resource-links-3.json",
			[]Dropped{{1, "demo://resource/dynamic/blob/1", ReasonLinkToAttached}}, 3},
		{"resource links, none attached", nil, "get-resource-links-3.json", []Dropped{}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(Options{})
			for _, f := range tt.attached {
				attach(t, l, f)
			}
			in := readFixture(t, tt.call)
			out, rep, err := l.Filter(srv, in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rep.Dropped, tt.dropped) || len(rep.Superseded) != 0 {
				t.Errorf("report = %+v, want dropped %+v", rep, tt.dropped)
			}
			if n := len(contentOf(t, out)); n != tt.keptLen {
				t.Errorf("kept %d blocks, want %d:\n%s", n, tt.keptLen, out)
			}
		})
	}

	// A later, different copy of the same resource (its text carries a
	// time) supersedes the attachment.
	l := New(Options{})
	attach(t, l, "read-text-1.json")
	later := bytes.Replace(readFixture(t, "get-resource-reference-text-1.json"), []byte("10:48:27 AM"), []byte("10:49:00 AM"), 1)
	_, rep, err := l.Filter(srv, later)
	if err != nil || !reflect.DeepEqual(rep.Superseded, []string{"demo://resource/dynamic/text/1"}) || len(rep.Dropped) != 0 {
		t.Errorf("newer copy: %v %+v", err, rep)
	}
}

func FuzzFilter(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"resource","resource":{"uri":"mem://a","text":"A"}},{"type":"resource_link","uri":"mem://a","name":"a"}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"mem://b","blob":"AQID"}},{"type":"text","text":"t"}],"_meta":{}}`,
		`{"content":[{"type":"resource","resource":{"uri":"mem://a","text":"B"}}],"isError":false}`,
		`{"content":[],"structuredContent":{"a":[1]}}`, `{"content":[1,null,"x",[]]}`, `{"content":[{"type":"resource_link","uri":"mem://b"}],"isError":true}`,
		`{}`, `[`, `{"content":[{"type":"resource","resource":{"uri":"mem://a","text":"A","blob":""}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		l := New(Options{})
		mustAttach(t, l, "s", "mem://a", textPart("mem://a", "A"))
		mustAttach(t, l, "s", "mem://b", blobPart("mem://b", []byte{1, 2, 3}))
		out, rep, err := l.Filter("s", in)
		if err != nil || len(rep.Dropped) == 0 {
			if !bytes.Equal(out, in) {
				t.Fatalf("unchanged result expected, got %s", out)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid output %s from %s", out, in)
		}
		n := len(contentOf(t, json.RawMessage(in)))
		kept := len(contentOf(t, out))
		if kept+len(rep.Dropped) != n && !(kept == 1 && len(rep.Dropped) == n) {
			t.Fatalf("%d blocks in, %d kept, %d dropped", n, kept, len(rep.Dropped))
		}
		for _, d := range rep.Dropped {
			if d.Index < 0 || d.Index >= n || (d.URI != "mem://a" && d.URI != "mem://b") {
				t.Fatalf("bad drop %+v", d)
			}
		}
	})
}

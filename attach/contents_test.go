package attach

import (
	"errors"
	"strings"
	"testing"
)

// readResultCases seed both the table test and FuzzDecodeContents.
var readResultCases = []struct {
	name    string
	in      string
	code    string // whole-result error code, "" for success
	msg     string // substring of the whole-result error
	kinds   []string
	partErr []string // per-part error code ("" for none)
}{
	{name: "go-sdk shape with extra keys",
		in:    `{"ttlMs":0,"cacheScope":"public","contents":[{"uri":"mem://t/7","blob":"AQID"}]}`,
		kinds: []string{KindBinary}, partErr: []string{""}},
	{name: "text and empty text",
		in:    `{"contents":[{"uri":"a","mimeType":"text/plain","text":"x"},{"uri":"b","text":""}]}`,
		kinds: []string{KindText, KindText}, partErr: []string{"", ""}},
	{name: "empty contents", in: `{"contents":[]}`, kinds: []string{}, partErr: []string{}},
	{name: "neither and both",
		in:    `{"contents":[{"uri":"a"},{"uri":"b","text":"x","blob":"eA=="}]}`,
		kinds: []string{KindError, KindError}, partErr: []string{CodeNeitherPayload, CodeBothPayloads}},
	{name: "malformed part keeps neighbours",
		in:    `{"contents":[{"uri":"a","text":"ok"},{"uri":"b","text":5},"str",{"uri":"d","blob":"AQID"}]}`,
		kinds: []string{KindText, KindError, KindError, KindBinary}, partErr: []string{"", CodeMalformedPart, CodeMalformedPart, ""}},
	{name: "null text is absent", in: `{"contents":[{"uri":"a","text":null,"blob":"AQID"}]}`,
		kinds: []string{KindBinary}, partErr: []string{""}},
	{name: "missing contents", in: `{"resources":[]}`, code: CodeBadContents, msg: `no "contents"`},
	{name: "null contents", in: `{"contents":null}`, code: CodeBadContents, msg: `no "contents"`},
	{name: "contents not array", in: `{"contents":{"uri":"a"}}`, code: CodeBadContents, msg: `is a JSON object, want an array`},
	{name: "contents string", in: `{"contents":"x"}`, code: CodeBadContents, msg: `is a JSON string`},
	{name: "not an object", in: `[{"uri":"a","text":"x"}]`, code: CodeBadContents, msg: "not a JSON object"},
	{name: "empty input", in: ``, code: CodeBadContents, msg: "not a JSON object"},
	{name: "truncated", in: `{"contents":[{"uri":"a","text":"x"}`, code: CodeBadContents, msg: "not valid JSON"},
}

func TestFromReadResult(t *testing.T) {
	for _, tc := range readResultCases {
		t.Run(tc.name, func(t *testing.T) {
			atts, err := FromReadResult([]byte(tc.in), nil)
			if tc.code != "" {
				var e *Error
				if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.msg) || atts != nil {
					t.Fatalf("got %v, %v; want code %q with %q", atts, err, tc.code, tc.msg)
				}
				if !errors.Is(err, ErrBadContents) || e.Index != -1 {
					t.Errorf("errors.Is/Index: %v %d", err, e.Index)
				}
				if _, derr := DecodeContents([]byte(tc.in)); derr == nil {
					t.Error("DecodeContents accepted it")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(atts) != len(tc.kinds) {
				t.Fatalf("got %d attachments, want %d", len(atts), len(tc.kinds))
			}
			for i, a := range atts {
				code := ""
				if a.Error != nil {
					code = a.Error.Code
					if a.Error.Index != i {
						t.Errorf("part %d: error index %d", i, a.Error.Index)
					}
				}
				if a.Kind != tc.kinds[i] || code != tc.partErr[i] || a.Part != i {
					t.Errorf("part %d: kind %q code %q, want %q %q", i, a.Kind, code, tc.kinds[i], tc.partErr[i])
				}
			}
		})
	}
}

func TestDecodeContentsNamesMalformedPart(t *testing.T) {
	_, err := DecodeContents([]byte(`{"contents":[{"uri":"a","text":"x"},{"uri":"docs://b","mimeType":7,"text":"y"}]}`))
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeMalformedPart || e.Index != 1 || e.URI != "docs://b" ||
		!strings.Contains(e.Message, `"mimeType"`) || !strings.Contains(e.Message, "part 1") {
		t.Fatalf("err = %+v", err)
	}
	cs, err := DecodeContents([]byte(`{"contents":[{"uri":"a","text":""}]}`))
	if err != nil || len(cs) != 1 || cs[0].Text == nil || *cs[0].Text != "" {
		t.Fatalf("empty text: %v %v", cs, err)
	}
}

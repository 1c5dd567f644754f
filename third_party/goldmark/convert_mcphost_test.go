package goldmark

import (
	"bytes"
	"testing"
)

// TestConvertLazyDefault: Convert, whose default converter is now built on
// first use, renders as a converter built by New does, and builds it once.
func TestConvertLazyDefault(t *testing.T) {
	src := []byte("# Title\n\nSome *emphasis* and [a link](https://example.com).\n")
	var got, want bytes.Buffer
	if err := Convert(src, &got); err != nil {
		t.Fatal(err)
	}
	if err := New().Convert(src, &want); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("Convert = %q, New().Convert = %q", got.String(), want.String())
	}
	if defaultMarkdown() != defaultMarkdown() {
		t.Error("the default converter was built twice")
	}
}

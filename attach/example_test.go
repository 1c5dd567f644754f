package attach_test

import (
	"fmt"

	"github.com/mcphost/mcphost/attach"
)

func ExampleFromReadResult() {
	raw := []byte(`{"contents":[
		{"uri":"docs://a.md","mimeType":"text/markdown","text":"# Hi [x](javascript:alert(1))"},
		{"uri":"docs://empty.md","mimeType":"text/markdown"},
		{"uri":"docs://dot.png","mimeType":"image/png","blob":"not base64!"}]}`)
	atts, err := attach.FromReadResult(raw, nil)
	if err != nil {
		panic(err)
	}
	for _, a := range atts {
		if a.Error != nil {
			fmt.Println(a.Part, a.Kind, a.Error.Code)
			continue
		}
		fmt.Println(a.Part, a.Kind, a.MIMEType, a.Tokens, a.HTML)
	}
	// Output:
	// 0 text text/markdown 8 <h1>Hi x</h1>
	//
	// 1 error neither_payload
	// 2 error bad_base64
}

func ExampleExpand() {
	uri, _ := attach.Expand("docs://team/{team}/policy/{name}{?v}", map[string]string{
		"team": "../../secrets", "name": "a/b?x", "v": "2"})
	fmt.Println(uri)
	_, err := attach.Expand("docs://team/{team}", map[string]string{"team": ".."})
	fmt.Println(err)
	fmt.Println(attach.TemplateVars("docs://team/{team}/policy/{name}{?v}"))
	// Output:
	// docs://team/..%2F..%2Fsecrets/policy/a%2Fb%3Fx?v=2
	// attach: uri template "docs://team/{team}": variable "team": value ".." is refused: it would step through the path
	// [team name v]
}

func ExampleIndex_Query() {
	x := attach.NewIndex()
	x.AddResources(
		attach.Resource{URI: "docs://onboarding.md", Name: "onboarding", Title: "Onboarding"},
		attach.Resource{URI: "docs://team/ops.md", Name: "ops", Description: "On-call notes"},
	)
	for _, m := range x.Query("onb", attach.QueryOptions{Limit: 5}) {
		fmt.Println(m.Resource.URI, m.Highlights.Name)
	}
	// Output:
	// docs://onboarding.md [[0 3]]
}

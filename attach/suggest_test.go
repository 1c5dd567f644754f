package attach

import (
	"testing"
)

func doc(uri, title string) Resource {
	return Resource{URI: uri, Name: uri[lastSlash(uri)+1:], Title: title}
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// corpus is a folder of documents like the sample docs, after renames.
var suggestCorpus = []Resource{
	doc("docs://team/platform/policy/oncall-escalation-policy.md", "Oncall escalation policy"),
	doc("docs://team/platform/policy/on-call-rotation.md", "On-call rotation"),
	doc("docs://team/platform/policy/access-control.md", "Access control"),
	doc("docs://team/platform/policy/change-management.md", "Change management"),
	doc("docs://team/support/policy/escalation.md", "Support escalation"),
	doc("docs://team/platform/runbook/database-failover.md", "Database failover"),
	doc("docs://team/platform/onboarding/developer-environment.md", "Developer environment"),
	doc("docs://team/payments/runbook/refunds-backlog.md", "Refunds backlog"),
	doc("docs://team/payments/reference/api-changelog.md", "API changelog"),
	doc("docs://team/payments/architecture/ledger-architecture.md", "Ledger architecture"),
	doc("docs://team/support/onboarding/welcome-guide.md", "Welcome guide"),
	doc("docs://team/payments/policy/pci-dss-scope.md", "PCI DSS scope"),
}

// TestSuggestRenames: each renamed document's new descriptor ranks first
// among the listed ones.
func TestSuggestRenames(t *testing.T) {
	cases := []struct {
		name  string
		old   Resource
		first string // "" when nothing may be suggested
	}{
		{"compound: on-call-escalation to oncall-escalation-policy",
			Resource{URI: "docs://team/platform/policy/on-call-escalation", Name: "on-call-escalation", Title: "On-call escalation"},
			"docs://team/platform/policy/oncall-escalation-policy.md"},
		{"uri only, no title or name",
			Resource{URI: "docs://team/platform/policy/on-call-escalation.md"},
			"docs://team/platform/policy/oncall-escalation-policy.md"},
		{"word added: dev-environment to developer-environment (prefix)",
			Resource{URI: "docs://team/platform/onboarding/dev-environment.md", Name: "dev-environment.md", Title: "Development environment"},
			"docs://team/platform/onboarding/developer-environment.md"},
		{"plural: refund-backlog to refunds-backlog",
			Resource{URI: "docs://team/payments/runbook/refund-backlog.md", Name: "refund-backlog.md", Title: "Refund backlog"},
			"docs://team/payments/runbook/refunds-backlog.md"},
		{"camelCase name: apiChangelog to api-changelog",
			Resource{URI: "docs://team/payments/reference/apiChangelog.md", Name: "apiChangelog.md"},
			"docs://team/payments/reference/api-changelog.md"},
		{"suffix word: ledger to ledger-architecture",
			Resource{URI: "docs://team/payments/architecture/ledger.md", Name: "ledger.md", Title: "Ledger"},
			"docs://team/payments/architecture/ledger-architecture.md"},
		{"moved folder: welcome from platform/onboarding to support/onboarding/welcome-guide",
			Resource{URI: "docs://team/platform/onboarding/welcome.md", Name: "welcome.md", Title: "Welcome"},
			"docs://team/support/onboarding/welcome-guide.md"},
		{"same folder wins a tie of words: escalation",
			Resource{URI: "docs://team/support/policy/escalations.md", Name: "escalations.md", Title: "Escalations"},
			"docs://team/support/policy/escalation.md"},
		{"nothing in common: no suggestion even in the same folder",
			Resource{URI: "docs://team/platform/policy/vacation-calendar.md", Name: "vacation-calendar.md", Title: "Vacation calendar"},
			""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Suggest(tc.old, suggestCorpus)
			if len(got) > MaxSuggestions {
				t.Fatalf("%d suggestions, want at most %d", len(got), MaxSuggestions)
			}
			for i, s := range got {
				if s.Score < MinSuggestionScore || s.Score > 1 {
					t.Errorf("suggestion %d %s: score %v out of [%v, 1]", i, s.Resource.URI, s.Score, MinSuggestionScore)
				}
				if i > 0 && s.Score > got[i-1].Score {
					t.Errorf("suggestion %d scores %v above the one before (%v)", i, s.Score, got[i-1].Score)
				}
				if s.Resource.URI == tc.old.URI {
					t.Errorf("the old URI is suggested")
				}
			}
			if tc.first == "" {
				if len(got) != 0 {
					t.Fatalf("got %v, want no suggestion", got)
				}
				return
			}
			if len(got) == 0 || got[0].Resource.URI != tc.first {
				t.Fatalf("got %v, want %s first", got, tc.first)
			}
		})
	}
}

// TestSuggestSubsequenceBreaksTies: with equal scores, the candidate the
// old name matches better as a picker query comes first, whatever the
// listing order.
func TestSuggestSubsequenceBreaksTies(t *testing.T) {
	old := Resource{URI: "x://a/alpha-beta", Name: "alpha-beta"}
	cands := []Resource{
		{URI: "x://b/beta-alpha", Name: "beta-alpha"},
		{URI: "x://b/alpha-beta", Name: "alpha-beta"},
	}
	// Same words either way; the second keeps their order, so the old
	// name is a prefix of its name.
	got := Suggest(old, cands)
	if len(got) != 2 {
		t.Fatalf("got %v", got)
	}
	if got[0].Score != got[1].Score {
		t.Fatalf("scores differ (%v, %v): the case does not test the tie", got[0].Score, got[1].Score)
	}
	if got[0].Resource.URI != "x://b/alpha-beta" {
		t.Fatalf("got %s first, want the in-order match", got[0].Resource.URI)
	}
}

func TestSuggestTopFive(t *testing.T) {
	old := Resource{URI: "x://f/report", Name: "report"}
	var cands []Resource
	for _, n := range []string{"report-1", "report-2", "report-3", "report-4", "report-5", "report-6", "report-7"} {
		cands = append(cands, Resource{URI: "x://f/" + n, Name: n})
	}
	if got := Suggest(old, cands); len(got) != MaxSuggestions {
		t.Fatalf("%d suggestions, want %d", len(got), MaxSuggestions)
	}
}

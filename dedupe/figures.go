package dedupe

import (
	"encoding/json"
	"fmt"
)

// counters are one session's raw counts, kept under the Ledger's mutex.
type counters struct {
	lists, reads, attachments             int64
	toolResults, withAttachment, carrying int64
	duplicatesDropped, linksDropped       int64
	superseded, bytesSaved, tokensSaved   int64
}

// RecordList counts one resources/list (or templates/list) the session
// made. Whether a session lists at all is one of the product's questions.
func (l *Ledger) RecordList() {
	l.mu.Lock()
	l.c.lists++
	l.mu.Unlock()
}

// RecordRead counts one resources/read the user or model asked for. The
// host's own freshness re-reads should not be counted: they follow an
// attachment, which needed a read already.
func (l *Ledger) RecordRead() {
	l.mu.Lock()
	l.c.reads++
	l.mu.Unlock()
}

// Figures returns this session's counters as a one-session Figures.
// Tool results are counted by Filter and attachments by Attach.
func (l *Ledger) Figures() Figures {
	l.mu.Lock()
	c := l.c
	l.mu.Unlock()
	return Figures{
		Sessions:                    1,
		SessionsListed:              b2i(c.lists > 0),
		SessionsRead:                b2i(c.reads > 0),
		SessionsReadWithoutList:     b2i(c.reads > 0 && c.lists == 0),
		SessionsListedWithoutRead:   b2i(c.lists > 0 && c.reads == 0),
		Lists:                       c.lists,
		Reads:                       c.reads,
		Attachments:                 c.attachments,
		ToolResults:                 c.toolResults,
		ToolResultsWithAttachment:   c.withAttachment,
		ToolResultsCarryingAttached: c.carrying,
		DuplicatesDropped:           c.duplicatesDropped,
		LinksDropped:                c.linksDropped,
		Superseded:                  c.superseded,
		BytesSaved:                  c.bytesSaved,
		TokensSaved:                 c.tokensSaved,
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Figures are counters over one or more sessions. Every field is a sum, so
// Figures from many sessions (or many hosts) combine with Merge; the
// per-session facts are stored as counts of sessions, each counted
// directly rather than derived by subtraction.
type Figures struct {
	Sessions int64 `json:"sessions"`
	// Sessions that listed resources at least once.
	SessionsListed int64 `json:"sessionsListed"`
	// Sessions that read a resource at least once.
	SessionsRead int64 `json:"sessionsRead"`
	// Sessions that read without ever listing (a stored or typed URI).
	SessionsReadWithoutList int64 `json:"sessionsReadWithoutList"`
	// Sessions that listed and never read.
	SessionsListedWithoutRead int64 `json:"sessionsListedWithoutRead"`

	Lists       int64 `json:"lists"`
	Reads       int64 `json:"reads"`
	Attachments int64 `json:"attachments"` // distinct documents attached
	// Tool results seen by Filter, including isError results.
	ToolResults int64 `json:"toolResults"`
	// Non-error tool results that arrived while at least one document was
	// attached: the duplicate delivery rate's denominator.
	ToolResultsWithAttachment int64 `json:"toolResultsWithAttachment"`
	// Of those, results with at least one block naming an attached URI
	// (embedded or linked, duplicate or newer): the numerator.
	ToolResultsCarryingAttached int64 `json:"toolResultsCarryingAttached"`
	DuplicatesDropped           int64 `json:"duplicatesDropped"` // embedded resources
	LinksDropped                int64 `json:"linksDropped"`      // resource_link blocks
	Superseded                  int64 `json:"superseded"`        // attachments replaced by a newer copy
	// Payload bytes of dropped embedded resources plus the JSON bytes of
	// dropped links, and their estimated tokens (ceil(bytes/4)).
	BytesSaved  int64 `json:"bytesSaved"`
	TokensSaved int64 `json:"tokensSaved"`
}

// Merge adds g into f.
func (f *Figures) Merge(g Figures) {
	f.Sessions += g.Sessions
	f.SessionsListed += g.SessionsListed
	f.SessionsRead += g.SessionsRead
	f.SessionsReadWithoutList += g.SessionsReadWithoutList
	f.SessionsListedWithoutRead += g.SessionsListedWithoutRead
	f.Lists += g.Lists
	f.Reads += g.Reads
	f.Attachments += g.Attachments
	f.ToolResults += g.ToolResults
	f.ToolResultsWithAttachment += g.ToolResultsWithAttachment
	f.ToolResultsCarryingAttached += g.ToolResultsCarryingAttached
	f.DuplicatesDropped += g.DuplicatesDropped
	f.LinksDropped += g.LinksDropped
	f.Superseded += g.Superseded
	f.BytesSaved += g.BytesSaved
	f.TokensSaved += g.TokensSaved
}

// Ratios are the derived figures, each between 0 and 1 (0 when its
// denominator is 0).
type Ratios struct {
	// ListShare: sessions that listed ÷ sessions.
	ListShare float64 `json:"listShare"`
	// ReadReach: sessions that read at least once ÷ sessions.
	ReadReach float64 `json:"readReach"`
	// ListWithoutRead: sessions that listed and never read ÷ sessions.
	// Not ListShare − ReadReach: some sessions read without listing.
	ListWithoutRead float64 `json:"listWithoutRead"`
	// DuplicateDelivery: tool results carrying an attached URI ÷ tool
	// results arriving while something was attached.
	DuplicateDelivery float64 `json:"duplicateDelivery"`
}

// Ratios derives the ratios from the counters.
func (f Figures) Ratios() Ratios {
	return Ratios{
		ListShare:         ratio(f.SessionsListed, f.Sessions),
		ReadReach:         ratio(f.SessionsRead, f.Sessions),
		ListWithoutRead:   ratio(f.SessionsListedWithoutRead, f.Sessions),
		DuplicateDelivery: ratio(f.ToolResultsCarryingAttached, f.ToolResultsWithAttachment),
	}
}

func ratio(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// MarshalJSON encodes the counters and, under "ratios", the derived ratios.
// Decoding ignores "ratios", so the JSON round-trips.
func (f Figures) MarshalJSON() ([]byte, error) {
	type plain Figures
	return json.Marshal(struct {
		plain
		Ratios Ratios `json:"ratios"`
	}{plain(f), f.Ratios()})
}

// Thresholds are the two decision rules' parameters.
type Thresholds struct {
	// OfferBelowReadReach: offer a fetch tool to hosts whose read reach is
	// below this (e.g. 0.20): their users rarely read resources themselves.
	OfferBelowReadReach float64 `json:"offerBelowReadReach"`
	// WithdrawAboveDuplicateDelivery: withdraw the fetch tool when more
	// than this share of tool results carried an already attached URI.
	WithdrawAboveDuplicateDelivery float64 `json:"withdrawAboveDuplicateDelivery"`
}

// Decision is the outcome of Decide.
type Decision struct {
	OfferFetchTool bool   `json:"offerFetchTool"`
	Reason         string `json:"reason"`
}

// Decide applies the thresholds. Duplicate delivery above its threshold
// wins over low read reach: a fetch tool that mostly delivers copies of
// attached documents costs tokens and helps nobody. Without any sessions
// there is nothing to decide on and no tool is offered.
func (f Figures) Decide(t Thresholds) Decision {
	r := f.Ratios()
	switch {
	case f.ToolResultsWithAttachment > 0 && r.DuplicateDelivery > t.WithdrawAboveDuplicateDelivery:
		return Decision{false, fmt.Sprintf("withdraw: duplicate delivery %.1f%% > %.1f%%",
			100*r.DuplicateDelivery, 100*t.WithdrawAboveDuplicateDelivery)}
	case f.Sessions == 0:
		return Decision{false, "no sessions recorded"}
	case r.ReadReach < t.OfferBelowReadReach:
		return Decision{true, fmt.Sprintf("offer: read reach %.1f%% < %.1f%%",
			100*r.ReadReach, 100*t.OfferBelowReadReach)}
	}
	return Decision{false, fmt.Sprintf("not needed: read reach %.1f%% >= %.1f%%",
		100*r.ReadReach, 100*t.OfferBelowReadReach)}
}

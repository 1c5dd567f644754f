// Package gen builds the generated sample documents (see gendocs).
package gen

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A File is one generated document, Path relative to the documents root.
type File struct {
	Path string
	Data []byte
}

// Paths of the generated documents.
const (
	ArchitecturePath = "platform/architecture/system-overview.png"
	ScreenshotPath   = "payments/architecture/ledger-reconciliation.jpg"
	DisguisedPath    = "support/media/queue-dashboard.png" // a JPEG saved as .png
	ChangelogPath    = "payments/reference/api-changelog.md"
	HostilePath      = "support/reference/hostile-ticket-export.md"
)

// All returns every generated document. xssDir holds the XSS corpus.
func All(xssDir string) ([]File, error) {
	hostile, err := Hostile(xssDir)
	if err != nil {
		return nil, err
	}
	return []File{
		{ArchitecturePath, ArchitecturePNG()},
		{ScreenshotPath, ScreenshotJPEG(960, 600)},
		{DisguisedPath, ScreenshotJPEG(640, 400)},
		{ChangelogPath, Changelog()},
		{HostilePath, hostile},
	}, nil
}

type canvas struct{ *image.RGBA }

func newCanvas(w, h int, bg color.RGBA) canvas {
	c := canvas{image.NewRGBA(image.Rect(0, 0, w, h))}
	c.fill(0, 0, w, h, bg)
	return c
}

func (c canvas) fill(x0, y0, x1, y1 int, col color.RGBA) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			c.SetRGBA(x, y, col)
		}
	}
}

func (c canvas) box(x0, y0, x1, y1 int, fillc, border color.RGBA) {
	c.fill(x0, y0, x1, y1, border)
	c.fill(x0+3, y0+3, x1-3, y1-3, fillc)
}

func (c canvas) hline(x0, x1, y int, col color.RGBA) { c.fill(min(x0, x1), y-1, max(x0, x1), y+2, col) }
func (c canvas) vline(x, y0, y1 int, col color.RGBA) { c.fill(x-1, min(y0, y1), x+2, max(y0, y1), col) }

// arrowDown draws a downward arrow head ending at (x, y).
func (c canvas) arrowDown(x, y int, col color.RGBA) {
	for i := 0; i < 8; i++ {
		c.fill(x-i, y-i-1, x+i+1, y-i, col)
	}
}

// ArchitecturePNG draws the platform's request path: edge, gateway, three
// services, and the shared stores, as boxes joined by arrows.
func ArchitecturePNG() []byte {
	var (
		bg     = color.RGBA{248, 249, 251, 255}
		ink    = color.RGBA{52, 64, 84, 255}
		edge   = color.RGBA{214, 228, 255, 255}
		gw     = color.RGBA{200, 236, 214, 255}
		svc    = color.RGBA{255, 240, 204, 255}
		store  = color.RGBA{236, 222, 255, 255}
		region = color.RGBA{228, 231, 236, 255}
	)
	c := newCanvas(800, 520, bg)
	c.box(20, 20, 780, 500, region, color.RGBA{190, 196, 206, 255})
	c.box(320, 40, 480, 100, edge, ink)  // edge
	c.box(320, 150, 480, 210, gw, ink)   // gateway
	c.box(80, 270, 240, 330, svc, ink)   // payments-api
	c.box(320, 270, 480, 330, svc, ink)  // accounts
	c.box(560, 270, 720, 330, svc, ink)  // notifications
	c.box(80, 400, 240, 460, store, ink) // postgres
	c.box(320, 400, 480, 460, store, ink)
	c.box(560, 400, 720, 460, store, ink)
	c.vline(400, 100, 150, ink)
	c.arrowDown(400, 150, ink)
	c.vline(400, 210, 240, ink)
	c.hline(160, 640, 240, ink)
	for _, x := range []int{160, 400, 640} {
		c.vline(x, 240, 270, ink)
		c.arrowDown(x, 270, ink)
		c.vline(x, 330, 400, ink)
		c.arrowDown(x, 400, ink)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, c); err != nil {
		panic(err) // encoding to memory cannot fail
	}
	return b.Bytes()
}

// ScreenshotJPEG draws a reconciliation console: title bar, sidebar, a table
// with alternating rows and status cells, and a bar chart.
func ScreenshotJPEG(w, h int) []byte {
	r := rand.New(rand.NewPCG(7, uint64(w)))
	var (
		bg      = color.RGBA{255, 255, 255, 255}
		bar     = color.RGBA{33, 41, 60, 255}
		side    = color.RGBA{240, 242, 246, 255}
		rowA    = color.RGBA{250, 251, 252, 255}
		rowB    = color.RGBA{238, 241, 245, 255}
		ok      = color.RGBA{46, 160, 67, 255}
		warn    = color.RGBA{210, 153, 34, 255}
		bad     = color.RGBA{207, 34, 46, 255}
		text    = color.RGBA{120, 128, 140, 255}
		chart   = color.RGBA{56, 132, 244, 255}
		divider = color.RGBA{220, 224, 230, 255}
	)
	c := newCanvas(w, h, bg)
	c.fill(0, 0, w, 40, bar)
	for i := 0; i < 4; i++ {
		c.fill(16+i*90, 14, 16+i*90+60, 26, color.RGBA{90, 102, 125, 255})
	}
	sw := w / 5
	c.fill(0, 40, sw, h, side)
	for i := 0; i < 8; i++ {
		c.fill(16, 64+i*32, sw-24, 76+i*32, divider)
	}
	tx, ty := sw+20, 60
	rows := (h - ty - 160) / 24
	for i := 0; i < rows; i++ {
		col := rowA
		if i%2 == 1 {
			col = rowB
		}
		y := ty + i*24
		c.fill(tx, y, w-20, y+24, col)
		c.fill(tx+8, y+8, tx+8+40+r.IntN(80), y+16, text)
		c.fill(tx+200, y+8, tx+200+30+r.IntN(60), y+16, text)
		status := ok
		switch n := r.IntN(10); {
		case n == 0:
			status = bad
		case n < 3:
			status = warn
		}
		c.fill(w-80, y+6, w-40, y+18, status)
	}
	base := h - 30
	for i := 0; tx+i*22+14 < w-20; i++ {
		hh := 20 + r.IntN(90)
		c.fill(tx+i*22, base-hh, tx+i*22+14, base, chart)
	}
	c.hline(tx, w-20, base, divider)
	var b bytes.Buffer
	if err := jpeg.Encode(&b, c, &jpeg.Options{Quality: 82}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// Changelog writes the payments API changelog: a realistic, deterministic
// Markdown document of about 1.3 MB with headings, lists, tables and code.
func Changelog() []byte {
	r := rand.New(rand.NewPCG(2024, 11))
	areas := []string{"payments", "refunds", "payouts", "disputes", "webhooks", "customers", "invoices", "ledger", "tokens", "reports"}
	verbs := []string{"Added", "Changed", "Fixed", "Deprecated", "Removed", "Security"}
	fields := []string{"amount", "currency", "status", "created_at", "metadata", "idempotency_key", "reason", "reference", "tenant_id", "settled_at", "fee", "net"}
	phrases := []string{
		"now accepts an optional %s field",
		"returns %s in the list response",
		"no longer rounds %s for zero-decimal currencies",
		"validates %s before contacting the PSP",
		"includes %s in the webhook payload",
		"rejects an empty %s with a 422 and a field error",
		"sorts by %s when no order is given",
		"documents %s as read-only",
	}
	var b strings.Builder
	b.WriteString("# Payments API changelog\n\n")
	b.WriteString("Every change to the public Payments API since version 1.0, newest first. Breaking changes are marked **breaking** and always ship behind a new API version header first.\n\n")
	b.WriteString("| Version range | Support status |\n|---|---|\n| 5.x | current |\n| 4.x | security fixes until 2027-06 |\n| 3.x and older | unsupported |\n\n")
	major, minor, patch := 5, 40, 0
	year, month, day := 2026, 11, 28
	for b.Len() < 1_300_000 {
		fmt.Fprintf(&b, "## %d.%d.%d — %04d-%02d-%02d\n\n", major, minor, patch, year, month, day)
		n := 2 + r.IntN(5)
		for i := 0; i < n; i++ {
			area := areas[r.IntN(len(areas))]
			verb := verbs[r.IntN(len(verbs))]
			field := fields[r.IntN(len(fields))]
			phrase := fmt.Sprintf(phrases[r.IntN(len(phrases))], "`"+field+"`")
			mark := ""
			if verb == "Removed" || (verb == "Changed" && r.IntN(4) == 0) {
				mark = " **breaking**"
			}
			fmt.Fprintf(&b, "- %s%s: `POST /v%d/%s` %s.\n", verb, mark, major, area, phrase)
		}
		b.WriteString("\n")
		switch r.IntN(4) {
		case 0:
			area := areas[r.IntN(len(areas))]
			fmt.Fprintf(&b, "Example request:\n\n```json\n{\n  \"amount\": %d,\n  \"currency\": \"%s\",\n  \"reference\": \"%s-%06d\",\n  \"metadata\": {\"order\": \"%d\"}\n}\n```\n\n",
				100+r.IntN(99900), []string{"EUR", "USD", "GBP", "JPY", "SEK"}[r.IntN(5)], area, r.IntN(1_000_000), r.IntN(100000))
		case 1:
			b.WriteString("| Field | Type | Note |\n|---|---|---|\n")
			for i := 0; i < 3; i++ {
				f := fields[r.IntN(len(fields))]
				fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f, []string{"string", "integer", "object", "timestamp"}[r.IntN(4)], []string{"optional", "required", "read-only", "nullable"}[r.IntN(4)])
			}
			b.WriteString("\n")
		case 2:
			fmt.Fprintf(&b, "> Migration: clients on %d.%d or older should send `Payments-Version: %d.%d` to opt in before the default changes.\n\n", major, max(minor-1, 0), major, minor)
		}
		// Walk back in time.
		if patch > 0 {
			patch--
		} else if minor > 0 {
			minor--
			patch = r.IntN(6)
		} else {
			major--
			minor, patch = 40, r.IntN(6)
		}
		day -= 1 + r.IntN(3)
		if day < 1 {
			day += 28
			month--
			if month < 1 {
				month = 12
				year--
			}
		}
	}
	return []byte(b.String())
}

// Hostile builds a "ticket export" whose bodies are the XSS corpus: every
// *.md file of xssDir (README excluded) in name order, each under a heading.
// Rendered by the demo, it must stay inert.
func Hostile(xssDir string) ([]byte, error) {
	names, err := filepath.Glob(filepath.Join(xssDir, "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("# Ticket export: hostile content\n\n")
	b.WriteString("Customer-supplied ticket bodies exported verbatim, including attempts at script injection. Rendering this document must run no script, load no remote resource and follow no javascript: link.\n\n")
	n := 0
	for _, p := range names {
		base := filepath.Base(p)
		if strings.EqualFold(base, "README.md") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		n++
		fmt.Fprintf(&b, "## Ticket %d (%s)\n\n%s\n\n", n, strings.TrimSuffix(base, ".md"), strings.TrimRight(string(data), "\n"))
	}
	if n == 0 {
		return nil, fmt.Errorf("gendocs: no XSS vectors (*.md) in %s", xssDir)
	}
	return []byte(b.String()), nil
}

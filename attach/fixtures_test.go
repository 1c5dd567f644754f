package attach

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

var updateFixtures = flag.Bool("update-fixtures", false, "rewrite testdata/fixtures from the generators in fixtures_test.go")

const fixtureDir = "../testdata/fixtures"

// webpLossless is a 1×1 lossless (VP8L) WebP, the image browsers use to
// probe lossless WebP support.
const webpLossless = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="

func gradient(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeGIF(t testing.TB) []byte {
	var frames []*image.Paletted
	for k := range 2 {
		p := image.NewPaletted(image.Rect(0, 0, 8, 8), palette.Plan9)
		for y := range 8 {
			for x := range 8 {
				p.SetColorIndex(x, y, uint8((x+y+k*7)%255))
			}
		}
		frames = append(frames, p)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: frames, Delay: []int{20, 20}}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// minimalPDF builds a one-page PDF 1.4 with a correct xref table.
func minimalPDF() []byte {
	content := "BT /F1 18 Tf 20 40 Td (mcphost test) Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// hostileSVG would call window.__xss() if it were ever rendered as a
// document; as an image it must never reach the model.
const hostileSVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16" onload="window.__xss()">
  <script>window.__xss()</script>
  <rect width="16" height="16" fill="#4a90d9"/>
</svg>
`

const csvFixture = "name,qty,price\napple,3,0.50\npear,5,0.75\nplum,12,0.20\n"

// fixtures maps each committed fixture to its generator.
func fixtures(t testing.TB) map[string][]byte {
	webp, err := base64.StdEncoding.DecodeString(webpLossless)
	if err != nil {
		t.Fatal(err)
	}
	jpg := encodeJPEG(t, gradient(16, 16))
	return map[string][]byte{
		"image.png":             encodePNG(t, gradient(16, 16)),
		"photo.jpg":             jpg,
		"jpeg-declared-png.png": jpg, // a JPEG renamed .png; tests declare it image/png
		"anim.gif":              encodeGIF(t),
		"lossless.webp":         webp,
		"doc.pdf":               minimalPDF(),
		"drawing.svg":           []byte(hostileSVG),
		"table.csv":             []byte(csvFixture),
	}
}

// readFixture returns a committed fixture's bytes.
func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("fixture %s: %v (regenerate with go test ./attach -run TestFixtures -update-fixtures)", name, err)
	}
	return b
}

// TestFixtures checks that the committed fixtures are what the generators
// make (so they stay reproducible) and rewrites them with -update-fixtures.
func TestFixtures(t *testing.T) {
	for name, want := range fixtures(t) {
		path := filepath.Join(fixtureDir, name)
		if *updateFixtures {
			if err := os.MkdirAll(fixtureDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got := readFixture(t, name); !bytes.Equal(got, want) {
			t.Errorf("fixture %s differs from its generator (%d vs %d bytes); run with -update-fixtures", name, len(got), len(want))
		}
	}
}

// bigPNG returns a noise PNG of exactly size bytes (size must exceed the
// encoded image): incompressible pixels plus a private ancillary chunk as
// padding. It stands for the 1.8 MB screenshot of the arithmetic.
func bigPNG(t testing.TB, size int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 700, 640))
	seed := uint32(2463534242)
	for i := range img.Pix {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		img.Pix[i] = byte(seed)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	enc := png.Encoder{CompressionLevel: png.NoCompression}
	var b bytes.Buffer
	if err := enc.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	pad := size - len(data) - 12 // chunk = length(4) + type(4) + data + crc(4)
	if pad < 0 {
		t.Fatalf("bigPNG: image is %d bytes, over the requested %d", len(data), size)
	}
	iend := data[len(data)-12:]
	chunk := make([]byte, 12+pad)
	chunk[0], chunk[1], chunk[2], chunk[3] = byte(pad>>24), byte(pad>>16), byte(pad>>8), byte(pad)
	copy(chunk[4:], "ppAd")
	crc := crc32PNG(chunk[4 : 8+pad])
	chunk[8+pad], chunk[9+pad], chunk[10+pad], chunk[11+pad] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
	out := append(append(append([]byte{}, data[:len(data)-12]...), chunk...), iend...)
	if len(out) != size {
		t.Fatalf("bigPNG: got %d bytes, want %d", len(out), size)
	}
	return out
}

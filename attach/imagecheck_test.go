package attach

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"strings"
	"testing"
)

// imageTypes indexes the checked types for the fuzz target.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// setPNGSize rewrites a PNG's IHDR dimensions and its CRC.
func setPNGSize(b []byte, w, h uint32) []byte {
	b = append([]byte{}, b...)
	for i, v := range []uint32{w, h} {
		b[16+4*i], b[17+4*i], b[18+4*i], b[19+4*i] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	crc := crc32PNG(b[12:29])
	b[29], b[30], b[31], b[32] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
	return b
}

// jpegSegments inserts segments (marker, payload) right after a JPEG's SOI.
func jpegSegments(b []byte, segs ...[]byte) []byte {
	out := append([]byte{}, b[:2]...)
	for _, s := range segs {
		n := len(s) - 1 + 2 // s[0] is the marker
		out = append(out, 0xFF, s[0], byte(n>>8), byte(n))
		out = append(out, s[1:]...)
	}
	return append(out, b[2:]...)
}

// app returns an APPn segment of size payload bytes (at most 65,533).
func app(n byte, size int, tag string) []byte {
	s := make([]byte, 1+size)
	s[0] = 0xE0 + n
	copy(s[1:], tag)
	return s
}

func riff(chunks ...[]byte) []byte {
	var body []byte
	body = append(body, "WEBP"...)
	for _, c := range chunks {
		body = append(body, c...)
		if len(c)%2 == 1 {
			body = append(body, 0)
		}
	}
	n := len(body)
	return append([]byte{'R', 'I', 'F', 'F', byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}, body...)
}

func webpChunk(fourcc string, payload []byte) []byte {
	n := len(payload)
	return append(append([]byte(fourcc), byte(n), byte(n>>8), byte(n>>16), byte(n>>24)), payload...)
}

// vp8Key is a VP8 key frame header of w×h (the frame data is not needed).
func vp8Key(w, h int) []byte {
	return []byte{0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A, byte(w), byte(w >> 8), byte(h), byte(h >> 8), 0, 0}
}

func vp8x(flags byte, w, h int) []byte {
	w, h = w-1, h-1
	return []byte{flags, 0, 0, 0, byte(w), byte(w >> 8), byte(w >> 16), byte(h), byte(h >> 8), byte(h >> 16)}
}

type imageCase struct {
	name string
	typ  string
	data []byte
	w, h uint64 // the declared size when valid
	err  string // a substring of the error when not
}

// imageCases are real images made by the standard library's encoders and
// hostile ones made from them; they seed FuzzImageHeader.
func imageCases(t testing.TB) []imageCase {
	pngRGBA := encodePNG(t, gradient(16, 9))
	pal := image.NewPaletted(image.Rect(0, 0, 7, 5), palette.WebSafe)
	gray16 := image.NewGray16(image.Rect(0, 0, 3, 300))
	gray16.Set(1, 1, color.Gray16{Y: 0xFFFF})
	jpg := encodeJPEG(t, gradient(40, 30))
	var gjpg bytes.Buffer
	if err := jpeg.Encode(&gjpg, image.NewGray(image.Rect(0, 0, 8, 1000)), nil); err != nil {
		t.Fatal(err)
	}
	var ggif bytes.Buffer // a global colour table and a GIF87a-sized header
	bw := color.Palette{color.Black, color.White}
	frame := image.NewPaletted(image.Rect(0, 0, 5, 3), bw)
	if err := gif.EncodeAll(&ggif, &gif.GIF{Image: []*image.Paletted{frame, frame}, Delay: []int{1, 1},
		Config: image.Config{Width: 5, Height: 3, ColorModel: bw}}); err != nil {
		t.Fatal(err)
	}
	webpLL, _ := base64.StdEncoding.DecodeString(webpLossless)
	html := []byte("<!DOCTYPE html><html><body><script>alert(1)</script></body></html>")
	sig := []byte("\x89PNG\r\n\x1a\n")
	badCRC := append([]byte{}, pngRGBA...)
	badCRC[32] ^= 0xFF
	badDepth := append([]byte{}, pngRGBA...)
	badDepth[24] = 3
	badDepth = setPNGSize(badDepth, 16, 9)
	ihdrOnly := append(append([]byte{}, pngRGBA[:33]...), html...)
	noIDAT := append(append([]byte{}, pngRGBA[:33]...), 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82)
	palNoPLTE := bytes.Replace(encodePNG(t, pal), []byte("PLTE"), []byte("pLTe"), 1)
	exif := jpegSegments(jpg, app(1, 65533, "Exif\x00\x00"), app(2, 6000, "ICC_PROFILE\x00"))
	sof := bytes.Index(jpg, []byte{0xFF, 0xC0})
	jpeg0x0 := append([]byte{}, jpg...)
	jpeg0x0[sof+5], jpeg0x0[sof+6], jpeg0x0[sof+7], jpeg0x0[sof+8] = 0, 0, 0, 0
	sos := bytes.Index(jpg, []byte{0xFF, 0xDA})
	jpegNoSOF := append(append([]byte{}, jpg[:sof]...), jpg[sos:]...)
	jpegFill := append(append(append([]byte{}, jpg[:2]...), 'x', 'y', 0xFF, 0xFF), jpg[2:]...)
	gifb := encodeGIF(t)
	gif0 := append([]byte{}, gifb...)
	gif0[6], gif0[7], gif0[8], gif0[9] = 0, 0, 0, 0
	webpBig := riff(webpChunk("VP8X", vp8x(0, 70000, 2)), webpChunk("VP8L", webpLL[20:]))
	webpShort := riff(webpChunk("VP8 ", vp8Key(64, 48)))
	webpShort[4]++ // the RIFF size claims one byte more than there is

	return []imageCase{
		{name: "png rgba", typ: "image/png", data: pngRGBA, w: 16, h: 9},
		{name: "png palette", typ: "image/png", data: encodePNG(t, pal), w: 7, h: 5},
		{name: "png gray16", typ: "image/png", data: encodePNG(t, gray16), w: 3, h: 300},
		{name: "png 1.8 MB with a private chunk", typ: "image/png", data: bigPNG(t, 1834208), w: 700, h: 640},
		{name: "png fixture", typ: "image/png", data: readFixture(t, "image.png"), w: 16, h: 16},
		{name: "png signature then html", typ: "image/png", data: append(append([]byte{}, sig...), html...),
			err: "PNG signature but no valid IHDR chunk"},
		{name: "png signature only", typ: "image/png", data: sig, err: "PNG signature but no valid IHDR chunk"},
		{name: "png truncated IHDR", typ: "image/png", data: pngRGBA[:24], err: "PNG signature but no valid IHDR chunk"},
		{name: "png bad IHDR CRC", typ: "image/png", data: badCRC, err: "bad CRC"},
		{name: "png bad bit depth", typ: "image/png", data: badDepth, err: "IHDR declares an invalid"},
		{name: "png 0x0", typ: "image/png", data: setPNGSize(pngRGBA, 0, 0), err: "declared 0x0"},
		{name: "png 0 wide", typ: "image/png", data: setPNGSize(pngRGBA, 0, 9), err: "declared 0x9"},
		{name: "png 100000x100000", typ: "image/png", data: setPNGSize(pngRGBA, 100000, 100000),
			err: "declared 100000x100000, over the 65535-pixel bound per side"},
		{name: "png 20000x20000", typ: "image/png", data: setPNGSize(pngRGBA, 20000, 20000),
			err: "over the 134217728-pixel bound"},
		{name: "png IHDR then html", typ: "image/png", data: ihdrOnly, err: "PNG is truncated"},
		{name: "png IEND before IDAT", typ: "image/png", data: noIDAT, err: "IEND before any IDAT"},
		{name: "png palette without PLTE", typ: "image/png", data: palNoPLTE, err: "without a PLTE chunk"},
		{name: "png cut inside IDAT", typ: "image/png", data: pngRGBA[:len(pngRGBA)-20], err: "truncated"},

		{name: "jpeg", typ: "image/jpeg", data: jpg, w: 40, h: 30},
		{name: "jpeg gray tall", typ: "image/jpeg", data: gjpg.Bytes(), w: 8, h: 1000},
		{name: "jpeg fixture", typ: "image/jpeg", data: readFixture(t, "photo.jpg"), w: 16, h: 16},
		{name: "jpeg 70 KB of APP1 and APP2 then SOF0", typ: "image/jpeg", data: exif, w: 40, h: 30},
		{name: "jpeg fill and extraneous bytes", typ: "image/jpeg", data: jpegFill, w: 40, h: 30},
		{name: "jpeg signature then html", typ: "image/jpeg", data: append([]byte{0xFF, 0xD8, 0xFF}, html...),
			err: "invalid marker"},
		{name: "jpeg without a frame header", typ: "image/jpeg", data: jpegNoSOF, err: "JPEG without a frame header"},
		{name: "jpeg APP0 then EOI", typ: "image/jpeg", data: jpegSegments([]byte{0xFF, 0xD8, 0xFF, 0xD9}, app(0, 14, "JFIF\x00")),
			err: "JPEG without a frame header"},
		{name: "jpeg cut in its APP1", typ: "image/jpeg", data: exif[:40000], err: "JPEG is truncated inside a segment"},
		{name: "jpeg cut before SOF", typ: "image/jpeg", data: jpg[:sof], err: "JPEG without a frame header"},
		{name: "jpeg 0x0", typ: "image/jpeg", data: jpeg0x0, err: "declared 0x0"},

		{name: "gif", typ: "image/gif", data: gifb, w: 8, h: 8},
		{name: "gif global colour table", typ: "image/gif", data: ggif.Bytes(), w: 5, h: 3},
		{name: "gif fixture", typ: "image/gif", data: readFixture(t, "anim.gif"), w: 8, h: 8},
		{name: "gif 0x0", typ: "image/gif", data: gif0, err: "declared 0x0"},
		{name: "gif signature then html", typ: "image/gif", data: append([]byte("GIF89a"), html...), err: "GIF declared"},
		{name: "gif signature then spaces", typ: "image/gif", data: []byte("GIF89a" + strings.Repeat(" ", 40)), err: "invalid block"},
		{name: "gif trailer only", typ: "image/gif", data: []byte("GIF89a\x08\x00\x08\x00\x00\x00\x00\x3B"), err: "trailer before any image"},
		{name: "gif cut in its colour table", typ: "image/gif", data: gifb[:100], err: "truncated"},

		{name: "webp lossless", typ: "image/webp", data: webpLL, w: 1, h: 1},
		{name: "webp lossy", typ: "image/webp", data: riff(webpChunk("VP8 ", vp8Key(64, 48))), w: 64, h: 48},
		{name: "webp extended", typ: "image/webp", data: riff(webpChunk("VP8X", vp8x(0x10, 1, 1)),
			webpChunk("ALPH", []byte{0, 1, 2}), webpChunk("VP8L", webpLL[20:])), w: 1, h: 1},
		{name: "webp animated", typ: "image/webp", data: riff(webpChunk("VP8X", vp8x(0x02, 300, 200)),
			webpChunk("ANIM", make([]byte, 6)), webpChunk("ANMF", make([]byte, 16+22))), w: 300, h: 200},
		{name: "webp signature then html", typ: "image/webp", data: append([]byte("RIFF\x40\x00\x00\x00WEBP"), html...),
			err: "no VP8, VP8L or VP8X chunk first"},
		{name: "webp RIFF size over the data", typ: "image/webp", data: webpShort, err: "shorter than its RIFF header declares"},
		{name: "webp lossy 0x0", typ: "image/webp", data: riff(webpChunk("VP8 ", vp8Key(0, 0))), err: "declared 0x0"},
		{name: "webp VP8 inter frame", typ: "image/webp", data: riff(webpChunk("VP8 ", append([]byte{1}, vp8Key(8, 8)[1:]...))),
			err: "key frame"},
		{name: "webp VP8L version 1", typ: "image/webp", data: riff(webpChunk("VP8L", []byte{0x2F, 0, 0, 0, 0x20})),
			err: "VP8L header is malformed"},
		{name: "webp canvas 70000 wide", typ: "image/webp", data: webpBig, err: "over the 65535-pixel bound per side"},
		{name: "webp VP8X without image", typ: "image/webp", data: riff(webpChunk("VP8X", vp8x(0, 4, 4)), webpChunk("EXIF", []byte("x"))),
			err: "VP8X without image data"},
	}
}

func TestImageHeaderTable(t *testing.T) {
	for _, tc := range imageCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			w, h, err := imageCheck(tc.typ)(tc.data)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || w != tc.w || h != tc.h {
				t.Fatalf("got %dx%d, %v; want %dx%d", w, h, err, tc.w, tc.h)
			}
			if cfg, _, err := image.DecodeConfig(bytes.NewReader(tc.data)); err == nil &&
				(uint64(cfg.Width) != w || uint64(cfg.Height) != h) {
				t.Errorf("the standard decoder says %dx%d", cfg.Width, cfg.Height)
			}
			// Bytes after a complete image are ignored, as decoders do.
			if _, _, err := imageCheck(tc.typ)(append(append([]byte{}, tc.data...), "<html>"...)); err != nil {
				t.Errorf("with trailing bytes: %v", err)
			}
		})
	}
}

// TestForwardOnlyValidImages: an image whose header fails the check is not
// forwarded; it stays as bytes with a warning naming the defect.
func TestForwardOnlyValidImages(t *testing.T) {
	byName := map[string]imageCase{}
	for _, tc := range imageCases(t) {
		byName[tc.name] = tc
	}
	cases := []struct {
		name, declared string
		opts           *Options
		forward        bool
		mime           string
		warnings       [][]string
	}{
		{name: "png rgba", declared: "image/png", forward: true, mime: "image/png"},
		{name: "jpeg 70 KB of APP1 and APP2 then SOF0", declared: "image/jpeg", forward: true, mime: "image/jpeg"},
		{name: "webp animated", declared: "image/webp", forward: true, mime: "image/webp"},
		{name: "png signature then html", declared: "image/png", mime: octetStream,
			warnings: [][]string{{"not a valid image/png", "PNG signature but no valid IHDR chunk", "not forwarded as an image"},
				{"cannot be presented"}}},
		{name: "png signature then html", declared: "", mime: octetStream,
			warnings: [][]string{{"declared: none"}, {"PNG signature but no valid IHDR chunk"}}},
		{name: "png 0x0", declared: "image/png", mime: octetStream, warnings: [][]string{{"declared 0x0", "not forwarded"}}},
		{name: "jpeg without a frame header", declared: "image/jpeg", mime: octetStream,
			warnings: [][]string{{"not a valid image/jpeg", "JPEG without a frame header"}}},
		{name: "gif 0x0", declared: "image/gif", mime: octetStream, warnings: [][]string{{"GIF declared 0x0"}}},
		{name: "webp RIFF size over the data", declared: "image/webp", mime: octetStream, warnings: [][]string{{"WebP is truncated"}}},
		// A type that is not accepted is reported as such, checked or not.
		{name: "png 0x0", declared: "image/png", opts: &Options{AcceptImages: []string{"image/jpeg"}}, mime: "image/png",
			warnings: [][]string{{"image/png is not an accepted image type"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/"+tc.declared, func(t *testing.T) {
			img, ok := byName[tc.name]
			if !ok {
				t.Fatalf("no image case %q", tc.name)
			}
			a := FromContents([]Contents{{URI: "mem://i", MIMEType: tc.declared, Blob: b64(img.data)}}, tc.opts)[0]
			if a.Kind != KindBinary || a.ForwardAsImage != tc.forward || a.Presentable != tc.forward || a.MIMEType != tc.mime {
				t.Fatalf("kind %q forward %v presentable %v mime %q, want binary %v %v %q (warnings %q)",
					a.Kind, a.ForwardAsImage, a.Presentable, a.MIMEType, tc.forward, tc.forward, tc.mime, a.Warnings)
			}
			if a.SniffedMIMEType != img.typ {
				t.Errorf("sniffed %q, want %q", a.SniffedMIMEType, img.typ)
			}
			if tc.forward && len(a.Warnings) != 0 {
				t.Errorf("warnings %q, want none", a.Warnings)
			}
			for _, ws := range tc.warnings {
				if !hasWarning(a, ws...) {
					t.Errorf("no warning containing %q in %q", ws, a.Warnings)
				}
			}
		})
	}
}

// TestAcceptedTypeWithoutCheck: an accepted type the package cannot check
// is not forwarded (it would be forwarded on its magic number alone).
func TestAcceptedTypeWithoutCheck(t *testing.T) {
	bmp := make([]byte, 62)
	bmp[0], bmp[1], bmp[14] = 'B', 'M', 40 // a BITMAPINFOHEADER
	a := FromContents([]Contents{{URI: "mem://b", MIMEType: "image/bmp", Blob: b64(bmp)}},
		&Options{AcceptImages: []string{"image/bmp"}})[0]
	if a.SniffedMIMEType != "image/bmp" || a.ForwardAsImage || !hasWarning(a, "no header check for image/bmp") {
		t.Fatalf("sniffed %q forward %v warnings %q", a.SniffedMIMEType, a.ForwardAsImage, a.Warnings)
	}
}

// FuzzImageHeader: the checks never panic; an image the standard library
// decodes (with sane dimensions) is always accepted with the dimensions it
// reports; an accepted image stays accepted with bytes appended.
func FuzzImageHeader(f *testing.F) {
	heldCheckBytes = 16 // walk the prefixes
	for _, tc := range imageCases(f) {
		for i, typ := range imageTypes {
			if typ == tc.typ && len(tc.data) < 1<<16 {
				f.Add(tc.data, uint8(i))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		typ := imageTypes[int(k)%len(imageTypes)]
		w, h, err := imageCheck(typ)(data)
		if herr := heldCheck(typ, data); (herr == nil) != (err == nil) {
			t.Fatalf("held check %v, check %v", herr, err)
		}
		if err == nil {
			if _, _, err := dims("", w, h); err != nil {
				t.Fatalf("accepted %dx%d: %v", w, h, err)
			}
			if _, _, err2 := imageCheck(typ)(append(append([]byte{}, data...), 0xFF, 0xD9, 0)); err2 != nil {
				t.Fatalf("accepted, but not with trailing bytes: %v", err2)
			}
		}
		cfg, format, cerr := image.DecodeConfig(bytes.NewReader(data))
		if cerr != nil || "image/"+format != typ || cfg.Width <= 0 || cfg.Height <= 0 ||
			cfg.Width > maxImageSide || cfg.Height > maxImageSide || cfg.Width*cfg.Height > 1<<20 {
			return
		}
		if _, _, derr := image.Decode(bytes.NewReader(data)); derr != nil {
			return
		}
		if err != nil || w != uint64(cfg.Width) || h != uint64(cfg.Height) {
			t.Fatalf("the standard library decodes a %dx%d %s; the check says %dx%d, %v", cfg.Width, cfg.Height, format, w, h, err)
		}
	})
}

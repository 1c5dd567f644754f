package attach

import (
	"errors"
	"strconv"

	"github.com/mcphost/mcphost/internal/blob"
)

// Image header checks (issue 14 §5). mimetype decides from a magic number
// alone, so the 8-byte PNG signature followed by HTML is "image/png", and
// a provider handed it as an image rejects the whole turn. Before a part is
// forwarded as an image, its header is parsed as far as a decoder needs to
// start: the format's header structure (PNG: IHDR first, length 13, valid
// CRC; JPEG: segments walked from SOI to the frame header and the first
// scan, however much EXIF or ICC data precedes them; GIF: the logical
// screen descriptor and the blocks up to the first image; WebP: the RIFF
// size and the VP8, VP8L or VP8X header), and dimensions that are non-zero
// and within maxImageSide and maxImagePixels. Pixel data is not decoded:
// an image decoder would cost the wasm module far more than these checks,
// and trailing bytes after the image are ignored, as decoders ignore them.

const (
	// maxImageSide bounds each side: the largest a JPEG or GIF can declare,
	// far above what any model provider accepts (8,000 at most today).
	maxImageSide = 65535
	// maxImagePixels bounds width·height at 2^27 (134 megapixels, 512 MiB
	// as RGBA): twice the largest image a major provider takes (8,000²),
	// above any camera or screenshot, and a decompression bomb's usual size.
	maxImagePixels = 1 << 27
)

// imageCheck returns the header check of a forwardable type, which
// returns the declared width and height, or nil. An accepted type without
// one is not forwarded: nothing vouches for its bytes.
func imageCheck(ess string) func([]byte) (w, h uint64, err error) {
	switch ess {
	case "image/png":
		return checkPNG
	case "image/jpeg":
		return checkJPEG
	case "image/gif":
		return checkGIF
	case "image/webp":
		return checkWebP
	}
	return nil
}

var errJPEGTruncated = errors.New("JPEG is truncated inside a segment before its first scan")

// checkImage returns nil when data, sniffed as ess, has a header that
// parses and declares sane dimensions, else what is wrong with it.
// checkHeldImage is checkImage over bytes held in the browser: it copies a
// prefix, and a larger one while the check needs more, up to every byte. A
// check that passes on a prefix passes on the whole (each reads forward and
// only ever fails for want of bytes at the end), so only a failure is
// retried. PNG reads its chunk headers only and knows the size.
//
// head is a prefix already copied (the sniffed bytes): the first round
// uses it when it is at least heldCheckBytes long, so a PNG costs no copy
// beyond sniffing.
func checkHeldImage(ess string, r *blob.Ref, head []byte) error {
	check := imageCheck(ess)
	if check == nil {
		return errors.New("mcphost has no header check for " + ess)
	}
	size := r.Size()
	for n := heldCheckBytes; ; n *= 4 {
		b := head
		var err error
		if int64(len(b)) < min(n, size) {
			if b, err = r.Prefix(n); err != nil {
				return err
			}
		}
		n = max(n, int64(len(b)))
		if ess == "image/png" {
			_, _, err = checkPNGSized(b, uint64(size))
		} else {
			_, _, err = check(b)
		}
		if err == nil || (int64(len(b)) >= size && err != errShort) {
			return err
		}
	}
}

// heldCheckBytes is the first prefix checkHeldImage reads: the sniffed
// bytes, which hold a PNG's header and the chunk headers before its first
// IDAT, and a JPEG's segments up to its frame header unless EXIF or ICC
// data comes first (then 16 KB, 64 KB, ... are copied).
// (A variable: the tests start smaller, to walk the prefixes.)
var heldCheckBytes int64 = sniffBytes

func checkImage(ess string, data []byte) error {
	check := imageCheck(ess)
	if check == nil {
		return errors.New("mcphost has no header check for " + ess)
	}
	_, _, err := check(data)
	return err
}

// dims returns w and h, or why they are not sane. (Messages are built
// without fmt here and below: each fmt call site costs the module more
// than the check it reports on.)
func dims(format string, w, h uint64) (uint64, uint64, error) {
	over := ""
	switch {
	case w == 0 || h == 0:
	case w > maxImageSide || h > maxImageSide:
		over = ", over the " + strconv.Itoa(maxImageSide) + "-pixel bound per side"
	case w*h > maxImagePixels:
		over = ", over the " + strconv.Itoa(maxImagePixels) + "-pixel bound"
	default:
		return w, h, nil
	}
	return 0, 0, errors.New(format + " declared " + strconv.FormatUint(w, 10) + "x" + strconv.FormatUint(h, 10) + over)
}

func be16(b []byte) uint64 { return uint64(b[0])<<8 | uint64(b[1]) }
func be32(b []byte) uint64 { return be16(b)<<16 | be16(b[2:]) }
func le16(b []byte) uint64 { return uint64(b[1])<<8 | uint64(b[0]) }
func le24(b []byte) uint64 { return uint64(b[2])<<16 | le16(b) }
func le32(b []byte) uint64 { return le16(b[2:])<<16 | le16(b) }

// crc32IEEE is the PNG chunk CRC, computed bitwise: it runs over 17 bytes
// per image, so a table (or hash/crc32) would only add to the module.
func crc32IEEE(b []byte) uint32 {
	c := ^uint32(0)
	for _, x := range b {
		c ^= uint32(x)
		for range 8 {
			c = c>>1 ^ 0xEDB88320&-(c&1)
		}
	}
	return ^c
}

// checkPNG checks the signature, the IHDR chunk (first, 13 bytes, CRC, bit
// depth and colour type, dimensions), then walks the chunks to the first
// IDAT, which must be present in full, after a PLTE for a palette image
// (PNG 3rd edition, §5.3, §11.2). Chunk CRCs after IHDR are not checked.
func checkPNG(b []byte) (w, h uint64, err error) { return checkPNGSized(b, uint64(len(b))) }

// errShort is what a sized check returns when it must read past the prefix
// it was given (checkHeldImage then copies more).
var errShort = errors.New("header check needs more bytes")

// checkPNGSized is checkPNG over the first len(b) of size bytes: the chunk
// walk needs each chunk's 8-byte header only (a PNG's IDAT chunk may hold
// most of the file), so a prefix tells whether the first IDAT is whole.
func checkPNGSized(b []byte, size uint64) (w, h uint64, err error) {
	if len(b) < 8 || string(b[:8]) != "\x89PNG\r\n\x1a\n" {
		return 0, 0, errors.New("no PNG signature")
	}
	if len(b) < 33 || be32(b[8:]) != 13 || string(b[12:16]) != "IHDR" {
		return 0, 0, errors.New("PNG signature but no valid IHDR chunk")
	}
	if crc32IEEE(b[12:29]) != uint32(be32(b[29:])) {
		return 0, 0, errors.New("PNG IHDR chunk has a bad CRC")
	}
	depth, color := b[24], b[25]
	okDepth := false
	switch color {
	case 0:
		okDepth = depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16
	case 3:
		okDepth = depth == 1 || depth == 2 || depth == 4 || depth == 8
	case 2, 4, 6:
		okDepth = depth == 8 || depth == 16
	}
	if !okDepth || b[26] != 0 || b[27] != 0 || b[28] > 1 {
		return 0, 0, errors.New("PNG IHDR declares an invalid colour type, bit depth or method")
	}
	if w, h, err = dims("PNG", be32(b[16:]), be32(b[20:])); err != nil {
		return 0, 0, err
	}
	palette := false
	for off := uint64(33); ; {
		if off+8 > size {
			return 0, 0, errors.New("PNG is truncated before its image data (no IDAT chunk)")
		}
		if off+8 > uint64(len(b)) {
			return 0, 0, errShort
		}
		n, typ := be32(b[off:]), b[off+4:off+8]
		if n > 1<<31-1 || off+12+n > size {
			return 0, 0, errors.New("PNG is truncated inside a chunk before its image data")
		}
		switch string(typ) {
		case "PLTE":
			palette = true
		case "IDAT":
			if color == 3 && !palette {
				return 0, 0, errors.New("PNG palette image without a PLTE chunk")
			}
			return w, h, nil
		case "IEND":
			return 0, 0, errors.New("PNG has no image data (IEND before any IDAT)")
		}
		off += 12 + n
	}
}

// checkJPEG walks the segments from SOI: fill bytes and extraneous bytes
// between segments are skipped as libjpeg and Go's decoder skip them, and
// any number of APPn segments (EXIF, ICC profiles in 64 KB pieces, XMP) may
// precede the frame header, which must come before the first scan
// (ITU-T T.81, B.2).
func checkJPEG(b []byte) (w, h uint64, err error) {
	if len(b) < 2 || b[0] != 0xFF || b[1] != 0xD8 {
		return 0, 0, errors.New("no JPEG SOI marker")
	}
	sof := false
	for i := 2; ; {
		for i < len(b) && b[i] != 0xFF {
			i++
		}
		for i < len(b) && b[i] == 0xFF {
			i++
		}
		if i >= len(b) {
			if sof {
				return 0, 0, errors.New("JPEG is truncated before its first scan")
			}
			return 0, 0, errors.New("JPEG without a frame header (truncated)")
		}
		m := b[i]
		i++
		switch {
		case m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			continue // a stuffed zero, TEM or RSTn: no length
		case m == 0xD8:
			return 0, 0, errors.New("JPEG has a second SOI marker before its first scan")
		case m == 0xD9:
			if sof {
				return 0, 0, errors.New("JPEG ends (EOI) before its first scan")
			}
			return 0, 0, errors.New("JPEG without a frame header (EOI before any SOF)")
		case m < 0xC0:
			return 0, 0, errors.New("JPEG has an invalid marker before its frame header")
		}
		if i+2 > len(b) {
			return 0, 0, errJPEGTruncated
		}
		n := int(be16(b[i:]))
		if n < 2 || i+n > len(b) {
			return 0, 0, errJPEGTruncated
		}
		seg := b[i+2 : i+n]
		switch {
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			if sof {
				return 0, 0, errors.New("JPEG has a second frame header before its first scan")
			}
			if len(seg) < 6 || seg[5] == 0 || len(seg) != 6+3*int(seg[5]) || seg[0] < 2 || seg[0] > 16 {
				return 0, 0, errors.New("JPEG frame header (SOFn) is malformed")
			}
			if w, h, err = dims("JPEG", be16(seg[3:]), be16(seg[1:])); err != nil {
				return 0, 0, err
			}
			sof = true
		case m == 0xDA:
			if !sof {
				return 0, 0, errors.New("JPEG without a frame header (a scan comes first)")
			}
			if len(seg) < 1 || seg[0] < 1 || seg[0] > 4 || len(seg) != 4+2*int(seg[0]) {
				return 0, 0, errors.New("JPEG scan header is malformed")
			}
			return w, h, nil
		}
		i += n
	}
}

// checkGIF checks the header and logical screen descriptor, skips the
// global colour table and any extensions, and requires an image descriptor
// with the start of its data (GIF89a §17–§22).
func checkGIF(b []byte) (w, h uint64, err error) {
	if len(b) < 13 || (string(b[:6]) != "GIF87a" && string(b[:6]) != "GIF89a") {
		return 0, 0, errors.New("GIF is truncated before its logical screen descriptor")
	}
	if w, h, err = dims("GIF", le16(b[6:]), le16(b[8:])); err != nil {
		return 0, 0, err
	}
	i := 13
	if b[10]&0x80 != 0 {
		i += 3 << (b[10]&7 + 1)
	}
	for {
		if i >= len(b) {
			return 0, 0, errors.New("GIF is truncated before its first image")
		}
		switch b[i] {
		case 0x21: // extension: label, then data sub-blocks up to a 0
			i += 2
			for {
				if i >= len(b) {
					return 0, 0, errors.New("GIF is truncated in an extension block")
				}
				n := int(b[i])
				i += 1 + n
				if n == 0 {
					break
				}
			}
		case 0x2C:
			if i+10 > len(b) {
				return 0, 0, errors.New("GIF is truncated in its first image descriptor")
			}
			flags := b[i+9]
			i += 10
			if flags&0x80 != 0 {
				i += 3 << (flags&7 + 1)
			}
			if i+2 > len(b) {
				return 0, 0, errors.New("GIF is truncated before its first image data")
			}
			return w, h, nil
		case 0x3B:
			return 0, 0, errors.New("GIF has no image (trailer before any image descriptor)")
		default:
			return 0, 0, errors.New("GIF has an invalid block before its first image")
		}
	}
}

// checkWebP checks the RIFF header (the declared size must fit in the
// data) and the first chunk: a VP8 key frame header, a VP8L header, or a
// VP8X header followed by a VP8, VP8L or ANMF chunk (RFC 9649).
func checkWebP(b []byte) (w, h uint64, err error) {
	if len(b) < 20 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, errors.New("WebP is truncated before its first chunk")
	}
	end := 8 + le32(b[4:])
	if end > uint64(len(b)) {
		return 0, 0, errors.New("WebP is truncated: shorter than its RIFF header declares")
	}
	extended := false // after VP8X, w and h are the canvas
	for off := uint64(12); ; {
		if off+8 > end && extended {
			return 0, 0, errors.New("WebP VP8X without image data")
		} else if off+8 > end {
			return 0, 0, errors.New("WebP is truncated before its first chunk")
		}
		fourcc, n := string(b[off:off+4]), le32(b[off+4:])
		if !extended && fourcc != "VP8 " && fourcc != "VP8L" && fourcc != "VP8X" {
			return 0, 0, errors.New("WebP has no VP8, VP8L or VP8X chunk first")
		}
		if off+8+n > end {
			return 0, 0, errors.New("WebP chunk runs past the RIFF size")
		}
		p := b[off+8 : off+8+n]
		switch {
		case fourcc == "VP8 " || fourcc == "VP8L":
			fw, fh, err := checkWebPFrame(fourcc, p)
			if err != nil || !extended {
				return fw, fh, err
			}
			return w, h, nil // the canvas is the image's size
		case fourcc == "ANMF" && extended:
			if len(p) < 16 {
				return 0, 0, errors.New("WebP ANMF frame header is truncated")
			}
			return w, h, nil
		case fourcc == "VP8X" && !extended:
			if len(p) < 10 {
				return 0, 0, errors.New("WebP VP8X header is truncated")
			}
			if w, h, err = dims("WebP", le24(p[4:])+1, le24(p[7:])+1); err != nil {
				return 0, 0, err
			}
			extended = true
		}
		off += 8 + n + n&1
	}
}

// checkWebPFrame checks a VP8 (RFC 6386 §9.1) or VP8L (lossless bitstream
// §3) header.
func checkWebPFrame(fourcc string, p []byte) (w, h uint64, err error) {
	if fourcc == "VP8 " {
		if len(p) < 10 || p[0]&1 != 0 || p[3] != 0x9D || p[4] != 0x01 || p[5] != 0x2A {
			return 0, 0, errors.New("WebP VP8 data does not start with a key frame")
		}
		return dims("WebP", le16(p[6:])&0x3FFF, le16(p[8:])&0x3FFF)
	}
	if len(p) < 5 || p[0] != 0x2F || p[4]>>5 != 0 {
		return 0, 0, errors.New("WebP VP8L header is malformed (or of an unknown version)")
	}
	bits := le32(p[1:])
	return dims("WebP", bits&0x3FFF+1, bits>>14&0x3FFF+1)
}

//go:build !js

package gateway

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// An sseEvent is one dispatched server-sent event.
type sseEvent struct {
	id    string // the last event id seen so far (it persists across events)
	name  string
	data  []byte
	retry time.Duration // 0 unless this event set it
}

// errEventTooBig reports an event over the size limit.
var errEventTooBig = errors.New("server-sent event over the size limit")

// readSSE parses a text/event-stream (WHATWG HTML §9.2.6) and calls fn for
// each event that carries data, with lastID the id in force. Events are
// limited to limit bytes. It returns when r ends or fn returns an error.
func readSSE(r io.Reader, lastID string, limit int64, fn func(sseEvent) error) error {
	br := bufio.NewReaderSize(r, 32<<10)
	var (
		data    bytes.Buffer
		hasData bool
		sawID   bool // this event set an id
		name    string
		retry   time.Duration
	)
	for {
		line, err := readSSELine(br, limit)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil // an unterminated last event is discarded, per spec
			}
			return err
		}
		if len(line) == 0 { // dispatch
			if hasData {
				if err := fn(sseEvent{id: lastID, name: name, data: bytes.Clone(data.Bytes()), retry: retry}); err != nil {
					return err
				}
			} else if retry > 0 || sawID {
				// An event with only an id or retry: report it for resumption.
				if err := fn(sseEvent{id: lastID, retry: retry}); err != nil {
					return err
				}
			}
			data.Reset()
			hasData, sawID, name, retry = false, false, "", 0
			continue
		}
		if line[0] == ':' {
			continue // comment (keep-alive)
		}
		field, value, _ := strings.Cut(string(line), ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			if int64(data.Len()+len(value)) > limit {
				return fmt.Errorf("%w (%d bytes)", errEventTooBig, limit)
			}
			data.WriteString(value)
			hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				lastID, sawID = value, true
			}
		case "event":
			name = value
		case "retry":
			if n, err := strconv.ParseUint(value, 10, 31); err == nil {
				retry = time.Duration(n) * time.Millisecond
			}
		}
	}
}

// readSSELine returns one line without its terminator (\n or \r\n).
func readSSELine(br *bufio.Reader, limit int64) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if int64(len(buf)) > limit+2 {
			return nil, fmt.Errorf("%w (%d bytes)", errEventTooBig, limit)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return nil, err
		}
		buf = bytes.TrimSuffix(buf[:len(buf)-1], []byte{'\r'})
		return buf, nil
	}
}

// This file implements the transport: Content-Length framed JSON-RPC over
// an io.ReadWriteCloser (standard input and output, or a net.Pipe in
// tests) that survives malformed messages.
//
// jsonrpc2.NewStream returns an error for a message that is not valid
// JSON-RPC, and jsonrpc2.Conn closes the connection on any read error: one
// bad message would end the session. This stream answers such a message
// with a parse error (or invalid request) and reads on; only a broken
// transport (end of input, a frame that cannot be read) ends the session.

package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxMessage bounds the size of one message, so that a corrupt header
// cannot make the server allocate without limit.
const maxMessage = 256 << 20

type stream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader
	log *slog.Logger
	wmu sync.Mutex // one frame at a time
}

func newStream(rwc io.ReadWriteCloser, log *slog.Logger) *stream {
	return &stream{rwc: rwc, in: bufio.NewReader(rwc), log: log}
}

// Read returns the next well-formed message, answering malformed ones.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		data, n, err := s.frame()
		total += n
		if err != nil {
			return nil, total, err
		}
		if data == nil {
			continue // a frame without content, already logged
		}
		msg, err := jsonrpc2.DecodeMessage(data)
		if resp, ok := msg.(*jsonrpc2.Response); ok && err == nil && hasMethod(data) {
			// "method": "" names no method, but jsonrpc2 takes a message
			// without a method name for a response, and the connection
			// drops a response to nothing: the request would never be
			// answered.
			id := resp.ID()
			raw, _ := id.MarshalJSON()
			s.replyError(raw, jsonrpc2.MethodNotFound, "method not found: the method name is empty")
			continue
		}
		if err == nil {
			return msg, total, nil
		}
		s.log.Warn("malformed message", "error", err, "message", truncate(string(data), 200))
		s.replyMalformed(data)
	}
}

// frame reads one frame's content. It returns nil content (and no error)
// for a frame whose header is unusable but whose end is known.
func (s *stream) frame() ([]byte, int64, error) {
	var total int64
	length := int64(-1)
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			return nil, total, fmt.Errorf("reading header: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if length < 0 && total <= 2 {
				continue // stray blank line between frames
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			s.log.Warn("ignoring malformed header line", "line", truncate(line, 100))
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), jsonrpc2.HdrContentLength) {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 || n > maxMessage {
				s.log.Warn("ignoring bad Content-Length", "value", value)
				continue
			}
			length = n
		}
	}
	if length <= 0 {
		s.log.Warn("frame without Content-Length")
		return nil, total, nil
	}
	data := make([]byte, length)
	n, err := io.ReadFull(s.in, data)
	total += int64(n)
	if err != nil {
		return nil, total, fmt.Errorf("reading content: %w", err)
	}
	return data, total, nil
}

// replyMalformed answers a message that could not be decoded: a parse
// error for invalid JSON, an invalid request otherwise, with the message's
// id when one can be found (null if not, as JSON-RPC 2.0 says).
func (s *stream) replyMalformed(data []byte) {
	code, text := jsonrpc2.ParseError, "parse error: invalid JSON"
	id := json.RawMessage("null")
	if json.Valid(data) {
		code, text = jsonrpc2.InvalidRequest, "invalid request: not a JSON-RPC 2.0 request or response"
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method json.RawMessage `json:"method"`
		}
		if json.Unmarshal(data, &probe) == nil {
			if len(probe.Method) == 0 {
				// A response we cannot decode: nothing to answer.
				if len(probe.ID) > 0 {
					return
				}
			} else if isID(probe.ID) {
				id = probe.ID
			}
		}
	}
	s.replyError(id, code, text)
}

// replyError answers the message whose id is id (JSON text) with an error.
func (s *stream) replyError(id json.RawMessage, code jsonrpc2.Code, text string) {
	body, _ := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, jsonrpc2.NewError(code, text)})
	if err := s.writeFrame(body); err != nil {
		s.log.Warn("answering a malformed message", "error", err)
	}
}

// hasMethod reports whether the message data has a "method" member.
func hasMethod(data []byte) bool {
	var probe struct {
		Method *json.RawMessage `json:"method"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Method != nil
}

// isID reports whether raw is a JSON-RPC id: a number or a string.
func isID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case float64, string:
		return true
	}
	return false
}

// Write sends one message.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	return int64(len(data)), s.writeFrame(data)
}

func (s *stream) writeFrame(data []byte) error {
	frame := make([]byte, 0, len(data)+32)
	frame = fmt.Appendf(frame, "%s: %d\r\n\r\n", jsonrpc2.HdrContentLength, len(data))
	frame = append(frame, data...)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.rwc.Write(frame)
	return err
}

// Close closes the underlying connection.
func (s *stream) Close() error { return s.rwc.Close() }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

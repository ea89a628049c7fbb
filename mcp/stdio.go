package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one message on stdio; a longer line is answered with a
// parse error and skipped.
const maxLine = 4 << 20

// lineTransport is newline-delimited JSON-RPC on a reader and a writer,
// like the SDK's IOTransport, except that a line that is not a JSON-RPC
// message is answered with a parse error (-32700, id null) naming the
// problem, as JSON-RPC asks, instead of ending the session, and that the
// end of the input ends the session only once every request read has
// been answered: a client that pipes its requests in and closes its end
// gets every answer.
type lineTransport struct {
	in  io.ReadCloser
	out io.WriteCloser
}

func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{in: t.in, out: t.out, msgs: make(chan readResult), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	go c.readLoop()
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	in     io.ReadCloser
	out    io.WriteCloser
	msgs   chan readResult
	closed chan struct{}
	once   sync.Once
	wmu    sync.Mutex

	// pending are the calls read and not answered yet; answered is
	// signalled after each answer.
	pmu      sync.Mutex
	pending  map[jsonrpc.ID]bool
	answered chan struct{}
}

// readLoop decodes lines until the input ends; Read takes them from msgs
// so that Close can unblock a waiting Read.
func (c *lineConn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		var res readResult
		switch {
		case err != nil:
			c.awaitAnswers()
			res.err = err
		case tooLong:
			c.parseError(fmt.Errorf("the message is longer than %d bytes", maxLine))
			continue
		case len(line) == 0:
			continue
		default:
			msg, derr := jsonrpc.DecodeMessage(line)
			if derr != nil {
				c.parseError(derr)
				continue
			}
			res.msg = msg
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				c.pmu.Lock()
				c.pending[req.ID] = true
				c.pmu.Unlock()
			}
		}
		select {
		case c.msgs <- res:
		case <-c.closed:
			return
		}
		if res.err != nil {
			return
		}
	}
}

// readLine reads one line without its end; a line over maxLine is read
// to its end and reported as too long.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, false, err
		}
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > maxLine {
				tooLong, line = true, nil
			}
		}
		if !isPrefix {
			return line, tooLong, nil
		}
	}
}

// parseError answers a line that could not be read as a message.
func (c *lineConn) parseError(err error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": jsonrpc.CodeParseError, "message": "parse error: " + err.Error()}})
	_ = c.writeLine(body) // a failed write ends the session at the next Write
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case res := <-c.msgs:
		return res.msg, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	body, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	err = c.writeLine(body)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.pmu.Lock()
		delete(c.pending, resp.ID)
		c.pmu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// awaitAnswers waits until every call read has been answered, or the
// connection is closed.
func (c *lineConn) awaitAnswers() {
	for {
		c.pmu.Lock()
		n := len(c.pending)
		c.pmu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		}
	}
}

func (c *lineConn) writeLine(body []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(append(body, '\n'))
	return err
}

func (c *lineConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = errors.Join(c.in.Close(), c.out.Close())
	})
	return err
}

func (c *lineConn) SessionID() string { return "" }

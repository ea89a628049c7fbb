package opml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html/charset"
)

// Defaults for the zero values of Limits.
const (
	DefaultMaxBytes    = 10 << 20
	DefaultMaxOutlines = 10000
	DefaultMaxDepth    = 32
)

// Limits bound what Parse accepts from an untrusted body.
type Limits struct {
	// MaxBytes is the largest body read (default 10 MiB).
	MaxBytes int64
	// MaxOutlines is the most outline elements, folders included
	// (default 10 000).
	MaxOutlines int
	// MaxDepth is the deepest nesting of outlines (default 32).
	MaxDepth int
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxOutlines <= 0 {
		l.MaxOutlines = DefaultMaxOutlines
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// Errors of Parse; each returned error wraps one of them and says more.
var (
	// ErrTooLarge: the body is longer than Limits.MaxBytes.
	ErrTooLarge = errors.New("OPML body too large")
	// ErrTooManyOutlines: more outline elements than Limits.MaxOutlines.
	ErrTooManyOutlines = errors.New("too many outlines")
	// ErrTooDeep: outlines nested deeper than Limits.MaxDepth.
	ErrTooDeep = errors.New("outlines nested too deeply")
	// ErrEntities: the document declares entities (XXE, billion laughs).
	ErrEntities = errors.New("entity declarations are not allowed")
	// ErrNotOPML: the body is not well-formed XML or not an OPML document.
	ErrNotOPML = errors.New("not an OPML document")
)

// Document is a parsed OPML document.
type Document struct {
	// Version is the opml element's version attribute ("1.0", "2.0", …).
	Version string
	// Title and DateCreated are the head's, as written.
	Title       string
	DateCreated string
	// Outlines are the feed and web page outlines in document order;
	// folders live on in their Category.
	Outlines []Outline
}

// capReader fails with ErrTooLarge once more than max bytes were read, so
// the decoder stops with that error instead of a truncation's syntax error.
type capReader struct {
	r    io.Reader
	left int64
	max  int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%w: more than %d bytes (the import limit)", ErrTooLarge, c.max)
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// parser is the state of one Parse.
type parser struct {
	lim     Limits
	dec     *xml.Decoder
	doc     Document
	count   int      // outline elements seen
	folders []string // names of the enclosing outlines, innermost last
}

// Parse reads an OPML document from r within lim. Nothing the document
// names is fetched: external entities and DTDs are never resolved, and a
// document that declares entities is refused.
func Parse(r io.Reader, lim Limits) (*Document, error) {
	p := &parser{lim: lim.withDefaults()}
	p.dec = xml.NewDecoder(&capReader{r: r, left: p.lim.MaxBytes, max: p.lim.MaxBytes})
	// Lenient like the readers whose exports we take: an unescaped & in a
	// URL is common in hand-edited files. HTML's named entities are a fixed
	// table, nothing is expanded recursively.
	p.dec.Strict = false
	p.dec.Entity = xml.HTMLEntity
	p.dec.CharsetReader = charset.NewReaderLabel
	if err := p.root(); err != nil {
		return nil, err
	}
	return &p.doc, nil
}

// token is the next token, with decoder failures worded for the user.
func (p *parser) token() (xml.Token, error) {
	tok, err := p.dec.Token()
	if err == nil {
		if d, ok := tok.(xml.Directive); ok && bytes.Contains(d, []byte("ENTITY")) {
			line, _ := p.dec.InputPos()
			return nil, fmt.Errorf("line %d: the document declares entities in its DOCTYPE: %w (they are never expanded or fetched)", line, ErrEntities)
		}
		return tok, nil
	}
	if errors.Is(err, ErrTooLarge) {
		return nil, err
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) && se.Msg == "unexpected EOF" {
		return nil, fmt.Errorf("%w: the document ends inside an open element at line %d (truncated?)", ErrNotOPML, se.Line)
	}
	if errors.As(err, &se) {
		return nil, fmt.Errorf("%w: not well-formed XML at line %d: %s", ErrNotOPML, se.Line, se.Msg)
	}
	return nil, err
}

// root finds the opml element and reads it.
func (p *parser) root() error {
	for {
		tok, err := p.token()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: no XML element found", ErrNotOPML)
		}
		if err != nil {
			return err
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if !strings.EqualFold(start.Name.Local, "opml") {
			hint := ""
			switch strings.ToLower(start.Name.Local) {
			case "rss", "feed", "rdf":
				hint = " (this is a feed: add it as a source instead)"
			}
			return fmt.Errorf("%w: the root element is <%s>, want <opml>%s", ErrNotOPML, start.Name.Local, hint)
		}
		p.doc.Version = attr(start, "version")
		return p.opml()
	}
}

// opml reads the children of the opml element up to its end.
func (p *parser) opml() error {
	for {
		tok, err := p.token()
		if err != nil {
			return p.eof(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch strings.ToLower(t.Name.Local) {
			case "head":
				err = p.head()
			case "body":
				err = p.outlines(1)
			default:
				err = p.skip(1)
			}
			if err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// head reads the title and dateCreated.
func (p *parser) head() error {
	for {
		tok, err := p.token()
		if err != nil {
			return p.eof(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			var text string
			if text, err = p.text(); err != nil {
				return err
			}
			switch strings.ToLower(t.Name.Local) {
			case "title":
				p.doc.Title = text
			case "datecreated":
				p.doc.DateCreated = text
			}
		case xml.EndElement:
			return nil
		}
	}
}

// text reads an element's character data up to its end.
func (p *parser) text() (string, error) {
	var b strings.Builder
	for depth := 0; ; {
		tok, err := p.token()
		if err != nil {
			return "", p.eof(err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.StartElement:
			depth++
			if depth > p.lim.MaxDepth {
				return "", p.tooDeep()
			}
		case xml.EndElement:
			if depth == 0 {
				return strings.TrimSpace(b.String()), nil
			}
			depth--
		}
	}
}

// skip reads past the element just started, bounded in depth like outlines.
func (p *parser) skip(depth int) error {
	for d := depth; d >= depth; {
		tok, err := p.token()
		if err != nil {
			return p.eof(err)
		}
		switch tok.(type) {
		case xml.StartElement:
			d++
			if d > p.lim.MaxDepth+1 {
				return p.tooDeep()
			}
		case xml.EndElement:
			d--
		}
	}
	return nil
}

// outlines reads the outline children of body (depth 1) or of an outline,
// up to the parent's end.
func (p *parser) outlines(depth int) error {
	for {
		tok, err := p.token()
		if err != nil {
			return p.eof(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !strings.EqualFold(t.Name.Local, "outline") {
				if err := p.skip(depth + 1); err != nil {
					return err
				}
				continue
			}
			if err := p.outline(t, depth); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// outline records one outline element and reads its children.
func (p *parser) outline(start xml.StartElement, depth int) error {
	p.count++
	if p.count > p.lim.MaxOutlines {
		return fmt.Errorf("%w: the document has more than %d outlines (the import limit); split it into smaller files",
			ErrTooManyOutlines, p.lim.MaxOutlines)
	}
	if depth > p.lim.MaxDepth {
		return p.tooDeep()
	}
	line, _ := p.dec.InputPos()
	o := Outline{
		Text: attr(start, "text"), Title: attr(start, "title"), Type: strings.ToLower(attr(start, "type")),
		XMLURL: attr(start, "xmlUrl"), HTMLURL: attr(start, "htmlUrl"), Line: line,
	}
	if o.HTMLURL == "" && o.Type == "link" {
		o.HTMLURL = attr(start, "url")
	}
	for _, a := range start.Attr {
		if a.Name.Space == Namespace && a.Name.Local == "source" && strings.TrimSpace(a.Value) == "web" {
			o.WebPage = true
		}
	}
	if o.XMLURL != "" || o.HTMLURL != "" {
		o.Category = strings.Join(p.folders, "/")
		if o.Category == "" {
			o.Category = categoryAttr(attr(start, "category"))
		}
		p.doc.Outlines = append(p.doc.Outlines, o)
	}
	name := o.Name()
	if name != "" {
		p.folders = append(p.folders, name)
	}
	err := p.outlines(depth + 1)
	if name != "" {
		p.folders = p.folders[:len(p.folders)-1]
	}
	return err
}

func (p *parser) tooDeep() error {
	line, _ := p.dec.InputPos()
	return fmt.Errorf("%w: line %d: outlines are nested deeper than %d levels (the import limit)", ErrTooDeep, line, p.lim.MaxDepth)
}

// eof words the end of the input inside an open element: a truncated file
// is refused rather than imported in part without notice.
func (p *parser) eof(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: the document ends inside an open element (truncated?)", ErrNotOPML)
	}
	return err
}

// attr is the trimmed value of the attribute named name, matched without
// regard to case: exporters write xmlUrl, xmlurl and XMLURL alike.
func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if strings.EqualFold(a.Name.Local, name) {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

package console

import (
	"bytes"
	"html/template"
	"net/url"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/feedpoller/feedpoller/sources/extract"
)

// Stored Markdown is rendered with goldmark's defaults for untrusted
// text: raw HTML is left out, never passed through. On top of that every
// link keeps the rule storage applied (extract.SafeDestination: http(s),
// mailto and relative references only), relative links are resolved
// against the article's own URL (never against the console's), and
// images become links to the image, so reading an article loads nothing
// from another site.

// markdown renders md, an article stored at base, as HTML.
func markdown(md, base string) template.HTML {
	baseURL, _ := url.Parse(base) // nil: relative links lose their link
	gm := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(linkGuard{base: baseURL}, 100))),
	)
	var buf bytes.Buffer
	if err := gm.Convert([]byte(md), &buf); err != nil {
		return template.HTML(template.HTMLEscapeString(md)) // shown as text rather than not at all
	}
	// goldmark escapes text and attributes and drops raw HTML (it runs
	// without html.WithUnsafe); the destinations were checked above.
	return template.HTML(buf.String()) //nolint:gosec // see above
}

// linkGuard checks, resolves and marks every link and image of a
// document.
type linkGuard struct{ base *url.URL }

func (g linkGuard) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var unlink []ast.Node
	var images []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Link:
			if dest, ok := g.resolve(string(v.Destination), false); ok {
				v.Destination = []byte(dest)
				markExternal(v)
			} else {
				unlink = append(unlink, v)
			}
		case *ast.AutoLink:
			if _, ok := g.resolve(string(v.URL(src)), false); !ok {
				unlink = append(unlink, v)
			} else {
				markExternal(v)
			}
		case *ast.Image:
			images = append(images, v)
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unlink {
		replaceWithChildren(n, src)
	}
	for _, img := range images {
		g.imageToLink(img)
	}
}

// resolve applies storage's rule to dest and makes a relative one
// absolute against the article's URL.
func (g linkGuard) resolve(dest string, image bool) (string, bool) {
	if !extract.SafeDestination(dest, image) {
		return "", false
	}
	u, err := url.Parse(dest)
	if err != nil {
		return "", false
	}
	if u.IsAbs() {
		return u.String(), true
	}
	if g.base == nil || !g.base.IsAbs() {
		return "", false
	}
	abs := g.base.ResolveReference(u)
	return abs.String(), extract.SafeDestination(abs.String(), image)
}

func markExternal(n ast.Node) {
	n.SetAttributeString("rel", []byte("nofollow noopener noreferrer"))
}

// replaceWithChildren puts a link's text where the link was.
func replaceWithChildren(n ast.Node, src []byte) {
	parent := n.Parent()
	if parent == nil {
		return
	}
	if al, ok := n.(*ast.AutoLink); ok {
		parent.ReplaceChild(parent, n, ast.NewString(al.Label(src)))
		return
	}
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		parent.InsertBefore(parent, n, c)
		c = next
	}
	parent.RemoveChild(parent, n)
}

// imageToLink turns an image into a link to it labelled with its
// alternative text, or into that text alone when its source breaks the
// rule.
func (g linkGuard) imageToLink(img *ast.Image) {
	parent := img.Parent()
	if parent == nil {
		return
	}
	label := ast.NewString([]byte("image"))
	dest, ok := g.resolve(string(img.Destination), true)
	if !ok {
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, img, c)
			c = next
		}
		parent.RemoveChild(parent, img)
		return
	}
	link := ast.NewLink()
	link.Destination = []byte(dest)
	link.Title = img.Title
	markExternal(link)
	link.AppendChild(link, label)
	if img.HasChildren() {
		link.AppendChild(link, ast.NewString([]byte(": ")))
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			link.AppendChild(link, c)
			c = next
		}
	}
	parent.ReplaceChild(parent, img, link)
}

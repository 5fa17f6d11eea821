package redact

import "github.com/pidex-dev/pidex"

// Document redacts the text a reader sees of a session, in place: every
// item's title, detail, label and blocks, and the session's name and
// first message. It returns how many secrets it replaced. Images are
// left: they are pixels, not text.
func Document(doc *pidex.Document, info *pidex.Session) int {
	n := 0
	str := func(s *string) {
		var k int
		*s, k = String(*s)
		n += k
	}
	if info != nil {
		if info.Name != nil {
			name := *info.Name
			str(&name)
			info.Name = &name
		}
		str(&info.FirstMessage)
	}
	if doc == nil {
		return n
	}
	str(&doc.Session.Name)
	for i := range doc.Items {
		it := &doc.Items[i]
		str(&it.Title)
		str(&it.Detail)
		str(&it.Label)
		n += Blocks(it.Blocks)
	}
	return n
}

// Blocks redacts blocks in place (their text, arguments and inner
// blocks) and returns how many secrets it replaced.
func Blocks(bs []pidex.Block) int {
	n := 0
	for i := range bs {
		b := &bs[i]
		var k int
		b.Text, k = String(b.Text)
		n += k
		for j := range b.Args {
			a := &b.Args[j]
			a.Str, k = String(a.Str)
			n += k
			var raw []byte
			raw, k = Line([]byte(a.JSON))
			a.JSON = string(raw)
			n += k
		}
		n += Blocks(b.Inner)
	}
	return n
}

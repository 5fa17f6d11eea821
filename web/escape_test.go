package web

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Every piece of session text is escaped: the evil session's <script>,
// <img onerror>, javascript: links, <iframe> and SVG, in its cwd, name,
// label, messages, thinking, tool calls and output, show as text on every
// page that shows them.
func TestSessionTextIsEscaped(t *testing.T) {
	f := newFixture(t, Options{})
	sess := "/s/" + evilID
	for _, path := range []string{
		"/",
		"/?name=" + url.QueryEscape("<script>"),
		sess,
		sess + "?full=1",
		sess + "?view=context",
		sess + "?leaf=u1",
		sess + "?at=t1",
		// A search's words highlighted: marks go around escaped text only.
		sess + "?q=script",
		sess + "?q=alert&full=1",
		sess + "?q=" + url.QueryEscape(`"onerror alert"`),
		sess + "?q=" + url.QueryEscape("<script>"),
		"/search?q=evilword&group=session",
		"/search?q=evilword",
		"/search?q=evilword&sessionsOnly=1",
		"/search?q=alert&partial=1",
		"/search?q=" + url.QueryEscape("<script>"),
		"/s/" + url.PathEscape("<script>alert(1)</script>"),
		sess + "?leaf=" + url.QueryEscape("<img src=x onerror=alert(1)>"),
		"/?since=" + url.QueryEscape("<img src=x onerror=alert(1)>"),
		"/cost?tz=UTC&stack=model",
		"/cost?tz=UTC&stack=project",
		"/cost?tz=" + url.QueryEscape("<script>"),
	} {
		t.Run(path, func(t *testing.T) {
			_, _, body := f.get(t, path)
			assertInert(t, body)
		})
	}
	// And the text is there, escaped, where it belongs.
	_, _, body := f.get(t, sess)
	for _, want := range []string{
		"&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;",              // name (title)
		"/home/&lt;img src=x onerror=alert(&#39;cwd&#39;)&gt;/proj",       // cwd
		"&lt;img src=x onerror=alert(&#39;label&#39;)&gt;",                // label
		"evilword &lt;script&gt;alert(&#39;user&#39;)&lt;/script&gt;",     // user text
		"<code>&lt;script&gt;alert(&#39;code&#39;)&lt;/script&gt;</code>", // inline code
		"&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;",                         // fenced code
		"&lt;script&gt;alert(&#39;thinking&#39;)&lt;/script&gt;",          // thinking
		"&lt;img src=x onerror=alert(&#39;tool&#39;)&gt;",                 // tool name
		"&lt;script&gt;alert(&#39;output&#39;)&lt;/script&gt;",            // tool output
		"[image image/svg&#43;xml, ",                                      // SVG described, not shown
	} {
		if !strings.Contains(body, want) {
			t.Errorf("session page lacks %s", want)
		}
	}
}

var (
	reTag     = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	reQuoted  = regexp.MustCompile(`="[^"]*"`)
	reOnAttr  = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	reBadHref = regexp.MustCompile(`(?i)<[^>]*\s(href|src)\s*=\s*"?\s*(javascript|vbscript|data:text|data:image/svg)`)
	reImgSrc  = regexp.MustCompile(`<img class="image" src="([^"]*)"`)
)

// assertInert checks that the only markup in body is the server's own: one
// <script src=/static/app.js>, images only as inline rasters, no event
// handler attributes, no script URLs, no frames.
func assertInert(t errorer, body string) {
	t.Helper()
	if n := strings.Count(strings.ToLower(body), "<script"); n > 1 {
		t.Errorf("%d <script> tags", n)
	}
	for _, tag := range reTag.FindAllString(body, -1) {
		// Quoted attribute values are text: a quote inside one is escaped.
		orig := tag
		tag = reQuoted.ReplaceAllString(tag, `="…"`)
		lower := strings.ToLower(tag)
		switch {
		case strings.HasPrefix(lower, "<script") && orig != `<script src="/static/app.js" defer>`:
			t.Errorf("foreign script tag %s", tag)
		case strings.HasPrefix(lower, "<img") && !strings.HasPrefix(tag, `<img class="…" src="…"`):
			t.Errorf("foreign img tag %s", tag)
		case strings.HasPrefix(lower, "<iframe"), strings.HasPrefix(lower, "<b>"), strings.HasPrefix(lower, "<svg") && !strings.HasPrefix(orig, `<svg class="cost-chart" id="cost-chart"`) && !strings.HasPrefix(orig, `<svg class="cost-chart narrow" id="cost-chart-narrow"`), strings.HasPrefix(lower, "<object"):
			t.Errorf("foreign tag %s", tag)
		case reOnAttr.MatchString(tag):
			t.Errorf("event handler in %s", tag)
		}
	}
	for _, m := range reBadHref.FindAllString(body, -1) {
		t.Errorf("script URL %s", m)
	}
	for _, m := range reImgSrc.FindAllStringSubmatch(body, -1) {
		if !strings.HasPrefix(m[1], "data:image/png;base64,") && !strings.HasPrefix(m[1], "data:image/jpeg;base64,") &&
			!strings.HasPrefix(m[1], "data:image/gif;base64,") && !strings.HasPrefix(m[1], "data:image/webp;base64,") {
			t.Errorf("image source %.60s", m[1])
		}
	}
}

// errorer is the part of testing.T that assertInert uses.
type errorer interface {
	Helper()
	Errorf(format string, args ...any)
}

type recorder struct{ n int }

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.n++ }

// The check itself catches what it is for.
func TestAssertInertCatches(t *testing.T) {
	for _, bad := range []string{
		`<script>alert(1)</script>`,
		`<img src=x onerror=alert(1)>`,
		`<img class="image" src="data:image/svg+xml;base64,AAAA">`,
		`<a href="javascript:alert(1)">x</a>`,
		`<div onmouseover="x">`,
		`<iframe src="x">`,
	} {
		r := &recorder{}
		assertInert(r, bad)
		if r.n == 0 {
			t.Errorf("assertInert accepts %s", bad)
		}
	}
}

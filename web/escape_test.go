package web

import (
	"net/url"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/htmltest"
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
		"/activity?tz=UTC",
		"/activity?tz=UTC&by=session",
		"/activity?tz=UTC&by=project",
		"/activity?tz=UTC&by=model",
		"/activity?tz=" + url.QueryEscape("<script>"),
		"/activity?cwd=" + url.QueryEscape(`"><script>alert(1)</script>`),
		"/activity?by=" + url.QueryEscape(`"><img src=x onerror=alert(1)>`),
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

// assertInert checks that the only markup in body is the server's own:
// its two scripts, and what htmltest.AssertInert allows.
func assertInert(t htmltest.Errorer, body string) {
	t.Helper()
	htmltest.AssertInert(t, body, `<script src="/static/shared.js" defer>`, `<script src="/static/app.js" defer>`)
}

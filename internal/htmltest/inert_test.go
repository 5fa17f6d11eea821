package htmltest

import "testing"

type recorder struct{ n int }

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.n++ }

// The check itself catches what it is for, and passes a page's own markup.
func TestAssertInertCatches(t *testing.T) {
	for _, tc := range []struct {
		body    string
		scripts []string
		bad     bool
	}{
		{`<script>alert(1)</script>`, nil, true},
		{`<script>alert(1)</script>`, []string{`<script src="/static/app.js" defer>`}, true},
		{`<img src=x onerror=alert(1)>`, nil, true},
		{`<img class="image" src="data:image/svg+xml;base64,AAAA">`, nil, true},
		{`<a href="javascript:alert(1)">x</a>`, nil, true},
		{`<div onmouseover="x">`, nil, true},
		{`<iframe src="x">`, nil, true},
		{`<p class="x">a &lt;script&gt;</p><img class="image" src="data:image/png;base64,AAAA" alt="a">`, nil, false},
		{`<script src="/static/app.js" defer></script>`, []string{`<script src="/static/app.js" defer>`}, false},
		{`<script></script><script></script>`, []string{`<script>`}, true},
	} {
		r := &recorder{}
		AssertInert(r, tc.body, tc.scripts...)
		if (r.n > 0) != tc.bad {
			t.Errorf("AssertInert(%s, %q): %d complaints, want bad=%v", tc.body, tc.scripts, r.n, tc.bad)
		}
	}
}

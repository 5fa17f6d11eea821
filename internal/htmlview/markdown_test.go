package htmlview

import (
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/htmltest"
)

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"paragraph with breaks", "one\ntwo", "<p>one<br>\ntwo</p>\n"},
		{"escaped", `a < b & "c" 'd'`, "<p>a &lt; b &amp; &#34;c&#34; &#39;d&#39;</p>\n"},
		{"NUL replaced", "a\x00b `c\x00`", "<p>a\uFFFDb <code>c\uFFFD</code></p>\n"},
		{"heading", "# Title", "<h3>Title</h3>\n"},
		{"emphasis", "**bold** and *it* and ~~gone~~", "<p><strong>bold</strong> and <em>it</em> and <del>gone</del></p>\n"},
		{"snake_case stays", "call parse_header_line now", "<p>call parse_header_line now</p>\n"},
		{"inline code verbatim", "run `a **b** <c>` ok", "<p>run <code>a **b** &lt;c&gt;</code> ok</p>\n"},
		{"link", "[docs](https://x.dev/a?b=1&c=2)", `<p><a href="https://x.dev/a?b=1&amp;c=2" rel="noopener noreferrer">docs</a></p>` + "\n"},
		{"bare url, sentence dot", "see https://x.dev/p.", `<p>see <a href="https://x.dev/p" rel="noopener noreferrer">https://x.dev/p</a>.</p>` + "\n"},
		{"javascript link is text", "[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>\n"},
		{"quote cannot leave href", `[x](https://a.b/"onmouseover="alert(1))`, `<p>[x](<a href="https://a.b/" rel="noopener noreferrer">https://a.b/</a>&#34;onmouseover=&#34;alert(1))</p>` + "\n"},
		{"raw html is text", "<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n"},
		{"list", "- a\n- b\n  - c", "<ul>\n<li>a</li>\n<li><p>b</p>\n<ul>\n<li>c</li>\n</ul>\n</li>\n</ul>\n"},
		{"ordered", "1. x\n2. y", "<ol>\n<li>x</li>\n<li>y</li>\n</ol>\n"},
		{"quote", "> said\n> this", "<blockquote>\n<p>said<br>\nthis</p>\n</blockquote>\n"},
		{"rule", "a\n\n---\n\nb", "<p>a</p>\n<hr>\n<p>b</p>\n"},
		{"table", "| a | b |\n|---|---|\n| 1 | <2> |", "<table class=\"md\">\n<thead><tr><th>a</th><th>b</th></tr></thead>\n<tbody>\n<tr><td>1</td><td>&lt;2&gt;</td></tr>\n</tbody></table>\n"},
		{"fence", "```go\nfunc f() { return \"</pre>\" } // done\n```", `<pre class="code" data-lang="go"><code><span class="k">func</span> f() { <span class="k">return</span> <span class="s">&#34;&lt;/pre&gt;&#34;</span> } <span class="c">// done</span></code></pre>` + "\n"},
		{"fence lang is escaped", "```\"><script>\nx\n```", `<pre class="code" data-lang="&#34;&gt;&lt;script&gt;"><code>x</code></pre>` + "\n"},
		{"unknown lang", "```brainfuck\n<+>\n```", `<pre class="code" data-lang="brainfuck"><code>&lt;+&gt;</code></pre>` + "\n"},
		{"unclosed fence", "```sh\necho hi # note", `<pre class="code" data-lang="sh"><code><span class="k">echo</span> hi <span class="c"># note</span></code></pre>` + "\n"},
		{"diff", "```diff\n+a\n-b\n```", `<pre class="code" data-lang="diff"><code><span class="add">+a</span>` + "\n" + `<span class="del">-b</span></code></pre>` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Markdown(tc.in)); got != tc.want {
				t.Errorf("Markdown(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// Deep nesting is bounded, and nothing hangs or panics on odd input.
func TestMarkdownDegenerate(t *testing.T) {
	for _, in := range []string{
		strings.Repeat(">", 10000) + " x",
		strings.Repeat("- ", 5000) + "x",
		strings.Repeat("*", 10000),
		strings.Repeat("`", 9999),
		strings.Repeat("[a](https://x", 1000),
		"|\n|-|\n" + strings.Repeat("|", 1000),
	} {
		out := string(Markdown(in))
		if strings.Contains(out, "<script") {
			t.Error("script")
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add("**a** `b` [c](https://d) <e>")
	f.Add("```go\n\"x\n```")
	f.Fuzz(func(t *testing.T, in string) {
		out := string(Markdown(in))
		htmltest.AssertInert(t, out)
		// Every < of the input is escaped: a tag in the output is the renderer's own.
		for _, tag := range htmltest.Tag.FindAllString(out, -1) {
			if !ownTag(tag) {
				t.Fatalf("foreign tag %q from %q", tag, in)
			}
		}
	})
}

// ownTag: a tag the renderer writes.
func ownTag(tag string) bool {
	for _, p := range []string{"<p>", "<br>", "<h", "<strong>", "<em>", "<del>", "<code>", "<pre class=", "<span class=", "<a href=\"http", "<a href=\"mailto:", "<ul>", "<ol>", "<li>", "<blockquote>", "<hr>", "<table class=", "<thead>", "<tbody>", "<tr>", "<th>", "<td>"} {
		if strings.HasPrefix(tag, p) {
			return true
		}
	}
	return false
}

package export_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/htmltest"
)

const branchy = "01a0a561-3aba-724f-a634-c15148c18a5a" // two branch points, two labels, two roots

var (
	reEntry  = regexp.MustCompile(`<li class="entry [^"]*" id="[^"]*" data-id="([^"]*)" data-parent="[^"]*"( hidden)?>`)
	reSrc    = regexp.MustCompile(`(?i)\s(src|srcset|poster|action|formaction|data|background)\s*=\s*"([^"]*)"`)
	reHref   = regexp.MustCompile(`(?i)<[a-z]+\s[^>]*\bhref\s*=\s*"([^"]*)"[^>]*>`)
	reInline = regexp.MustCompile(`(?s)(<style>).*?(</style>)|(<script>).*?(</script>)`)
)

// shownEntries are the ids of the page's entries, and of those the page
// shows without script.
func shownEntries(page string) (all, shown []string) {
	for _, m := range reEntry.FindAllStringSubmatch(page, -1) {
		all = append(all, m[1])
		if m[2] == "" {
			shown = append(shown, m[1])
		}
	}
	return all, shown
}

// pathIDs are the ids of the entries from the root to leaf.
func pathIDs(t *testing.T, cat pidex.Catalog, ref, leaf string) []string {
	t.Helper()
	r, err := cat.Resolve(context.Background(), ref, "")
	if err != nil {
		t.Fatal(err)
	}
	path, err := cat.Path(context.Background(), r, leaf)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range path {
		ids = append(ids, e.ID)
	}
	return ids
}

// The page holds every entry of the session once, and shows the branch
// asked for (the current one unless --leaf), as the catalog reads it.
func TestHTMLHoldsEveryEntryAndShowsTheBranch(t *testing.T) {
	eng := catalog(t, map[string]string{"evil.jsonl": evilSession})
	for _, tc := range []struct {
		ref, leaf string
		entries   int
	}{
		{branchy, "", 28},
		{branchy, "aeb87ffe", 28},   // the end of another branch
		{branchy, "63c0ee42", 28},   // inside a branch: the path to it
		{evilID, "", 10},            // the current branch
		{evilID, "u3", 10},          // the compacted one
		{"header-only", "", 0},      // no entries
		{"misc-edge", "", 19},       // every kind of entry
		{"non-object-lines", "", 4}, // lines that are not entries, and {} which is one
	} {
		t.Run(tc.ref+"/"+tc.leaf, func(t *testing.T) {
			page := write(t, eng, tc.ref, pidex.ExportOptions{Format: pidex.FormatHTML, Leaf: tc.leaf})
			all, shown := shownEntries(page)
			if len(all) != tc.entries {
				t.Errorf("%d entries, want %d", len(all), tc.entries)
			}
			if dup := len(all) - len(uniq(all)); dup > 0 {
				t.Errorf("%d entries twice", dup)
			}
			if want := pathIDs(t, eng, tc.ref, tc.leaf); !slices.Equal(shown, want) && !(len(want) == 0 && len(shown) == 0) {
				t.Errorf("shows %v, want the path %v", shown, want)
			}
		})
	}
}

func uniq(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// An entry's notes that depend on the branch (the compaction on branch
// A compacts what branch B keeps) are written for the branches they hold
// on, and shown for the branch the page opens on.
func TestHTMLNotesByBranch(t *testing.T) {
	eng := catalog(t, map[string]string{"evil.jsonl": evilSession})
	for _, tc := range []struct {
		leaf   string
		hidden bool
	}{{"", true}, {"u3", false}} {
		page := write(t, eng, evilID, pidex.ExportOptions{Format: pidex.FormatHTML, Leaf: tc.leaf})
		i := strings.Index(page, `data-id="m1"`)
		if i < 0 {
			t.Fatal("no entry m1")
		}
		head := page[i : i+strings.Index(page[i:], `class="where"`)]
		want := `<span class="note" data-branches="[&#34;u3&#34;]">(compacted)</span>`
		if tc.hidden {
			want = `<span class="note" data-branches="[&#34;u3&#34;]" hidden>(compacted)</span>`
		}
		if !strings.Contains(head, want) {
			t.Errorf("leaf %q: m1's heading lacks %s:\n%s", tc.leaf, want, head)
		}
		if tc.leaf == "u3" && !strings.Contains(page, `pi opens the session at its latest entry n1: type /tree and choose entry u3`) {
			t.Error("the resume command does not say how to reach branch A")
		}
	}
}

// Session text cannot leave its place: </script>, markup, event handlers
// and control characters are text; the page's own markup is all there is,
// every src is a data: URL, every link but the page's own anchors is a
// Markdown link a reader clicks (nothing loads by itself), and the
// Content-Security-Policy allows nothing else.
func TestHTMLIsInertAndSelfContained(t *testing.T) {
	eng := catalog(t, map[string]string{"evil.jsonl": evilSession})
	page := write(t, eng, evilID, pidex.ExportOptions{Format: pidex.FormatHTML})
	if !utf8.ValidString(page) || strings.ContainsRune(page, 0) {
		t.Error("the page is not valid UTF-8 without NUL")
	}
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d script tags, want the page's one", n)
	}
	// The inline style and script are the page's own (hashed in the
	// policy); what is around them is checked as markup.
	body := reInline.ReplaceAllString(page, "$1$2$3$4")
	htmltest.AssertInert(t, body, "<script>")
	for _, want := range []string{
		`&lt;/script&gt;&lt;script&gt;alert(&#39;user&#39;)&lt;/script&gt;`,     // user text
		`&lt;/script&gt;&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;`,     // the name, in the title
		`&lt;img src=x onerror=alert(&#39;label&#39;)&gt;`,                      // a label
		`&lt;/code&gt;&lt;/pre&gt;&lt;/script&gt;&lt;script&gt;`,                // fenced code
		`&lt;/script&gt;&lt;script&gt;alert(&#39;thinking&#39;)&lt;/script&gt;`, // thinking
		`&lt;/script&gt;&lt;script&gt;alert(&#39;output&#39;)&lt;/script&gt;`,   // tool output
		`/home/&lt;img src=x onerror=alert(&#39;cwd&#39;)&gt;/proj`,             // cwd
		`<img class="image" src="data:image/png;base64,` + pixel + `"`,          // the PNG, inline
		`[image image/svg&#43;xml, `,                                            // the SVG described, not shown
		`!<a href="http://example.com/x.png" rel="noopener noreferrer">pic</a>`, // a Markdown image is a link
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, m := range reSrc.FindAllStringSubmatch(body, -1) {
		if !strings.HasPrefix(m[2], "data:image/") {
			t.Errorf("%s=%q loads something", m[1], m[2])
		}
	}
	for _, m := range reHref.FindAllStringSubmatch(body, -1) {
		if !strings.HasPrefix(m[1], "#") && !strings.Contains(m[0], `rel="noopener noreferrer"`) {
			t.Errorf("link %s is not the page's own nor a Markdown link", m[0])
		}
	}
	for _, bad := range []string{"<link", "@import", "url(", "<iframe", "<object", "<embed", "<base"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("the page holds %s", bad)
		}
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; img-src data:; style-src &#39;sha256-`) {
		t.Error("no Content-Security-Policy that allows nothing but the page's own style and script")
	}
	// A session whose text names no URL: the page names none either.
	if plain := write(t, eng, branchy, pidex.ExportOptions{Format: pidex.FormatHTML}); strings.Contains(plain, "://") {
		i := strings.Index(plain, "://")
		t.Errorf("the page names a URL: …%s…", plain[max(0, i-60):i+40])
	}
}

// With Redact, no secret is left anywhere: entries of every branch, the
// tree's previews and labels, the title, the resume command's notes.
func TestHTMLRedacts(t *testing.T) {
	eng := catalog(t, map[string]string{"evil.jsonl": evilSession})
	for _, leaf := range []string{"", "u3"} {
		plain := write(t, eng, evilID, pidex.ExportOptions{Format: pidex.FormatHTML, Leaf: leaf})
		if n := strings.Count(plain, secret); n < 6 {
			t.Errorf("the secret is in the unredacted page %d times, want it in text, thinking, tool call and output, label, name", n)
		}
		red := write(t, eng, evilID, pidex.ExportOptions{Format: pidex.FormatHTML, Leaf: leaf, Redact: true})
		if strings.Contains(red, secret) || strings.Contains(red, secret[:20]) {
			t.Errorf("leaf %q: the redacted page holds the secret", leaf)
		}
		if !strings.Contains(red, "[REDACTED]") {
			t.Error("the redacted page says nothing was redacted")
		}
	}
}

func TestHTMLRejectsContext(t *testing.T) {
	eng := catalog(t, nil)
	r, err := eng.Resolve(context.Background(), branchy, "")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := exportWrite(eng, r, pidex.ExportOptions{Format: pidex.FormatHTML, Context: true}, &b); err == nil || b.Len() > 0 {
		t.Errorf("an HTML export of the model context: %v, %d bytes", err, b.Len())
	}
}

package htmltest

import (
	"regexp"
	"strings"
)

var (
	// Tag is an HTML start tag.
	Tag       = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	reQuoted  = regexp.MustCompile(`="[^"]*"`)
	reOnAttr  = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	reBadHref = regexp.MustCompile(`(?i)<[^>]*\s(href|src)\s*=\s*"?\s*(javascript|vbscript|data:text|data:image/svg)`)
	reImgSrc  = regexp.MustCompile(`<img class="image" src="([^"]*)"`)
)

// Errorer is the part of testing.T that AssertInert uses.
type Errorer interface {
	Helper()
	Errorf(format string, args ...any)
}

// AssertInert checks that the only markup in body is the page's own: no
// script tag but the ones in scripts (each written exactly so), images
// only as inline rasters, no event handler attributes, no script URLs,
// no frames.
func AssertInert(t Errorer, body string, scripts ...string) {
	t.Helper()
	if n := strings.Count(strings.ToLower(body), "<script"); n > len(scripts) {
		t.Errorf("%d <script> tags, want at most %d", n, len(scripts))
	}
	for _, tag := range Tag.FindAllString(body, -1) {
		// Quoted attribute values are text: a quote inside one is escaped.
		orig := tag
		tag = reQuoted.ReplaceAllString(tag, `="…"`)
		lower := strings.ToLower(tag)
		switch {
		case strings.HasPrefix(lower, "<script") && !contains(scripts, orig):
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package pi

import "strings"

// joinText joins the non-empty parts with a newline.
func joinText(parts ...string) string {
	keep := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n")
}

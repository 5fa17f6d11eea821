package pi

import (
	"encoding/json"

	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/schema"
)

// oh-my-pi's dialect of the format (@oh-my-pi/pi-coding-agent 18.2.3,
// testdata/gen/omp/README.md): the title slot before the header, the
// header's title, and the rules its kinds share. Its kinds are registered
// in kinds.go with pi's; its context rebuild is omp_context.go.

// TitleSlot is omp's title slot: the first physical line of a session file
// when it is {"type":"title","v":1,"title","source"?,"updatedAt","pad"}
// (session-title-slot.ts parseTitleSlotObject), a fixed-width line omp
// rewrites in place when the title changes.
type TitleSlot struct {
	Title, Source, UpdatedAt string
}

// ParseTitleSlot reads a line as omp's title slot; ok is false for
// anything else (a header, a line of pi's).
func ParseTitleSlot(line []byte) (TitleSlot, bool) {
	o, ok := js.ParseObject(line)
	if !ok || o.Str("type") != schema.TypeTitleSlot || !json.Valid(line) {
		return TitleSlot{}, false
	}
	var v float64
	if json.Unmarshal(o.Get("v"), &v) != nil || v != 1 {
		return TitleSlot{}, false
	}
	title, ok1 := js.StringValue(o.Get("title"))
	updated, ok2 := js.StringValue(o.Get("updatedAt"))
	_, ok3 := js.StringValue(o.Get("pad"))
	if !ok1 || !ok2 || !ok3 {
		return TitleSlot{}, false
	}
	s := TitleSlot{Title: title, UpdatedAt: updated}
	if src := o.Get("source"); src != nil {
		if s.Source, _ = js.StringValue(src); s.Source != "auto" && s.Source != "user" {
			return TitleSlot{}, false
		}
	}
	return s, true
}

// HeaderTitle is a header's title as omp's loader reads it: the slot's
// title when the file has a slot (an empty one means none), else the
// header's own `title` ("" for none).
func HeaderTitle(header *schema.Line, slot *TitleSlot) string {
	if slot != nil {
		return slot.Title
	}
	if header == nil {
		return ""
	}
	t, _ := js.StringValue(js.Field(header.Raw, "title"))
	return t
}

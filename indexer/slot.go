package indexer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/pidex-dev/pidex/pi"
)

// omp writes a title slot before the header: a fixed-width first line
// (256 bytes) that it rewrites in place whenever the title changes, every
// later byte and offset unchanged (session-storage.ts updateSessionTitle).
// So a slotted file's head fingerprint and content sum start after the
// slot (files.slot_len), the slot has a fingerprint of its own
// (files.slot_hash), and a refresh that finds the file changed reads the
// slot again (256 bytes) and goes on from the stored offset: a title
// change is never a rewrite, and a title change without an append
// (slot_hash differs, size the same) reads nothing else.

// readSlot reads the first n bytes of f as a title slot: ok when they are
// still a slot line of that length.
func readSlot(f io.ReaderAt, n int64) (slot pi.TitleSlot, hash string, ok bool, err error) {
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil {
		if err == io.EOF {
			return slot, "", false, nil
		}
		return slot, "", false, readErr{fmt.Errorf("read title slot: %w", err)}
	}
	if buf[n-1] != '\n' {
		return slot, "", false, nil
	}
	line := buf[:n-1]
	for _, c := range line {
		if c == '\n' {
			return slot, "", false, nil
		}
	}
	slot, ok = pi.ParseTitleSlot(line)
	return slot, slotHash(line), ok, nil
}

func slotHash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:12])
}

// rereadSlot reads the slot of a file read from its offset and applies
// its title to the session.
func (p *parser) rereadSlot() error {
	s, hash, ok, err := readSlot(p.f, p.file.SlotLen)
	if err != nil || !ok {
		return err // not a slot any more: changed since planned, the next refresh rewrites it
	}
	p.slot, p.file.SlotHash = &s, hash
	if p.sess != nil {
		p.sess.Name = titleName(s.Title)
	}
	return nil
}

// titleName is an omp title as the session's name (nil for none).
func titleName(t string) *string {
	if t == "" {
		return nil
	}
	return &t
}

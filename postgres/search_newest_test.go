package postgres

import (
	"slices"
	"testing"
)

// eachBatch covers every ranked file once, in order, in batches growing
// eightfold from the first, the rest in one batch once a batch would
// reach half of the files; a stop ends it.
func TestEachBatch(t *testing.T) {
	for _, tc := range []struct {
		files, first, stopAfter int
		want                    []int // each batch's size; the last is the rest
	}{
		{files: 0, first: 128},
		{files: 3, first: 1, want: []int{3}},
		{files: 4, first: 1, want: []int{1, 3}},
		{files: 100, first: 1, want: []int{1, 8, 91}},
		{files: 4000, first: 128, want: []int{128, 1024, 2848}},
		{files: 600000, first: 128, want: []int{128, 1024, 8192, 65536, 525120}},
		{files: 600000, first: 128, stopAfter: 2, want: []int{128, 1024}},
	} {
		ranked := make([]rankedFile, tc.files)
		for i := range ranked {
			ranked[i].ID = int64(i)
		}
		var got []int
		next := 0
		err := eachBatch(ranked, tc.first, func(b fileBatch) (int, error) {
			if b.from != next || (len(b.files) > 0 && b.files[0].ID != int64(next)) {
				t.Errorf("%d files: a batch starts at %d, want %d", tc.files, b.from, next)
			}
			if b.rest != (b.from+len(b.files) == tc.files) {
				t.Errorf("%d files: batch at %d: rest %v", tc.files, b.from, b.rest)
			}
			next += len(b.files)
			got = append(got, len(b.files))
			if len(got) == tc.stopAfter {
				return 0, nil
			}
			return grow(len(b.files)), nil
		})
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%d files, first %d: batches %v, %v; want %v", tc.files, tc.first, got, err, tc.want)
		}
	}
}

// toFind sizes the next batch at twice what the yield of the files read
// says, within two and eight times the last batch, or the rest when the
// yield says every file holds fewer than wanted.
func TestToFind(t *testing.T) {
	batch := func(from, n int) fileBatch { return fileBatch{from: from, files: make([]rankedFile, n)} }
	for _, tc := range []struct {
		b           fileBatch
		found, want int
		next        int
	}{
		{batch(0, 128), 5000, 5000, 0},       // enough
		{batch(0, 128), 0, 5000, 1024},       // nothing yet: eightfold
		{batch(0, 128), 1563, 5000, 562},     // 2 × 128 × 3437/1563
		{batch(0, 128), 3230, 5000, 256},     // 2 × 128 × 1770/3230 = 140: twofold
		{batch(0, 128), 888, 5000, 1024},     // 1185: at most eightfold
		{batch(128, 1024), 4000, 5000, 2048}, // 2 × 1152 × 1000/4000 = 576: twofold
		{batch(0, 128), 106, 5000, 3872},     // 106 × 4000/128 = 3312 in all: the rest
		{batch(0, 128), 160, 5000, 3872},     // 160 × 4000/128 = 5000 in all: the rest
		{batch(0, 128), 161, 5000, 1024},     // 5031 in all: in batches, eightfold
	} {
		if got := toFind(tc.b, 4000, tc.found, tc.want); got != tc.next {
			t.Errorf("after %d files from %d, %d of %d found: next %d, want %d", len(tc.b.files), tc.b.from, tc.found, tc.want, got, tc.next)
		}
	}
}

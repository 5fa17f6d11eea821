package pidex

import "testing"

// A window's span: from a position, around an item (centred, or starting
// a little before it), or the last items; always within the n items.
func TestWindowSpan(t *testing.T) {
	tests := []struct {
		name     string
		w        Window
		n, at    int // items, the Around item's index (-1: none)
		from, to int
	}{
		{"every item", Window{From: -1}, 10, -1, 0, 10},
		{"the last items", Window{From: -1, Size: 4}, 10, -1, 6, 10},
		{"from a position", Window{From: 3, Size: 4}, 10, -1, 3, 7},
		{"from a position near the end", Window{From: 8, Size: 4}, 10, -1, 6, 10},
		{"a little before the item", Window{From: -1, Size: 40}, 100, 50, 46, 86},
		{"a little before: a small window starts at the item", Window{From: -1, Size: 4}, 100, 50, 50, 54},
		// issue 39, item 12: a hit with limit=4 shows what led to it
		{"centred, even", Window{From: -1, Size: 4, Centre: true}, 100, 50, 48, 52},
		{"centred, odd", Window{From: -1, Size: 5, Centre: true}, 100, 50, 48, 53},
		{"centred, one", Window{From: -1, Size: 1, Centre: true}, 100, 50, 50, 51},
		{"centred, two", Window{From: -1, Size: 2, Centre: true}, 100, 50, 49, 51},
		{"centred at the start", Window{From: -1, Size: 5, Centre: true}, 100, 1, 0, 5},
		{"centred at the end", Window{From: -1, Size: 5, Centre: true}, 100, 99, 95, 100},
		{"centred, more than there is", Window{From: -1, Size: 50, Centre: true}, 10, 5, 0, 10},
		{"a position wins over the item", Window{From: 2, Size: 4, Centre: true}, 100, 50, 2, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if from, to := tc.w.Span(tc.n, tc.at); from != tc.from || to != tc.to {
				t.Errorf("Span(%d, %d) of %+v = [%d, %d), want [%d, %d)", tc.n, tc.at, tc.w, from, to, tc.from, tc.to)
			}
		})
	}
}

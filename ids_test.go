package pidex

import "testing"

func TestShortIDs(t *testing.T) {
	all := []string{
		"01a09f30-132d-724f-a634-c14fac694f8c",
		"01a09f30-1344-724f-a634-c14fac694f8c", // same clock, 36 µs later
		"01a0a561-3aba-724f-a634-c15148c18a5a",
		"4c0ffee0-1d2e-4f3a-8b4c-5d6e7f8091a2",
		"shared-1", "shared-1", // a copied file: two sessions, one id
		"abc", // shorter than the minimum
		"sharedXY-2",
		"01a09f30", // a whole id that prefixes others
		"検索セッション-1", "検索セッション-2",
	}
	tests := map[string]string{
		"01a09f30-132d-724f-a634-c14fac694f8c": "01a09f30-132",
		"01a09f30-1344-724f-a634-c14fac694f8c": "01a09f30-134",
		"01a0a561-3aba-724f-a634-c15148c18a5a": "01a0a561",
		"4c0ffee0-1d2e-4f3a-8b4c-5d6e7f8091a2": "4c0ffee0",
		"shared-1":                             "shared-1",
		"abc":                                  "abc",
		"01a09f30":                             "01a09f30",
		"検索セッション-1":                            "検索セッション-1",
	}
	ids := make([]string, 0, len(tests))
	for id := range tests {
		ids = append(ids, id)
	}
	got := ShortIDs(all, ids)
	for id, want := range tests {
		if got[id] != want {
			t.Errorf("ShortIDs[%q] = %q, want %q", id, got[id], want)
		}
	}
}

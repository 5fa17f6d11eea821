package pidex

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A budget's defaults and bounds: a value out of bounds is an option
// error naming the option and the range.
func TestBudgetFilter(t *testing.T) {
	v := Vocabulary{Classes: []string{"user", "assistant", "tool"}}
	tests := []struct {
		name    string
		o       BudgetOptions
		want    Budget
		wantErr string
	}{
		{"defaults", BudgetOptions{}, Budget{Chars: DefaultBudget, ItemChars: DefaultItemBudget}, ""},
		{"given", BudgetOptions{Chars: 5000, ItemChars: 300, Thinking: true, Classes: []string{"user"}},
			Budget{Chars: 5000, ItemChars: 300, Thinking: true, Classes: []string{"user"}}, ""},
		{"too small", BudgetOptions{Chars: 10}, Budget{}, `maxChars "10": want a number from 1000 to 200000`},
		{"too large", BudgetOptions{Chars: MaxBudget + 1}, Budget{}, `maxChars "200001"`},
		{"item above the total", BudgetOptions{Chars: 2000, ItemChars: 3000}, Budget{}, `maxItemChars "3000": want a number from 100 to 2000`},
		{"unknown class", BudgetOptions{Classes: []string{"user", "robot"}}, Budget{}, `classes "robot": want user, assistant or tool`},
		{"class twice", BudgetOptions{Classes: []string{"user", "user"}}, Budget{}, "names user twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.o.Filter(v)
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q (a usage error)", err, tc.wantErr)
				}
				return
			}
			if err != nil || got.Chars != tc.want.Chars || got.ItemChars != tc.want.ItemChars || got.Thinking != tc.want.Thinking || !slices.Equal(got.Classes, tc.want.Classes) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if b, _ := (BudgetOptions{}).Filter(v); !b.Keeps("anything") {
		t.Error("no classes keeps every class")
	}
}

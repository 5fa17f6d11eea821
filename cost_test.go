package pidex

import (
	"errors"
	"strings"
	"testing"
)

// --by names each key once and at least one: "day,day" wrote the key
// "day" twice in every JSON object, "" made a report whose total row had
// no label (issue 16, item 16).
func TestCostByIsChecked(t *testing.T) {
	for _, tt := range []struct {
		by   []string
		want string
	}{
		{[]string{"day", "day"}, "names day twice"},
		{[]string{"model", "day", "model"}, "names model twice"},
		{[]string{""}, "want day, week"},
		{[]string{}, "want day, week"},
		{[]string{"day", ""}, "separated by commas"},
		{[]string{"hour"}, `"hour": want day`},
	} {
		_, err := CostOptions{By: tt.by}.Filter(Vocabulary{})
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("by %q: %v, want a usage error saying %q", tt.by, err, tt.want)
		}
	}
	if f, err := (CostOptions{}).Filter(Vocabulary{}); err != nil || strings.Join(f.By, ",") != DefaultCostBy {
		t.Errorf("no --by: %v %v", f.By, err)
	}
}

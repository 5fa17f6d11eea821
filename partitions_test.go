package pidex

import (
	"errors"
	"testing"
)

func TestCheckPartitions(t *testing.T) {
	for _, tc := range []struct {
		n  int
		ok bool
	}{{0, true}, {1, true}, {4, true}, {MaxPartitions, true}, {-1, false}, {MaxPartitions + 1, false}} {
		err := CheckPartitions(tc.n)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrUsage)) {
			t.Errorf("CheckPartitions(%d) = %v, want ok %v (a usage error otherwise)", tc.n, err, tc.ok)
		}
	}
}

package postgres

import "time"

// SetCallsWait sets how long a push waits for the call lock, for tests,
// and returns the setter of the value before.
func SetCallsWait(d time.Duration) (restore func()) {
	prior := callsWait
	callsWait = d
	return func() { callsWait = prior }
}

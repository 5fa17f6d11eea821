package pidex

import "time"

// SQLOptions are one read-only statement on the catalog's views.
type SQLOptions struct {
	// Statement is one SELECT, WITH, VALUES, EXPLAIN or reading PRAGMA;
	// anything that would write, attach or load is refused (ErrUsage).
	Statement string
	// Params bind :name to a value (integers and reals as numbers).
	Params map[string]string
	// Timeout interrupts the statement (ErrTimeout); 0: none.
	Timeout time.Duration
}

// Rows is a statement's result: column names and rows of values (int64,
// float64, string, []byte or nil).
type Rows struct {
	Columns []string
	Rows    [][]any
}

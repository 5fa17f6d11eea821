package pidex

// MaxPartitions is the most hash partitions by machine a team catalog's
// tables may have (the team catalog's migration 00011, pidex_layout).
const MaxPartitions = 1024

// CheckPartitions refuses a number of partitions (--partitions) out of
// range: 0 leaves the layout as it is, plain tables when the catalog is
// made.
func CheckPartitions(n int) error {
	if n < 0 || n > MaxPartitions {
		return Usagef("--partitions %d: give a number of partitions from 1 to %d", n, MaxPartitions)
	}
	return nil
}

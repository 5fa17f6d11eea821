package pidex

// BucketMs is a quarter hour, the grain of every cost figure by time:
// each zone's offset today is a multiple of it.
const BucketMs = 900_000

// Rollup is a table of usage sums per file and time bucket, which both
// catalogs keep alike (the local catalog's migration 00005, the team
// catalog's migrations/postgres): the indexer fills each, a cost report
// reads the coarsest that answers it. Bucket is in quarter hours in each,
// a multiple of Unit, the rollup's bucket size in quarter hours.
type Rollup struct {
	Table string
	Unit  int64
}

// The rollups. The hourly one has about 40% fewer rows, for reports in
// zones whose offsets are whole hours.
var (
	QuarterRollup = Rollup{"usage_rollup", 1}
	HourRollup    = Rollup{"usage_rollup_hour", 4}
	Rollups       = []Rollup{QuarterRollup, HourRollup}
)

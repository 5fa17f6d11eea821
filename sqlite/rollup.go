package sqlite

// Rollup is a table of usage sums per file and time bucket (migration
// 00005): the indexer fills every one of them, the cost report reads the
// coarsest that answers it. Bucket is in quarter hours in each (BucketMs),
// a multiple of Unit, the rollup's bucket size in quarter hours.
type Rollup struct {
	Table string
	Unit  int64
}

// BucketMs is a quarter hour, the unit of every rollup's bucket: each
// zone's offset today is a multiple of it.
const BucketMs = 900_000

// The rollups. The hourly one has about 40% fewer rows, for reports in
// zones whose offsets are whole hours.
var (
	QuarterRollup = Rollup{"usage_rollup", 1}
	HourRollup    = Rollup{"usage_rollup_hour", 4}
	Rollups       = []Rollup{QuarterRollup, HourRollup}
)

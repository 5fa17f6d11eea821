package query

// PathWalkAt lets tests walk every path in Go (see pathWalkAt).
var PathWalkAt = &pathWalkAt

// ConfirmBudget lets tests make SearchTotals stop early (see confirmBudget).
var ConfirmBudget = &confirmBudget

// CostSQLOnly makes rd answer cost reports with their SQL only, never
// from the rollup cache (costcache.go).
func CostSQLOnly(rd *Reader) { rd.noCostCache = true }

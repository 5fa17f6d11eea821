package query

// PathWalkAt lets tests walk every path in Go (see pathWalkAt).
var PathWalkAt = &pathWalkAt

// ConfirmBudget lets tests make SearchTotals stop early (see confirmBudget).
var ConfirmBudget = &confirmBudget

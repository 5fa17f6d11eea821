package query

// PathWalkAt lets tests walk every path in Go (see pathWalkAt).
var PathWalkAt = &pathWalkAt

//go:build race

package indexer

// raceDetector: the race detector slows everything 5 to 10 times, so
// latency bounds are stretched under it (data races are what it checks).
const raceDetector = true

//go:build !race

package indexer

const raceDetector = false

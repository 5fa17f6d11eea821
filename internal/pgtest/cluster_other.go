//go:build !unix

package pgtest

import (
	"errors"
	"runtime"
)

// canStart: no throwaway cluster on this system (PIDEX_TEST_PG works).
const canStart = false

type cluster struct{}

func (*cluster) url(string) string { return "" }
func (*cluster) stop()             {}
func (*cluster) halt(int)          {}
func (*cluster) launch() error     { return errors.New("pgtest: no throwaway cluster on " + runtime.GOOS) }

const sigQuit = 0

func startCluster(string) (*cluster, error) {
	return nil, errors.New("pgtest: no throwaway cluster on " + runtime.GOOS)
}

func (*cluster) requirePasswords() error {
	return errors.New("pgtest: no throwaway cluster on " + runtime.GOOS)
}

func (*cluster) socketDir() string { return "" }

//go:build !unix

package indexer

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }

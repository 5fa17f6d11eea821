//go:build !unix

package query_test

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }

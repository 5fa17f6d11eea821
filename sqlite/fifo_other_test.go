//go:build !unix

package sqlite

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }

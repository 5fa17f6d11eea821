//go:build !unix

package sqlite

import (
	"errors"
	"os"
)

// mapFile: not here (the file is read into memory instead).
func mapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) {}

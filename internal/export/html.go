package export

import (
	"context"
	"errors"
	"io"

	"github.com/pidex-dev/pidex"
)

// writeHTML writes one self-contained page. (Being written.)
func writeHTML(ctx context.Context, cat pidex.Catalog, ref pidex.SessionRef, o pidex.ExportOptions, w io.Writer) error {
	return errors.New("export html: not written yet")
}

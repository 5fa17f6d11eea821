//go:build !unix

package indexer

import "io/fs"

// devIno returns 0, 0 outside Unix. On Windows the stat that directory
// listing gives (Win32FileAttributeData) has no file identity: the volume
// serial and file index need an open file handle per file
// (GetFileInformationByHandle, as os.SameFile does lazily), which would turn
// a no-change refresh's one stat per file into an open, a query and a close
// per file. Without them, a rewrite is still detected by the planner's other
// checks: the size falling below the ingested offset, and the fingerprints
// of the file's head and of the bytes just before the offset.
func devIno(fs.FileInfo) (dev, ino int64) { return 0, 0 }

//go:build !linux

package indexer

// listDirFast: none here; listDir lists with os.ReadDir.
func listDirFast(dir, root string) (dirListing, bool) { return dirListing{}, false }

package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/pidex-dev/pidex"
)

// The registry's filters (pidex.Filters) are flags of their own, one per
// filter, named and explained as the registry says: a filter added there
// is a flag of every command whose operation takes it.

// filterFlags adds op's filters to fl; their values go into w.
func filterFlags(fl *pflag.FlagSet, op pidex.Op, w *pidex.Where) {
	for _, f := range pidex.Filters(op) {
		fl.Var(&whereValue{w: w, name: f.Name}, f.Name, "only "+f.On(op).Help)
	}
}

// whereValue is one filter's flag.
type whereValue struct {
	w    *pidex.Where
	name string
}

func (v *whereValue) String() string { return (*v.w)[v.name] }

func (v *whereValue) Set(s string) error {
	if *v.w == nil {
		*v.w = pidex.Where{}
	}
	(*v.w)[v.name] = s
	return nil
}

func (v *whereValue) Type() string { return "string" }

// resolvePaths makes the relative paths of path filters absolute: pi
// compares resolved working directories, so `--cwd .` means here.
func resolvePaths(w pidex.Where) error {
	for name, v := range w {
		f, ok := pidex.FilterNamed(name)
		if !ok || !f.Path || v == "" || filepath.IsAbs(v) || isWindowsAbs(v) {
			continue
		}
		abs, err := filepath.Abs(v)
		if err != nil {
			return fmt.Errorf("resolve --%s: %w", name, err)
		}
		w[name] = abs
	}
	return nil
}

// isWindowsAbs recognises C:\ paths, which sessions written on Windows
// carry in their header, so they are matched as given.
func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

package main

import (
	"flag"
	"os"
	"runtime/pprof"
)

var memProfile = flag.String("memprofile", "", "write a heap profile here at exit (debugging)")

func writeMemProfile() {
	if *memProfile == "" {
		return
	}
	f, err := os.Create(*memProfile)
	if err != nil {
		return
	}
	defer f.Close()
	pprof.Lookup("allocs").WriteTo(f, 0)
}

// Command shape measures the shape of pi session files: entries per MB,
// line-size percentiles, and the share of each kind of entry and block,
// beside the figures of real session files. Usage:
//
//	go run ./bench/shape [-json] [-check] PATH...
//
// PATH is a folder (every *.jsonl under it) or a file. The figures go to
// stdout; -json prints them as JSON instead of the tables. -check exits
// with status 1 when a figure is off the real one by more than the
// tolerance (sizes ±10%; see bench/internal/shape).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/pidex-dev/pidex/bench/internal/shape"
)

func main() {
	asJSON := flag.Bool("json", false, "print the figures as JSON")
	check := flag.Bool("check", false, "exit 1 when a figure is off the real one")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/shape [-json] [-check] PATH...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := shape.Measure(flag.Args()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(1)
	}
	rows := shape.Compare(f, shape.RealSizes, shape.Real())
	if *asJSON {
		b, _ := json.MarshalIndent(f, "", " ")
		fmt.Println(string(b))
	} else {
		shape.Write(os.Stdout, f)
		fmt.Println()
		shape.WriteRows(os.Stdout, rows)
	}
	if *check {
		for _, r := range rows {
			if !r.OK {
				os.Exit(1)
			}
		}
	}
}

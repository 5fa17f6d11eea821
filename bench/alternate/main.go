// Command alternate runs commands in turn, N rounds, and prints the
// quantiles of each one's wall time: the machine's drift (steal time,
// frequency, other tenants) falls on every command alike, which matters
// for differences of a millisecond or two in a 15 ms command. Each
// command is run directly (split on spaces, no shell), its output
// discarded. Usage:
//
//	go run ./bench/alternate -n 150 'pidex-a --db A -q index' 'pidex-b --db B -q index'
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 100, "rounds")
	warm := flag.Int("w", 3, "warm-up rounds, not counted")
	flag.Parse()
	cmds := flag.Args()
	if len(cmds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: alternate [-n rounds] [-w warm-up] 'command args' ...")
		os.Exit(2)
	}
	times := make([][]float64, len(cmds))
	for round := -*warm; round < *n; round++ {
		for i, c := range cmds {
			ms, err := run(c)
			if err != nil {
				fmt.Fprintf(os.Stderr, "alternate: %s: %v\n", c, err)
				os.Exit(1)
			}
			if round >= 0 {
				times[i] = append(times[i], ms)
			}
		}
	}
	for i, c := range cmds {
		t := times[i]
		slices.Sort(t)
		q := func(p float64) float64 { return t[int(p*float64(len(t)-1)+0.5)] }
		fmt.Printf("p10 %6.2f  p25 %6.2f  median %6.2f  p75 %6.2f ms  %s\n", q(.1), q(.25), q(.5), q(.75), c)
	}
}

// run runs one command and returns its wall time in milliseconds.
func run(c string) (float64, error) {
	f := strings.Fields(c)
	cmd := exec.Command(f[0], f[1:]...)
	start := time.Now()
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		err = nil // pidex: done, some input unreadable
	}
	return float64(time.Since(start).Microseconds()) / 1000, err
}

//go:build unix

// Command machine measures what a machine charges for the kernel's work
// that short pidex commands do most: a page fault on fresh memory, a
// system call, a stat. Figures of pidex's short commands (list, search,
// cost, a refresh) move with these far more than with CPU speed: on a
// virtual machine whose page faults cost 11 µs instead of the usual
// 0.1–1 µs, process start alone took four times as long (BENCHMARKS.md).
// bench/peers.sh prints it with each run. Usage:
//
//	go run ./bench/machine [-pages N] [-calls N]
//
// Unix systems only (it maps anonymous memory).
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"
)

func main() {
	pages := flag.Int("pages", 20000, "fresh pages to touch")
	calls := flag.Int("calls", 200000, "system calls and stats to make")
	flag.Parse()
	if err := run(*pages, *calls); err != nil {
		fmt.Fprintln(os.Stderr, "machine:", err)
		os.Exit(1)
	}
}

func run(pages, calls int) error {
	size := os.Getpagesize()
	fault, err := faultCost(pages, size)
	if err != nil {
		return err
	}
	call := perOp(calls, func() { syscall.Getppid() })
	var st syscall.Stat_t
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own binary: %w", err)
	}
	stat := perOp(calls, func() { _ = syscall.Stat(self, &st) })
	fmt.Printf("page fault (fresh anonymous page, %d of %d B): %.2f µs\n", pages, size, us(fault))
	fmt.Printf("system call (getppid, %d): %.3f µs\n", calls, us(call))
	fmt.Printf("stat (own binary, %d): %.3f µs\n", calls, us(stat))
	return nil
}

// faultCost maps pages fresh pages and writes one byte to each: one minor
// fault a page (the mapping asks for no huge pages).
func faultCost(pages, size int) (time.Duration, error) {
	mem, err := syscall.Mmap(-1, 0, pages*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return 0, fmt.Errorf("map memory: %w", err)
	}
	defer syscall.Munmap(mem)
	start := time.Now()
	for i := 0; i < len(mem); i += size {
		mem[i] = 1
	}
	return time.Since(start) / time.Duration(pages), nil
}

func perOp(n int, op func()) time.Duration {
	start := time.Now()
	for range n {
		op()
	}
	return time.Since(start) / time.Duration(n)
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

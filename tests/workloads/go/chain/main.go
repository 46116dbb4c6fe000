// SPDX-License-Identifier: Apache-2.0
// Go workload for ebprof's Go tests: a call chain whose middle function is inlined
// (serve -> parse [inlined] -> scan), and the same work in two goroutines, one of them
// under pprof labels. The "// line:NAME" comments mark the lines the tests expect.
// Usage: chain chain SECONDS | chain labels SECONDS
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"
)

var sink int

//go:noinline
func scan(n int) int {
	s := 0
	for i := 0; i < n; i++ { // line:scan
		s += i * i
	}
	return s
}

// parse is small enough for the compiler to inline it into serve.
func parse(n int) int {
	return scan(n) + 1 // line:parse
}

//go:noinline
func serve(deadline time.Time) int {
	t := 0
	for time.Now().Before(deadline) {
		t += parse(200000) // line:serve
	}
	return t
}

//go:noinline
func labeled(deadline time.Time) {
	sink += serve(deadline) // line:labeled
}

//go:noinline
func unlabeled(deadline time.Time) {
	sink += serve(deadline) // line:unlabeled
}

func labels(deadline time.Time) {
	var wg sync.WaitGroup

	wg.Add(2)
	go func() {
		defer wg.Done()
		l := pprof.Labels("tenant", "acme", "endpoint", "/v1/orders")
		pprof.Do(context.Background(), l, func(context.Context) { labeled(deadline) })
	}()
	go func() {
		defer wg.Done()
		unlabeled(deadline)
	}()
	wg.Wait()
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: chain chain|labels SECONDS")
		os.Exit(2)
	}
	secs, err := strconv.ParseFloat(os.Args[2], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chain: bad SECONDS:", err)
		os.Exit(2)
	}
	// The profiler describes a process (unwind tables) just after exec: work starts
	// once that is done, so the tests see the work, not the start-up.
	time.Sleep(300 * time.Millisecond)
	deadline := time.Now().Add(time.Duration(secs * float64(time.Second)))
	switch os.Args[1] {
	case "chain":
		sink += serve(deadline)
	case "labels":
		labels(deadline)
	default:
		fmt.Fprintln(os.Stderr, "chain: unknown mode", os.Args[1])
		os.Exit(2)
	}
	fmt.Println(sink)
}

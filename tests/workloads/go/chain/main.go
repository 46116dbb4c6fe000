// SPDX-License-Identifier: Apache-2.0
// Go workload for ebprof's Go tests: a call chain whose middle function is inlined
// (serve -> parse [inlined] -> scan), and the same work in two goroutines, one of them
// under pprof labels; garbage collection, whose marking runs on the system stack
// (runtime.systemstack); and goroutines whose stacks grow (runtime.morestack). The
// "// line:NAME" comments mark the lines the tests expect.
// Usage: chain chain|labels|gc|grow SECONDS
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

// node is pointer-heavy, so marking the live ones is real work for the collector.
type node struct {
	next *node
	refs [6]*int
}

var live []*node
var garbage *node

// churn keeps 16 MB of nodes live and allocates garbage pointing into them, so the
// collector runs back to back, marking on the system stack.
//
//go:noinline
func churn(deadline time.Time) {
	live = make([]*node, 1<<18)
	for i := range live {
		live[i] = &node{}
	}
	for time.Now().Before(deadline) {
		for i := 0; i < 4096; i++ {
			garbage = &node{next: live[i]}
		}
	}
}

// deep recurses with 4 KB frames, so a new goroutine's stack grows (and is copied) six
// times on the way down, and the stack stays short enough to be recorded whole.
//
//go:noinline
func deep(n int) int {
	var pad [512]int

	pad[n%512] = n
	if n == 0 {
		return pad[0]
	}
	return deep(n-1) + pad[(n*7)%512]
}

//go:noinline
func grow(deadline time.Time) {
	for time.Now().Before(deadline) {
		done := make(chan int)
		go func() { done <- deep(100) }()
		sink += <-done
	}
}

// settle sleeps before the work: EBPROF_WL_SETTLE seconds (tests/kernel/go.sh scales it
// for an emulated guest, where describing takes seconds), else 600 ms.
func settle() {
	d := 600 * time.Millisecond
	if v, err := strconv.ParseFloat(os.Getenv("EBPROF_WL_SETTLE"), 64); err == nil && v >= 0 {
		d = time.Duration(v * float64(time.Second))
	}
	time.Sleep(d)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: chain chain|labels|gc|grow SECONDS")
		os.Exit(2)
	}
	secs, err := strconv.ParseFloat(os.Args[2], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chain: bad SECONDS:", err)
		os.Exit(2)
	}
	// The profiler describes a process (unwind tables) just after exec: work starts
	// once that is done, so the tests see the work, not the start-up (seven processes at
	// once in tests/kernel/go.sh: 300 ms were too few on a loaded machine).
	settle()
	deadline := time.Now().Add(time.Duration(secs * float64(time.Second)))
	switch os.Args[1] {
	case "chain":
		sink += serve(deadline)
	case "labels":
		labels(deadline)
	case "gc":
		churn(deadline)
	case "grow":
		grow(deadline)
	default:
		fmt.Fprintln(os.Stderr, "chain: unknown mode", os.Args[1])
		os.Exit(2)
	}
	fmt.Println(sink)
}

// SPDX-License-Identifier: Apache-2.0
// Go workload for ebprof's Go tests: Go calls C (c_spin, in c_spin.c), which calls back into Go
// (goCallback -> goLeaf) from the C stack, so a stack crosses Go -> C -> Go.
// Usage: cgo SECONDS
package main

/*
long long c_spin(long long n);
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

var sink int64

//go:noinline
func goLeaf(n int64) int64 { // line:goLeafEntry
	s := int64(0)
	for i := int64(0); i < n; i++ { // line:goLeaf
		s += i * i
	}
	return s
}

//export goCallback
func goCallback(n C.longlong) C.longlong {
	return C.longlong(goLeaf(int64(n) * 4)) // line:goCallback
}

//go:noinline
func goLoop(deadline time.Time) {
	for time.Now().Before(deadline) {
		sink += int64(C.c_spin(100000)) // line:goLoop
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
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cgo SECONDS")
		os.Exit(2)
	}
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cgo: bad SECONDS:", err)
		os.Exit(2)
	}
	settle() // let the profiler describe the process first
	goLoop(time.Now().Add(time.Duration(secs * float64(time.Second))))
	fmt.Println(sink)
}

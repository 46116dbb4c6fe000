# SPDX-License-Identifier: Apache-2.0
# bench/python.sh's workload: a Python stack DEPTH frames deep (recursion), spinning in
# its innermost frame (with <module> and spin, DEPTH Python frames) for SECONDS. Usage: deep.py DEPTH SECONDS
import sys
import time


def spin(deadline):
    total = 0
    while time.monotonic() < deadline:
        for i in range(1000):
            total += i * i % 7
    return total


def down(n, deadline):
    if n <= 1:
        return spin(deadline)
    return down(n - 1, deadline) + 1


down(int(sys.argv[1]) - 2, time.monotonic() + float(sys.argv[2]))

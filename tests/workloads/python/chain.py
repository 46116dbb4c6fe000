# SPDX-License-Identifier: Apache-2.0
# Pure Python workload for tests/kernel/python.sh: outer -> middle -> leaf, the leaf
# spinning on arithmetic so nearly every sample lands in it. Usage: chain.py SECONDS
import sys
import time


def leaf(n):
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def middle(n):
    return leaf(n) + 1


def outer(deadline):
    while time.monotonic() < deadline:
        middle(20000)


outer(time.monotonic() + float(sys.argv[1]))

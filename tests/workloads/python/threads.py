# SPDX-License-Identifier: Apache-2.0
# Two Python threads with different stacks for tests/kernel/python.sh: one spins in pure
# Python (b_main -> b_leaf), the other under json's C encoder (a_main -> ... -> a_hook).
# A sample that took the other thread's Python frames would show one chain under the
# other's native frames. Usage: threads.py SECONDS
import json
import sys
import threading
import time


class Box:
    pass


def a_hook(o):
    total = 0
    for k in range(400):
        total += k * 7 % 11
    return total


def a_main(deadline):
    items = [Box() for _ in range(100)]
    while time.monotonic() < deadline:
        json.dumps(items, default=a_hook)


def b_leaf():
    total = 0
    for k in range(20000):
        total += k * k % 13
    return total


def b_main(deadline):
    while time.monotonic() < deadline:
        b_leaf()


end = time.monotonic() + float(sys.argv[1])
threads = [threading.Thread(target=a_main, args=(end,)), threading.Thread(target=b_main, args=(end,))]
for t in threads:
    t.start()
for t in threads:
    t.join()

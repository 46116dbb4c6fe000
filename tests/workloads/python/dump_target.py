# SPDX-License-Identifier: Apache-2.0
# Three threads for tests/kernel/dump.sh, each in a state `ebprof dump` must show whole: one
# spinning in a Python chain (spin_outer -> spin_middle -> spin_leaf), one blocked in
# read() on standard input, a pipe the test writes to after the dump (reader_main ->
# wait_for_input), one asleep (sleeper_main -> nap). Prints "ready" once all three are in
# place, and "read N" when the read returns: after a dump, the read must have gone on
# waiting, not failed. Usage: dump_target.py SECONDS < PIPE
import os
import sys
import threading
import time


def spin_leaf():
    total = 0
    for k in range(20000):
        total += k * k % 13  # SPIN_LINE
    return total


def spin_middle(deadline):
    while time.monotonic() < deadline:
        spin_leaf()


def spin_outer(deadline):
    spin_middle(deadline)


def wait_for_input(fd):
    return os.read(fd, 1)  # READ_LINE


def reader_main(fd):
    try:
        print("read %d" % len(wait_for_input(fd)), flush=True)
    except OSError as e:
        print("read failed: %s" % e, flush=True)


def nap(seconds):
    time.sleep(seconds)  # NAP_LINE


def sleeper_main(seconds):
    nap(seconds)


seconds = float(sys.argv[1])
end = time.monotonic() + seconds
threads = [
    threading.Thread(target=spin_outer, args=(end,), name="spinner", daemon=True),
    threading.Thread(target=reader_main, args=(0,), name="reader", daemon=True),
    threading.Thread(target=sleeper_main, args=(seconds,), name="sleeper", daemon=True),
]
for t in threads:
    t.start()
time.sleep(0.2)
print("ready", flush=True)
time.sleep(seconds)

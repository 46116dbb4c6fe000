# SPDX-License-Identifier: Apache-2.0
# Python -> C extension -> Python for tests/kernel/python.sh: json's C encoder (the
# _json module) calls hook() for every object it cannot encode, so samples in hook()
# carry _json's native frames between encode() and hook(). Usage: cext.py SECONDS
import json
import sys
import time


class Point:
    def __init__(self, i):
        self.i = i


def hook(o):
    total = 0
    for k in range(400):
        total += k * o.i % 11
    return total


def encode(items):
    return json.dumps(items, default=hook)


def main(deadline):
    items = [Point(i) for i in range(100)]
    while time.monotonic() < deadline:
        encode(items)


main(time.monotonic() + float(sys.argv[1]))

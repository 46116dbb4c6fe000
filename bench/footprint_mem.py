#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Memory of one process by owner: polls /proc/PID/smaps until the process exits and
# prints, for the snapshot with the largest resident set, the kB each owner held
# (BPF maps told apart by their fdinfo: unwind rows, ring buffer, others; heap; stacks;
# the binary; each library; files mapped to be read). Used by bench/footprint.sh.
import os
import re
import sys
import time

HEAD = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")
RINGBUF, ARRAY_OF_MAPS = 27, 12
BPF_F_MMAPABLE = 1 << 10


def bpf_maps(pid):
    """(ring buffer sizes, mmapable array byte sizes) of the process's BPF map fds."""
    rings, arrays = set(), {}
    try:
        fds = os.listdir(f"/proc/{pid}/fdinfo")
    except OSError:
        return rings, arrays
    for fd in fds:
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                info = dict(l.split(":\t", 1) for l in f.read().splitlines() if ":\t" in l)
        except (OSError, ValueError):
            continue
        if "map_type" not in info:
            continue
        mtype = int(info["map_type"])
        entries = int(info.get("max_entries", 0))
        vsize = int(info.get("value_size", 0))
        flags = int(info.get("map_flags", "0"), 16)
        if mtype == RINGBUF:
            rings.add(entries)
        elif flags & BPF_F_MMAPABLE:
            arrays[(entries * vsize + 4095) // 4096 * 4096] = info.get("map_id", "?")
    return rings, arrays


def owner(name, size, perms, rings, arrays, code_files):
    if name == "anon_inode:bpf-map":
        if any(size == 4096 + 2 * r or size == 4096 for r in rings):
            return "BPF ring buffer (data mapped twice)"
        if size in arrays:
            return "BPF unwind rows (mmapped array)"
        return "BPF other mapped maps"
    if name in ("[heap]", ""):
        return "heap and anonymous (malloc arenas, thread stacks)"
    if name == "[stack]":
        return "main stack"
    if name.startswith("["):
        return "kernel-provided " + name
    if name in code_files:
        base = os.path.basename(name)
        if "/build/" in name or base.startswith("ebprof"):
            return "ebprof binary"
        return "library " + re.sub(r"\.so.*", ".so", base)
    return "files mapped for reading (ELF symbols, debug info)"


def snapshot(pid):
    rings, arrays = bpf_maps(pid)
    entries, code_files = [], set()
    cur = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                size = int(m.group(2), 16) - int(m.group(1), 16)
                cur = [m.group(4).strip(), size, m.group(3), 0]
                entries.append(cur)
                if "x" in m.group(3) and m.group(4).startswith("/"):
                    code_files.add(cur[0])
            elif line.startswith("Rss:") and cur:
                cur[3] = int(line.split()[1])
    by = {}
    for name, size, perms, rss in entries:
        k = owner(name, size, perms, rings, arrays, code_files)
        by[k] = by.get(k, 0) + rss
    with open(f"/proc/{pid}/status") as f:
        hwm = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
    return sum(by.values()), by, hwm


def main():
    pid = int(sys.argv[1])
    interval = float(sys.argv[2]) if len(sys.argv) > 2 else 0.02
    best, hwm = (0, {}), 0
    while True:
        try:
            total, by, h = snapshot(pid)
        except (OSError, AttributeError):
            break
        hwm = max(hwm, h)
        if total > best[0]:
            best = (total, by)
        time.sleep(interval)
    total, by = best
    print(f"peak of the polled resident sets: {total / 1024:.1f} MiB (VmHWM {hwm / 1024:.1f} MiB)")
    for k, v in sorted(by.items(), key=lambda kv: -kv[1]):
        if v >= 64:
            print(f"  {v / 1024:7.1f} MiB  {k}")


if __name__ == "__main__":
    main()

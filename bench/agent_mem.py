#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The resident set of one process over its life, by mapping, for bench/agent_mem.sh: polls
# /proc/PID/smaps until the process exits and prints the set at its largest and "between
# spikes" (the poll at the median of the polls after --settle seconds), each split into
# file pages and anonymous pages and by owner (the binary, each library, the heap and
# anonymous mappings, BPF maps), plus VmHWM (what time(1) calls the peak RSS) and the major
# page faults (pages read back from the file). A spike is
# short (a table or DWARF built), so the median is the set the process lives with.
#   bench/agent_mem.py PID [--interval S] [--settle S] [--label NAME]
import argparse
import os
import re
import sys
import time

HEAD = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")


def owner(name, code_files, exe):
    if name == "anon_inode:bpf-map":
        return "BPF maps mapped (ring buffer twice)"
    if name in ("[heap]", "", "[stack]") or name.startswith("[anon"):
        return "heap and anonymous"
    if name.startswith("["):
        return "kernel " + name
    if name == exe:
        return "the binary"
    if name in code_files:
        return re.sub(r"\.so.*", ".so", os.path.basename(name))
    return "read: " + os.path.basename(name)


def poll(pid, exe):
    """{owner: [rss_kib, anon_kib]} of one read of smaps, and the totals."""
    entries, code_files, cur = [], set(), None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                cur = [m.group(4).strip(), 0, 0]
                entries.append(cur)
                if "x" in m.group(3) and m.group(4).startswith("/"):
                    code_files.add(cur[0])
            elif line.startswith("Rss:"):
                cur[1] = int(line.split()[1])
            elif line.startswith("Anonymous:"):
                cur[2] = int(line.split()[1])
    by = {}
    for name, rss, anon in entries:
        o = by.setdefault(owner(name, code_files, exe), [0, 0])
        o[0] += rss
        o[1] += anon
    return by


def show(title, t, by):
    rss = sum(v[0] for v in by.values())
    anon = sum(v[1] for v in by.values())
    print(f"  {title} (at {t:.1f} s): {rss / 1024:.1f} MiB, {(rss - anon) / 1024:.1f} "
          f"file-backed, {anon / 1024:.1f} anonymous")
    read = sum(v[0] for k, v in by.items() if k.startswith("read: "))
    libs = sum(v[0] for k, v in by.items() if k.endswith(".so"))
    for k, v in sorted(by.items(), key=lambda kv: -kv[1][0]):
        if v[0] >= 256 and not k.endswith(".so") and not k.startswith("read: "):
            print(f"    {v[0] / 1024:6.1f} MiB  {k}" + (f" ({v[1] / 1024:.1f} anonymous)" if v[1] and v[1] != v[0] else ""))
    print(f"    {read / 1024:6.1f} MiB  files mapped to be read (ELF, DWARF), of which:")
    for k, v in sorted(by.items(), key=lambda kv: -kv[1][0]):
        if k.startswith("read: ") and v[0] >= 256:
            print(f"      {v[0] / 1024:6.1f} MiB  {k[6:]}")
    print(f"    {libs / 1024:6.1f} MiB  {sum(1 for k in by if k.endswith('.so'))} libraries, of which:")
    for k, v in sorted(by.items(), key=lambda kv: -kv[1][0]):
        if k.endswith(".so") and v[0] >= 256:
            print(f"      {v[0] / 1024:6.1f} MiB  {k}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pid", type=int)
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--settle", type=float, default=10)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    start, polls, hwm, majflt = time.monotonic(), [], 0, 0
    while True:
        try:
            # read each time: the first polls may see env(1) before its exec
            by = poll(a.pid, os.readlink(f"/proc/{a.pid}/exe"))
            with open(f"/proc/{a.pid}/status") as f:
                hwm = max(hwm, int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)))
            with open(f"/proc/{a.pid}/stat") as f:
                majflt = int(f.read().rsplit(")", 1)[1].split()[9])
        except (OSError, AttributeError, ValueError):
            break
        polls.append((time.monotonic() - start, sum(v[0] for v in by.values()), by))
        time.sleep(a.interval)
    if not polls:
        sys.exit(f"agent_mem: process {a.pid} was gone before the first poll")
    # The last poll may be the exit's teardown: left out.
    polls = polls[:-1] or polls
    peak = max(polls, key=lambda p: p[1])
    later = sorted((p for p in polls if p[0] >= a.settle), key=lambda p: p[1]) or [peak]
    mid = later[len(later) // 2]
    lo, hi = later[len(later) // 10][1], later[len(later) * 9 // 10][1]
    over = sum(1 for p in later if p[1] > mid[1] + 2048)
    print(f"{a.label}: VmHWM {hwm / 1024:.1f} MiB; {len(polls)} polls; after {a.settle:g} s "
          f"median {mid[1] / 1024:.1f}, 10-90 % {lo / 1024:.1f}-{hi / 1024:.1f} MiB, "
          f"{over} polls more than 2 MiB above the median; {majflt} major faults")
    line = {}
    for t, rss, _ in polls:
        line[int(t // 2)] = max(line.get(int(t // 2), 0), rss)
    print("  largest per 2 s: " + " ".join(f"{v / 1024:.0f}" for _, v in sorted(line.items())))
    show("largest", peak[0], peak[2])
    show(f"largest after {a.settle:g} s", later[-1][0], later[-1][2])
    show("between spikes (median)", mid[0], mid[2])
    print(f"am: {a.label} hwm_kib={hwm} peak_kib={peak[1]} peak_t={peak[0]:.1f} "
          f"median_kib={mid[1]} median_anon_kib={sum(v[1] for v in mid[2].values())} "
          f"majflt={majflt}")


if __name__ == "__main__":
    main()

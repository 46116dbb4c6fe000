#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The footprint of one process, polled from /proc until it exits: resident set by owner
# at its largest (BPF maps told apart by their fdinfo: unwind rows, ring buffer, others;
# heap; the binary; each library; files mapped to be read), the kernel memory of its BPF
# maps, its CPU (whole run, and steady: after --steady-after seconds) and each thread's,
# and its BPF programs' run time when kernel.bpf_stats_enabled is on. Lines "fp: KEY=VALUE"
# are for bench/footprint.sh; the rest is for people.
#   bench/footprint_mem.py PID [--interval S] [--steady-after S] [--label NAME]
import argparse
import json
import os
import re
import subprocess
import sys
import time

HEAD = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")
RINGBUF = 27
BPF_F_MMAPABLE = 1 << 10
TICK = os.sysconf("SC_CLK_TCK")


def fdinfos(pid):
    """(map infos, prog infos): the fdinfo of every BPF map and program fd, by id."""
    maps, progs = {}, {}
    try:
        fds = os.listdir(f"/proc/{pid}/fdinfo")
    except OSError:
        return maps, progs
    for fd in fds:
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                info = dict(l.split(":", 1) for l in f.read().splitlines() if ":" in l)
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except (OSError, ValueError):
            continue
        info = {k.strip(): v.strip() for k, v in info.items()}
        if "map_type" in info and "map_id" in info:
            maps[info["map_id"]] = info
        elif "prog_type" in info and "prog_id" in info:
            info["target"] = target
            progs[info["prog_id"]] = info
        elif "link_type" in info and "prog_id" in info:
            progs.setdefault(info["prog_id"], {"prog_id": info["prog_id"], "link": True})
    return maps, progs


def prog_stats(progs, cache):
    """Fills run_cnt/run_time_ns of programs held only through links, with bpftool."""
    for pid_, info in progs.items():
        if not info.get("link"):
            continue
        try:
            out = subprocess.run(["bpftool", "-j", "prog", "show", "id", pid_],
                                 capture_output=True, text=True, timeout=5).stdout
            j = json.loads(out)
        except (OSError, ValueError, subprocess.SubprocessError):
            continue
        cache[pid_] = {"prog_id": pid_, "prog_type": {"perf_event": "7"}.get(j.get("type"), j.get("type")),
                       "run_cnt": j.get("run_cnt", 0), "run_time_ns": j.get("run_time_ns", 0),
                       "name": j.get("name", "")}


def owner(name, size, rings, arrays, code_files):
    if name == "anon_inode:bpf-map":
        if any(size in (4096, 4096 + 2 * r) for r in rings):
            return "BPF ring buffer (data mapped twice)"
        if size in arrays:
            return "BPF mmapped array (unwind rows before chunks)"
        return "BPF other mapped maps"
    if name in ("[heap]", ""):
        return "heap and anonymous (malloc arenas, thread stacks)"
    if name == "[stack]":
        return "main stack"
    if name.startswith("["):
        return "kernel-provided " + name
    if name in code_files:
        base = os.path.basename(name)
        if base.startswith("ebprof") or base.startswith("perf") or "profile" in base:
            return "the program's binary"
        return "library " + re.sub(r"\.so.*", ".so", base)
    return "files mapped for reading (ELF symbols, debug info)"


def memory(pid, maps):
    rings = {int(m["max_entries"]) for m in maps.values() if int(m["map_type"]) == RINGBUF}
    arrays = set()
    for m in maps.values():
        if int(m.get("map_flags", "0"), 16) & BPF_F_MMAPABLE:
            arrays.add((int(m["max_entries"]) * int(m["value_size"]) + 4095) // 4096 * 4096)
    entries, code_files, cur = [], set(), None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                cur = [m.group(4).strip(), int(m.group(2), 16) - int(m.group(1), 16), 0]
                entries.append(cur)
                if "x" in m.group(3) and m.group(4).startswith("/"):
                    code_files.add(cur[0])
            elif line.startswith("Rss:") and cur:
                cur[2] = int(line.split()[1])
    by = {}
    for name, size, rss in entries:
        k = owner(name, size, rings, arrays, code_files)
        by[k] = by.get(k, 0) + rss
    return sum(by.values()), by


def cpu_ticks(path):
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


def threads(pid, seen):
    """Updates seen {tid: (name, ticks)} with the live threads; returns it."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                comm = f.read().strip()
            t = cpu_ticks(f"/proc/{pid}/task/{tid}/stat")
        except OSError:
            continue
        seen[tid] = ("main" if tid == str(pid) else comm, t)
    return seen


def by_name(seen):
    out = {}
    for name, t in seen.values():
        out[name] = out.get(name, 0) + t
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pid", type=int)
    ap.add_argument("--interval", type=float, default=0.02)
    ap.add_argument("--steady-after", type=float, default=0)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    pid, start = a.pid, time.monotonic()
    best, hwm, memlock, per_map = (0, {}), 0, 0, {}
    last = None  # (time, process ticks, threads, progs)
    seen = {}  # threads, kept when they end: their last figure
    linked, stats_at = {}, 0.0  # programs' run time, read every second
    steady0 = None
    while True:
        try:
            maps, progs = fdinfos(pid)
            total, by = memory(pid, maps)
            with open(f"/proc/{pid}/status") as f:
                h = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
            ticks = cpu_ticks(f"/proc/{pid}/stat")
            th = by_name(threads(pid, seen))
        except (OSError, AttributeError, IndexError, ValueError):
            break
        now = time.monotonic()
        hwm = max(hwm, h)
        if total > best[0]:
            best = (total, by)
        lock = sum(int(m.get("memlock", 0)) for m in maps.values())
        if lock > memlock:
            memlock = lock
            per_map = {m.get("map_id"): (int(m.get("memlock", 0)), m) for m in maps.values()}
        if steady0 is None and a.steady_after and now - start >= a.steady_after:
            steady0 = (now, ticks)
        if now - stats_at >= 1:
            prog_stats(progs, linked)
            stats_at = now
        for k, v in progs.items():
            if not v.get("link"):
                linked[k] = v
        last = (now, ticks, th, linked)
        time.sleep(a.interval)
    if not last:
        sys.exit(f"footprint_mem: process {pid} was gone before the first poll")
    now, ticks, th, progs = last
    total, by = best
    p = f"fp: {a.label} " if a.label else "fp: "
    print(f"{a.label or pid}: resident set at its largest {total / 1024:.1f} MiB "
          f"(VmHWM {hwm / 1024:.1f} MiB)")
    for k, v in sorted(by.items(), key=lambda kv: -kv[1]):
        if v >= 64:
            print(f"  {v / 1024:7.1f} MiB  {k}")
    print(f"  BPF maps: {memlock / 1048576:.1f} MiB of kernel memory at most (memlock), "
          f"{len(per_map)} maps")
    for mid, (lock, m) in sorted(per_map.items(), key=lambda kv: -kv[1][0])[:6]:
        if lock >= 65536:
            print(f"  {lock / 1048576:7.2f} MiB  map type {m['map_type']}, "
                  f"{m['max_entries']} x {m['value_size']} B")
    print(f"  CPU: {ticks / TICK:.2f} s in {now - start:.1f} s polled; threads: " +
          ", ".join(f"{k} {v / TICK:.2f} s" for k, v in sorted(th.items(), key=lambda kv: -kv[1])))
    print(f"{p}rss_kib={total} hwm_kib={hwm} memlock_kib={memlock // 1024} "
          f"cpu_s={ticks / TICK:.3f} polled_s={now - start:.2f}")
    if steady0:
        span = now - steady0[0]
        pct = 100.0 * (ticks - steady0[1]) / TICK / span if span > 0 else 0
        print(f"  steady CPU (after {a.steady_after:g} s): {pct:.2f} % of one CPU over {span:.1f} s")
        print(f"{p}steady_pct={pct:.3f} steady_s={span:.1f}")
    for info in progs.values():
        cnt, ns = int(info.get("run_cnt", 0)), int(info.get("run_time_ns", 0))
        if cnt:
            print(f"  BPF program {info['prog_id']} (type {info['prog_type']}): {cnt} runs, "
                  f"{ns / cnt:.0f} ns each")
            print(f"{p}prog id={info['prog_id']} type={info['prog_type']} run_cnt={cnt} "
                  f"run_time_ns={ns}")
    for k, v in th.items():
        print(f"{p}thread name={k} cpu_s={v / TICK:.3f}")


if __name__ == "__main__":
    main()

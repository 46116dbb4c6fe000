#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No local user can crash, hang or steer the root profiler (issue 34): its five
# reproductions, each of which crashed, hung or steered ebprof before. Run as root, with an
# unprivileged user made for the test, in a private mount namespace whose /var/cache and
# /usr/lib/debug are empty tmpfs mounts (the host's caches and runtime roots stay as they
# are). 1: files truncated under a running agent and under a running recording (an
# executable, a shared library, a separate debug file, a debug-cache copy); 2: the
# load-cost cache as a link to /dev/zero, a FIFO, a directory, 100,000 lines; 3: --probe on
# a FIFO, a link to /dev/zero, a directory, a file past the bound, a file that is not ELF;
# 4: decompression bombs in a debug file; 5: /var/cache/ebprof owned by the user, or a
# link. Also -p on a process whose /proc status or maps is a FIFO (bind-mounted), and
# --ca-file on a FIFO.
. "$(dirname "$0")/lib.sh"

if [ -z "${EBPROF_HOSTILE_NS:-}" ]; then
	for tool in unshare useradd userdel setpriv gcc objcopy; do
		if ! command -v "$tool" >/dev/null; then
			echo "SKIP hostile: $tool is missing"
			exit 0
		fi
	done
	# The private namespace first: every mount below stays in it.
	EBPROF_HOSTILE_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi

USER_NAME=ebprofh$$
useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$USER_NAME" 2>"$TMP/useradd.err" || {
	echo "SKIP hostile: cannot add a user: $(head -1 "$TMP/useradd.err")"
	exit 0
}
UID_U=$(id -u "$USER_NAME")
trap 'userdel "$USER_NAME" 2>/dev/null; rm -rf "$TMP" "${CLEAN[@]}"' EXIT
as_user() { setpriv --reuid="$UID_U" --regid=65534 --clear-groups "$@"; }
chmod 755 "$TMP"
# The test removes and remakes /var/cache/ebprof (where the runtime roots live on the
# host): only ever on its own tmpfs, so a mount that failed ends the test.
if ! mount -t tmpfs -o mode=0755,size=3g tmpfs /var/cache ||
	! mount -t tmpfs -o mode=0755 tmpfs /usr/lib/debug; then
	echo "SKIP hostile: cannot mount a private /var/cache and /usr/lib/debug"
	exit 0
fi
LIMIT=${EBPROF_HOSTILE_LIMIT:-300} # seconds a run may take before it counts as hung
# Every run below is tracked: at the end, each BPF object and perf event it made must be gone.
track_bpf

# run_ebprof NAME ARGS...: ebprof ARGS under the time limit; output in $TMP/NAME.{out,err},
# status in RC (124 or 137 when it hung).
run_ebprof() {
	local name=$1
	shift
	timeout -k 5 "$LIMIT" "$EBPROF" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
}

# child_of PID: the pid of PID's child (ebprof under timeout), once it has one.
child_of() {
	local c
	for _ in $(seq 100); do
		c=$(pgrep -P "$1" | head -1)
		[ -n "$c" ] && echo "$c" && return 0
		sleep 0.1
	done
	return 1
}

# ended_well NAME: a PASS-able end: exit 0; else a FAIL line saying how it ended.
ended_well() {
	case $RC in
	0) return 0 ;;
	124 | 137) fail "$1" "hung: killed after $LIMIT s" ;;
	*) fail "$1" "$(how_ended "$RC" "$TMP/$1.err")" ;;
	esac
	return 1
}

# said_once NAME PATTERN: exactly one line of NAME's stderr matches PATTERN (an ERE).
said_once() {
	local n
	n=$(grep -cE "$2" "$TMP/$1.err")
	[ "$n" -eq 1 ] && return 0
	fail "$1" "$n lines match /$2/ (want 1): $(head -3 "$TMP/$1.err" | tr '\n' ' ')"
	return 1
}

# fresh_cache: an empty /var/cache/ebprof for the next case; the temporary files of
# write-then-rename (atomic_file's NAME.tmp.XXXXXX) the last one left there are noted in LEFT.
LEFT=
fresh_cache() {
	LEFT+=$(find /var/cache/ebprof -name '*.tmp.*' -printf '%p ' 2>/dev/null)
	rm -rf /var/cache/ebprof
}

# nothing_left: after every case, no BPF object or perf event any run made is still there,
# and no case left a temporary file in the cache.
nothing_left() {
	fresh_cache
	if [ -n "$LEFT" ]; then
		fail hostile_nothing_left "temporary files left in the cache: $LEFT"
		return
	fi
	bpf_gone hostile_nothing_left
}

# ---- 5: /var/cache/ebprof itself belongs to the user, or is a link.

cache_owned_by_user() {
	local name=cache_owned_by_user
	fresh_cache
	mkdir -m 0755 /var/cache/ebprof && chown "$UID_U" /var/cache/ebprof
	as_user ln -s /dev/zero /var/cache/ebprof/load-costs
	run_ebprof $name record -d 1 -o "$TMP/$name"
	ended_well $name || return
	said_once $name "cache /var/cache/ebprof not used: it is owned by uid $UID_U" || return
	if [ -n "$(ls -A /var/cache/ebprof | grep -v '^load-costs$')" ]; then
		fail $name "root made $(ls /var/cache/ebprof | tr '\n' ' ')in the user's directory"
		return
	fi
	pass $name
}

cache_is_link() {
	local name=cache_is_link target=$TMP/theirs
	fresh_cache
	mkdir -m 0755 "$target" && chown "$UID_U" "$target"
	ln -s "$target" /var/cache/ebprof
	run_ebprof $name record -d 1 -o "$TMP/$name"
	ended_well $name || return
	said_once $name "cache /var/cache/ebprof not used: it is a symbolic link" || return
	if [ -n "$(ls -A "$target")" ]; then
		fail $name "root made $(ls "$target" | tr '\n' ' ')in the link's target"
		return
	fi
	pass $name
}

# ---- 2: the load-cost cache in root's own directory, as something else than a file.

# load_costs NAME CMD REASON: load-costs made by CMD (run in the cache directory); a
# recording ends, saying REASON once, and leaves a small file of its own there.
load_costs() {
	local name=$1 cmd=$2 reason=$3
	fresh_cache
	mkdir -m 0755 /var/cache/ebprof
	(cd /var/cache/ebprof && eval "$cmd")
	run_ebprof "$name" record -d 1 -o "$TMP/$name"
	ended_well "$name" || return
	said_once "$name" "load-costs not used: it $reason" || return
	if [ -f /var/cache/ebprof/load-costs ] &&
		[ "$(wc -l </var/cache/ebprof/load-costs)" -gt 1000 ]; then
		fail "$name" "the load costs were written back with $(wc -l </var/cache/ebprof/load-costs) lines"
		return
	fi
	pass "$name"
}

# ---- 3: --probe on what is not a program.

# probe NAME TARGET REASON: ebprof refuses the probe on TARGET at once, saying why.
probe() {
	local name=$1 target=$2 reason=$3
	fresh_cache
	run_ebprof "$name" record -d 1 -o "$TMP/$name" --probe "uprobe:$target:main"
	case $RC in
	124 | 137) fail "$name" "hung: killed after $LIMIT s" && return ;;
	0) fail "$name" "the probe on $target was accepted" && return ;;
	esac
	if grep -q 'Unknown error' "$TMP/$name.err"; then
		fail "$name" "an error without words: $(grep -m1 'Unknown error' "$TMP/$name.err")"
		return
	fi
	said_once "$name" "$reason" && pass "$name"
}

probes() {
	local d=$TMP/probe
	mkdir -p "$d" && chown "$UID_U" "$d"
	as_user mkfifo "$d/fifo"
	as_user ln -s /dev/zero "$d/zero"
	as_user mkdir "$d/dir"
	as_user truncate -s 5G "$d/huge"
	as_user sh -c "echo 'not a program' > '$d/text'"
	probe probe_fifo "$d/fifo" "$d/fifo is a FIFO, not a regular file"
	probe probe_dev_zero "$d/zero" "$d/zero is a character device"
	probe probe_directory "$d/dir" "$d/dir is a directory"
	probe probe_too_large "$d/huge" "$d/huge is larger than [0-9]+ bytes"
	probe probe_not_elf "$d/text" "$d/text is not an ELF file"
}

# ---- /proc files and the CA file as a FIFO.

# proc_file NAME FILE SOURCE REASON: a recording of a process whose /proc/PID/FILE is
# SOURCE (bind-mounted over it; "fifo": a new FIFO) says REASON once and ends.
proc_file() {
	local name=$1 file=$2 src=$3 reason=$4 pid
	fresh_cache
	sleep 600 &
	pid=$!
	if [ "$src" = fifo ]; then
		src=$TMP/$name.fifo
		mkfifo "$src"
	fi
	mount --bind "$src" "/proc/$pid/$file"
	run_ebprof "$name" record -d 1 -o "$TMP/$name" -p "$pid"
	umount "/proc/$pid/$file"
	kill "$pid"
	case $RC in
	124 | 137) fail "$name" "hung: killed after $LIMIT s" && return ;;
	esac
	said_once "$name" "$reason" && pass "$name"
}

# ca_file NAME CMD REASON: --ca-file on what CMD made at $1 (a path the user gives: links
# are followed): the agent says REASON once and ends.
ca_file() {
	local name=$1 cmd=$2 reason=$3 pem=$TMP/$1.pem
	fresh_cache
	(set -- "$pem" && eval "$cmd")
	run_ebprof "$name" agent -d 1 --endpoint https://127.0.0.1:1 --ca-file "$pem"
	case $RC in
	124 | 137) fail "$name" "hung: killed after $LIMIT s" && return ;;
	esac
	said_once "$name" "$name.pem $reason" && pass "$name"
}

# ---- 1 and 4: a victim whose frames need DWARF from four kinds of file, and bombs.

V=$TMP/victim
FUNCS=200

# gen_funcs PREFIX: FUNCS functions that spin, in a table PREFIX_table.
gen_funcs() {
	local i
	for i in $(seq 0 $((FUNCS - 1))); do
		printf '__attribute__((noinline)) unsigned long %s_f%d(unsigned long x)\n' "$1" "$i"
		printf '{ for (int k = 0; k < 20000; k++) { x = x * 6364136223846793005ul + %d;' "$i"
		printf ' __asm__ volatile("" : "+r"(x)); } return x; }\n'
	done
	printf 'unsigned long (*const %s_table[])(unsigned long) = {\n' "$1"
	for i in $(seq 0 $((FUNCS - 1))); do printf '%s_f%d,\n' "$1" "$i"; done
	printf '};\n'
}

# The victim runs its functions and each library's in turn, a new one every STEP ms, for
# SECONDS: every report needs DWARF for addresses it has not named yet.
build_victim() {
	mkdir -p "$V"
	gen_funcs plain >"$V/plain.c"
	gen_funcs split >"$V/split.c"
	gen_funcs gz >"$V/gz.c"
	{
		gen_funcs exe
		cat <<'MAIN'
#include <stdlib.h>
#include <time.h>
extern unsigned long (*const plain_table[])(unsigned long), (*const split_table[])(unsigned long),
	(*const gz_table[])(unsigned long);
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3, step = argc > 2 ? atof(argv[2]) : 0.015;
	double start = now(), t;
	unsigned long x = 1;

	while ((t = now() - start) < secs) {
		int i = (int)(t / step) % NFUNCS;

		x = exe_table[i](x) + plain_table[i](x) + split_table[i](x) + gz_table[i](x);
	}
	return (int)(x & 1) & 0;
}
MAIN
	} >"$V/main.c"
	(cd "$V" &&
		gcc -O1 -g -fPIC -shared -Wl,--build-id plain.c -o libv_plain.so &&
		gcc -O1 -g -fPIC -shared -Wl,--build-id split.c -o libv_split.so &&
		gcc -O1 -g -gz=zlib -fPIC -shared -Wl,--build-id gz.c -o libv_gz.so &&
		gcc -O1 -g -DNFUNCS=$FUNCS main.c -o victim -L. -lv_plain -lv_split -lv_gz \
			-Wl,-rpath,"$V" &&
		objcopy --only-keep-debug libv_split.so split.debug &&
		objcopy --strip-debug libv_split.so) || return 1
	SPLIT_ID=$(readelf -n "$V/libv_split.so" | awk '/Build ID/ { print $3 }')
	GZ_ID=$(readelf -n "$V/libv_gz.so" | awk '/Build ID/ { print $3 }')
	SPLIT_DEBUG=/usr/lib/debug/.build-id/${SPLIT_ID:0:2}/${SPLIT_ID:2}.debug
	mkdir -p "$(dirname "$SPLIT_DEBUG")"
	cp "$V/split.debug" "$SPLIT_DEBUG"
	GZ_COPY=/var/cache/ebprof/debug/$GZ_ID.debug
	chown -R "$UID_U" "$V"
}

# The watcher of a recording (PID: ebprof): once the command it runs has ended, ebprof
# names the frames, mapping each file's DWARF whole for a ms or two of CPU. The command
# stops ebprof (SIGSTOP) as it ends; the watcher, which waits for that, puts it in a CPU
# cgroup that lets it run 2 % of the time (PROCS: that group's cgroup.procs) and lets it
# go on: each file stays mapped for tenths of a second, and the watcher truncates it to
# nothing as soon as it finds it mapped whole in ebprof's maps (a one-page mapping is
# something else's), so the lookups that follow meet the file shrunk, whatever the
# machine's load. Prints what it truncated.
build_watcher() {
	cat >"$TMP/watch.c" <<'WATCH'
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the process whose stat file is path is stopped. */
static bool stopped(const char *path)
{
	char buf[512] = "", *p;
	FILE *f = fopen(path, "r");
	bool yes = f && fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[2] == 'T';

	if (f)
		fclose(f);
	return yes;
}

/* Truncates each path of argv[first..] mapped whole in the maps file f; returns how many. */
static int truncate_mapped(FILE *f, int argc, char **argv, int first)
{
	char line[4352];
	int n = 0;

	while (fgets(line, sizeof(line), f)) {
		unsigned long lo = 0, hi = 0;
		struct stat st;

		sscanf(line, "%lx-%lx", &lo, &hi);
		for (int i = first; i < argc; i++) {
			if (!argv[i][0] || !strstr(line, argv[i]) || stat(argv[i], &st) ||
			    hi - lo < (unsigned long)st.st_size)
				continue;
			if (truncate(argv[i], 0) == 0)
				printf("truncated %s\n", argv[i]);
			argv[i] = "";
			n++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	int pid = atoi(argv[1]), left = argc - 3;
	char maps[64], statf[64];
	FILE *procs;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	snprintf(statf, sizeof(statf), "/proc/%d/stat", pid);
	while (kill(pid, 0) == 0 && !stopped(statf))
		usleep(10000);
	procs = fopen(argv[2], "w");
	if (!procs || fprintf(procs, "%d\n", pid) < 0 || fclose(procs))
		perror(argv[2]);
	kill(pid, SIGCONT);
	while (left > 0 && kill(pid, 0) == 0) {
		FILE *f = fopen(maps, "r");

		if (f) {
			left -= truncate_mapped(f, argc, argv, 3);
			fclose(f);
		}
		usleep(500);
	}
	return 0;
}
WATCH
	gcc -O2 "$TMP/watch.c" -o "$TMP/watch"
}
# The watcher sleeps half a millisecond between looks and must look while ebprof maps a
# file: a real-time priority lets it run at once beside the machine's busy work (two CPU
# hogs left it too late in about one run in three).
WATCH_PRIO=
chrt -f 10 true 2>/dev/null && WATCH_PRIO="chrt -f 10"

# Both must have survived reading files that shrank: the summary counts the reads past a
# shrunk file's end that were absorbed.
# absorbed FILES...: that count in ebprof's output (the summary's details go to stderr).
absorbed() { cat "$@" | sed -n 's/.*, \([0-9]*\) reads past a shrunk file.s end absorbed.*/\1/p' | head -1; }

# A recording of the victim; each of the four files truncated as soon as ebprof maps it
# to name the victim's frames, after the victim ended (the watcher above). Which of them
# the watcher catches in time depends on the machine; at least one must have been read
# shrunk, or nothing was tested (the agent's case below reads all four shrunk).
truncated_under_record() {
	local name=truncated_under_record n
	fresh_cache
	timeout -k 5 "$LIMIT" "$EBPROF" record -F 499 -o "$TMP/$name" -- \
		sh -c '"$0" 3 0.015; kill -STOP $PPID' "$V/victim" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	local rec=$! cg=/sys/fs/cgroup/cpu/ebprof-hostile.$$
	mkdir "$cg" && echo 100000 >"$cg/cpu.cfs_period_us" && echo 2000 >"$cg/cpu.cfs_quota_us" || {
		kill "$rec"
		wait
		echo "SKIP $name: no CPU cgroup to slow ebprof down in ($cg)"
		return
	}
	$WATCH_PRIO "$TMP/watch" "$(child_of $rec)" "$cg/cgroup.procs" "$V/victim" "$V/libv_plain.so" \
		"$SPLIT_DEBUG" "$GZ_COPY" >"$TMP/$name.watch" &
	wait "$rec"
	RC=$?
	wait
	rmdir "$cg"
	ended_well $name || return
	n=$(absorbed "$TMP/$name.out" "$TMP/$name.err")
	if [ "${n:-0}" -lt 1 ]; then
		fail $name "no read met a truncated file ($(tr '\n' ' ' <"$TMP/$name.watch")): nothing was tested"
		return
	fi
	echo "$name: $(tr '\n' ' ' <"$TMP/$name.watch"); $n reads absorbed" >&2
	pass $name
}

# An agent profiling the victim, which keeps running code not named yet: after a report,
# the agent is slowed down (the watcher above: a CPU cgroup) and each of the four files
# truncated as soon as the agent maps it to name the next report's frames (it lets go of a
# file's DWARF once named, so truncating between reports would test nothing); the victim
# dies of SIGBUS in a truncated library. The agent must keep going and end well, having
# read at least one file shrunk.
truncated_under_agent() {
	local name=truncated_under_agent vic ag eb n cg=/sys/fs/cgroup/cpu/ebprof-hostile.$$
	fresh_cache
	"$V/victim" 600 0.05 &
	vic=$!
	timeout -k 5 "$LIMIT" "$EBPROF" agent -F 499 -p "$vic" --endpoint 127.0.0.1:1 --insecure \
		--report-interval 1s >"$TMP/$name.out" 2>"$TMP/$name.err" &
	ag=$!
	eb=$(child_of "$ag")
	if ! wait_sampling "$eb"; then
		kill "$vic" "$ag" 2>/dev/null
		fail $name "the agent did not start: $(tail -2 "$TMP/$name.err" | tr '\n' ' ')"
		return
	fi
	sleep 2.5 # a report named the victim's first frames
	if ! mkdir "$cg" || ! echo 100000 >"$cg/cpu.cfs_period_us" || ! echo 2000 >"$cg/cpu.cfs_quota_us"; then
		kill "$vic" "$eb" 2>/dev/null
		wait
		echo "SKIP $name: no CPU cgroup to slow ebprof down in ($cg)"
		return
	fi
	kill -STOP "$eb"
	$WATCH_PRIO "$TMP/watch" "$eb" "$cg/cgroup.procs" "$V/libv_plain.so" "$V/libv_split.so" \
		"$V/libv_gz.so" "$SPLIT_DEBUG" "$GZ_COPY" >"$TMP/$name.watch" &
	sleep 8
	kill -TERM "$eb" 2>/dev/null
	wait "$ag"
	RC=$?
	kill "$vic" 2>/dev/null
	wait
	echo "$eb" >"$(dirname "$cg")/cgroup.procs" 2>/dev/null
	rmdir "$cg"
	# Nothing listens at the endpoint, on purpose: the agent ends its run saying so, with
	# status 1 (its verdict when no export reached a collector), which is a good end here.
	if [ $RC -eq 1 ] && grep -q '^ebprof: error: no export reached the collector' "$TMP/$name.err" &&
		[ "$(grep -c '^ebprof: error' "$TMP/$name.err")" -eq 1 ]; then
		RC=0
	fi
	ended_well $name || return
	n=$(absorbed "$TMP/$name.out" "$TMP/$name.err")
	if [ "${n:-0}" -lt 1 ]; then
		fail $name "no read met a truncated file ($(tr '\n' ' ' <"$TMP/$name.watch")): nothing was tested"
		return
	fi
	echo "$name: $(tr '\n' ' ' <"$TMP/$name.watch"); $n reads absorbed" >&2
	pass $name
}

# bomb NAME PATCH: the split library's debug file made hostile by PATCH (a shell command
# on $1, the file), recorded: ebprof must end well.
bomb() {
	local name=$1 patch=$2
	fresh_cache
	cp "$V/split.debug" "$SPLIT_DEBUG.tmp"
	(set -- "$SPLIT_DEBUG.tmp" && eval "$patch") || {
		fail "$name" "cannot make the bomb"
		return 1
	}
	mv "$SPLIT_DEBUG.tmp" "$SPLIT_DEBUG"
	run_ebprof "$name" record -F 199 -o "$TMP/$name" -- "$V/victim" 2 0.01
	ended_well "$name"
}

# size_of FILE: its size in bytes, 0 when missing.
size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }

# Compressed DWARF whose compression header asks for 2^31 alignment: the debug cache laid
# the copy out at it, 2 GiB of zeros. Now the copy is made, and small.
bomb_alignment() {
	local name=bomb_alignment copy=/var/cache/ebprof/debug/$SPLIT_ID.debug
	bomb $name 'objcopy --compress-debug-sections=zlib "$1" && python3 -c "
import struct, sys
p = sys.argv[1]; d = bytearray(open(p, \"rb\").read())
shoff, = struct.unpack_from(\"<Q\", d, 0x28); n, str_ = struct.unpack_from(\"<HH\", d, 0x3c)
names = struct.unpack_from(\"<Q\", d, shoff + 64 * str_ + 24)[0]
for i in range(n):
    nm, typ, flags, addr, off, size = struct.unpack_from(\"<IIQQQQ\", d, shoff + 64 * i)
    if flags & 0x800 and d[names + nm:names + nm + 12] == b\".debug_info\\0\":
        struct.pack_into(\"<Q\", d, off + 16, 1 << 31)
open(p, \"wb\").write(d)" "$1"' || return
	if [ "$(size_of "$copy")" -eq 0 ]; then
		fail $name "no copy of the debug file in the cache: the bomb was not read"
	elif [ "$(size_of "$copy")" -gt $((4 * $(size_of "$SPLIT_DEBUG"))) ]; then
		fail $name "a copy of $(size_of "$copy") bytes from a debug file of $(size_of "$SPLIT_DEBUG")"
	else
		pass $name
	fi
}

# 4 MiB of zeros in a .debug_str of 4 KiB: past 64 times the file, neither copied nor
# inflated, said once.
bomb_ratio() {
	local name=bomb_ratio copy=/var/cache/ebprof/debug/$SPLIT_ID.debug
	bomb $name 'head -c 4M /dev/zero >"$1.zeros" && objcopy --update-section .debug_str="$1.zeros" "$1" &&
		objcopy --compress-debug-sections=zlib "$1" && rm "$1.zeros"' || return
	if [ "$(size_of "$copy")" -gt $((64 * $(size_of "$SPLIT_DEBUG"))) ]; then
		fail $name "a copy of $(size_of "$copy") bytes from a debug file of $(size_of "$SPLIT_DEBUG")"
		return
	fi
	said_once $name "would inflate past 64 times its size" && pass $name
}

# debug_file NAME CMD REASON: the split library's debug file made by CMD (run on $1, its
# path) as something else than a file; a recording of the victim ends well and says REASON
# once.
debug_file() {
	local name=$1 cmd=$2 reason=$3
	fresh_cache
	rm -rf "$SPLIT_DEBUG"
	(set -- "$SPLIT_DEBUG" && eval "$cmd")
	run_ebprof "$name" record -F 199 -o "$TMP/$name" -- "$V/victim" 1 0.01
	rm -rf "$SPLIT_DEBUG"
	ended_well "$name" || return
	said_once "$name" "debug file $SPLIT_DEBUG $reason" && pass "$name"
}

debug_files() {
	debug_file debug_fifo 'mkfifo "$1"' "is a FIFO, not a regular file"
	debug_file debug_dev_zero 'ln -s /dev/zero "$1"' "is a character device"
	debug_file debug_directory 'mkdir "$1"' "is a directory"
	debug_file debug_too_large 'truncate -s 17G "$1"' "is larger than [0-9]+ bytes"
	cp "$V/split.debug" "$SPLIT_DEBUG"
}

bombs() {
	cp "$V/split.debug" "$V/split.debug.orig"
	bomb_alignment
	bomb_ratio
	cp "$V/split.debug.orig" "$SPLIT_DEBUG"
}

# ---- Processes that exec and die while ebprof reads them.

# The churner (argv[1]: generations left) spins for a few ms, starts children that exit or
# exec /bin/true at once, then execs itself again: every generation replaces the mappings
# ebprof is reading (/proc/PID/maps, the files behind them) with new ones, and the children
# vanish between ebprof finding them and reading them.
build_churner() {
	cat >"$TMP/churn.c" <<'CHURN'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long spin(double secs)
{
	double end = now() + secs;
	unsigned long x = 1;

	while (now() < end)
		for (int k = 0; k < 1000; k++)
			x = x * 6364136223846793005ul + 1;
	return x;
}

int main(int argc, char **argv)
{
	int left = argc > 1 ? atoi(argv[1]) : 0;
	char next[16];

	spin(0.01);
	for (int i = 0; i < 4; i++) {
		pid_t pid = fork();

		if (pid == 0 && i % 2)
			execl("/bin/true", "true", (char *)NULL);
		if (pid == 0)
			_exit((int)(spin(0.002) & 0));
	}
	spin(0.01);
	while (wait(NULL) > 0)
		;
	if (left <= 0)
		return 0;
	snprintf(next, sizeof(next), "%d", left - 1);
	execl("/proc/self/exe", argv[0], next, (char *)NULL);
	perror("exec");
	return 1;
}
CHURN
	gcc -O1 "$TMP/churn.c" -o "$TMP/churn"
}

# exec_churn: a recording of the churner, as the user: ebprof ends well, profiled it, and
# says nothing twice about the processes that came and went.
exec_churn() {
	local name=exec_churn twice
	fresh_cache
	run_ebprof $name record -F 999 -o "$TMP/$name" -- setpriv --reuid="$UID_U" --regid=65534 \
		--clear-groups "$TMP/churn" 150
	ended_well $name || return
	if ! grep -q '^churn' "$TMP/$name/stacks.folded" 2>/dev/null; then
		fail $name "no stack of the churner in the profile"
		return
	fi
	twice=$(sort "$TMP/$name.err" | uniq -d | head -2 | tr '\n' ' ')
	if [ -n "$twice" ]; then
		fail $name "said more than once: $twice"
		return
	fi
	pass $name
}

cache_owned_by_user
cache_is_link
load_costs costs_dev_zero 'ln -s /dev/zero load-costs' 'is a symbolic link'
load_costs costs_fifo 'mkfifo load-costs' 'is a FIFO, not a regular file'
load_costs costs_directory 'mkdir load-costs' 'is a directory'
load_costs costs_100k_lines "seq 100000 | sed 's|^|sample_bpf/prog|; s|\$| 7|' >load-costs" \
	'is larger than 65536 bytes'
probes
proc_file proc_status_fifo status fifo "/proc/[0-9]+/status is a FIFO, not a regular file"
proc_file proc_maps_fifo maps fifo "/proc/[0-9]+/maps is a FIFO, not a regular file"
proc_file proc_status_dev_zero status /dev/zero "/proc/[0-9]+/status is a character device"
proc_file proc_maps_dev_zero maps /dev/zero "/proc/[0-9]+/maps is a character device"
ca_file ca_file_fifo 'mkfifo "$1"' "is a FIFO, not a regular file"
ca_file ca_file_dev_zero 'ln -s /dev/zero "$1"' "is a character device"
ca_file ca_file_directory 'mkdir "$1"' "is a directory"
ca_file ca_file_too_large 'truncate -s 17M "$1"' "is larger than [0-9]+ bytes"
if build_churner; then
	exec_churn
else
	fail exec_churn "cannot build the churner"
fi
if build_victim && build_watcher; then
	truncated_under_record
	build_victim
	truncated_under_agent
	build_victim
	bombs
	debug_files
else
	fail hostile_victim "cannot build the victim or the watcher"
fi
nothing_left

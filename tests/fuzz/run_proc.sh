#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the /proc parsers (PID/maps through the process table's
# loop, PID/status fields) into $BUILD/fuzz, replays the committed texts and fuzzes for
# $FUZZ_SECONDS (default 20); any crash, leak, hang or wrong field value fails.
# Usage: tests/fuzz/run_proc.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_proc.sh
NAME=fuzz_proc
out=${BUILD:-build}/fuzz/proc
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-16384}
. "$(dirname "$0")/lib.sh"

seed() { :; } # the committed corpus is the seed: a live /proc differs at every run

dictionary() {
	cat <<'DICT'
rxp=" r-xp "
dev=" 08:01 "
vdso="[vdso]"
deleted=" (deleted)"
tgid="Tgid:\x09"
DICT
}

fuzz_all src/proc/proc.c src/proc/files.c src/util/proc_status.c src/util/safe_file.c \
	src/util/hmap.c src/util/log.c -- -lpthread

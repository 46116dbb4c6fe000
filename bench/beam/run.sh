#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/beam.sh's workload command: deep.erl compiled and run in a runtime root's Erlang
# (BEAMBENCH_ROOT, default bookworm's OTP 25), as tests/kernel/lib.sh's in_root does.
# Usage: bench/beam/run.sh DEPTH SECS
set -eu
root=${BEAMBENCH_ROOT:-/var/cache/ebprof/bookworm}
dir=$(mktemp -d "$root/tmp/ebprof-beambench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cp "$(dirname "$0")/deep.erl" "$dir/"
chmod 755 "$dir"
rdir=${dir#"$root"}
chroot "$root" /usr/bin/erlc -o "$rdir" "$rdir/deep.erl"
unshare -m --propagation private sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' \
	"$root" /usr/bin/erl -noshell -pa "$rdir" -run deep main "$1" "$2"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a command as root inside another kernel: boots KERNEL under qemu-kvm on this
# host's root file system and this checkout (each shared read-only through virtiofs with
# a tmpfs overlay on top, the checkout at the same path wherever it is, /tmp included)
# and prints the command's stdout and stderr apart. With --arch arm64, Debian's arm64
# kernel under qemu-system-aarch64 (TCG: -M virt -cpu max) on the arm64 root of
# scripts/arm64-root.sh instead of the host's, and the checkout as before.
# Usage: scripts/vm.sh [--arch arm64] KERNEL -- COMMAND...
#   KERNEL: 5.10, 6.1, 6.12 (Debian's kernels, see scripts/kernels.sh; arm64: 6.1) or
#   a vmlinuz path (its modules from /lib/modules/RELEASE or ../lib/modules/RELEASE
#   beside it; x86-64 only).
#   VM_CPUS (2), VM_MEM (MiB, 4096), VM_TIMEOUT (s, 1800) size the guest; VM_ACCEL kvm,
#   tcg or auto (below); VM_VERBOSE=1 prints the guest's console (VM_LOGLEVEL, 4).
#   Exit status: the command's; 125 when the guest failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
arch=amd64
if [ "${1:-}" = --arch ]; then
	arch=${2:-}
	shift 2 || true
fi
cpus=${VM_CPUS:-2}
mem=${VM_MEM:-4096}
timeout=${VM_TIMEOUT:-1800}
accel_name=${VM_ACCEL:-auto}
virtiofsd=${VIRTIOFSD:-/usr/lib/qemu/virtiofsd}
# The modules a Debian cloud kernel needs before it sees the root (with what they need).
modules="virtio_pci virtio_console virtiofs overlay"

die() {
	echo "ebprof: vm: $*" >&2
	exit 125
}

[ $# -ge 3 ] && [ "$2" = -- ] || die "usage: scripts/vm.sh [--arch arm64] KERNEL -- COMMAND..."
kernel=$1
shift 2
[ "$(id -u)" -eq 0 ] || die "needs root (virtiofsd shares the root file system)"
case $arch in
amd64 | x86_64) arch=amd64 qemu=qemu-system-x86_64 ;;
arm64 | aarch64) arch=arm64 qemu=qemu-system-aarch64 accel_name=tcg ;;
*) die "--arch $arch: amd64 or arm64" ;;
esac
# KVM when it can run a stock kernel. A PVM host (kvm_pvm: KVM without hardware
# virtualization, as in some cloud VMs) boots none of Debian's kernels: 6.1 hangs before
# its first console byte, or stops on lock cmpxchg16b, which its emulator lacks. Then
# TCG, 3-10 times slower but exact.
if [ "$accel_name" = auto ]; then
	accel_name=tcg
	[ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ] && accel_name=kvm
fi
[ "$accel_name" != kvm ] || [ -w /dev/kvm ] || die "/dev/kvm is not usable here (VM_ACCEL=tcg emulates)"
for tool in "$qemu" "$virtiofsd" busybox cpio unshare; do
	command -v "$tool" >/dev/null || die "$tool is missing: run scripts/install-deps.sh test"
done
# The guest's root: the host's own, or the arm64 root (made once), whose busybox the
# initramfs runs.
rootfs=/
busybox=$(command -v busybox)
if [ $arch = arm64 ]; then
	rootfs=$("$here/arm64-root.sh") || exit 125
	busybox=$rootfs/bin/busybox
fi
# The guest sees the root file system (without what is mounted on it) and the checkout.
# Its own /tmp, /run and /dev hide the host's, whatever file system they are on.
case $PWD/ in
"$top"/*) ;;
/tmp/* | /run/* | /dev/*) die "$PWD is outside the checkout and hidden in the guest (its own /tmp, /run, /dev)" ;;
*) [ $arch = amd64 ] && [ "$(stat -c %d "$PWD")" = "$(stat -c %d /)" ] ||
	die "$PWD is outside the checkout and not on the guest's root file system: the guest sees neither" ;;
esac

job=$(mktemp -d /tmp/ebprof-vm.XXXXXX)
fsd_pids=()
qemu_pid=
cleanup() {
	local p
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
	for p in "${fsd_pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$job"
}
trap cleanup EXIT
# A stopped run (Ctrl-C, a test runner's timeout) takes its guest along.
trap 'exit 143' TERM INT HUP

# kernel_image and modules directory: the matrix's cache or beside a given vmlinuz.
if [ -f "$kernel" ] && [ $arch = amd64 ]; then
	vmlinuz=$kernel
	# The bzImage header points at the version string (boot protocol 2.00+, offset 0x20e).
	off=$(od -An -tu2 -j 526 -N2 "$vmlinuz" | tr -d ' ')
	release=$(dd if="$vmlinuz" bs=1 skip=$((off + 512)) count=128 status=none | tr '\0' '\n' |
		head -1 | cut -d' ' -f1)
	moddir=
	for d in "/lib/modules/$release" "$(dirname "$vmlinuz")/../lib/modules/$release"; do
		[ -d "$d" ] && moddir=$(cd "$d" && pwd) && break
	done
else
	kdir=$("$here/kernels.sh" fetch "$kernel" $arch) || exit 125
	vmlinuz=$kdir/vmlinuz
	release=$(cat "$kdir/release")
	moddir=$kdir/lib/modules/$release
fi

# module_file NAME: the module's file under $moddir, if it is a module there.
module_file() {
	[ -n "$moddir" ] || return 0
	find "$moddir/kernel" -name "$1.ko" -o -name "$1.ko.xz" -o -name "$1.ko.zst" | head -1
}
# module_depends FILE: the modules FILE needs (from its .modinfo section).
module_depends() {
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*) cat "$1" ;;
	esac | tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '
}
# add_module NAME: copies NAME and what it needs, dependencies first, uncompressed (the
# initramfs's busybox insmod reads plain ELF), and lists it in load order.
add_module() {
	local f dep out
	grep -qx "$1" "$job/added" 2>/dev/null && return 0
	echo "$1" >>"$job/added"
	f=$(module_file "$1")
	[ -n "$f" ] || return 0 # built in (or absent: the guest's init then says so)
	for dep in $(module_depends "$f"); do add_module "$dep"; done
	out=$job/initramfs/lib/$1.ko
	case $f in
	*.xz) xz -dc "$f" >"$out" ;;
	*.zst) zstd -qdc "$f" >"$out" ;;
	*) cp "$f" "$out" ;;
	esac
	echo "/lib/$1.ko" >>"$job/initramfs/modules"
}

mkdir -p "$job/initramfs/"{bin,lib,dev,proc,sys,lower,rw,newroot}
cp "$busybox" "$job/initramfs/bin/busybox"
: >"$job/initramfs/modules"
for m in $modules; do add_module "$m"; done

# Stage 1 (busybox, in the initramfs, where an exec costs nothing): modules, the shared
# root read-only under a tmpfs overlay, every file system the kernel tests use mounted
# in it, then stage 2 as PID 1 of the new root.
cat >"$job/initramfs/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules); do insmod "$m" || echo "ebprof-vm: insmod $m failed"; done
port() { # port NAME: the device of the virtio serial port NAME
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = "$1" ] && echo "/dev/${p##*/}" && return
	done
}
fail() {
	echo "ebprof-vm: $*" >/dev/console
	s=$(port status) && [ -n "$s" ] && printf 'run\n125\n' >"$s"
	poweroff -f
}
r=/newroot
mount -t virtiofs -o ro hostroot /lower || fail "cannot mount the host's root (virtiofs)"
mount -t tmpfs -o mode=755 rw /rw && mkdir /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work root $r ||
	fail "cannot mount the overlay"
mount -t tmpfs -o mode=755,nosuid run $r/run && mkdir $r/run/ebprof-vm
mount -t tmpfs -o mode=1777 tmp $r/tmp
mount -t proc proc $r/proc
mount -t sysfs sys $r/sys
mount -t devtmpfs dev $r/dev
mkdir -p $r/dev/pts $r/dev/shm
ln -s /proc/self/fd $r/dev/fd # what udev would add: bash's <(...) needs it
ln -s fd/0 $r/dev/stdin && ln -s fd/1 $r/dev/stdout && ln -s fd/2 $r/dev/stderr
mount -t devpts -o ptmxmode=666 devpts $r/dev/pts
mount -t tmpfs shm $r/dev/shm
mount -t cgroup2 cgroup2 $r/sys/fs/cgroup
mount -t bpf bpf $r/sys/fs/bpf
mount -t debugfs debugfs $r/sys/kernel/debug
mount -t tracefs tracefs $r/sys/kernel/tracing 2>/dev/null
# The checkout, last: it may be under one of the file systems mounted above.
top=$(cat /checkout.path)
mkdir -p /checkout.ro /rw/ck.upper /rw/ck.work $r$top
mount -t virtiofs -o ro checkout /checkout.ro || fail "cannot mount the checkout (virtiofs)"
mount -t overlay -o lowerdir=/checkout.ro,upperdir=/rw/ck.upper,workdir=/rw/ck.work \
	checkout $r$top || fail "cannot mount the checkout's overlay"
ip link set lo up
hostname ebprof-vm
echo "out=$(port out) err=$(port err) status=$(port status)" >$r/run/ebprof-vm/ports
cp /stage2 /cmd $r/run/ebprof-vm/
umount /proc /sys /dev
exec switch_root $r /bin/bash /run/ebprof-vm/stage2
INIT
chmod +x "$job/initramfs/init"

# Stage 2 (the host's bash, PID 1 on the overlay): the command with its output on the
# ports the host reads, then power off.
cat >"$job/initramfs/stage2" <<'STAGE2'
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
# Before 5.11 BPF memory is charged to RLIMIT_MEMLOCK.
ulimit -l unlimited
. /run/ebprof-vm/ports
rc=125
exec 9>"$status"
if [ -n "$out" ] && [ -n "$err" ]; then
	echo run >&9
	(. /run/ebprof-vm/cmd) </dev/null >"$out" 2>"$err" 9>&-
	rc=$?
fi
echo "$rc" >&9
echo o >/proc/sysrq-trigger # powers off from a work queue: wait for it
sleep 30
STAGE2

# The command, its directory and the settings the tests and benchmarks read.
{
	printf 'cd %q || exit 125\n' "$PWD"
	for v in $(compgen -e | grep -E '^(BUILD|EBPROF.*|BENCH_.*|KERNEL|CI)$' || true); do
		printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf 'export EBPROF_VM=%q\n' "$kernel $arch under qemu, $accel_name, $cpus vCPUs"
	printf 'exec'
	printf ' %q' "$@"
	echo
} >"$job/initramfs/cmd"
printf '%s\n' "$top" >"$job/initramfs/checkout.path"
(cd "$job/initramfs" && find . | cpio -o -H newc --quiet) >"$job/initramfs.cpio"

case $arch-$accel_name in
amd64-kvm) accel=(-enable-kvm -cpu host -machine q35) ;;
# Without 5-level paging, cmpxchg16b, PCID and INVPCID: with them multi-threaded TCG
# crashed about half of 6.12's boots (in SLUB's double-word cmpxchg, text patching, ACPI
# init); without them 8 boots of 8 came up.
amd64-tcg) accel=(-accel tcg,thread=multi -cpu max,la57=off,-cx16,-pcid,-invpcid -machine q35) ;;
# The virt board with every feature TCG has (pointer authentication and BTI included:
# Debian's userland signs its return addresses there), the cheap implementation-defined
# signature instead of QARMA, which TCG computes in software at every paciasp.
arm64-tcg) accel=(-accel tcg,thread=multi -cpu max,pauth-impdef=on -machine virt) ;;
*) die "VM_ACCEL must be kvm or tcg (arm64: tcg)" ;;
esac
serial=ttyS0
[ $arch = arm64 ] && serial=ttyAMA0
console=$job/console.log
[ "${VM_VERBOSE:-0}" = 1 ] && console=/dev/stderr

# start_virtiofsd DIR NAME: serves a read-only bind of DIR (not recursive: the guest
# mounts its own /proc, /sys, /dev) on $job/NAME.sock from a mount namespace of its own,
# so the host's tree cannot be written. It ends with the guest's connection.
start_virtiofsd() {
	local dir=$1 name=$2 pid
	mkdir -p "$job/$name"
	rm -f "$job/$name.sock"
	unshare -m --propagation private sh -c '
		mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" &&
		exec "$3" --socket-path="$4" -o source="$2" -o cache=always -o sandbox=namespace \
			-o log_level=err' sh "$dir" "$job/$name" "$virtiofsd" "$job/$name.sock" \
		2>"$job/$name.log" &
	pid=$!
	fsd_pids+=("$pid")
	for _ in $(seq 100); do
		[ -S "$job/$name.sock" ] && return 0
		kill -0 "$pid" 2>/dev/null || die "virtiofsd ($dir) failed: $(cat "$job/$name.log")"
		sleep 0.02
	done
	die "virtiofsd ($dir) did not start"
}

# boot: one guest; its status port gets "run" when the command starts, then its status.
# stdout and stderr reach the guest's ports as the very descriptors this script has
# (qemu takes them as fd sets, and none of 0-2).
boot() {
	local p
	start_virtiofsd "$rootfs" root
	start_virtiofsd "$top" checkout
	: >"$job/status"
	qemu_rc=0
	timeout -k 5 "$timeout" "$qemu" "${accel[@]}" -smp "$cpus" \
		-m "$mem" -object "memory-backend-memfd,id=mem,size=${mem}M,share=on" \
		-numa node,memdev=mem -nodefaults -no-user-config -nographic \
		-no-reboot -serial "file:$console" -monitor none \
		-kernel "$vmlinuz" -initrd "$job/initramfs.cpio" \
		-append "console=$serial loglevel=${VM_LOGLEVEL:-4} panic=-1 mitigations=off nokaslr" \
		-chardev "socket,id=fs,path=$job/root.sock" \
		-device vhost-user-fs-pci,chardev=fs,tag=hostroot \
		-chardev "socket,id=ck,path=$job/checkout.sock" \
		-device vhost-user-fs-pci,chardev=ck,tag=checkout \
		-device virtio-serial-pci \
		-add-fd fd=3,set=1 -add-fd fd=4,set=2 \
		-chardev file,id=out,path=/dev/fdset/1,append=on \
		-device virtserialport,chardev=out,name=out \
		-chardev file,id=err,path=/dev/fdset/2,append=on \
		-device virtserialport,chardev=err,name=err \
		-chardev "file,id=status,path=$job/status" \
		-device virtserialport,chardev=status,name=status \
		</dev/null 3>&1 4>&2 &
	qemu_pid=$!
	wait "$qemu_pid" || qemu_rc=$?
	qemu_pid=
	for p in "${fsd_pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	fsd_pids=()
}

# Should an emulated guest still crash while it boots, a guest that never reached the
# command boots again, up to VM_BOOT_TRIES times. Once the command ran, its result stands.
tries=${VM_BOOT_TRIES:-3}
for try in $(seq "$tries"); do
	boot
	grep -q '^run' "$job/status" && break
	[ "$try" -lt "$tries" ] && [ "$qemu_rc" -ne 124 ] &&
		echo "ebprof: vm: $kernel did not boot (try $try of $tries), booting again" >&2
done
status=$(sed -n 2p "$job/status" | tr -dc '0-9')
if [ -z "$status" ]; then
	[ $qemu_rc -eq 124 ] && echo "ebprof: vm: no result after ${timeout}s" >&2
	echo "ebprof: vm: the guest ended without a result (qemu status $qemu_rc); its console:" >&2
	tail -30 "$console" >&2 2>/dev/null || true
	exit 125
fi
exit "$status"

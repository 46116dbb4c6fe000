/* SPDX-License-Identifier: Apache-2.0 */
/* Minimal kernel BTF for CO-RE: the few types and members our BPF objects' relocations
 * need, cut out of the kernel's BTF once per kernel, so libbpf (btf_custom_path) relocates
 * every object against a few KiB instead of parsing megabytes of vmlinux BTF each time. */
#ifndef EBPROF_MIN_BTF_H
#define EBPROF_MIN_BTF_H

#include <stddef.h>

/* Writes to out_path a minimal raw BTF blob (the format of /sys/kernel/btf/vmlinux) that
 * holds, from the kernel BTF at vmlinux_path (raw or ELF), every type and member that the
 * CO-RE relocations of the n BPF ELF images elfs[i] (elf_sizes[i] bytes each, only read)
 * reference, at their original offsets and sizes. The file is written to a temporary name
 * and renamed, so readers never see a partial one. Returns 0, or a negative errno:
 * -EOPNOTSUPP for a relocation kind or type kind it does not know (use the full vmlinux
 * BTF instead), -EINVAL for a malformed object, -ENOENT/-EACCES/... for files. */
int min_btf__generate(const char *vmlinux_path, const void *const *elfs, const size_t *elf_sizes,
		      size_t n, const char *out_path);

/* Writes to buf a stable id of the running kernel's BTF, fit for a file name: the kernel's
 * GNU build id (/sys/kernel/notes) when it has one, then the size and a hash of the head
 * and tail of /sys/kernel/btf/vmlinux. Returns 0, -ENOSPC if len is too small, -ENOENT if
 * the kernel exposes neither. */
int min_btf__kernel_id(char *buf, size_t len);

#endif

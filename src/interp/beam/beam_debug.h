/* SPDX-License-Identifier: Apache-2.0 */
/* The Erlang VM's own description of its JIT code: with the JIT, beam.smp registers one
 * record per loaded module with the GDB JIT interface (__jit_debug_descriptor, a list of
 * entries each pointing at a record), and one for the emulator itself. A module's record
 * gives its code's base and size and, for each function, its range, its name as
 * "module:function/arity" and the lines its code starts. The layout (the same in OTP 25
 * and 27, read from both) is the VM's, erts/emulator/beam/jit/beam_jit_metadata.cpp:
 *   record:  u32 kind (0 emulator, 1 module), 4 bytes of padding, then
 *   emulator: i32 frame layout, 4 bytes of padding, u64 beam_normal_exit's value;
 *   module:  u64 base, u32 ranges, u32 code size, u16 name length (its NUL counted),
 *            the name, the ranges after 32 bytes plus the name;
 *   range:   u32 start, u32 end (offsets from base), u32 lines, u16 name length, the
 *            name at 14, the next after 16 bytes plus the name, its lines first;
 *   line:    u32 start offset, u32 line, u16 file length, the file at 10, the next
 *            after 12 bytes plus the file.
 * Records come from another process: every length is checked against the record. */
#ifndef EBPROF_BEAM_DEBUG_H
#define EBPROF_BEAM_DEBUG_H

#include <stddef.h>
#include <stdint.h>

#define BEAM_DEBUG_EMULATOR 0
#define BEAM_DEBUG_MODULE 1
#define BEAM_DEBUG_MAX_RECORD (16u << 20) /* bytes of one module's record */

struct beam_debug_emulator {
	int32_t frame_layout; /* 0: return addresses only; 1: with frame pointers */
	uint64_t normal_exit;
};

struct beam_fn {
	uint32_t start, end;	/* offsets from the module's base */
	uint32_t name;		/* offset of its name in the record */
	uint32_t line0, nlines; /* its lines: lines[line0, line0 + nlines) */
};

struct beam_line {
	uint32_t start; /* offset from the module's base */
	uint32_t line;
	uint32_t file; /* offset of its file's name in the record */
};

/* One module's code, decoded; names point into rec (owned). */
struct beam_module {
	uint64_t base;
	uint32_t size;
	uint8_t *rec; /* the record as read, its strings NUL-terminated in place */
	size_t len;
	const char *name;
	struct beam_fn *fns; /* sorted by start */
	uint32_t nfns;
	struct beam_line *lines;
	uint32_t nlines;
};

/* The kind of record rec holds (BEAM_DEBUG_*), or -1 when it is shorter than a header. */
int beam_debug__kind(const uint8_t *rec, size_t len);
/* An emulator record. Returns 0 or -EINVAL. */
int beam_debug__emulator(const uint8_t *rec, size_t len, struct beam_debug_emulator *out);
/* A module's record into out, which takes rec (malloc'd, len bytes) in every case.
 * Returns 0, -EINVAL (malformed: out is empty then) or -ENOMEM. */
int beam_debug__module(uint8_t *rec, size_t len, struct beam_module *out);
void beam_module__release(struct beam_module *m);

/* The function of m holding code address addr, and the line there (0 when its code has
 * none; *file "" then). Returns the function's name, or NULL when addr is none of m's
 * functions. */
const char *beam_module__find(const struct beam_module *m, uint64_t addr, uint32_t *line,
			      const char **file);

/* The schedulers' data (erts_aligned_scheduler_data, erts/emulator/beam/erl_process.h,
 * the same in OTP 25, 26 and 27): an array of ErtsSchedulerData padded to cache lines,
 * each beginning with the address of its registers block (aligned to a cache line, set
 * when the scheduler starts) and holding, past a prefix of fixed size, current_process,
 * its type (0: normal), no (its number, from 1) and dirty_no (0 for a normal scheduler). A Process begins with its 80-byte ErtsPTabElementCommon, then htop
 * and stop. The element's size depends on the build: it is measured on the live VM. */
#define BEAM_ESD_REGISTERS 0
#define BEAM_ESD_CURRENT 168
#define BEAM_ESD_TYPE 176
#define BEAM_ESD_NO 184
#define BEAM_ESD_DIRTY_NO 192
#define BEAM_ESD_ALIGN 64
#define BEAM_PROC_STOP 88

/* The size of one element of the array of n normal schedulers whose first len bytes
 * are buf: the one multiple of BEAM_ESD_ALIGN for which element 0 and every element
 * after it that buf holds whole say their number (no == i + 1, dirty_no == 0), and
 * which puts at least one element after the first in buf. Returns it; 0 when no size
 * or more than one fits (the layout is not the one known), or n < 2 (none to measure
 * by: element 0 alone is checked, by beam_debug__sched_ok). */
uint32_t beam_debug__sched_stride(const uint8_t *buf, size_t len, uint32_t n);
/* Whether the element at buf (len bytes) is normal scheduler number no, started. */
int beam_debug__sched_ok(const uint8_t *buf, size_t len, uint64_t no);

#endif

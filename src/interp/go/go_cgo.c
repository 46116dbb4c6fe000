// SPDX-License-Identifier: Apache-2.0
/* Reads runtime.asmcgocall in a Go binary for the Go walker's cgo step: found by name in
 * the pclntab, its first bytes (a frame pointer or none) and the two stores that keep,
 * on the system stack, what it returns by; checked against a table per release. And
 * runtime.systemstack's place and first bytes, for the same walker's step there. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "interp/go/go_cgo.h"
#include "symbol/gopclntab.h"

#define CODE_MAX 512 /* asmcgocall is about 200 bytes in every release */

/* Where asmcgocall keeps, from its SP on the system stack, the g it left and its depth in
 * that g's stack, read in each release's asm_amd64.s: "MOVQ DI, 48(SP) // save g" and
 * "MOVQ DI, 40(SP) // save depth" in 1.19 and 1.21 (its frame 64 bytes for Windows' sake),
 * 8(SP) and 0(SP) from 1.22 (16 bytes, the call made through asmcgocall_landingpad) in
 * 1.22, 1.23, 1.24 and 1.27. */
static const struct {
	uint8_t minor, g, depth;
} layouts[] = {
    {19, 48, 40}, {21, 48, 40}, {22, 8, 0}, {23, 8, 0}, {24, 8, 0}, {27, 8, 0},
};

/* A store of a 64-bit register (or, imm, of the constant 0) to disp(%rsp), disp 0 to
 * 127, at b[i]: "48 89 /r" (or "48 c7 /0" with a 4-byte 0) with a SIB byte for %rsp.
 * Returns the instruction's length, 0 when there is none at i. */
static size_t rsp_store(const uint8_t *b, size_t n, size_t i, bool imm, uint8_t *reg, uint8_t *disp)
{
	size_t len;
	uint8_t modrm;

	if (i + 4 > n || b[i] != 0x48 || b[i + 1] != (imm ? 0xc7 : 0x89) || b[i + 3] != 0x24)
		return 0;
	modrm = b[i + 2];
	if ((modrm & 7) != 4 || (modrm >> 6) > 1 || (imm && ((modrm >> 3) & 7)))
		return 0;
	*reg = (modrm >> 3) & 7;
	*disp = 0;
	len = 4;
	if (modrm >> 6) {
		if (i + 5 > n || b[i + 4] > 127)
			return 0;
		*disp = b[i + 4];
		len = 5;
	}
	if (imm) {
		if (i + len + 4 > n || memcmp(b + i + len, "\0\0\0\0", 4))
			return 0;
		len += 4;
	}
	return len;
}

int go_cgo__slots(const uint8_t *code, size_t n, uint8_t *g, uint8_t *depth)
{
	enum { RDX = 2, RDI = 7 };
	uint8_t di[3], dx = 0xff, zero = 0xff, reg, disp;
	unsigned int ndi = 0;

	for (size_t i = 0; i < n; i++) {
		if (rsp_store(code, n, i, false, &reg, &disp)) {
			if (reg == RDI && ndi < 3)
				di[ndi++] = disp;
			else if (reg == RDX)
				dx = disp;
		} else if (rsp_store(code, n, i, true, &reg, &disp)) {
			zero = disp;
		}
	}
	if (ndi != 2 || di[0] == di[1] || zero != di[0] || dx != di[1])
		return -ENOENT;
	*g = di[0];
	*depth = di[1];
	return 0;
}

/* Reads the code of the assembly function at r: its file offset range, its bytes into
 * code (at most CODE_MAX) and whether its prologue pushes BP. */
static int asm_code(int fd, const struct elf_file *e, struct go_func_range r, uint64_t *off,
		    uint64_t *len, uint8_t *frame, uint8_t *code)
{
	static const uint8_t prologue[] = {0x55, 0x48, 0x89, 0xe5}; /* push %rbp; mov %rsp,%rbp */
	uint64_t n = r.end - r.entry;

	*len = 0;
	if (r.end <= r.entry || n > CODE_MAX || !elf_file__vaddr_to_off(e, r.entry, off))
		return -ENOENT;
	if (pread(fd, code, n, (off_t)*off) != (ssize_t)n)
		return -EIO;
	*len = n;
	*frame = n >= sizeof(prologue) && !memcmp(code, prologue, sizeof(prologue)) ? 8 : 0;
	return 0;
}

/* offsetof(g, sched.bp) per release, from runtime2.go's gobuf (sp, pc, g, ctxt, ret, lr,
 * bp in 1.19-1.24; ret gone by 1.27) after g.sched at 56, as morestack stores it. */
static const struct {
	uint8_t minor, bp;
} sched_bps[] = {
    {19, 104}, {21, 104}, {22, 104}, {23, 104}, {24, 104}, {27, 96},
};

uint8_t go_cgo__sched_bp(const uint8_t *code, size_t n)
{
	uint8_t found = 0, hits = 0;

	/* mov %rbp,disp8(%rsi) or (%rdi): 48 89 6e|6f disp8 */
	for (size_t i = 0; i + 4 <= n; i++) {
		if (code[i] != 0x48 || code[i + 1] != 0x89 ||
		    (code[i + 2] != 0x6e && code[i + 2] != 0x6f))
			continue;
		if (code[i + 3] != 56 + 40 && code[i + 3] != 56 + 48)
			continue;
		found = code[i + 3];
		hits++;
	}
	return hits == 1 ? found : 0;
}

uint8_t go_cgo__sched_bp_of(uint8_t minor, const struct go_cgo_switch *sw)
{
	for (size_t i = 0; i < sizeof(sched_bps) / sizeof(sched_bps[0]); i++) {
		if (sched_bps[i].minor != minor)
			continue;
		if (sw->sched_bp && sw->sched_bp != sched_bps[i].bp)
			return 0; /* the code is not what the release's source says */
		return sched_bps[i].bp;
	}
	return minor >= 19 ? sw->sched_bp : 0;
}

int go_cgo__find(int fd, const struct elf_file *e, struct go_cgo_switch *out)
{
	static const char *const names[] = {"runtime.asmcgocall", "runtime.systemstack",
					    "runtime.morestack"};
	struct go_table *t = go_table__open(fd);
	struct go_func_range r[3];
	uint8_t code[CODE_MAX], frame;
	int err;

	memset(out, 0, sizeof(*out));
	err = t ? go_table__asm_funcs(t, names, 3, r) : -ENOENT;
	go_table__free(t);
	if (err)
		return err;
	asm_code(fd, e, r[1], &out->ss_off, &out->ss_len, &out->ss_frame, code);
	if (!asm_code(fd, e, r[2], &out->ms_off, &out->ms_len, &frame, code))
		out->sched_bp = go_cgo__sched_bp(code, out->ms_len);
	err = asm_code(fd, e, r[0], &out->off, &out->len, &out->frame, code);
	if (!err)
		out->slots_from_code = !go_cgo__slots(code, out->len, &out->g, &out->depth);
	return out->len || out->ss_len || out->ms_len ? 0 : err;
}

int go_cgo__layout(uint8_t minor, const struct go_cgo_switch *sw, uint8_t *g, uint8_t *depth)
{
	if (!sw->len)
		return -ENOTSUP;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		if (layouts[i].minor != minor)
			continue;
		if (sw->slots_from_code && (sw->g != layouts[i].g || sw->depth != layouts[i].depth))
			return -ENOTSUP; /* the code is not what the release's source says */
		*g = layouts[i].g;
		*depth = layouts[i].depth;
		return 0;
	}
	if (minor < 19 || !sw->slots_from_code)
		return -ENOTSUP;
	*g = sw->g;
	*depth = sw->depth;
	return 0;
}

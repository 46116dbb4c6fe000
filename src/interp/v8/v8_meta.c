// SPDX-License-Identifier: Apache-2.0
/* V8's post-mortem metadata from the file (see v8_meta.h): each v8dbg_* symbol is an int
 * the build wrote into .data (or .bss when it is 0), read through the file's segments. */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "interp/v8/v8_meta.h"

#define V8_MEMBER_ROW(id, req, names) {req, names},
static const struct {
	bool required;
	const char *names;
} members[V8_M__COUNT] = {V8_MEMBERS(V8_MEMBER_ROW)};
#undef V8_MEMBER_ROW

/* Frame types a stub frame may carry (v8dbg_frametype_NAME), across versions. */
static const char *const frame_types[] = {
    "EntryFrame",
    "ConstructEntryFrame",
    "ExitFrame",
    "OptimizedFrame",
    "TurbofanFrame",
    "MaglevFrame",
    "InterpretedFrame",
    "BaselineFrame",
    "StubFrame",
    "TurbofanStubWithContextFrame",
    "BuiltinContinuationFrame",
    "JavaScriptFrame",
    "JavaScriptBuiltinContinuationFrame",
    "JavaScriptBuiltinContinuationWithCatchFrame",
    "InternalFrame",
    "ConstructFrame",
    "BuiltinFrame",
    "BuiltinExitFrame",
    "NativeFrame",
    "ArgumentsAdaptorFrame",
    "IrregexpFrame",
    "ApiCallbackExitFrame",
    "FastConstructFrame",
};

static const char *const version_syms[4] = {
    "_ZN2v88internal7Version6major_E", "_ZN2v88internal7Version6minor_E",
    "_ZN2v88internal7Version6build_E", "_ZN2v88internal7Version6patch_E"};

bool v8_meta__present(const struct elf_file *e)
{
	return e && !elf_file__symbol(e, "v8dbg_off_fp_function", NULL, NULL);
}

/* len bytes at ELF address vaddr: 0, -ENOENT when no segment holds them in the file
 * (.bss: the caller reads zeros), -EIO when the read fails. */
static int read_vaddr(const struct elf_file *e, int fd, uint64_t vaddr, void *buf, size_t len)
{
	uint64_t off;

	if (!elf_file__vaddr_to_off(e, vaddr, &off))
		return -ENOENT;
	if (off > INT64_MAX - len || pread(fd, buf, len, (off_t)off) != (ssize_t)len)
		return -EIO;
	return 0;
}

/* The int the symbol name holds; false when there is no such symbol. */
static bool read_int(const struct elf_file *e, int fd, const char *name, int32_t *out)
{
	uint64_t addr;

	*out = 0;
	if (elf_file__symbol(e, name, &addr, NULL))
		return false;
	if (read_vaddr(e, fd, addr, out, sizeof(*out)) == -EIO)
		return false;
	return true;
}

/* One member under any of its names ("a|b|c"). */
static bool read_member(const struct elf_file *e, int fd, const char *names, int32_t *out)
{
	char sym[160];

	for (const char *p = names; *p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		if (n + 7 < sizeof(sym)) {
			memcpy(sym, "v8dbg_", 6);
			memcpy(sym + 6, p, n);
			sym[6 + n] = 0;
			if (read_int(e, fd, sym, out))
				return true;
		}
		p += n + (bar ? 1 : 0);
	}
	return false;
}

static int32_t disp32(const uint8_t *p)
{
	int32_t d;

	memcpy(&d, p, sizeof(d));
	return d;
}

/* x86-64 (struct v8_return's comment gives the forms). */
static int decode_return_x86(const uint8_t *code, size_t len, uint64_t vaddr, struct v8_return *r)
{
	if (len < 10)
		return -EINVAL;
	/* b8 imm32 c3: mov $imm32, %eax; ret (a non-PIE executable's address) */
	if (code[0] == 0xb8 && code[5] == 0xc3) {
		r->target = (uint32_t)disp32(code + 1);
		return 0;
	}
	/* 8b 05 disp32 c3: mov disp32(%rip), %eax; ret; rip is the next instruction's */
	if (code[0] == 0x8b && code[1] == 0x05 && code[6] == 0xc3) {
		r->target = vaddr + 6 + (uint64_t)(int64_t)disp32(code + 2);
		r->width = 4;
		return 0;
	}
	/* 48 8d 05 disp32: lea disp32(%rip), %rax */
	if (code[0] != 0x48 || code[1] != 0x8d || code[2] != 0x05)
		return -EINVAL;
	r->target = vaddr + 7 + (uint64_t)(int64_t)disp32(code + 3);
	if (code[7] == 0xc3)
		return 0;
	/* 8b 00 c3: mov (%rax), %eax; ret */
	if (code[7] == 0x8b && code[8] == 0x00 && code[9] == 0xc3) {
		r->width = 4;
		return 0;
	}
	/* 48 8b 00 c3: mov (%rax), %rax; ret */
	if (len >= 11 && code[7] == 0x48 && code[8] == 0x8b && code[9] == 0x00 &&
	    code[10] == 0xc3) {
		r->width = 8;
		return 0;
	}
	return -EINVAL;
}

/* arm64 encodings (the Arm ARM, "A64 instruction set encoding"). */
#define A64_BTI_C 0xd503245fu
#define A64_RET 0xd65f03c0u
#define A64_RD(i) ((i)&31)
#define A64_RN(i) (((i) >> 5) & 31)
#define A64_IMM12(i) (((i) >> 10) & 0xfff)

/* adrp xd, page: the 4 KiB page at vaddr's plus the signed 21-bit page count. */
static bool a64_adrp(uint32_t i, uint64_t vaddr, uint64_t *page)
{
	int64_t pages = (int64_t)((((i >> 5) & 0x7ffff) << 2) | ((i >> 29) & 3));

	if ((i & 0x9f000000u) != 0x90000000u)
		return false;
	if (pages & (1 << 20)) /* a signed 21-bit count */
		pages -= 1 << 21;
	*page = (vaddr & ~0xfffull) + (uint64_t)pages * 4096;
	return true;
}

/* ldr wt|xt, [xn, #imm] (unsigned offset) on register n: its byte offset and width. */
static bool a64_ldr(uint32_t i, unsigned n, uint64_t *off, int *width)
{
	if (A64_RN(i) != n)
		return false;
	if ((i & 0xffc00000u) == 0xf9400000u)
		*width = 8;
	else if ((i & 0xffc00000u) == 0xb9400000u)
		*width = 4;
	else
		return false;
	*off = (uint64_t)A64_IMM12(i) * (uint64_t)*width;
	return true;
}

/* arm64 (struct v8_return's comment gives the forms): up to five instructions. */
static int decode_return_a64(const uint8_t *code, size_t len, uint64_t vaddr, struct v8_return *r)
{
	uint32_t i[6] = {0};
	size_t n = len / 4 < 6 ? len / 4 : 6, k = 0;
	uint64_t off;
	unsigned reg;
	int w;

	memcpy(i, code, n * 4);
	if (k < n && i[k] == A64_BTI_C)
		k++;
	if (k >= n || !a64_adrp(i[k], vaddr + k * 4, &r->target))
		return -EINVAL;
	reg = A64_RD(i[k++]);
	/* add xd, xd, #imm12 (no shift) */
	if (k < n && (i[k] & 0xffc00000u) == 0x91000000u && A64_RN(i[k]) == reg) {
		r->target += A64_IMM12(i[k]);
		reg = A64_RD(i[k++]);
	}
	/* A load followed by another load is of the GOT slot holding the address. */
	if (k + 1 < n && a64_ldr(i[k], reg, &off, &w) && w == 8 &&
	    a64_ldr(i[k + 1], A64_RD(i[k]), &off, &w)) {
		a64_ldr(i[k], reg, &off, &w);
		r->target += off;
		r->derefs = 1;
		reg = A64_RD(i[k++]);
		off = 0;
	}
	if (k < n && a64_ldr(i[k], reg, &off, &w) && A64_RD(i[k]) == 0) {
		r->target += off;
		r->width = w;
		reg = 0;
		k++;
	}
	return k < n && i[k] == A64_RET && reg == 0 ? 0 : -EINVAL;
}

int v8_meta__decode_return(uint16_t machine, const uint8_t *code, size_t len, uint64_t vaddr,
			   struct v8_return *r)
{
	*r = (struct v8_return){0};
	if (machine == EM_X86_64)
		return decode_return_x86(code, len, vaddr, r);
	if (machine == EM_AARCH64)
		return decode_return_a64(code, len, vaddr, r);
	return -EINVAL;
}

/* What the function at symbol name returns, read from the file: an address, or the
 * value at one (a pointer in data, the GOT's included, holds its link-time address in
 * the file, which the loader relocates). */
static int read_return(const struct elf_file *e, int fd, const char *name, uint64_t *out,
		       int *width)
{
	struct v8_return r;
	uint64_t fn, v = 0;
	uint8_t insn[24];
	int err;

	if (elf_file__symbol(e, name, &fn, NULL))
		return -ENOENT;
	err = read_vaddr(e, fd, fn, insn, sizeof(insn));
	if (!err)
		err = v8_meta__decode_return(elf_file__machine(e), insn, sizeof(insn), fn, &r);
	if (!err && r.derefs)
		err = read_vaddr(e, fd, r.target, &r.target, sizeof(r.target));
	if (err)
		return err;
	*width = r.width;
	if (r.width == 0) {
		*out = r.target;
		return 0;
	}
	err = read_vaddr(e, fd, r.target, &v, (size_t)r.width);
	*out = v;
	return err;
}

/* The embedded builtins' code: from the blob's own symbols when the file keeps its
 * .symtab, else from what DefaultEmbeddedBlobCode() and ...Size() return. */
static void read_blob(const struct elf_file *e, int fd, struct v8_meta *m)
{
	uint64_t code, size_addr, size = 0, off;
	uint32_t size32 = 0;
	int w;

	if (!elf_file__symbol(e, "v8_Default_embedded_blob_code_", &code, NULL) &&
	    !elf_file__symbol(e, "v8_Default_embedded_blob_code_size_", &size_addr, NULL)) {
		if (read_vaddr(e, fd, size_addr, &size32, sizeof(size32)))
			return;
		size = size32;
	} else if (read_return(e, fd, "_ZN2v88internal23DefaultEmbeddedBlobCodeEv", &code, &w) ||
		   w == 4 ||
		   read_return(e, fd, "_ZN2v88internal27DefaultEmbeddedBlobCodeSizeEv", &size,
			       &w) ||
		   w != 4) {
		return;
	}
	/* 64 MiB: far over any V8's builtins (1.6 MiB in Node 20); more is not this code. */
	if (!size || size > (64u << 20) || !elf_file__vaddr_to_off(e, code, &off))
		return;
	m->blob_off = off;
	m->blob_size = size;
}

static void read_frame_types(const struct elf_file *e, int fd, struct v8_meta *m)
{
	char sym[96];

	for (size_t i = 0; i < sizeof(frame_types) / sizeof(frame_types[0]); i++) {
		int32_t v;

		snprintf(sym, sizeof(sym), "v8dbg_frametype_%s", frame_types[i]);
		if (read_int(e, fd, sym, &v) && v >= 0 && v < V8_MAX_FRAME_TYPES &&
		    !m->frame_type[v][0])
			snprintf(m->frame_type[v], sizeof(m->frame_type[v]), "%s", frame_types[i]);
	}
}

int v8_meta__read(const struct elf_file *e, int fd, struct v8_meta *m, const char **missing)
{
	memset(m, 0, sizeof(*m));
	*missing = NULL;
	for (int i = 0; i < V8_M__COUNT; i++) {
		m->has[i] = read_member(e, fd, members[i].names, &m->v[i]);
		if (!m->has[i] && members[i].required && !*missing)
			*missing = members[i].names;
	}
	for (int i = 0; i < 4; i++) {
		int32_t v;

		m->version[i] = read_int(e, fd, version_syms[i], &v) && v >= 0 ? (uint32_t)v : 0;
	}
	read_blob(e, fd, m);
	read_frame_types(e, fd, m);
	if (!*missing && !m->blob_size)
		*missing = "the embedded builtins' range (DefaultEmbeddedBlobCode)";
	return *missing ? -ENOENT : 0;
}

static int32_t member_or(const struct v8_meta *m, enum v8_member id, int32_t dflt)
{
	return m->has[id] ? m->v[id] : dflt;
}

void v8_meta__code(const struct v8_meta *m, struct v8_code_layout *out)
{
	memset(out, 0, sizeof(*out));
	/* The code follows the feedback cell in V8 11's JSFunction, which does not say. */
	if (m->has[V8_M_FN_CODE])
		out->fn_code = (uint16_t)m->v[V8_M_FN_CODE];
	else if (m->has[V8_M_FN_FEEDBACK_CELL])
		out->fn_code = (uint16_t)(m->v[V8_M_FN_FEEDBACK_CELL] + 8);
	if (m->has[V8_M_IS_START]) {
		/* V8 11: the Code object points at its InstructionStream's instructions (the
		 * address at 40, the size at 56: as 11.3 lays them out). */
		out->start_is_field = true;
		out->start = 40;
		out->size = 56;
	} else if (m->has[V8_M_CODE_START] && m->has[V8_M_CODE_SIZE]) {
		/* V8 10: the instructions follow the Code object's header. */
		out->start = (uint16_t)m->v[V8_M_CODE_START];
		out->size = (uint16_t)m->v[V8_M_CODE_SIZE];
	} else {
		out->fn_code = 0;
	}
	/* Tagged members after the relocation info, and the data's indices: the same from
	 * V8 9 to 11, in the metadata from 11 on. */
	out->deopt = (uint16_t)member_or(m, V8_M_CODE_DEOPT, 16);
	out->positions = (uint16_t)member_or(m, V8_M_CODE_POSITIONS, 24);
	out->d_count = (uint8_t)member_or(m, V8_M_DEOPT_COUNT, 1);
	out->d_literals = (uint8_t)member_or(m, V8_M_DEOPT_LITERALS, 2);
	out->d_sfi = (uint8_t)member_or(m, V8_M_DEOPT_SFI, 6);
	out->d_inlining = (uint8_t)member_or(m, V8_M_DEOPT_INLINING, 7);
}

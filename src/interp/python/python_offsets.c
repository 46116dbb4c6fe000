// SPDX-License-Identifier: Apache-2.0
/* CPython offsets per version, for x86-64 builds with the default options (not debug,
 * not free-threaded). Each figure is offsetof() in that version's own headers (3.9.18,
 * 3.10.13, 3.11.7, 3.12.1; Debian's 3.11.2 agrees), i.e. a fact about the public ABI of
 * that release series; 3.13 reads them from the interpreter's _Py_DebugOffsets. */
#include <errno.h>
#include <string.h>

#include "interp/python/python_offsets.h"

static const struct py_version_info tables[] = {
    {
	.version = 0x0309,
	.layout = PY_LAYOUT_FRAMEOBJ_LASTI_BYTES,
	.lines = PY_LINES_LNOTAB,
	.bpf = {.interp_head = 32,
		.threads_head = 8,
		.tstate_next = 8,
		.tstate_id = 176,
		.tstate_frame = 24,
		.cframe_frame = PY_NO_OFFSET,
		.frame_back = 24,
		.frame_code = 32,
		.frame_instr = 104,
		.frame_owner = PY_NO_OFFSET,
		.frame_entry = PY_NO_OFFSET,
		.code_first = PY_NO_OFFSET,
		.code_lineno = 40},
	.code = {.filename = 104,
		 .name = 112,
		 .qualname = PY_NO_OFFSET,
		 .linetable = 120,
		 .firstlineno = 40,
		 .ascii_size = 48,
		 .compact_size = 72,
		 .bytes_data = 32},
    },
    {
	.version = 0x030a,
	.layout = PY_LAYOUT_FRAMEOBJ,
	.lines = PY_LINES_310,
	.bpf = {.interp_head = 32,
		.threads_head = 8,
		.tstate_next = 8,
		.tstate_id = 176,
		.tstate_frame = 24,
		.cframe_frame = PY_NO_OFFSET,
		.frame_back = 24,
		.frame_code = 32,
		.frame_instr = 96,
		.frame_owner = PY_NO_OFFSET,
		.frame_entry = PY_NO_OFFSET,
		.code_first = PY_NO_OFFSET,
		.code_lineno = 40},
	.code = {.filename = 104,
		 .name = 112,
		 .qualname = PY_NO_OFFSET,
		 .linetable = 120,
		 .firstlineno = 40,
		 .ascii_size = 48,
		 .compact_size = 72,
		 .bytes_data = 32},
    },
    {
	.version = 0x030b,
	.layout = PY_LAYOUT_IFRAME_ENTRY,
	.lines = PY_LINES_LOCATIONS,
	.bpf = {.interp_head = 40,
		.threads_head = 16,
		.tstate_next = 8,
		.tstate_id = 160,
		.tstate_frame = 56,
		.cframe_frame = 8,
		.frame_back = 48,
		.frame_code = 32,
		.frame_instr = 56,
		.frame_owner = 69,
		.frame_entry = 68,
		.code_first = 184,
		.code_lineno = 72},
	.code = {.filename = 112,
		 .name = 120,
		 .qualname = 128,
		 .linetable = 136,
		 .firstlineno = 72,
		 .ascii_size = 48,
		 .compact_size = 72,
		 .bytes_data = 32},
    },
    {
	.version = 0x030c,
	.layout = PY_LAYOUT_IFRAME_SHIM,
	.lines = PY_LINES_LOCATIONS,
	.bpf = {.interp_head = 40,
		.threads_head = 72,
		.tstate_next = 8,
		.tstate_id = 144,
		.tstate_frame = 56,
		.cframe_frame = 0,
		.frame_back = 8,
		.frame_code = 0,
		.frame_instr = 56,
		.frame_owner = 70,
		.frame_entry = PY_NO_OFFSET,
		.code_first = 192,
		.code_lineno = 68},
	.code = {.filename = 112,
		 .name = 120,
		 .qualname = 128,
		 .linetable = 136,
		 .firstlineno = 68,
		 .ascii_size = 40,
		 .compact_size = 56,
		 .bytes_data = 32},
    },
};

const struct py_version_info *py_offsets__table(uint16_t version)
{
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (tables[i].version == version)
			return &tables[i];
	return NULL;
}

/* _Py_DebugOffsets of 3.13 as 8-byte words: the cookie, the version, the free-threaded
 * flag, then one group per structure, each opening with that structure's size. These
 * are the indices of the words ebprof uses (Include/internal/pycore_runtime.h). */
enum {
	DBG_VERSION = 1,
	DBG_FREE_THREADED = 2,
	DBG_INTERPRETERS_HEAD = 5,
	DBG_THREADS_HEAD = 9,
	DBG_TSTATE_NEXT = 21,
	DBG_TSTATE_CURRENT_FRAME = 23,
	DBG_TSTATE_NATIVE_THREAD_ID = 25,
	DBG_FRAME_PREVIOUS = 29,
	DBG_FRAME_EXECUTABLE = 30,
	DBG_FRAME_INSTR_PTR = 31,
	DBG_FRAME_OWNER = 33,
	DBG_CODE_FILENAME = 35,
	DBG_CODE_NAME = 36,
	DBG_CODE_QUALNAME = 37,
	DBG_CODE_LINETABLE = 38,
	DBG_CODE_FIRSTLINENO = 39,
	DBG_CODE_ADAPTIVE = 43,
	DBG_BYTES_SVAL = 66,
	DBG_UNICODE_ASCII_SIZE = 70,
	DBG_WORDS = PY_DEBUG_OFFSETS_313_SIZE / 8,
};

static uint16_t word16(const uint64_t *w, int i, int *bad)
{
	if (w[i] >= PY_NO_OFFSET)
		*bad = 1;
	return (uint16_t)w[i];
}

int py_offsets__from_debug(const void *buf, size_t len, struct py_version_info *out)
{
	uint64_t w[DBG_WORDS];
	int bad = 0;

	if (len < sizeof(w) || memcmp(buf, "xdebugpy", 8))
		return -EINVAL;
	memcpy(w, buf, sizeof(w));
	/* PY_VERSION_HEX: 0x030d00f0 for 3.13.0; the layout above is 3.13's. */
	if ((w[DBG_VERSION] >> 16) != 0x030d || w[DBG_FREE_THREADED])
		return -EINVAL;
	*out = (struct py_version_info){
	    .version = 0x030d,
	    .layout = PY_LAYOUT_IFRAME_SHIM,
	    .lines = PY_LINES_LOCATIONS,
	    .bpf = {.interp_head = word16(w, DBG_INTERPRETERS_HEAD, &bad),
		    .threads_head = word16(w, DBG_THREADS_HEAD, &bad),
		    .tstate_next = word16(w, DBG_TSTATE_NEXT, &bad),
		    .tstate_id = word16(w, DBG_TSTATE_NATIVE_THREAD_ID, &bad),
		    .tstate_frame = word16(w, DBG_TSTATE_CURRENT_FRAME, &bad),
		    .cframe_frame = PY_NO_OFFSET,
		    .frame_back = word16(w, DBG_FRAME_PREVIOUS, &bad),
		    .frame_code = word16(w, DBG_FRAME_EXECUTABLE, &bad),
		    .frame_instr = word16(w, DBG_FRAME_INSTR_PTR, &bad),
		    .frame_owner = word16(w, DBG_FRAME_OWNER, &bad),
		    .frame_entry = PY_NO_OFFSET,
		    .code_first = word16(w, DBG_CODE_ADAPTIVE, &bad),
		    .code_lineno = word16(w, DBG_CODE_FIRSTLINENO, &bad)},
	    .code = {.filename = word16(w, DBG_CODE_FILENAME, &bad),
		     .name = word16(w, DBG_CODE_NAME, &bad),
		     .qualname = word16(w, DBG_CODE_QUALNAME, &bad),
		     .linetable = word16(w, DBG_CODE_LINETABLE, &bad),
		     .firstlineno = word16(w, DBG_CODE_FIRSTLINENO, &bad),
		     .ascii_size = word16(w, DBG_UNICODE_ASCII_SIZE, &bad),
		     /* PyCompactUnicodeObject adds utf8_length and utf8 since 3.12. */
		     .compact_size = word16(w, DBG_UNICODE_ASCII_SIZE, &bad) + 16,
		     .bytes_data = word16(w, DBG_BYTES_SVAL, &bad)},
	};
	if (bad)
		return -EINVAL;
	if (out->bpf.frame_back + 8 > PY_FRAME_READ || out->bpf.frame_code + 8 > PY_FRAME_READ ||
	    out->bpf.frame_instr + 8 > PY_FRAME_READ || out->bpf.frame_owner >= PY_FRAME_READ)
		return -ERANGE;
	return 0;
}

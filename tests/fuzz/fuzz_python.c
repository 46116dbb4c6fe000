// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for everything the Python symbolizer decodes out of a traced
 * process, whose memory it cannot trust: line tables (all three formats), str headers
 * and text, and 3.13's _Py_DebugOffsets. The first byte picks the decoder; each copies
 * its input to a buffer of exactly its size, so ASan sees any read past it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "interp/python/python_lines.h"
#include "interp/python/python_offsets.h"
#include "interp/python/python_proc.h"

/* [format][first line: 4][instruction index: 4][table...] */
static void line_table(const uint8_t *data, size_t size)
{
	int32_t first;
	uint32_t lasti;
	uint8_t *t;

	if (size < 9)
		return;
	memcpy(&first, data + 1, 4);
	memcpy(&lasti, data + 5, 4);
	t = fuzz_copy(data + 9, size - 9);
	if (!t)
		return;
	py_line_of((enum py_line_format)(PY_LINES_LNOTAB + data[0] % 3), t, size - 9, first, lasti);
	free(t);
}

/* [str header: PY_STR_HEAD][text...]: the text is decoded only if the header asks for no
 * more than there is, as a read of the process would fail otherwise. */
static void str_object(const uint8_t *data, size_t size)
{
	const struct py_code_offsets o = {.ascii_size = 40, .compact_size = 56};
	char out[PY_TEXT_MAX * 4 + 1];
	unsigned int kind;
	uint64_t off;
	size_t len;
	uint8_t *text;
	int n;

	if (size < PY_STR_HEAD || py_str_layout(data, &o, PY_TEXT_MAX, &off, &kind, &len))
		return;
	if (kind != 1 && kind != 2 && kind != 4)
		abort();
	if (len > PY_TEXT_MAX || len * kind > sizeof(out)) /* what the symbolizer's buffer holds */
		abort();
	if (len * kind > size - PY_STR_HEAD)
		return;
	text = fuzz_copy(data + PY_STR_HEAD, len * kind);
	if (!text)
		return;
	n = py_text_utf8(text, len, kind, out, sizeof(out));
	/* U+0000 is a character like any other: the text may hold NULs before out[n]. */
	if (n >= (int)sizeof(out) || (n >= 0 && out[n] != '\0'))
		abort();
	free(text);
}

static void debug_offsets(const uint8_t *data, size_t size)
{
	struct py_version_info info;
	uint8_t *p = fuzz_copy(data, size);

	if (!p)
		return;
	if (py_offsets__from_debug(p, size, &info) == 0 &&
	    (info.bpf.frame_back + 8 > PY_FRAME_READ || info.bpf.frame_code + 8 > PY_FRAME_READ ||
	     info.bpf.frame_instr + 8 > PY_FRAME_READ || info.bpf.frame_owner >= PY_FRAME_READ))
		abort();
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		line_table(data + 1, size - 1);
		break;
	case 1:
		str_object(data + 1, size - 1);
		break;
	default:
		debug_offsets(data + 1, size - 1);
		break;
	}
	return 0;
}

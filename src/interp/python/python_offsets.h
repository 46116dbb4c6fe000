/* SPDX-License-Identifier: Apache-2.0 */
/* Where CPython keeps what the Python unwinder reads, per minor version: the offsets the
 * BPF side follows (struct py_offsets) and those userspace needs to name a code object.
 * 3.13+ publish them in _PyRuntime (_Py_DebugOffsets); older versions use tables. */
#ifndef EBPROF_PYTHON_OFFSETS_H
#define EBPROF_PYTHON_OFFSETS_H

#include <stddef.h>
#include <stdint.h>

#include "interp/python/python_proc.h"

/* Code and string objects, for symbolization in userspace. */
struct py_code_offsets {
	uint16_t filename;
	uint16_t name;
	uint16_t qualname;     /* PY_NO_OFFSET before 3.11: co_name stands in */
	uint16_t linetable;    /* co_lnotab (3.9) or co_linetable */
	uint16_t firstlineno;  /* int */
	uint16_t ascii_size;   /* sizeof(PyASCIIObject): where ASCII text starts */
	uint16_t compact_size; /* sizeof(PyCompactUnicodeObject): other compact text */
	uint16_t bytes_data;   /* PyBytesObject.ob_sval; its size is the PyVarObject's */
};

/* How the line table of a version is encoded (python_lines.h). */
enum py_line_format {
	PY_LINES_LNOTAB = 1, /* 3.9 */
	PY_LINES_310,	     /* 3.10 */
	PY_LINES_LOCATIONS,  /* 3.11+ */
};

struct py_version_info {
	uint16_t version; /* 0x030b for 3.11 */
	enum py_layout layout;
	enum py_line_format lines;
	struct py_offsets bpf;
	struct py_code_offsets code;
};

/* Returns the table of a version without _Py_DebugOffsets (3.9 to 3.12), or NULL. */
const struct py_version_info *py_offsets__table(uint16_t version);

/* Size of the _Py_DebugOffsets prefix of _PyRuntime that 3.13 publishes. */
#define PY_DEBUG_OFFSETS_313_SIZE 584

/* Fills out from the _Py_DebugOffsets bytes read at _PyRuntime. Returns 0, or -EINVAL
 * when the cookie or version does not match 3.13 or the build is free-threaded (another
 * frame layout), or -ERANGE when a frame offset lies past what BPF reads. */
int py_offsets__from_debug(const void *buf, size_t len, struct py_version_info *out);

#endif

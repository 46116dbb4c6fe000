/* SPDX-License-Identifier: Apache-2.0 */
/* Pure decoders for what the Python symbolizer reads out of a process: the line table
 * of a code object (three encodings across 3.9 to 3.13) and the text of a str object.
 * No I/O, so unit tests feed them the bytes CPython itself produced. */
#ifndef EBPROF_PYTHON_LINES_H
#define EBPROF_PYTHON_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "interp/python_offsets.h"

/* Returns the source line of the instruction at index lasti (code units, two bytes
 * each) of a code object whose first line is first, from its line table t[0..n) in
 * format fmt; -1 when the instruction has no line (or lasti lies past the table). */
int py_line_of(enum py_line_format fmt, const uint8_t *t, size_t n, int first, uint32_t lasti);

/* Decodes the text of a compact str object: len characters of kind bytes each (1, 2
 * or 4: Latin-1, UCS-2, UCS-4) from data into UTF-8 in out (size cap, always
 * NUL-terminated, cut at a character boundary when it does not fit). Returns the bytes
 * written, not counting the NUL, or -1 for an invalid kind or code point. */
int py_text_utf8(const void *data, size_t len, unsigned int kind, char *out, size_t cap);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* Pure decoders for what the Python symbolizer reads out of a process: the line table
 * of a code object (three encodings across 3.9 to 3.13), the header and the text of a
 * str object.
 * No I/O, so unit tests feed them the bytes CPython itself produced. */
#ifndef EBPROF_PYTHON_LINES_H
#define EBPROF_PYTHON_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "interp/python/python_offsets.h"

/* Returns the source line of the instruction at index lasti (code units, two bytes
 * each) of a code object whose first line is first, from its line table t[0..n) in
 * format fmt; -1 when the instruction has no line, lasti lies past the table, or the
 * line the table arrives at is not a line number (negative or past INT_MAX). */
int py_line_of(enum py_line_format fmt, const uint8_t *t, size_t n, int first, uint32_t lasti);

/* Characters of a code object's name or file the symbolizer keeps; its buffers hold
 * PY_TEXT_MAX * 4 bytes of text (UCS-4). */
#define PY_TEXT_MAX 512

/* The first PY_STR_HEAD bytes of a str object: enough for its length and state. */
#define PY_STR_HEAD 48

/* Where the text of the str object whose header is head lies and how long it is: sets
 * *off (from the object's start), *kind (bytes per character) and *len (characters,
 * at most max). The header is the traced process's memory, so nothing in it is
 * trusted: returns -1 unless it describes a compact str of kind 1, 2 or 4. */
int py_str_layout(const uint8_t head[PY_STR_HEAD], const struct py_code_offsets *o, size_t max,
		  uint64_t *off, unsigned int *kind, size_t *len);

/* Decodes the text of a compact str object: len characters of kind bytes each (1, 2
 * or 4: Latin-1, UCS-2, UCS-4) from data into UTF-8 in out (size cap, always
 * NUL-terminated, cut at a character boundary when it does not fit). Returns the bytes
 * written, not counting the NUL, or -1 for an invalid kind or code point. */
int py_text_utf8(const void *data, size_t len, unsigned int kind, char *out, size_t cap);

#endif

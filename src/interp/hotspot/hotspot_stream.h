/* SPDX-License-Identifier: Apache-2.0 */
/* Decoders of HotSpot's compressed debug streams, read out of a JVM (untrusted bytes):
 * the line-number table after a method's bytecodes, PcDesc tables and the scope records
 * of compiled code that say which (inlined) methods and bytecodes a pc stands for. */
#ifndef EBPROF_HOTSPOT_STREAM_H
#define EBPROF_HOTSPOT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How ints are packed. Both use bytes of 6 payload bits that continue the number when
 * they are at or above a threshold, at most 5 bytes; from JDK 21 on ("UNSIGNED5") every
 * byte is one more than before, so that no encoded byte is zero. */
enum hs_ints { HS_INTS_PLAIN, HS_INTS_EXCESS1 };

struct hs_stream {
	const uint8_t *p;
	size_t n, pos;
	enum hs_ints ints;
	bool bad; /* read past the end, or a byte the encoding cannot hold */
};

uint32_t hs_stream__u32(struct hs_stream *s);
int32_t hs_stream__s32(struct hs_stream *s); /* zigzag: (v >> 1) ^ -(v & 1) */

/* The source line of bytecode index bci from a compressed line-number table: the line of
 * the entry at bci, else of the closest entry before it; -1 when there is none. */
int hs_line_of(const uint8_t *t, size_t n, enum hs_ints ints, int bci);

/* One scope record: the method (an index into the nmethod's metadata, 1-based, 0 = none),
 * the bytecode index, and where the caller's record is (0 = outermost). */
struct hs_scope {
	uint32_t sender;
	uint32_t method_index;
	int32_t bci;
};

/* Decodes the scope record at offset off of a scopes-data section. Returns 0, or
 * -EINVAL when it does not fit or the offset is out of bounds. */
int hs_scope_at(const uint8_t *data, size_t n, uint32_t off, enum hs_ints ints,
		struct hs_scope *out);

/* PcDesc tables: entries of stride bytes with an int pc offset and an int scope offset
 * at the given member offsets, sorted by pc offset. Returns the scope offset of the first
 * entry whose pc offset is >= pc_off (the debug point a pc belongs to) or, when that one
 * has no scope (the end sentinel) or there is none, of the closest one before with a
 * scope; -1 when none has. */
int64_t hs_pcdesc_scope(const uint8_t *t, size_t n, uint32_t stride, uint32_t pc_member,
			uint32_t scope_member, int32_t pc_off);

#endif

// SPDX-License-Identifier: Apache-2.0
/* HotSpot's compressed debug streams (see hotspot_stream.h). Each decoder stops at the
 * end of its buffer and flags it: a stream from another process may end anywhere. */
#include <errno.h>
#include <string.h>

#include "interp/hotspot/hotspot_stream.h"

#define LG_H 6		    /* payload bits of a continued byte */
#define MAX_BYTES 5	    /* an int takes at most five bytes */
#define SERIALIZED_NULL 0   /* a scope offset that means "no scope" */
#define INVOCATION_BCI (-1) /* a scope's bci is stored minus this */

static int next_byte(struct hs_stream *s)
{
	if (s->pos >= s->n) {
		s->bad = true;
		return -1;
	}
	return s->p[s->pos++];
}

/* Bytes below L end a number; the excess encoding shifts every byte up by one and
 * never writes zero. */
uint32_t hs_stream__u32(struct hs_stream *s)
{
	unsigned int x = s->ints == HS_INTS_EXCESS1 ? 1 : 0, l = 256 - 64 - x;
	uint32_t sum = 0;

	for (int i = 0; i < MAX_BYTES; i++) {
		int b = next_byte(s);

		if (b < 0 || (unsigned int)b < x) {
			s->bad = true;
			return 0;
		}
		sum += (uint32_t)(b - x) << (LG_H * i);
		if ((unsigned int)b - x < l)
			return sum;
	}
	return sum; /* the fifth byte ends it whatever it is */
}

int32_t hs_stream__s32(struct hs_stream *s)
{
	uint32_t v = hs_stream__u32(s);

	return (int32_t)((v >> 1) ^ (0u - (v & 1)));
}

/* One (bci, line) step: a byte packing both deltas (bci << 3 | line), 0xff followed by
 * two signed ints, or 0 at the end. False at the end or on a bad stream. */
static bool line_pair(struct hs_stream *s, int64_t *bci, int64_t *line)
{
	int b = next_byte(s);

	if (b <= 0)
		return false;
	if (b == 0xff) {
		*bci += hs_stream__s32(s);
		*line += hs_stream__s32(s);
	} else {
		*bci += b >> 3;
		*line += b & 7;
	}
	return !s->bad;
}

int hs_line_of(const uint8_t *t, size_t n, enum hs_ints ints, int bci)
{
	struct hs_stream s = {.p = t, .n = n, .ints = ints};
	int64_t at = 0, line = 0, best_bci = 0;
	int best = -1;

	if (bci < 0)
		bci = 0; /* a method's synchronization entry has bci -1 */
	/* int64 sums: a hostile table's deltas cannot overflow within n / 2 steps. */
	while (line_pair(&s, &at, &line)) {
		if (line < 0 || line > INT32_MAX)
			continue;
		if (at == bci)
			return (int)line;
		if (at < bci && at >= best_bci) {
			best_bci = at;
			best = (int)line;
		}
	}
	return best;
}

int hs_scope_at(const uint8_t *data, size_t n, uint32_t off, enum hs_ints ints,
		struct hs_scope *out)
{
	struct hs_stream s = {.p = data, .n = n, .pos = off, .ints = ints};

	if (off == SERIALIZED_NULL || off >= n)
		return -EINVAL;
	out->sender = hs_stream__u32(&s);
	out->method_index = hs_stream__u32(&s);
	out->bci = (int32_t)(hs_stream__u32(&s) + (uint32_t)INVOCATION_BCI);
	return s.bad ? -EINVAL : 0;
}

int64_t hs_pcdesc_scope(const uint8_t *t, size_t n, uint32_t stride, uint32_t pc_member,
			uint32_t scope_member, int32_t pc_off)
{
	size_t lo = 0, hi, count, at;
	int32_t v;

	if (!stride || pc_member + 4 > stride || scope_member + 4 > stride)
		return -1;
	count = hi = n / stride;
	/* Binary search for the first entry at or past pc_off. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&v, t + mid * stride + pc_member, 4);
		if (v < pc_off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Past the last debug point (the table ends in a sentinel whose pc offset is past
	 * all code and whose scope is none), or at one without a scope: the closest one
	 * before it that has a scope is the best account of where the pc is. */
	if (!count)
		return -1;
	at = lo < count ? lo : count - 1;
	for (int i = 0; i < 8; i++, at--) {
		memcpy(&v, t + at * stride + scope_member, 4);
		if (v > 0)
			return v;
		if (!at)
			break;
	}
	return -1;
}

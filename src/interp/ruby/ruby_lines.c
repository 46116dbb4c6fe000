// SPDX-License-Identifier: Apache-2.0
/* Line lookups over an iseq's insns_info (ruby_lines.h). The succinct table's format is
 * iseq.c's (the same in 2.7, 3.1 and 3.3): imm_part[6], each word 9 ranks of 7 bits (the
 * rank of positions 0..53, 9 a word), then for each further 512 positions a block of
 * {uint32 rank, pad, uint64 small_block_ranks (7 ranks of 9 bits, for 64-bit words 1..7),
 * uint64 bits[8]}. A rank counts the entries that start at or before a position. */
#include <string.h>

#include "interp/ruby/ruby_lines.h"

static uint64_t word_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

size_t rb_succ__size(uint32_t iseq_size)
{
	size_t blocks;

	if (iseq_size < RB_SUCC_IMM_SIZE)
		return (size_t)(iseq_size + 8) / 9 * 8;
	blocks = ((size_t)iseq_size - RB_SUCC_IMM_SIZE + 511) / 512;
	return RB_SUCC_IMM_WORDS * 8 + blocks * RB_SUCC_BLOCK_SIZE;
}

int rb_succ__rank(const uint8_t *table, size_t len, uint32_t iseq_size, uint32_t pos)
{
	const uint8_t *block;
	uint32_t bit, small, rank;
	uint64_t bits;
	size_t at;

	if (pos >= iseq_size || rb_succ__size(iseq_size) > len)
		return -1;
	if (pos < RB_SUCC_IMM_SIZE)
		return (int)((word_at(table + (pos / 9) * 8) >> ((pos % 9) * 7)) & 0x7f);
	at = RB_SUCC_IMM_WORDS * 8 + (size_t)((pos - RB_SUCC_IMM_SIZE) / 512) * RB_SUCC_BLOCK_SIZE;
	block = table + at;
	bit = (pos - RB_SUCC_IMM_SIZE) % 512;
	small = bit / 64;
	bits = word_at(block + 16 + small * 8) << (63 - bit % 64);
	memcpy(&rank, block, sizeof(rank));
	if (small)
		rank += (uint32_t)(word_at(block + 8) >> ((small - 1) * 9)) & 0x1ff;
	return (int)(rank + (uint32_t)__builtin_popcountll(bits));
}

/* The last of positions[0, n) at or before pos, as a rank (1-based); 0 when none. */
static int positions_rank(const uint32_t *positions, uint32_t n, uint32_t pos)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (positions[mid] <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int)lo;
}

int rb_line_at(const int32_t *lines, uint32_t n, const uint8_t *succ, size_t succ_len,
	       const uint32_t *positions, uint32_t iseq_size, uint32_t pos)
{
	int rank;

	if (!n)
		return 0;
	if (n == 1)
		return lines[0];
	if (positions)
		rank = positions_rank(positions, n, pos);
	else
		rank = rb_succ__rank(succ, succ_len, iseq_size, pos);
	if (rank < 1 || (uint32_t)rank > n)
		return 0;
	return lines[rank - 1];
}

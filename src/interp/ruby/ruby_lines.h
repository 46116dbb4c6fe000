/* SPDX-License-Identifier: Apache-2.0 */
/* An iseq's line table, as CRuby keeps it once compiled: one line number per entry of
 * insns_info, and where each entry starts (an instruction position) either as an array
 * of positions or, as every compiled iseq has it, as iseq.c's "succinct bit-vector"
 * (struct succ_index_table: a rank table of the first 54 positions, then blocks of 512
 * bits with their ranks). Read once per iseq from the process; decoded here per lookup.
 * The bytes are the traced process's: every index is bounded. */
#ifndef EBPROF_RUBY_LINES_H
#define EBPROF_RUBY_LINES_H

#include <stddef.h>
#include <stdint.h>

#define RB_SUCC_IMM_SIZE 54   /* IMMEDIATE_TABLE_SIZE: positions ranked directly */
#define RB_SUCC_IMM_WORDS 6   /* imm_part: 9 ranks of 7 bits a word */
#define RB_SUCC_BLOCK_SIZE 80 /* struct succ_dict_block: rank, small ranks, 8 words */

/* The bytes of the succ_index_table of an iseq of iseq_size instructions words. */
size_t rb_succ__size(uint32_t iseq_size);

/* How many entries start at or before instruction position pos (succ_index_lookup),
 * from table (len bytes) of an iseq of iseq_size words. -1 when pos or the table is out
 * of bounds. */
int rb_succ__rank(const uint8_t *table, size_t len, uint32_t iseq_size, uint32_t pos);

/* The line of the instruction at position pos (pc's word index, minus one as Ruby's own
 * backtraces count it), given the table's rank function or the positions array:
 * lines[n] are the entries' lines. Exactly one of succ (succ_len bytes) and positions
 * (n entries) is set. 0 when none fits. */
int rb_line_at(const int32_t *lines, uint32_t n, const uint8_t *succ, size_t succ_len,
	       const uint32_t *positions, uint32_t iseq_size, uint32_t pos);

#endif

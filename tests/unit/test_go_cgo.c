// SPDX-License-Identifier: Apache-2.0
/* The Go walker's step across a cgo call (src/interp/go/go_cgo_step.h), compiled as host
 * C: user memory is two simulated stacks, g0's and a goroutine's, laid out as asmcgocall
 * leaves them, and the g structures the step reads. Then how userspace reads asmcgocall's
 * code for the step's offsets (interp/go/go_cgo.c). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "interp/go/go_cgo.h"

/* g0's stack, a goroutine's stack below it (as Go's heap lies below the thread stacks),
 * and two g structures. */
#define G0_BASE 0x7ffd00000000ULL
#define GS_BASE 0xc000040000ULL
#define GS_SIZE 0x2000ULL
#define G_BASE 0xc000006000ULL

static uint8_t g0_mem[4096], gs_mem[GS_SIZE], g_mem[0x400];

static uint8_t *mem_at(uint64_t addr, uint32_t size)
{
	if (addr >= G0_BASE && addr + size <= G0_BASE + sizeof(g0_mem))
		return g0_mem + (addr - G0_BASE);
	if (addr >= GS_BASE && addr + size <= GS_BASE + sizeof(gs_mem))
		return gs_mem + (addr - GS_BASE);
	if (addr >= G_BASE && addr + size <= G_BASE + sizeof(g_mem))
		return g_mem + (addr - G_BASE);
	return NULL;
}

static int sim_read(void *dst, uint32_t size, uint64_t addr)
{
	uint8_t *p = mem_at(addr, size);

	if (!p)
		return -1;
	memcpy(dst, p, size);
	return 0;
}

#define GO_READ_USER(dst, size, addr) sim_read(dst, size, addr)
#include "interp/go/go_cgo_step.h"

static void put(uint64_t addr, uint64_t v)
{
	uint8_t *p = mem_at(addr, 8);

	if (p)
		memcpy(p, &v, 8);
}

/* g at G_BASE runs on [GS_BASE, GS_BASE + GS_SIZE); another g at G_BASE + 0x200 on g0. */
static void reset(void)
{
	memset(g0_mem, 0, sizeof(g0_mem));
	memset(gs_mem, 0, sizeof(gs_mem));
	memset(g_mem, 0, sizeof(g_mem));
	put(G_BASE + GO_G_STACK_LO, GS_BASE);
	put(G_BASE + GO_G_STACK_HI, GS_BASE + GS_SIZE);
	put(G_BASE + 0x200 + GO_G_STACK_LO, G0_BASE);
	put(G_BASE + 0x200 + GO_G_STACK_HI, G0_BASE + sizeof(g0_mem));
}

/* 1.22+: g at 8(SP), depth at 0(SP); with the frame pointer its prologue saves (1.21+). */
static const struct go_proc proc_122 = {.cgo_g = 8, .cgo_depth = 0, .cgo_frame = 8, .ss_frame = 8};
/* 1.19: g at 48(SP), depth at 40(SP), no frame. */
static const struct go_proc proc_119 = {.cgo_g = 48, .cgo_depth = 40, .cgo_frame = 0};

static void test_switched(void)
{
	uint64_t orig = GS_BASE + 0x1e00, sp = G0_BASE + 0xf00;
	struct unw_regs r = {.pc = 0x46d544, .sp = sp, .fp = 0x1234};

	reset();
	/* The goroutine's stack at asmcgocall's SP: the caller's BP, then the return address. */
	put(orig, GS_BASE + 0x1e40);
	put(orig + 8, 0x4623b5);
	put(sp + 8, G_BASE);
	put(sp, GS_BASE + GS_SIZE - orig);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_NEXT);
	CHECK(r.pc == 0x4623b5 && r.sp == orig + 16 && r.fp == GS_BASE + 0x1e40 && !r.pc_exact);

	/* 1.19: no saved BP, the return address at the SP; BP is the goroutine's already. */
	reset();
	put(orig, 0x45c0aa);
	put(sp + 48, G_BASE);
	put(sp + 40, GS_BASE + GS_SIZE - orig);
	r = (struct unw_regs){.pc = 0x45eb30, .sp = sp, .fp = GS_BASE + 0x1e40};
	CHECK(go_cgo_step(&proc_119, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_NEXT);
	CHECK(r.pc == 0x45c0aa && r.sp == orig + 8 && r.fp == GS_BASE + 0x1e40);

	/* The thread's current goroutine unknown (or another): the saved words decide. */
	r = (struct unw_regs){.pc = 0x45eb30, .sp = sp};
	CHECK(go_cgo_step(&proc_119, 0, &r, GO_SWITCH_CGO) == GO_CGO_NEXT && r.pc == 0x45c0aa);
}

static void test_not_switched(void)
{
	uint64_t sp = GS_BASE + 0x1e00;
	struct unw_regs r = {.pc = 0x46d51a, .sp = sp, .fp = 0x1234};

	/* A return address from a call made before the switch: the goroutine's stack is the
	 * current goroutine's, asmcgocall's frame is there. */
	reset();
	put(sp, GS_BASE + 0x1e40);
	put(sp + 8, 0x4623b5);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_NEXT);
	CHECK(r.pc == 0x4623b5 && r.sp == sp + 16 && r.fp == GS_BASE + 0x1e40);
}

static void test_on_g0_already(void)
{
	uint64_t sp = G0_BASE + 0xf00, orig = sp + 0x18;
	struct unw_regs r = {.pc = 0x46d58a, .sp = sp};

	/* Called on g0: 0 for the g, the SP itself a few bytes above. */
	reset();
	put(sp + 8, 0);
	put(sp, orig);
	put(orig, G0_BASE + 0xf80);
	put(orig + 8, 0x401234);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_NEXT);
	CHECK(r.pc == 0x401234 && r.sp == orig + 16 && r.fp == G0_BASE + 0xf80);

	/* An SP far above (or below) is not one asmcgocall wrote. */
	put(sp, sp + 4096);
	r = (struct unw_regs){.pc = 0x46d58a, .sp = sp};
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_BAD);
	put(sp, sp - 16);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_BAD);
}

static void test_rejects(void)
{
	uint64_t sp = G0_BASE + 0xf00;
	struct unw_regs r = {.pc = 0x46d544, .sp = sp, .pc_exact = 1};

	reset();
	/* Sampled inside asmcgocall: the words may be half written. */
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_LEAF);
	r.pc_exact = 0;
	/* The saved g's stack holds sp itself: not the g asmcgocall left. */
	put(sp + 8, G_BASE + 0x200);
	put(sp, 0x100);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_BAD);
	/* A depth past the stack, a zero one, a misaligned one. */
	put(sp + 8, G_BASE);
	put(sp, GS_SIZE + 8);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_BAD);
	put(sp, 0);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_BAD);
	put(sp, 0x101);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_BAD);
	/* A g whose stack cannot be read, a stack that cannot be. */
	put(sp + 8, 0xdead0000);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_CGO) == GO_CGO_FAULT);
	r.sp = 0x1000;
	CHECK(go_cgo_step(&proc_122, 0, &r, GO_SWITCH_CGO) == GO_CGO_FAULT);
	/* An upside-down or huge stack. */
	r.sp = sp;
	put(sp + 8, G_BASE);
	put(sp, 0x100);
	put(G_BASE + GO_G_STACK_HI, GS_BASE - 8);
	CHECK(go_cgo_step(&proc_122, 0, &r, GO_SWITCH_CGO) == GO_CGO_BAD);
	put(G_BASE + GO_G_STACK_HI, GS_BASE + GO_STACK_MAX + 8);
	CHECK(go_cgo_step(&proc_122, 0, &r, GO_SWITCH_CGO) == GO_CGO_BAD);
}

static void test_systemstack(void)
{
	uint64_t orig = GS_BASE + 0x1d00, sp = G0_BASE + 0xe00;
	struct unw_regs r = {.pc = 0x46b910, .sp = sp, .fp = G0_BASE + 0xe40};

	/* On g0: curg.sched.sp is systemstack's SP on the goroutine's stack. */
	reset();
	put(G_BASE + GO_G_SCHED_SP, orig);
	put(orig, GS_BASE + 0x1d40);
	put(orig + 8, 0x40a0b1);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_SYSTEMSTACK) == GO_CGO_NEXT);
	CHECK(r.pc == 0x40a0b1 && r.sp == orig + 16 && r.fp == GS_BASE + 0x1d40);
	/* Not switched yet: its frame is at SP. */
	r = (struct unw_regs){.pc = 0x46b8f0, .sp = orig};
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_SYSTEMSTACK) == GO_CGO_NEXT &&
	      r.pc == 0x40a0b1);
	/* Switched back (sched.sp is 0 again), outside curg's stack, misaligned; no curg. */
	r = (struct unw_regs){.pc = 0x46b910, .sp = sp};
	put(G_BASE + GO_G_SCHED_SP, 0);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_SYSTEMSTACK) == GO_CGO_BAD);
	put(G_BASE + GO_G_SCHED_SP, GS_BASE + GS_SIZE);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_SYSTEMSTACK) == GO_CGO_BAD);
	put(G_BASE + GO_G_SCHED_SP, orig + 4);
	CHECK(go_cgo_step(&proc_122, G_BASE, &r, GO_SWITCH_SYSTEMSTACK) == GO_CGO_BAD);
	CHECK(go_cgo_step(&proc_122, 0, &r, GO_SWITCH_SYSTEMSTACK) == GO_CGO_BAD);
}

static void test_morestack(void)
{
	struct go_proc p = proc_122;
	uint64_t sp = G0_BASE + 0xd00, fsp = GS_BASE + 0x1c00;
	struct unw_regs r = {.pc = 0x46a5a3, .sp = sp, .fp = G0_BASE + 0xd40};

	/* On g0 in newstack: the goroutine resumes at curg.sched, in the prologue of the
	 * function that called morestack. */
	reset();
	p.sched_bp = 104;
	put(G_BASE + GO_G_SCHED_SP, fsp);
	put(G_BASE + GO_G_SCHED_PC, 0x4a1234);
	put(G_BASE + 104, GS_BASE + 0x1c80);
	CHECK(go_cgo_step(&p, G_BASE, &r, GO_SWITCH_MORESTACK) == GO_CGO_NEXT);
	CHECK(r.pc == 0x4a1234 && r.sp == fsp && r.fp == GS_BASE + 0x1c80 && !r.pc_exact);
	/* BP's place unknown: left as unwound. */
	p.sched_bp = 0;
	r = (struct unw_regs){.pc = 0x46a5a3, .sp = sp, .fp = 0x77};
	CHECK(go_cgo_step(&p, G_BASE, &r, GO_SWITCH_MORESTACK) == GO_CGO_NEXT && r.fp == 0x77);
	/* No goroutine (newstack preempted it and scheduled), sched.sp outside its stack, no
	 * pc, or SP on the goroutine's own stack (morestack only aborts from there). */
	r = (struct unw_regs){.pc = 0x46a5a3, .sp = sp};
	CHECK(go_cgo_step(&p, 0, &r, GO_SWITCH_MORESTACK) == GO_CGO_BAD);
	put(G_BASE + GO_G_SCHED_SP, G0_BASE + 0xf00);
	CHECK(go_cgo_step(&p, G_BASE, &r, GO_SWITCH_MORESTACK) == GO_CGO_BAD);
	put(G_BASE + GO_G_SCHED_SP, fsp);
	put(G_BASE + GO_G_SCHED_PC, 0);
	CHECK(go_cgo_step(&p, G_BASE, &r, GO_SWITCH_MORESTACK) == GO_CGO_BAD);
	put(G_BASE + GO_G_SCHED_PC, 0x4a1234);
	r.sp = GS_BASE + 0x100;
	CHECK(go_cgo_step(&p, G_BASE, &r, GO_SWITCH_MORESTACK) == GO_CGO_BAD);
}

static void test_sched_bp_from_code(void)
{
	/* morestack's "MOVQ BP, (g_sched+gobuf_bp)(SI)" of 1.19 and (DI) of 1.27, among the
	 * load of g0's BP ("mov 0x68(%rbx),%rbp") that must not count. */
	static const uint8_t ms_119[] = {0x90, 0x48, 0x89, 0x6e, 0x68, 0x48, 0x8b, 0x6b, 0x68};
	static const uint8_t ms_127[] = {0x48, 0x89, 0x6f, 0x60, 0xc3};
	static const uint8_t twice[] = {0x48, 0x89, 0x6f, 0x60, 0x48, 0x89, 0x6e, 0x68};
	static const uint8_t other[] = {0x48, 0x89, 0x6f, 0x58};
	struct go_cgo_switch sw = {.sched_bp = 104};

	CHECK(go_cgo__sched_bp(ms_119, sizeof(ms_119)) == 104);
	CHECK(go_cgo__sched_bp(ms_127, sizeof(ms_127)) == 96);
	CHECK(go_cgo__sched_bp(twice, sizeof(twice)) == 0);
	CHECK(go_cgo__sched_bp(other, sizeof(other)) == 0);
	CHECK(go_cgo__sched_bp(ms_127, 3) == 0);
	/* The table, checked by the code; the code alone for a release without an entry. */
	CHECK(go_cgo__sched_bp_of(23, &sw) == 104);
	CHECK(go_cgo__sched_bp_of(27, &sw) == 0);
	CHECK(go_cgo__sched_bp_of(26, &sw) == 104);
	sw.sched_bp = 0;
	CHECK(go_cgo__sched_bp_of(27, &sw) == 96);
	CHECK(go_cgo__sched_bp_of(26, &sw) == 0);
}

/* asmcgocall's stores as the Go assembler encodes them (objdump of 1.19 and 1.23 builds),
 * with filler between: the switched path's two stores of DI, then the path on g0's. */
static const uint8_t code_119[] = {
    0x90, 0x48, 0x89, 0x7c, 0x24, 0x30,			  /* mov %rdi,0x30(%rsp) */
    0x90, 0x48, 0x89, 0x7c, 0x24, 0x28,			  /* mov %rdi,0x28(%rsp) */
    0x89, 0x44, 0x24, 0x18,				  /* mov %eax,0x18(%rsp) */
    0x48, 0xc7, 0x44, 0x24, 0x30, 0x00, 0x00, 0x00, 0x00, /* movq $0,0x30(%rsp) */
    0x48, 0x89, 0x54, 0x24, 0x28,			  /* mov %rdx,0x28(%rsp) */
};
static const uint8_t code_123[] = {
    0x55, 0x48, 0x89, 0xe5,				  /* push %rbp; mov %rsp,%rbp */
    0x48, 0x89, 0x7c, 0x24, 0x08,			  /* mov %rdi,0x8(%rsp) */
    0x48, 0x89, 0x3c, 0x24,				  /* mov %rdi,(%rsp) */
    0x48, 0xc7, 0x44, 0x24, 0x08, 0x00, 0x00, 0x00, 0x00, /* movq $0,0x8(%rsp) */
    0x48, 0x89, 0x14, 0x24,				  /* mov %rdx,(%rsp) */
};

static void test_slots_from_code(void)
{
	uint8_t g = 0xff, depth = 0xff, b[sizeof(code_123)];

	CHECK(go_cgo__slots(code_119, sizeof(code_119), &g, &depth) == 0 && g == 48 && depth == 40);
	CHECK(go_cgo__slots(code_123, sizeof(code_123), &g, &depth) == 0 && g == 8 && depth == 0);
	/* Cut short, a third store of DI, a g0 path that disagrees: not what asmcgocall is. */
	CHECK(go_cgo__slots(code_123, sizeof(code_123) - 1, &g, &depth) == -ENOENT);
	memcpy(b, code_123, sizeof(b));
	b[sizeof(b) - 2] = 0x54; /* mov %rdx,disp(%rsp) with its disp cut off */
	CHECK(go_cgo__slots(b, sizeof(b), &g, &depth) == -ENOENT);
	memcpy(b, code_123, sizeof(b));
	b[17] = 0x10; /* movq $0,0x10(%rsp) */
	CHECK(go_cgo__slots(b, sizeof(b), &g, &depth) == -ENOENT);
	memcpy(b, code_123, sizeof(b));
	b[22 + 2] = 0x3c; /* mov %rdi,(%rsp) a second time */
	CHECK(go_cgo__slots(b, sizeof(b), &g, &depth) == -ENOENT);
	CHECK(go_cgo__slots(code_123, 0, &g, &depth) == -ENOENT);
}

static void test_layout(void)
{
	struct go_cgo_switch sw = {.len = 192, .g = 8, .depth = 0, .slots_from_code = true};
	uint8_t g = 0, depth = 0;

	/* A release of the table: its entry, when the code agrees or says nothing. */
	CHECK(go_cgo__layout(23, &sw, &g, &depth) == 0 && g == 8 && depth == 0);
	CHECK(go_cgo__layout(21, &sw, &g, &depth) == -ENOTSUP);
	sw.slots_from_code = false;
	CHECK(go_cgo__layout(21, &sw, &g, &depth) == 0 && g == 48 && depth == 40);
	/* Another release from 1.19: what its code says, if anything. */
	CHECK(go_cgo__layout(26, &sw, &g, &depth) == -ENOTSUP);
	sw.slots_from_code = true;
	CHECK(go_cgo__layout(26, &sw, &g, &depth) == 0 && g == 8 && depth == 0);
	CHECK(go_cgo__layout(18, &sw, &g, &depth) == -ENOTSUP);
	sw.len = 0;
	CHECK(go_cgo__layout(23, &sw, &g, &depth) == -ENOTSUP);
}

int main(void)
{
	RUN_TEST(test_switched);
	RUN_TEST(test_not_switched);
	RUN_TEST(test_on_g0_already);
	RUN_TEST(test_rejects);
	RUN_TEST(test_systemstack);
	RUN_TEST(test_morestack);
	RUN_TEST(test_slots_from_code);
	RUN_TEST(test_layout);
	RUN_TEST(test_sched_bp_from_code);
	HARNESS_EXIT();
}

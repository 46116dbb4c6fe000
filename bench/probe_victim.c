// SPDX-License-Identifier: Apache-2.0
/* Victim for the probe-cost benchmark (probe_cost.sh): calls one of four tiny functions N
 * times and prints the nanoseconds per call. The functions are written in assembly so
 * that their first instruction is known: push %rbp (the kernel emulates it), endbr64
 * then push (single-stepped at +0, emulated once the probe moves to the push), mov
 * (single-stepped), nop.
 * Usage: probe_victim push|endbr|mov|nop N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__asm__(".text\n"
	".globl f_push\n.type f_push,@function\nf_push:\n"
	"\tpush %rbp\n\tmov %rsp,%rbp\n\tpop %rbp\n\tret\n.size f_push,.-f_push\n"
	".globl f_endbr\n.type f_endbr,@function\nf_endbr:\n"
	"\tendbr64\n\tpush %rbp\n\tpop %rbp\n\tret\n.size f_endbr,.-f_endbr\n"
	".globl f_mov\n.type f_mov,@function\nf_mov:\n"
	"\tmov %rdi,%rax\n\tret\n.size f_mov,.-f_mov\n"
	".globl f_nop\n.type f_nop,@function\nf_nop:\n"
	"\tnop\n\tret\n.size f_nop,.-f_nop\n");

void f_push(void);
void f_endbr(void);
void f_mov(void);
void f_nop(void);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	void (*fn)(void) = f_push;
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000;
	double t0;

	if (argc > 1 && !strcmp(argv[1], "endbr"))
		fn = f_endbr;
	else if (argc > 1 && !strcmp(argv[1], "mov"))
		fn = f_mov;
	else if (argc > 1 && !strcmp(argv[1], "nop"))
		fn = f_nop;
	t0 = now();
	for (unsigned long i = 0; i < n; i++)
		fn();
	printf("%.1f\n", (now() - t0) / n);
	return 0;
}

// SPDX-License-Identifier: Apache-2.0
/* hotspot_walk PID SAMPLES COMM...: samples the threads of a live JVM named COMM with
 * ptrace (interrupt, read the registers, resume) until SAMPLES of them were in Java code
 * (or ten times as many rounds), unwinds each of those with the HotSpot walker's own
 * step (src/interp/hotspot/hotspot_step.h, compiled here as host C) until the pc leaves
 * the code cache, then names the frames as ebprof's ingest does
 * (src/interp/hotspot/hotspot_names.c). Prints folded stacks, root first, one per line:
 * "COMM;frame;...;frame COUNT", and a summary on stderr. tests/kernel/hotspot.sh checks
 * the walker's logic on every JDK with it, before and besides the BPF program. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

static pid_t target;

#include "jvm.h"

#define HS_READ_USER(dst, size, addr) \
	jvm_read((void *)(intptr_t)target, (uint64_t)(addr), (dst), (size))
#include "interp/hotspot/hotspot_step.h"

#include "interp/hotspot/hotspot_describe.h"
#include "interp/hotspot/hotspot_elf.h"
#include "interp/hotspot/hotspot_method.h"
#include "interp/hotspot/hotspot_names.h"
#include "proc/proc.h"
#include "util/hmap.h"

#define MAX_THREADS 64
#define MAX_STACKS 4096

struct stack {
	char *text;
	int count;
};

static struct stack stacks[MAX_STACKS];
static int nstacks;
static int steps[HS_STEP_BAD + 1], not_java, stopped_elsewhere;

static void count_stack(const char *text)
{
	for (int i = 0; i < nstacks; i++)
		if (!strcmp(stacks[i].text, text)) {
			stacks[i].count++;
			return;
		}
	if (nstacks < MAX_STACKS) {
		stacks[nstacks].text = strdup(text);
		stacks[nstacks++].count = 1;
	}
}

/* The threads of target whose name is one of names. */
static int pick_threads(char **names, int nnames, pid_t *tids, char comms[][16])
{
	char path[320], comm[32];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", target);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) && n < MAX_THREADS) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", target, d->d_name);
		f = fopen(path, "r");
		if (!f || !fgets(comm, sizeof(comm), f)) {
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
		for (int i = 0; i < nnames; i++)
			if (!strcmp(comm, names[i])) {
				tids[n] = atoi(d->d_name);
				snprintf(comms[n++], 16, "%.15s", comm);
				break;
			}
	}
	closedir(dir);
	return n;
}

/* Stops tid (seized) and returns its registers; forwards any signal that arrives first.
 * Returns 0, or -1 when the thread is gone. */
static int stop_thread(pid_t tid, struct user_regs_struct *regs)
{
	int status;

	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0))
		return -1;
	for (;;) {
		if (waitpid(tid, &status, __WALL) != tid || !WIFSTOPPED(status))
			return -1;
		if ((status >> 16) == PTRACE_EVENT_STOP)
			break;
		/* A signal for the JVM (safepoint polls, null checks): deliver it, then stop. */
		ptrace(PTRACE_CONT, tid, 0, (void *)(long)WSTOPSIG(status));
		stopped_elsewhere++;
		if (ptrace(PTRACE_INTERRUPT, tid, 0, 0))
			return -1;
	}
	struct iovec iov = {regs, sizeof(*regs)};

	return ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) ? -1 : 0;
}

/* The walk's first registers, from the thread's. */
static struct hs_regs regs_of(const struct user_regs_struct *ur)
{
#if defined(__x86_64__)
	return (struct hs_regs){
	    .pc = ur->rip, .sp = ur->rsp, .fp = ur->rbp, .pc_exact = 1, .bcp = ur->r13};
#elif defined(__aarch64__)
	return (struct hs_regs){
	    .pc = ur->pc, .sp = ur->sp, .fp = ur->regs[29], .pc_exact = 1, .bcp = ur->regs[22]};
#endif
}

/* Walks one sample; false when its pc was outside Java code (nothing walked). */
static bool walk(const struct hs_proc *p, struct hs_names *names, const char *comm,
		 const struct user_regs_struct *ur)
{
	struct hs_regs r = regs_of(ur);
	char text[16384], *frames[HS_MAX_JAVA_FRAMES * HS_INLINE_MAX];
	int nframes = 0, err = HS_STEP_LEAVE;
	static __u8 head[HS_BLOB_HEAD];
	size_t at;

	if (r.pc < p->code_low || r.pc >= p->code_high) {
		not_java++;
		return false;
	}
	for (int i = 0; i < HS_MAX_JAVA_FRAMES; i++) {
		struct hs_frame f;
		struct hs_named nf[HS_INLINE_MAX];
		int k;

		err = hs_step(p, &r, &f, head);
		if (err != HS_STEP_NEXT)
			break;
		k = hs_names__frame(names, f.addr, f.pad, nf, HS_INLINE_MAX);
		for (int j = 0; j < k && nframes < (int)(sizeof(frames) / sizeof(frames[0])); j++) {
			char one[3 * HS_NAME_MAX + 64];

			if (nf[j].file[0])
				snprintf(one, sizeof(one), "%s (%s:%d)", nf[j].func, nf[j].file,
					 nf[j].line);
			else
				snprintf(one, sizeof(one), "%s", nf[j].func);
			frames[nframes++] = strdup(one);
		}
	}
	steps[err]++;
	at = (size_t)snprintf(text, sizeof(text), "%s", comm);
	if (err != HS_STEP_LEAVE)
		at += (size_t)snprintf(text + at, sizeof(text) - at, ";[walk stopped: %d]", err);
	for (int i = nframes - 1; i >= 0; i--) {
		if (at < sizeof(text))
			at += (size_t)snprintf(text + at, sizeof(text) - at, ";%s", frames[i]);
		free(frames[i]);
	}
	count_stack(text);
	return true;
}

int main(int argc, char **argv)
{
	struct hs_mem mem = {.read = jvm_read};
	uint64_t syms[HS_SYM__COUNT], bias;
	pid_t tids[MAX_THREADS];
	char comms[MAX_THREADS][16];
	struct hs_names *names;
	struct hs_vm *vm = NULL;
	struct hs_layout l;
	struct hs_proc p;
	const char *missing;
	char path[4096];
	struct hs_elf e;
	int nt, samples, err;

	if (argc < 4) {
		fprintf(stderr, "usage: hotspot_walk PID JAVA_SAMPLES COMM...\n");
		return 2;
	}
	target = atoi(argv[1]);
	mem.ctx = (void *)(intptr_t)target;
	samples = atoi(argv[2]);
	err = jvm_find_libjvm(target, &e, &bias, path, sizeof(path));
	if (!err)
		jvm_syms(&e, bias, syms);
	if (!err)
		err = hs_vm__read(&mem, syms, &vm);
	if (!err)
		err = hs_layout__from_vm(vm, &mem, &l, &missing);
	if (!err)
		err = hs_proc__read(&mem, &l, &p);
	hs_vm__free(vm);
	if (err) {
		fprintf(stderr, "hotspot_walk: pid %d: no usable JVM: %s\n", target,
			strerror(-err));
		return 1;
	}
	names = hs_names__new(&mem, &l);
	nt = pick_threads(argv + 3, argc - 3, tids, comms);
	if (!names || nt <= 0) {
		fprintf(stderr, "hotspot_walk: no thread named so in pid %d\n", target);
		return 1;
	}
	for (int t = 0; t < nt; t++)
		if (ptrace(PTRACE_SEIZE, tids[t], 0, 0))
			tids[t] = 0;
	/* Rounds until SAMPLES walks of Java code: a JVM still starting (seconds under
	 * emulation) runs none yet; at most ten times as many rounds. */
	for (int s = 0, java = 0; java < samples && s < 10 * samples; s++) {
		for (int t = 0; t < nt; t++) {
			struct user_regs_struct regs;

			if (!tids[t] || stop_thread(tids[t], &regs)) {
				tids[t] = 0;
				continue;
			}
			java += walk(&p, names, comms[t], &regs);
			ptrace(PTRACE_CONT, tids[t], 0, 0);
		}
		nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
	}
	for (int t = 0; t < nt; t++)
		if (tids[t])
			ptrace(PTRACE_DETACH, tids[t], 0, 0);
	for (int i = 0; i < nstacks; i++)
		printf("%s %d\n", stacks[i].text, stacks[i].count);
	fprintf(stderr,
		"hotspot_walk: %s: %d samples outside Java code; walks ended: %d left the code "
		"cache, %d in no blob, %d unreadable, %d impossible caller; %d signals forwarded\n",
		l.release, not_java, steps[HS_STEP_LEAVE], steps[HS_STEP_NO_BLOB],
		steps[HS_STEP_FAULT], steps[HS_STEP_BAD], stopped_elsewhere);
	hs_names__free(names);
	return 0;
}

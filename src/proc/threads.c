// SPDX-License-Identifier: Apache-2.0
/* Threads from /proc (proc/threads.h). Every file is read bounded through safe_file and
 * parsed defensively: a thread may exit between two reads, and a name may hold any byte
 * (a ')' or a newline among them). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/threads.h"
#include "syscall_names.h" /* generated from <sys/syscall.h>: syscall_names[] */
#include "util/safe_file.h"

#define PROC_FILE_MAX (64u << 10)

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int threads__list(uint32_t pid, uint32_t **tids)
{
	char path[64];
	struct dirent *e;
	uint32_t *v = NULL;
	size_t n = 0, cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((e = readdir(d))) {
		char *end;
		unsigned long tid = strtoul(e->d_name, &end, 10);

		if (*end || !tid || tid > UINT32_MAX)
			continue;
		if (n == cap) {
			uint32_t *p = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!p) {
				closedir(d);
				free(v);
				return -ENOMEM;
			}
			v = p;
		}
		v[n++] = (uint32_t)tid;
	}
	closedir(d);
	if (!n) {
		free(v);
		return -ESRCH; /* a zombie leader's task folder can be empty */
	}
	qsort(v, n, sizeof(*v), cmp_u32);
	*tids = v;
	return (int)n;
}

/* The whole of /proc/PID/task/TID/what, NUL-terminated; -ESRCH when the thread is gone. */
static int read_task(uint32_t pid, uint32_t tid, const char *what, char **out)
{
	char path[96];
	size_t len;
	int err;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/%s", pid, tid, what);
	err = safe_file__read(path, 0, PROC_FILE_MAX, out, &len, NULL);
	return err == -ENOENT ? -ESRCH : err;
}

/* "TID (comm) S ...": the comm may hold ") ", so the state follows the last ')'. */
static int read_stat(uint32_t pid, uint32_t tid, struct thread_info *t)
{
	char *buf, *open, *close;
	int err = read_task(pid, tid, "stat", &buf);

	if (err)
		return err;
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (open && close && close > open && close[1] == ' ' && close[2])
		t->state = close[2];
	free(buf);
	return 0;
}

static void read_comm(uint32_t pid, uint32_t tid, struct thread_info *t)
{
	char *buf;
	size_t n;

	if (read_task(pid, tid, "comm", &buf))
		return;
	n = strcspn(buf, "\n");
	if (n >= sizeof(t->name))
		n = sizeof(t->name) - 1;
	memcpy(t->name, buf, n);
	t->name[n] = '\0';
	free(buf);
}

/* "running", "-1 SP PC" (blocked outside a system call) or "NR ARG0..ARG5 SP PC". */
static void read_syscall(uint32_t pid, uint32_t tid, struct thread_info *t)
{
	char *buf, *end;
	long nr;

	if (read_task(pid, tid, "syscall", &buf))
		return;
	if (!strncmp(buf, "running", 7)) {
		t->syscall = THREAD_SYSCALL_NONE;
		goto out;
	}
	errno = 0;
	nr = strtol(buf, &end, 10);
	if (errno || end == buf)
		goto out;
	t->syscall = nr < 0 ? THREAD_SYSCALL_NONE : nr;
	if (nr >= 0)
		t->arg0 = strtoull(end, NULL, 16);
out:
	free(buf);
}

/* "[<0>] pipe_read+0x31f/0x440" lines: the function's name of each. */
static void read_kstack(uint32_t pid, uint32_t tid, struct thread_info *t)
{
	char *buf, *line, *save = NULL;
	int err = read_task(pid, tid, "stack", &buf);

	if (err) {
		t->kstack_err = -err;
		return;
	}
	t->kstack = calloc(THREAD_KSTACK_MAX, sizeof(*t->kstack));
	if (!t->kstack) {
		t->kstack_err = ENOMEM;
		goto out;
	}
	for (line = strtok_r(buf, "\n", &save); line && t->nkstack < THREAD_KSTACK_MAX;
	     line = strtok_r(NULL, "\n", &save)) {
		char *name = strstr(line, "] ");

		if (!name || !name[2])
			continue;
		name += 2;
		name[strcspn(name, "+ ")] = '\0';
		t->kstack[t->nkstack] = strdup(name);
		if (!t->kstack[t->nkstack])
			break;
		t->nkstack++;
	}
out:
	free(buf);
}

int thread_info__read(uint32_t pid, uint32_t tid, struct thread_info *t)
{
	int err;

	*t = (struct thread_info){.tid = tid, .state = '?', .syscall = THREAD_SYSCALL_UNKNOWN};
	err = read_stat(pid, tid, t);
	if (err == -ESRCH)
		return err;
	read_comm(pid, tid, t);
	read_syscall(pid, tid, t);
	read_kstack(pid, tid, t);
	return 0;
}

void thread_info__free(struct thread_info *t)
{
	for (size_t i = 0; i < t->nkstack; i++)
		free(t->kstack[i]);
	free(t->kstack);
	t->kstack = NULL;
	t->nkstack = 0;
}

const char *thread_state_name(char state)
{
	switch (state) {
	case 'R':
		return "running";
	case 'S':
		return "sleeping";
	case 'D':
		return "disk sleep";
	case 'T':
		return "stopped";
	case 't':
		return "tracing stop";
	case 'Z':
		return "zombie";
	case 'X':
		return "dead";
	case 'I':
		return "idle";
	case 'P':
		return "parked";
	}
	return "unknown";
}

const char *syscall_name(long nr)
{
	if (nr < 0 || (size_t)nr >= sizeof(syscall_names) / sizeof(syscall_names[0]))
		return NULL;
	return syscall_names[nr];
}

// SPDX-License-Identifier: Apache-2.0
/* CPU sampler lifecycle: open the skeleton and set read-only config and map sizes
 * (prepare), let the loader load it, then fill the filter, open a perf event per online
 * CPU and attach the program to each (start), and poll the ring buffer. Every failure
 * path unwinds through sampler__free. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "loader/cpus.h"
#include "loader/loader.h"
#include "loader/sampler.h"
#include "sample.skel.h"
#include "util/log.h"

struct sampler {
	struct sample_bpf *skel;
	struct ring_buffer *rb;
	int *pfds; /* perf event fds, one per entry of cpus */
	struct bpf_link **links;
	struct bpf_link *fork_link;
	unsigned int ncpus_stopped; /* CPUs sampled before sampler__stop */
	struct sampler_opts opts;
	unsigned int ncpus; /* entries used in pfds and links */
	unsigned int cpu_cap;
};

static int perf_open_cpu_clock(unsigned int freq, int cpu)
{
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(attr),
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .sample_freq = freq,
	    .freq = 1,
	};
	int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int explain_perf_error(int err, unsigned int freq)
{
	if (err == -EINVAL)
		pr_err("the kernel refused a %u Hz cpu-clock event: the frequency is above "
		       "kernel.perf_event_max_sample_rate (see sysctl); lower -F",
		       freq);
	else if (err == -EACCES || err == -EPERM)
		pr_err("perf events refused (%s): run as root or grant CAP_PERFMON, and check "
		       "kernel.perf_event_paranoid",
		       strerror(-err));
	else
		pr_err("perf_event_open: %s", strerror(-err));
	return err;
}

static int attach_cpus(struct sampler *s, struct loader *l, unsigned int freq)
{
	struct bpf_program *prog = loader__program(l, s->skel->obj, "on_cpu_sample");
	int *cpus = NULL, n, err = 0;

	if (!prog)
		return -ENOENT;
	n = online_cpus(&cpus);
	if (n < 0) {
		pr_err("cannot read the online CPUs: %s", strerror(-n));
		return n;
	}
	s->pfds = calloc(n, sizeof(*s->pfds));
	s->links = calloc(n, sizeof(*s->links));
	if (!s->pfds || !s->links) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		int fd = perf_open_cpu_clock(freq, cpus[i]);

		/* A CPU that went offline since we read the list is not an error. */
		if (fd == -ENODEV)
			continue;
		if (fd < 0) {
			err = explain_perf_error(fd, freq);
			goto out;
		}
		s->pfds[s->ncpus] = fd;
		s->links[s->ncpus] = bpf_program__attach_perf_event(prog, fd);
		s->ncpus++;
		if (!s->links[s->ncpus - 1]) {
			err = -errno;
			pr_err("attaching to the perf event of CPU %d: %s", cpus[i],
			       strerror(-err));
			goto out;
		}
	}
	if (!s->ncpus) {
		pr_err("no online CPU accepted a perf event");
		err = -ENODEV;
	}
out:
	free(cpus);
	return err;
}

static int add_pid(struct sampler *s, uint32_t pid)
{
	uint8_t one = 1;

	if (bpf_map__update_elem(s->skel->maps.profiled_pids, &pid, sizeof(pid), &one, sizeof(one),
				 BPF_ANY))
		return -errno;
	return 0;
}

static int fill_filter(struct sampler *s, const struct sampler_opts *o)
{
	for (size_t i = 0; i < o->npids; i++) {
		int err = add_pid(s, o->pids[i]);

		if (err) {
			pr_err("adding pid %u to the filter: %s", o->pids[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Opens the skeleton and sets what must be fixed before load: read-only config and
 * the ring buffer's size. The loader loads it. */
static int prepare(struct sampler *s, const struct sampler_opts *o, struct loader *l)
{
	const void *elf;
	size_t sz;
	int err;

	s->skel = sample_bpf__open_opts(loader__open_opts(l));
	if (!s->skel) {
		err = -errno;
		pr_err("opening the BPF object: %s", strerror(-err));
		return err;
	}
	s->skel->rodata->filter_pids = o->pids != NULL;
	s->skel->rodata->follow_children = o->follow_children;
	s->skel->rodata->wakeup_bytes = o->ringbuf_bytes / 4;
	err = bpf_map__set_max_entries(s->skel->maps.samples, o->ringbuf_bytes);
	/* Without a filter the map is never read: do not pay 1.25 MiB for it. */
	if (!err && !o->pids)
		err = bpf_map__set_max_entries(s->skel->maps.profiled_pids, 1);
	if (!err && o->unwind_rows)
		err = bpf_map__set_max_entries(s->skel->maps.unwind_rows, o->unwind_rows);
	/* Userspace writes tables into the pool with memcpy through an mmap. */
	if (!err)
		err = bpf_map__set_map_flags(s->skel->maps.unwind_rows,
					     bpf_map__map_flags(s->skel->maps.unwind_rows) |
						 BPF_F_MMAPABLE);
	if (err)
		return err;
	elf = sample_bpf__elf_bytes(&sz);
	return loader__add(l, s->skel->obj, elf, sz);
}

static int attach_fork(struct sampler *s, struct loader *l)
{
	struct bpf_program *p = loader__program(l, s->skel->obj, "on_fork");
	int err;

	if (!p)
		return -ENOENT;
	s->fork_link = bpf_program__attach(p);
	if (!s->fork_link) {
		err = -errno;
		pr_err("attaching the fork tracepoint: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* Test hook: EBPROF_INJECT_FAILURE=after-attach fails once everything is attached, so
 * the suite can prove that a late failure leaves nothing behind. */
static int injected_failure(void)
{
	const char *v = getenv("EBPROF_INJECT_FAILURE");

	if (v && strcmp(v, "after-attach") == 0) {
		pr_err("injected failure after attaching (EBPROF_INJECT_FAILURE)");
		return -ECANCELED;
	}
	return 0;
}

int sampler__prepare(struct sampler **out, const struct sampler_opts *opts, struct loader *l)
{
	struct sampler *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	err = prepare(s, opts, l);
	if (err) {
		sampler__free(s);
		return err;
	}
	*out = s;
	return 0;
}

int sampler__start(struct sampler *s, struct loader *l, sampler_cb cb, void *ctx)
{
	int err;

	err = fill_filter(s, &s->opts);
	if (err)
		return err;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.samples), (ring_buffer_sample_fn)cb, ctx,
				 NULL);
	if (!s->rb) {
		err = -errno;
		pr_err("opening the ring buffer: %s", strerror(-err));
		return err;
	}
	err = attach_fork(s, l);
	if (!err)
		err = attach_cpus(s, l, s->opts.freq_hz);
	if (!err)
		err = injected_failure();
	return err;
}

void sampler__stop(struct sampler *s)
{
	/* Reverse order of creation: links, then events. */
	for (unsigned int i = 0; i < s->ncpus; i++) {
		bpf_link__destroy(s->links[i]);
		close(s->pfds[i]);
	}
	s->ncpus_stopped = s->ncpus;
	s->ncpus = 0;
}

void sampler__free(struct sampler *s)
{
	if (!s)
		return;
	sampler__stop(s);
	free(s->links);
	free(s->pfds);
	bpf_link__destroy(s->fork_link);
	ring_buffer__free(s->rb);
	sample_bpf__destroy(s->skel);
	free(s);
}

int sampler__poll(struct sampler *s, int timeout_ms)
{
	int n = ring_buffer__poll(s->rb, timeout_ms);

	/* Samples do not wake us one by one (wakeup_bytes): take what waits anyway. */
	if (n >= 0 || n == -EINTR) {
		int more = ring_buffer__consume(s->rb);

		if (more < 0)
			return more;
		n = (n > 0 ? n : 0) + more;
	}
	return n;
}

int sampler__counters(struct sampler *s, uint64_t out[CTR__COUNT])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	if (ncpu < 0)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t id = 0; id < CTR__COUNT; id++) {
		out[id] = 0;
		if (bpf_map__lookup_elem(s->skel->maps.counters, &id, sizeof(id), vals,
					 ncpu * sizeof(*vals), 0))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[id] += vals[c];
	}
	free(vals);
	return 0;
}

void sampler__maps(const struct sampler *s, struct sampler_maps *out)
{
	*out = (struct sampler_maps){
	    .pid_to_mappings = bpf_map__fd(s->skel->maps.pid_to_mappings),
	    .pid_to_python = bpf_map__fd(s->skel->maps.pid_to_python),
	    .unwind_tables = bpf_map__fd(s->skel->maps.unwind_tables),
	    .unwind_tables_max = bpf_map__max_entries(s->skel->maps.unwind_tables),
	    .unwind_rows = bpf_map__fd(s->skel->maps.unwind_rows),
	    .unwind_rows_max = bpf_map__max_entries(s->skel->maps.unwind_rows),
	};
}

unsigned int sampler__ncpus(const struct sampler *s)
{
	return s->ncpus ? s->ncpus : s->ncpus_stopped;
}

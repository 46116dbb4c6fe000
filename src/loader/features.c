// SPDX-License-Identifier: Apache-2.0
/* Kernel feature probes: each helper is asked for by loading a tiny program that calls
 * it (libbpf_probe_bpf_helper), so backports count and version numbers never do. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "loader/features.h"

static struct kernel_features features;
static pthread_once_t probed = PTHREAD_ONCE_INIT;

/* Whether EBPROF_KERNEL_LACKS names feature (or says "all"). */
static bool lacks(const char *feature)
{
	const char *list = getenv("EBPROF_KERNEL_LACKS"), *p;
	size_t n = strlen(feature);

	if (!list)
		return false;
	if (strcmp(list, "all") == 0)
		return true;
	for (p = list; (p = strstr(p, feature)); p += n) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

static bool has_helper(enum bpf_prog_type type, enum bpf_func_id func, const char *name)
{
	return !lacks(name) && libbpf_probe_bpf_helper(type, func, NULL) > 0;
}

static void probe(void)
{
	features.bpf_loop = has_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, "bpf_loop");
	features.task_pt_regs =
	    has_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, "task_pt_regs");
	features.attach_cookie =
	    has_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, "attach_cookie");
}

const struct kernel_features *kernel_features(void)
{
	pthread_once(&probed, probe);
	return &features;
}

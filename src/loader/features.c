// SPDX-License-Identifier: Apache-2.0
/* Kernel feature probes: each helper is asked for by loading a tiny program that calls
 * it (libbpf_probe_bpf_helper), so backports count and version numbers never do. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <bpf/bpf.h>
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

/* Loads a perf_event program that looks up a hash map allocated per element. */
static bool has_perf_alloc_maps(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC);
	int map = bpf_map_create(BPF_MAP_TYPE_HASH, "ebprof_feat", 4, 4, 1, &mo), prog;
	struct bpf_insn insns[] = {
	    {.code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4, .imm = 0},
	    {.code = BPF_LD | BPF_DW | BPF_IMM,
	     .dst_reg = BPF_REG_1,
	     .src_reg = BPF_PSEUDO_MAP_FD,
	     .imm = map},
	    {0},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_10},
	    {.code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4},
	    {.code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};

	if (map < 0)
		return false;
	prog = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, NULL, "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), NULL);
	close(map);
	if (prog < 0)
		return false;
	close(prog);
	return true;
}

static void probe(void)
{
	features.bpf_loop = has_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, "bpf_loop");
	features.task_pt_regs =
	    has_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, "task_pt_regs");
	features.attach_cookie =
	    has_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, "attach_cookie");
	features.perf_alloc_maps = !lacks("perf_alloc_maps") && has_perf_alloc_maps();
}

const struct kernel_features *kernel_features(void)
{
	pthread_once(&probed, probe);
	return &features;
}

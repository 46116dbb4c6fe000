/* SPDX-License-Identifier: Apache-2.0 */
/* What the running kernel offers the BPF programs, probed once at load time (never
 * read from the version number): which variant of a walker loads, which helper calls
 * the programs make, and what ebprof must refuse (src/cli/host.c lists them). */
#ifndef EBPROF_LOADER_FEATURES_H
#define EBPROF_LOADER_FEATURES_H

#include <stdbool.h>

struct kernel_features {
	bool bpf_loop;	    /* bpf_loop(), 5.17: else the unrolled, self-tail-calling walkers */
	bool task_pt_regs;  /* bpf_task_pt_regs(), 5.15: else the top of the kernel stack */
	bool attach_cookie; /* bpf_get_attach_cookie(), 5.15: else one probe per program */
	/* perf_event programs may use hash maps allocated per element (BPF_F_NO_PREALLOC),
	 * 5.13: else those maps are preallocated, smaller. */
	bool perf_alloc_maps;
};

/* The running kernel's features, probed on the first call. EBPROF_KERNEL_LACKS=a,b
 * (bpf_loop, task_pt_regs, attach_cookie, perf_alloc_maps, or all) answers "no" for those, so the suite
 * runs the older kernels' paths on any kernel. */
const struct kernel_features *kernel_features(void);

#endif

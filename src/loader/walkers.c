// SPDX-License-Identifier: Apache-2.0
/* Enables and installs walker programs: one per entry program type, because a program
 * array only holds programs of the type of the first one that used it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "chain.h"
#include "loader/features.h"
#include "loader/walkers.h"
#include "loader/loader.h"
#include "util/log.h"

/* Program name suffix and program array of each enum chain_type. */
static const struct {
	const char *suffix;
	const char *array;
} types_info[CHAIN__COUNT] = {
    [CHAIN_PERF] = {"perf", "walkers_perf"},
    [CHAIN_UPROBE] = {"uprobe", "walkers_uprobe"},
    [CHAIN_TP] = {"tp", "walkers_tp"},
    [CHAIN_RAWTP] = {"rawtp", "walkers_rawtp"},
};

/* Without bpf_loop (before 5.17) each walker loads its WALKER_unrolled variant, which
 * walks a few frames per program and tail-calls itself. */
static void prog_name(char *buf, size_t len, const char *walker, int type)
{
	snprintf(buf, len, "%s%s_%s", walker, kernel_features()->bpf_loop ? "" : "_unrolled",
		 types_info[type].suffix);
}

int walkers__enable(struct bpf_object *obj, const char *walker, chain_types types)
{
	char name[128];

	for (int t = 0; t < CHAIN__COUNT; t++) {
		struct bpf_program *p;

		if (!(types & (1u << t)))
			continue;
		prog_name(name, sizeof(name), walker, t);
		p = bpf_object__find_program_by_name(obj, name);
		if (!p)
			return kernel_features()->bpf_loop ? -ENOENT : -ENOTSUP;
		if (bpf_program__set_autoload(p, true))
			return -EINVAL;
	}
	return 0;
}

int walkers__defer(struct loader *l, const struct bpf_object *obj, const char *walker,
		   chain_types types)
{
	char name[128];
	int err;

	for (int t = 0; t < CHAIN__COUNT; t++) {
		if (!(types & (1u << t)))
			continue;
		prog_name(name, sizeof(name), walker, t);
		err = loader__defer_program(l, obj, name);
		if (err)
			return err;
	}
	return 0;
}

int walkers__install(struct loader *l, struct bpf_object *obj, const char *walker, uint32_t slot,
		     chain_types types)
{
	char name[128];

	for (int t = 0; t < CHAIN__COUNT; t++) {
		const struct bpf_map *array;
		struct bpf_program *p;
		int fd, err;

		if (!(types & (1u << t)))
			continue;
		prog_name(name, sizeof(name), walker, t);
		p = loader__program(l, obj, name);
		array = bpf_object__find_map_by_name(obj, types_info[t].array);
		if (!p || !array) {
			pr_err("walker %s: no loaded program or no program array", name);
			return -ENOENT;
		}
		fd = bpf_program__fd(p);
		err = bpf_map_update_elem(bpf_map__fd(array), &slot, &fd, BPF_ANY) ? -errno : 0;
		if (err) {
			pr_err("installing walker %s in %s: %s", name, types_info[t].array,
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

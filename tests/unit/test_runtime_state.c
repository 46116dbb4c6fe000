// SPDX-License-Identifier: Apache-2.0
/* Unit test of the state every runtime keeps (src/interp/runtime_state.c): its maps found
 * by name in a walker object, files kept once per id, the first kept file among a
 * process's mappings, processes replaced and forgotten through the runtime's free
 * function, and the reader of process memory (this process's own, and a bad address). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "harness.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"

struct kept_file {
	uint32_t file_id;
	int tag;
};

struct kept_proc {
	uint32_t pid;
	int tag;
};

static int procs_freed, files_freed;

static void free_file(void *f)
{
	files_freed++;
	free(f);
}

static void free_proc(struct runtime_state *s, void *p)
{
	procs_freed++;
	free(p);
}

static const struct runtime_state_conf conf = {
    .pid_map = "pid_to_python",
    .counters_map = "python_counters",
    .max_names = 4,
    .free_file = free_file,
    .free_proc = free_proc,
};

/* The python walker's object, opened, not loaded: its maps are there by name. */
static struct bpf_object *open_walker(void)
{
	const struct runtime_ops *r;
	size_t sz;

	for (size_t i = 0; (r = runtime_registry__get(i)); i++) {
		if (!strcmp(r->name, "python")) {
			const void *elf = r->bpf_elf(&sz);

			return bpf_object__open_mem(elf, sz, NULL);
		}
	}
	return NULL;
}

static void *entry(size_t size, uint32_t key, int tag)
{
	struct kept_file *e = calloc(1, size);

	if (e) {
		e->file_id = key;
		e->tag = tag;
	}
	return e;
}

static void test_maps_by_name(void)
{
	const struct runtime_state_conf missing = {.pid_map = "pid_to_nothing",
						   .counters_map = "python_counters"};
	struct bpf_object *obj = open_walker();
	void *priv = NULL;

	CHECK(obj != NULL);
	CHECK(runtime_state__new(obj, &missing, sizeof(struct runtime_state), &priv) == -ENOENT);
	CHECK(priv == NULL);
	CHECK(runtime_state__new(obj, &conf, sizeof(struct runtime_state), &priv) == 0);
	runtime_state__delete(priv);
	bpf_object__close(obj);
}

static void test_files_and_processes(void)
{
	struct bpf_object *obj = open_walker();
	struct runtime_state *s = NULL;
	struct proc_mapping maps[3] = {{.file_id = 0}, {.file_id = 9}, {.file_id = 7}};
	struct kept_file *f7 = entry(sizeof(struct kept_file), 7, 1),
			 *again = entry(sizeof(*f7), 7, 2);
	struct kept_proc *p;
	uint32_t i = 0;

	CHECK(obj && runtime_state__new(obj, &conf, sizeof(*s), (void **)&s) == 0);
	if (!s)
		goto out;
	CHECK(runtime_state__add_file(s, f7));
	CHECK(!runtime_state__add_file(s, again)); /* its id is kept already: still ours */
	free(again);
	CHECK(runtime_state__file(s, 7) == f7 && runtime_state__file(s, 9) == NULL);
	CHECK(runtime_state__mapped_file(s, maps, 3, &i) == f7 && i == 2);
	i = 3;
	CHECK(runtime_state__mapped_file(s, maps, 3, &i) == NULL);

	procs_freed = 0;
	CHECK(runtime_state__set_proc(s, 42, entry(sizeof(*p), 42, 1)) == 0);
	CHECK(runtime_state__set_proc(s, 42, entry(sizeof(*p), 42, 2)) == 0);
	p = runtime_state__proc(s, 42);
	CHECK(p && p->tag == 2 && procs_freed == 1);
	runtime_state__forget(s, 42); /* the map is not loaded: only the entry goes */
	CHECK(runtime_state__proc(s, 42) == NULL && procs_freed == 2);
	CHECK(runtime_state__set_proc(s, 43, entry(sizeof(*p), 43, 3)) == 0);
	CHECK(functab__intern(&s->names, "f", "file") == 1);
	files_freed = 0;
	runtime_state__delete(s);
	CHECK(files_freed == 1 && procs_freed == 3);
out:
	bpf_object__close(obj);
}

static void test_reads_memory(void)
{
	static const char secret[] = "runtime memory";
	struct kept_proc self = {.pid = (uint32_t)getpid()};
	char buf[sizeof(secret)] = "";

	CHECK(runtime_proc__read(&self, (uint64_t)(uintptr_t)secret, buf, sizeof(buf)) == 0);
	CHECK(!memcmp(buf, secret, sizeof(secret)));
	CHECK(runtime_mem__read(self.pid, 8, buf, sizeof(buf)) == -EFAULT);
}

int main(void)
{
	libbpf_set_print(NULL);
	RUN_TEST(test_maps_by_name);
	RUN_TEST(test_files_and_processes);
	RUN_TEST(test_reads_memory);
	HARNESS_EXIT();
}

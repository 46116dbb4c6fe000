// SPDX-License-Identifier: Apache-2.0
/* The state every runtime keeps (runtime_state.h): its walker's maps, its files and
 * processes keyed by their leading uint32_t, its names, and the reader of process memory. */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "interp/runtime_state.h"

static int key_eq(const void *entry, const void *key)
{
	return *(const uint32_t *)entry == *(const uint32_t *)key;
}

int runtime_state__init(struct runtime_state *s, struct bpf_object *obj,
			const struct runtime_state_conf *conf)
{
	const struct bpf_map *procs = bpf_object__find_map_by_name(obj, conf->pid_map);
	const struct bpf_map *ctrs = bpf_object__find_map_by_name(obj, conf->counters_map);

	if (!procs || !ctrs)
		return -ENOENT;
	if (conf->max_names && functab__init(&s->names, conf->max_names))
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	s->map_fd = bpf_map__fd(procs);
	s->counters_fd = bpf_map__fd(ctrs);
	hmap_init(&s->files, key_eq);
	hmap_init(&s->procs, key_eq);
	s->conf = conf;
	return 0;
}

static void free_proc(struct runtime_state *s, void *proc)
{
	if (!proc)
		return;
	if (s->conf->free_proc)
		s->conf->free_proc(s, proc);
	else
		free(proc);
}

void runtime_state__free(struct runtime_state *s)
{
	if (!s || !s->conf)
		return;
	hmap_for_each(&s->files, i)
	{
		if (s->conf->free_file)
			s->conf->free_file(s->files.slots[i].entry);
		else
			free(s->files.slots[i].entry);
	}
	hmap_free(&s->files);
	hmap_for_each(&s->procs, i) free_proc(s, s->procs.slots[i].entry);
	hmap_free(&s->procs);
	if (s->conf->max_names)
		functab__free(&s->names);
	pthread_mutex_destroy(&s->lock);
	s->conf = NULL;
}

int runtime_state__new(struct bpf_object *obj, const struct runtime_state_conf *conf, size_t size,
		       void **out)
{
	struct runtime_state *s = size >= sizeof(*s) ? calloc(1, size) : NULL;
	int err;

	if (!s)
		return -ENOMEM;
	err = runtime_state__init(s, obj, conf);
	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void runtime_state__delete(void *priv)
{
	runtime_state__free(priv);
	free(priv);
}

void *runtime_state__file(const struct runtime_state *s, uint32_t file_id)
{
	return hmap_find(&s->files, hash_u64(file_id), &file_id);
}

bool runtime_state__add_file(struct runtime_state *s, void *file)
{
	uint32_t id = *(const uint32_t *)file;
	bool kept;

	pthread_mutex_lock(&s->lock);
	kept = !runtime_state__file(s, id) && !hmap_insert(&s->files, hash_u64(id), file);
	pthread_mutex_unlock(&s->lock);
	return kept;
}

void *runtime_state__mapped_file(const struct runtime_state *s, const struct proc_mapping *maps,
				 uint32_t n, uint32_t *i)
{
	for (; *i < n; (*i)++) {
		void *f = maps[*i].file_id ? runtime_state__file(s, maps[*i].file_id) : NULL;

		if (f)
			return f;
	}
	return NULL;
}

void *runtime_state__proc(const struct runtime_state *s, uint32_t pid)
{
	return hmap_find(&s->procs, hash_u64(pid), &pid);
}

int runtime_state__set_proc(struct runtime_state *s, uint32_t pid, void *proc)
{
	free_proc(s, hmap_remove(&s->procs, hash_u64(pid), &pid));
	if (proc && hmap_insert(&s->procs, hash_u64(pid), proc)) {
		free_proc(s, proc);
		return -ENOMEM;
	}
	return 0;
}

void runtime_state__forget(struct runtime_state *s, uint32_t pid)
{
	pthread_mutex_lock(&s->lock);
	bpf_map_delete_elem(s->map_fd, &pid);
	runtime_state__set_proc(s, pid, NULL);
	pthread_mutex_unlock(&s->lock);
}

int runtime_mem__read(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {.iov_base = buf, .iov_len = len};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
	ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

int runtime_proc__read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return runtime_mem__read(*(const uint32_t *)ctx, addr, buf, len);
}

// SPDX-License-Identifier: Apache-2.0
/* Process table: executable mappings per process from /proc/PID/maps, and the address
 * to (file, offset) translation every user frame goes through. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc/proc.h"
#include "util/log.h"
#include "util/safe_file.h"

/* A process whose address is unknown re-reads its maps at most this often. */
#define REFRESH_INTERVAL_NS (50ULL * 1000 * 1000)

static int proc_eq(const void *entry, const void *key)
{
	return ((const struct proc *)entry)->pid == *(const uint32_t *)key;
}

bool maps_parse_line(char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff, uint64_t *dev,
		     uint64_t *ino, char **path)
{
	unsigned int maj, min;
	char perms[8];
	int n = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", start, end,
		   perms, pgoff, &maj, &min, ino, &n) < 7 ||
	    n == 0)
		return false;
	if (perms[2] != 'x')
		return false;
	*dev = makedev(maj, min);
	*path = line + n;
	(*path)[strcspn(*path, "\n")] = '\0';
	return true;
}

static uint32_t mapping_file(struct proc_table *t, uint64_t dev, uint64_t ino, const char *path)
{
	struct file_entry *f;

	if (strcmp(path, "[vdso]") == 0)
		return t->vdso_file;
	if (ino == 0 || path[0] != '/')
		return 0;
	f = file_table__intern(t->files, dev, ino, path);
	return f ? f->id : 0;
}

/* PROCMAP_QUERY's argument (include/uapi/linux/fs.h, Linux 6.11), which older headers
 * lack: in, the size, flags (0: the VMA covering the address) and address; out, the
 * VMA and its file's identity. */
struct procmap_query_arg {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint32_t vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
_Static_assert(sizeof(struct procmap_query_arg) == 104, "PROCMAP_QUERY's layout");
#define PROCMAP_QUERY_IOCTL _IOWR('f', 17, struct procmap_query_arg)

int proc_query_file(uint32_t pid, uint64_t addr, uint64_t *dev, uint64_t *ino)
{
	static bool unsupported;
	struct procmap_query_arg q = {.size = sizeof(q), .query_addr = addr};
	char fn[64];
	int fd, err = 0;

	if (__atomic_load_n(&unsupported, __ATOMIC_RELAXED))
		return -ENOTTY;
	snprintf(fn, sizeof(fn), "/proc/%u/maps", pid);
	fd = safe_file__open_proc(fn);
	if (fd < 0)
		return fd;
	if (ioctl(fd, PROCMAP_QUERY_IOCTL, &q))
		err = -errno;
	close(fd);
	if (err == -ENOTTY)
		__atomic_store_n(&unsupported, true, __ATOMIC_RELAXED);
	if (err)
		return err;
	if (!q.inode)
		return -ENOENT; /* anonymous memory */
	*dev = makedev(q.dev_major, q.dev_minor);
	*ino = q.inode;
	return 0;
}

/* Opens /proc/PID/maps as a stream, without blocking (safe_file.h). */
static FILE *open_maps(uint32_t pid, int *err)
{
	char fn[64];
	FILE *fp;
	int fd;

	snprintf(fn, sizeof(fn), "/proc/%u/maps", pid);
	fd = safe_file__open_proc(fn);
	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	fp = fdopen(fd, "r");
	if (!fp) {
		*err = -errno;
		close(fd);
	}
	return fp;
}

int proc_table__parse_maps(struct proc_table *t, FILE *fp, struct proc_mapping **out,
			   uint32_t *count)
{
	struct proc_mapping *maps = NULL, *m;
	uint32_t n = 0, cap = 0;
	uint64_t dev, ino;
	char line[4096 + 128], *path;

	while (fgets(line, sizeof(line), fp)) {
		struct proc_mapping cur = {0};

		if (!maps_parse_line(line, &cur.start, &cur.end, &cur.pgoff, &dev, &ino, &path))
			continue;
		cur.file_id = mapping_file(t, dev, ino, path);
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			m = reallocarray(maps, cap, sizeof(*m));
			if (!m) {
				free(maps);
				return -ENOMEM;
			}
			maps = m;
		}
		maps[n++] = cur;
	}
	*out = maps;
	*count = n;
	return 0;
}

static int read_maps(struct proc_table *t, struct proc *p)
{
	struct proc_mapping *maps;
	uint32_t n;
	int err = 0;
	FILE *fp = open_maps(p->pid, &err);

	if (!fp)
		return err;
	t->maps_reads++;
	err = proc_table__parse_maps(t, fp, &maps, &n);
	fclose(fp);
	if (err)
		return err;
	/* A process that exited between open and read shows an empty file: keep the old. */
	if (n == 0) {
		free(maps);
		return -ESRCH;
	}
	free(p->maps);
	p->maps = maps;
	p->nmaps = n;
	return 0;
}

static const struct proc_mapping *find_mapping(const struct proc *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->nmaps;

	/* /proc/PID/maps lists mappings in address order, so the array is sorted. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

static struct proc *proc_get(struct proc_table *t, uint32_t pid)
{
	uint64_t h = hash_u64(pid);
	struct proc *p = hmap_find(&t->by_pid, h, &pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (hmap_insert(&t->by_pid, h, p)) {
		free(p);
		return NULL;
	}
	return p;
}

static void refresh(struct proc_table *t, struct proc *p, uint64_t now_ns)
{
	int err;

	if (p->gone || (p->refreshed_ns && now_ns - p->refreshed_ns < REFRESH_INTERVAL_NS))
		return;
	p->refreshed_ns = now_ns;
	err = read_maps(t, p);
	if (err) {
		t->maps_failures++;
		if (err == -ENOENT || err == -ESRCH)
			p->gone = true;
		pr_debug("reading maps of pid %u: %s", p->pid, strerror(-err));
	}
}

struct proc_addr proc_table__resolve(struct proc_table *t, uint32_t pid, uint64_t addr,
				     uint64_t now_ns)
{
	struct proc_addr r = {.off = addr};
	const struct proc_mapping *m;
	struct file_entry *f;
	struct proc *p;

	pthread_mutex_lock(&t->lock);
	p = proc_get(t, pid);
	if (!p)
		goto out;
	m = find_mapping(p, addr);
	if (!m) {
		refresh(t, p, now_ns);
		m = find_mapping(p, addr);
		if (!m)
			goto out;
	}
	r.mapped = true;
	if (!m->file_id)
		goto out;
	r.file_id = m->file_id;
	r.off = addr - m->start + m->pgoff;
	f = file_table__get(t->files, m->file_id);
	if (f && f->fd < 0 && f->id != t->vdso_file && file_entry__open(f, pid, m->start, m->end))
		t->files->open_failures++;
out:
	pthread_mutex_unlock(&t->lock);
	return r;
}

static const struct proc_mapping *mapping_of_file(const struct proc *p, uint32_t file_id)
{
	for (uint32_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].file_id == file_id)
			return &p->maps[i];
	return NULL;
}

void proc_table__open_file(struct proc_table *t, uint32_t pid, uint32_t file_id, uint64_t now_ns)
{
	const struct proc_mapping *m = NULL;
	struct file_entry *f;
	struct proc *p;

	pthread_mutex_lock(&t->lock);
	f = file_table__get(t->files, file_id);
	if (!f || f->fd >= 0 || f->open_err || f->id == t->vdso_file)
		goto out;
	p = proc_get(t, pid);
	if (p && !(m = mapping_of_file(p, file_id))) {
		refresh(t, p, now_ns);
		m = mapping_of_file(p, file_id);
	}
	if (m && file_entry__open(f, pid, m->start, m->end))
		t->files->open_failures++;
out:
	pthread_mutex_unlock(&t->lock);
}

int proc_table__snapshot(struct proc_table *t, uint32_t pid, uint64_t now_ns,
			 struct proc_mapping **out)
{
	struct proc_mapping *copy = NULL;
	struct proc *p;
	int err;

	pthread_mutex_lock(&t->lock);
	p = proc_get(t, pid);
	err = p ? read_maps(t, p) : -ENOMEM;
	if (err) {
		if (p && (err == -ENOENT || err == -ESRCH))
			p->gone = true;
		goto out;
	}
	p->refreshed_ns = now_ns;
	p->gone = false;
	copy = malloc(p->nmaps * sizeof(*copy));
	if (!copy) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(copy, p->maps, p->nmaps * sizeof(*copy));
	for (uint32_t i = 0; i < p->nmaps; i++) {
		struct file_entry *f = file_table__get(t->files, copy[i].file_id);

		if (f && f->fd < 0 && f->id != t->vdso_file &&
		    file_entry__open(f, pid, copy[i].start, copy[i].end))
			t->files->open_failures++;
	}
	*out = copy;
	err = p->nmaps;
out:
	pthread_mutex_unlock(&t->lock);
	return err;
}

/* Every process maps the same vDSO image the kernel built; ours, copied into a memfd,
 * stands in for all of them. */
static uint32_t vdso_register(struct proc_table *t)
{
	uint64_t start, end, pgoff, dev, ino;
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct file_entry *f;
	char line[512], *path;
	FILE *fp;
	int fd;

	fp = base ? fopen("/proc/self/maps", "re") : NULL;
	if (!fp)
		return 0;
	end = 0;
	while (fgets(line, sizeof(line), fp)) {
		if (maps_parse_line(line, &start, &end, &pgoff, &dev, &ino, &path) &&
		    strcmp(path, "[vdso]") == 0 && start == base)
			break;
		end = 0;
	}
	fclose(fp);
	if (!end)
		return 0;
	fd = memfd_create("ebprof-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, (void *)base, end - start) != (ssize_t)(end - start)) {
		close(fd);
		return 0;
	}
	/* No real file has inode 0, so this key cannot collide with one. */
	f = file_table__intern(t->files, 0, 0, "[vdso]");
	if (!f) {
		close(fd);
		return 0;
	}
	f->fd = fd;
	return f->id;
}

int proc_table__init(struct proc_table *t, struct file_table *files)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	hmap_init(&t->by_pid, proc_eq);
	t->files = files;
	t->vdso_file = vdso_register(t);
	return 0;
}

static bool pid_exists(uint32_t pid)
{
	return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

static bool drop_exited(void *entry, void *ctx)
{
	struct proc *p = entry;

	if (!p->pid || pid_exists(p->pid))
		return false;
	free(p->maps);
	free(p);
	return true;
}

void proc_table__prune(struct proc_table *t, struct proc_prune_stats *st)
{
	uint8_t *mapped;

	pthread_mutex_lock(&t->lock);
	st->procs += hmap_filter(&t->by_pid, drop_exited, NULL);
	mapped = calloc(t->files->count + 1, 1);
	if (!mapped)
		goto out;
	hmap_for_each(&t->by_pid, i)
	{
		const struct proc *p = t->by_pid.slots[i].entry;

		for (uint32_t m = 0; m < p->nmaps; m++)
			if (p->maps[m].file_id <= t->files->count)
				mapped[p->maps[m].file_id] = 1;
	}
	for (uint32_t id = 1; id <= t->files->count; id++) {
		struct file_entry *f = file_table__get(t->files, id);

		if (f && mapped[id])
			f->unmapped_prunes = 0;
		if (!f || mapped[id] || id == t->vdso_file || (f->fd < 0 && !f->syms))
			continue;
		/* One interval's grace: a program run again and again (a cron job, a build
		 * step) maps the file again before the next prune, and its symbols are not
		 * parsed again every interval. */
		if (++f->unmapped_prunes < 2)
			continue;
		file_entry__release(f);
		st->files++;
	}
	free(mapped);
out:
	pthread_mutex_unlock(&t->lock);
}

void proc_table__free(struct proc_table *t)
{
	hmap_for_each(&t->by_pid, i)
	{
		struct proc *p = t->by_pid.slots[i].entry;

		free(p->maps);
		free(p);
	}
	hmap_free(&t->by_pid);
	pthread_mutex_destroy(&t->lock);
}

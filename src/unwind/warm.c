// SPDX-License-Identifier: Apache-2.0
/* Guessing a command's files before it execs (see warm.h): execvp's search for the
 * executable, libelf for its PT_INTERP and, from it and every library found, DT_NEEDED,
 * searched roughly as ld.so would. The files are the user's and read as hostile: libelf
 * bounds every read, and what does not parse leaves the list shorter. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "proc/proc.h"
#include "unwind/warm.h"

#define OWN_MAX 64 /* ebprof's own mapped files looked at */
#define DIRS_MAX 16

/* What finding needs besides the list: ebprof's own mapped files (whose directories are
 * where a library is searched) and the directories a library name is searched in. */
struct finder {
	struct warm_list *l;
	size_t nown;
	struct warm_file own[OWN_MAX];
	size_t ndirs;
	char *dirs[DIRS_MAX];
	int err; /* -ENOMEM, which ends the search */
};

int warm__resolve(const char *file, const char *path, char *out, size_t size)
{
	const char *dir, *end;
	struct stat st;

	if (!*file)
		return -ENOENT;
	if (strchr(file, '/'))
		return snprintf(out, size, "%s", file) < (int)size ? 0 : -ENAMETOOLONG;
	/* glibc's execvp searches confstr(_CS_PATH) when PATH is unset; an empty entry is
	 * the current directory. */
	for (dir = path ? path : "/bin:/usr/bin";; dir = end + 1) {
		int len;

		end = strchrnul(dir, ':');
		len = snprintf(out, size, "%.*s%s%s", (int)(end - dir), dir, end > dir ? "/" : "",
			       file);
		if (len < (int)size && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(out, X_OK) == 0)
			return 0;
		if (!*end)
			return -ENOENT;
	}
}

static bool add_dir(struct finder *fd, const char *dir, size_t len)
{
	if (!len || fd->ndirs == DIRS_MAX)
		return true;
	for (size_t i = 0; i < fd->ndirs; i++)
		if (strlen(fd->dirs[i]) == len && !strncmp(fd->dirs[i], dir, len))
			return true;
	fd->dirs[fd->ndirs] = strndup(dir, len);
	return fd->dirs[fd->ndirs++] != NULL;
}

/* Where ld.so would look, roughly: LD_LIBRARY_PATH, then the directories of the
 * libraries ebprof itself runs with (the multiarch ones), then the classic ones.
 * DT_RUNPATH and ld.so.cache are not read: a library found only there is missed. */
static bool read_dirs(struct finder *fd)
{
	static const char *const classic[] = {"/lib", "/usr/lib", "/lib64", "/usr/lib64"};
	const char *env = getenv("LD_LIBRARY_PATH"), *end;

	for (const char *d = env; d && *d; d = *end ? end + 1 : end) {
		end = strchrnul(d, ':');
		if (!add_dir(fd, d, (size_t)(end - d)))
			return false;
	}
	for (size_t i = 0; i < fd->nown; i++)
		if (!add_dir(fd, fd->own[i].path,
			     (size_t)(strrchr(fd->own[i].path, '/') - fd->own[i].path)))
			return false;
	for (size_t i = 0; i < sizeof(classic) / sizeof(classic[0]); i++)
		if (!add_dir(fd, classic[i], strlen(classic[i])))
			return false;
	return true;
}

/* ebprof's own executable mappings' files, once each. */
static bool read_own(struct finder *fd)
{
	char line[PATH_MAX + 128], *path;
	uint64_t start, end, pgoff, dev, ino;
	bool ok = true;
	FILE *fp = fopen("/proc/self/maps", "re");

	if (!fp)
		return true;
	while (ok && fd->nown < OWN_MAX && fgets(line, sizeof(line), fp)) {
		size_t i;

		if (!maps_parse_line(line, &start, &end, &pgoff, &dev, &ino, &path) || !ino ||
		    path[0] != '/')
			continue;
		for (i = 0; i < fd->nown && (fd->own[i].ino != ino || fd->own[i].dev != dev); i++)
			;
		if (i < fd->nown)
			continue;
		fd->own[i] = (struct warm_file){.dev = dev, .ino = ino, .path = strdup(path)};
		ok = fd->own[i].path != NULL;
		fd->nown += ok;
	}
	fclose(fp);
	return ok;
}

/* The (device, inode) /proc/PID/maps will give path's mappings: from a mapping of our
 * own, because on overlayfs maps names the file underneath, not what stat says. Falls
 * back to stat's. Returns false for what is not a readable regular file. */
static bool mapped_key(const char *path, uint64_t *dev, uint64_t *ino)
{
	char line[PATH_MAX + 128];
	unsigned int maj, min;
	unsigned long start;
	struct stat st;
	bool found = false;
	void *map = MAP_FAILED;
	FILE *fp = NULL;
	int file = open(path, O_RDONLY | O_CLOEXEC);

	if (file < 0 || fstat(file, &st) || !S_ISREG(st.st_mode))
		goto out;
	*dev = st.st_dev;
	*ino = st.st_ino;
	found = true;
	if (st.st_size > 0)
		map = mmap(NULL, 1, PROT_READ, MAP_PRIVATE, file, 0);
	if (map != MAP_FAILED)
		fp = fopen("/proc/self/maps", "re");
	while (fp && fgets(line, sizeof(line), fp)) {
		uint64_t i;

		if (sscanf(line, "%lx-%*x %*s %*x %x:%x %" SCNu64, &start, &maj, &min, &i) == 4 &&
		    start == (unsigned long)map) {
			*dev = makedev(maj, min);
			*ino = i;
			break;
		}
	}
out:
	if (fp)
		fclose(fp);
	if (map != MAP_FAILED)
		munmap(map, 1);
	if (file >= 0)
		close(file);
	return found;
}

/* Adds the file at path (any form) once. */
static void add(struct finder *fd, const char *path)
{
	struct warm_list *l = fd->l;
	char real[PATH_MAX];
	struct warm_file w = {0};

	if (l->n == WARM_MAX || !realpath(path, real) || !mapped_key(real, &w.dev, &w.ino))
		return;
	for (size_t i = 0; i < l->n; i++)
		if (l->f[i].dev == w.dev && l->f[i].ino == w.ino)
			return;
	w.path = strdup(real);
	if (!w.path) {
		fd->err = -ENOMEM;
		return;
	}
	l->f[l->n++] = w;
}

static void add_library(struct finder *fd, const char *name)
{
	char path[PATH_MAX];

	if (strchr(name, '/')) {
		add(fd, name);
		return;
	}
	for (size_t i = 0; i < fd->ndirs; i++)
		if (snprintf(path, sizeof(path), "%s/%s", fd->dirs[i], name) < (int)sizeof(path) &&
		    access(path, R_OK) == 0) {
			add(fd, path);
			return;
		}
}

static void read_interp(struct finder *fd, Elf *elf, int file)
{
	char raw[PATH_MAX];
	size_t nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz >= 2 && ph.p_filesz <= sizeof(raw) &&
		    pread(file, raw, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz &&
		    raw[ph.p_filesz - 1] == '\0')
			add(fd, raw);
		return;
	}
}

static void read_needed(struct finder *fd, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (int i = 0; d && gelf_getdyn(d, i, &dyn) && dyn.d_tag != DT_NULL; i++) {
			const char *name;

			if (dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (name && *name)
				add_library(fd, name);
		}
		return;
	}
}

/* Reads what the i-th file of the list needs; the list is also the queue. */
static void read_file(struct finder *fd, size_t i)
{
	int file = open(fd->l->f[i].path, O_RDONLY | O_CLOEXEC);
	struct elf_file *e;

	if (file < 0)
		return;
	e = elf_file__open(file);
	if (e) {
		if (i == 0)
			read_interp(fd, elf_file__elf(e), file);
		read_needed(fd, elf_file__elf(e));
	}
	elf_file__free(e);
	close(file);
}

static bool is_elf(const char *path)
{
	unsigned char magic[4];
	int file = open(path, O_RDONLY | O_CLOEXEC);
	bool elf = file >= 0 && read(file, magic, 4) == 4 && !memcmp(magic, ELFMAG, SELFMAG);

	if (file >= 0)
		close(file);
	return elf;
}

/* Frees what the search held; returns its error (the list is emptied on one). */
static int finder_end(struct finder *fd)
{
	for (size_t i = 0; i < fd->nown; i++)
		free(fd->own[i].path);
	for (size_t i = 0; i < fd->ndirs; i++)
		free(fd->dirs[i]);
	if (fd->err)
		warm__free(fd->l);
	return fd->err;
}

int warm__find(const char *file, struct warm_list *out)
{
	struct finder fd = {.l = out};
	char exe[PATH_MAX];

	out->n = 0;
	if (warm__resolve(file, getenv("PATH"), exe, sizeof(exe)) || !is_elf(exe))
		return 0;
	if (!read_own(&fd) || !read_dirs(&fd)) {
		fd.err = -ENOMEM;
		goto out;
	}
	add(&fd, exe);
	for (size_t i = 0; i < out->n && !fd.err; i++)
		read_file(&fd, i);
out:
	return finder_end(&fd);
}

/* Libraries nearly every process of a Linux host maps. */
static const char *const common_libs[] = {"libc.so.6", "libm.so.6", "libstdc++.so.6",
					  "libgcc_s.so.1"};

int warm__common(struct warm_list *out)
{
	struct finder fd = {.l = out};
	int file;

	out->n = 0;
	if (!read_own(&fd) || !read_dirs(&fd)) {
		fd.err = -ENOMEM;
		goto out;
	}
	/* The dynamic loader: ebprof's own interpreter is the host's. */
	file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (file >= 0) {
		struct elf_file *e = elf_file__open(file);

		if (e)
			read_interp(&fd, elf_file__elf(e), file);
		elf_file__free(e);
		close(file);
	}
	for (size_t i = 0; i < sizeof(common_libs) / sizeof(common_libs[0]) && !fd.err; i++)
		add_library(&fd, common_libs[i]);
out:
	return finder_end(&fd);
}

void warm__free(struct warm_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->f[i].path);
	l->n = 0;
}

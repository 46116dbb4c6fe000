// SPDX-License-Identifier: Apache-2.0
/* The debug cache. libdw inflates every compressed debug section when it begins on a file
 * (Debian 12's libc debug file: 8 MiB of heap and ~60 ms of zlib, at every record's
 * exit); a copy inflated once and mapped from disk costs neither. Copies are named by the
 * build id of the file they were made from, written under a unique name and renamed into
 * place (a second ebprof never reads half of one), trusted only when we own them and
 * nobody else may write them, and checked to carry that build id before each use. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "symbol/debugcache.h"
#include "symbol/dwarfsym.h"
#include "util/atomic_file.h"
#include "util/cache_dir.h"
#include "util/inflate_limit.h"
#include "util/log.h"
#include "util/safe_file.h"

/* A temporary file this old was left by an ebprof that died while writing it. */
#define TMP_STALE_SECONDS (10 * 60)
/* Alignment kept in a copy: libdw needs none of its sections aligned past a word, and
 * libelf lays out a section at its alignment, so a hostile 2^31 (in a compression header,
 * which sets the inflated data's) would have it write 2 GiB of zeros before the section:
 * an 18 KB file did, in 16 s. */
#define COPY_ALIGN_MAX 8

/* Whether e is worth a copy: an executable or shared object (relocatable files' DWARF
 * needs their relocation sections) with at least one compressed debug section libdw
 * reads. */
static bool compressed_dwarf(const struct elf_file *e)
{
	Elf *elf = elf_file__elf(e);
	Elf_Scn *scn = NULL;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_file__type(e) != ET_EXEC && elf_file__type(e) != ET_DYN)
		return false;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strncmp(name, ".debug_", 7) && !dwarf_syms__section_unused(name))
			return true;
	}
	return false;
}

/* The sections a copy keeps the bytes of: the name table, the notes (the build id) and
 * the debug sections libdw reads, with the link to a dwz file it may follow. */
static bool keeps(const char *name, const GElf_Shdr *sh, bool names)
{
	if (names || sh->sh_type == SHT_NOTE)
		return true;
	if (!strcmp(name, ".gnu_debugaltlink"))
		return true;
	return !strncmp(name, ".debug_", 7) && !dwarf_syms__section_unused(name);
}

/* What a copy of a file may hold: at most max bytes, and INFLATE_RATIO_MAX times the
 * file's size (file_bytes); total counts what is copied so far. */
struct copy_bound {
	uint64_t max, file_bytes, total;
};

/* Whether bytes more fit the bound (counted when not: inflate_limit.h). */
static bool fits(const struct copy_bound *b, uint64_t bytes)
{
	return bytes <= b->max - b->total && inflate_limit__allow(b->file_bytes, b->total + bytes);
}

/* Adds to out the copy of in's section scn, within the bound b. */
static int copy_section(Elf *in, Elf_Scn *scn, size_t shstrndx, Elf *out, struct copy_bound *b)
{
	Elf_Scn *o = elf_newscn(out);
	const char *name;
	Elf_Data *src, *dst;
	GElf_Shdr sh;
	GElf_Chdr ch;

	if (!o || !gelf_getshdr(scn, &sh))
		return -EINVAL;
	name = elf_strptr(in, shstrndx, sh.sh_name);
	if (!name)
		return -EINVAL;
	/* libelf lays sections out at their alignment and fills the gaps by writing: a
	 * hostile 2^30 alignment, even of a section left empty, writes a gigabyte. */
	if (sh.sh_addralign > COPY_ALIGN_MAX)
		sh.sh_addralign = COPY_ALIGN_MAX;
	if (sh.sh_type == SHT_NOBITS || !keeps(name, &sh, elf_ndxscn(scn) == shstrndx)) {
		sh.sh_type = SHT_NOBITS;
		sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		return gelf_update_shdr(o, &sh) ? 0 : -EINVAL;
	}
	if (sh.sh_flags & SHF_COMPRESSED) {
		/* The size is the file's word: bounded before anything is inflated. */
		if (!gelf_getchdr(scn, &ch) || !fits(b, ch.ch_size))
			return -EFBIG;
		if (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh))
			return -EINVAL;
	}
	if (!fits(b, sh.sh_size))
		return -EFBIG;
	b->total += sh.sh_size;
	src = elf_getdata(scn, NULL);
	if (!src && sh.sh_size)
		return -EINVAL;
	if (sh.sh_addralign > COPY_ALIGN_MAX) /* elf_compress read the header again */
		sh.sh_addralign = COPY_ALIGN_MAX;
	if (src) {
		dst = elf_newdata(o);
		if (!dst)
			return -ENOMEM;
		*dst = *src;
		dst->d_off = 0;
		if (dst->d_align > COPY_ALIGN_MAX)
			dst->d_align = COPY_ALIGN_MAX;
	}
	return gelf_update_shdr(o, &sh) ? 0 : -EINVAL;
}

/* Writes the copy of e to fd: the same header (without program headers, which libdw does
 * not read) and sections, laid out by libelf, their bytes at most max and INFLATE_RATIO_MAX
 * times e's size (with COPY_ALIGN_MAX, the layout adds a few bytes a section). Inflated
 * sections live in e until it is freed. */
static int write_copy(const struct elf_file *e, int fd, uint64_t max)
{
	struct copy_bound b = {.max = max};
	Elf *in = elf_file__elf(e), *out;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	struct stat st;
	GElf_Ehdr eh;
	int err = -EINVAL;

	if (fstat(elf_file__fd(e), &st))
		return -errno;
	b.file_bytes = st.st_size;
	if (!gelf_getehdr(in, &eh) || elf_getshdrstrndx(in, &shstrndx) || shstrndx >= SHN_LORESERVE)
		return -EINVAL;
	out = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!out || !gelf_newehdr(out, gelf_getclass(in)))
		goto out;
	eh.e_phoff = eh.e_shoff = 0;
	eh.e_phnum = 0;
	eh.e_shstrndx = shstrndx;
	if (!gelf_update_ehdr(out, &eh))
		goto out;
	while ((scn = elf_nextscn(in, scn))) {
		err = copy_section(in, scn, shstrndx, out, &b);
		if (err)
			goto out;
	}
	err = elf_update(out, ELF_C_WRITE) < 0 ? -EIO : 0;
out:
	if (out)
		elf_end(out);
	return err;
}

/* Opens path if it is a copy we may use: our own regular file, written by nobody else,
 * carrying build id id. */
static int open_copy(const char *path, const char *id)
{
	char copy_id[2 * ELF_BUILD_ID_MAX + 1] = "";
	char why[SAFE_FILE_WHY];
	struct elf_file *c;
	struct stat st;
	int fd = safe_file__open(path, 0, DEBUG_CACHE_BYTES, &st, why);

	if (fd == -ENOENT)
		return fd;
	if (fd < 0) {
		cache_dir__refuse(path, why); /* made again below, over it */
		return -EBADMSG;
	}
	if (!cache_dir__file_trusted(path, &st))
		goto refuse;
	c = elf_file__open(fd);
	if (c)
		elf_file__build_id_hex(c, copy_id);
	elf_file__free(c);
	if (strcmp(copy_id, id))
		goto refuse;
	futimens(fd, NULL); /* used now: the last to be evicted */
	return fd;
refuse:
	close(fd);
	return -EBADMSG;
}

struct entry {
	char name[256];
	off_t bytes;
	int64_t used; /* ns: copies made within one second still have an order */
};

static int older_first(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->used > y->used) - (x->used < y->used);
}

/* Reads dir's copies into a malloc'd array; removes temporary files left by a crash. */
static size_t list_copies(const char *dir, struct entry **out, uint64_t *total)
{
	size_t n = 0, cap = 0;
	time_t now = time(NULL);
	struct entry *v = NULL, *p;
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);

	*total = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || strlen(de->d_name) >= sizeof(v->name))
			continue;
		if (strstr(de->d_name, ".tmp.")) {
			if (now - st.st_mtime > TMP_STALE_SECONDS)
				unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			p = reallocarray(v, cap, sizeof(*v));
			if (!p)
				break;
			v = p;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].bytes = st.st_blocks * 512;
		v[n].used = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		*total += v[n++].bytes;
	}
	if (d)
		closedir(d);
	*out = v;
	return n;
}

/* Removes the copies used longest ago until all of dir's fit in max (never keep: the
 * copy just made). A copy another ebprof has open stays readable until it closes it. */
static void evict(const char *dir, uint64_t max, const char *keep)
{
	struct entry *v;
	uint64_t total;
	size_t n = list_copies(dir, &v, &total);
	char path[4096];

	qsort(v, n, sizeof(*v), older_first);
	for (size_t i = 0; i < n && total > max; i++) {
		if (!strcmp(v[i].name, keep))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		if (!unlink(path)) {
			total -= v[i].bytes;
			pr_debug("debug cache: removed %s, used longest ago", path);
		}
	}
	free(v);
}

/* Makes dir/name, the copy of e. */
static int make_copy(const struct elf_file *e, const char *dir, const char *name, const char *path,
		     uint64_t max)
{
	struct atomic_file af;
	int err = atomic_file__open(&af, path);

	if (err)
		return err;
	err = atomic_file__finish(&af, write_copy(e, af.fd, max / 4));
	if (!err)
		evict(dir, max, name);
	return err;
}

/* The cache's problems are said once: each makes every later file fall back the same.
 * A file that is not worth a copy or cannot be read is not the cache's problem (its DWARF
 * is then read, or refused, by the reader as before). */
static void say_once(const char *dir, int err)
{
	static bool said;

	if (said || err == -ENOENT || err == -EFBIG || err == -EINVAL)
		return;
	said = true;
	pr_debug("debug cache %s unusable (%s): compressed DWARF is inflated in memory", dir,
		 strerror(-err));
}

int debug_cache__open(const char *dir, uint64_t max_bytes, int fd)
{
	char id[2 * ELF_BUILD_ID_MAX + 1], name[sizeof(id) + 8], path[4096];
	struct elf_file *e = elf_file__open(fd);
	int err = -ENOENT;

	if (!e)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	elf_file__build_id_hex(e, id);
	if (!id[0] || !compressed_dwarf(e))
		goto out;
	snprintf(name, sizeof(name), "%s.debug", id);
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	/* Every directory from the cache root down is checked before a copy is read. */
	err = cache_dir__make(dir);
	if (err)
		goto out;
	err = open_copy(path, id);
	if (err >= 0)
		goto out;
	err = make_copy(e, dir, name, path, max_bytes);
	if (!err)
		err = open_copy(path, id);
	if (err >= 0)
		pr_debug("debug cache: made %s", path);
out:
	elf_file__free(e);
	if (err < 0)
		say_once(dir, err);
	return err;
}

// SPDX-License-Identifier: Apache-2.0
/* /proc/kallsyms reader. Names live in one arena; the table holds offsets into it, so
 * loading ~200k symbols costs two allocations that grow, not 200k. A function's padding
 * symbol ("__pfx_NAME") and the function share one entry and one name. */
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/ksyms.h"
#include "util/crash.h"

#define PFX_LEN 6 /* strlen("__pfx_") */
#define KSYMS_MODULES_MAX UINT16_MAX

/* One entry, 16 bytes: [addr, addr + pfx) is "__pfx_NAME" (names + name), the rest NAME
 * (names + name + PFX_LEN); with pfx 0, all of it is names + name. Half of a 6.2+
 * kernel's text symbols are padding (58 k of 122 k here): this halves the table. */
struct ksym {
	uint64_t addr;
	uint32_t name;	 /* offset into names */
	uint16_t module; /* index into modules; 0 is the kernel image ("") */
	uint16_t pfx;	 /* bytes of padding before the function, 0: none */
};

struct ksyms {
	struct ksym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	size_t last_pfx;   /* offset of the last name if it was "__pfx_...", else 0 */
	uint32_t *modules; /* offsets of module names into names; [0] is "" */
	uint16_t nmodules;
};

static int64_t arena_add(struct ksyms *k, const char *s, size_t len)
{
	size_t off = k->names_len;

	if (k->names_len + len + 1 > k->names_cap) {
		size_t cap = k->names_cap ? k->names_cap * 2 : 1 << 20;
		char *p;

		while (cap < k->names_len + len + 1)
			cap *= 2;
		p = realloc(k->names, cap);
		if (!p)
			return -ENOMEM;
		k->names = p;
		k->names_cap = cap;
	}
	memcpy(k->names + off, s, len);
	k->names[off + len] = '\0';
	k->names_len += len + 1;
	return off;
}

/* The padding before each function (6.2+: call thunks, CFI) has a symbol of its own,
 * "__pfx_NAME", listed just before NAME: half the table here (58 k of 122 k). NAME
 * then shares the tail of its padding's name instead of a copy. */
static int64_t name_off(struct ksyms *k, const char *name, size_t len)
{
	if (k->last_pfx && len == k->names_len - k->last_pfx - 7 &&
	    memcmp(k->names + k->last_pfx + 6, name, len) == 0)
		return k->last_pfx + 6;
	return arena_add(k, name, len);
}

/* Whether NAME, named at off, is the function whose padding the last entry is: the
 * padding's entry then covers both. */
static bool joins_padding(const struct ksyms *k, uint64_t addr, int64_t off, uint16_t module)
{
	const struct ksym *last = k->n ? &k->syms[k->n - 1] : NULL;

	return last && !last->pfx && k->last_pfx && (size_t)off == k->last_pfx + PFX_LEN &&
	       last->name == k->last_pfx && last->module == module && addr > last->addr &&
	       addr - last->addr <= UINT16_MAX;
}

static int ksyms__push(struct ksyms *k, uint64_t addr, const char *name, uint16_t module)
{
	size_t len = strlen(name);
	int64_t off;

	off = name_off(k, name, len);
	if (off < 0)
		return off;
	if (joins_padding(k, addr, off, module)) {
		k->syms[k->n - 1].pfx = (uint16_t)(addr - k->syms[k->n - 1].addr);
		k->last_pfx = 0;
		return 0;
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 65536;
		struct ksym *v = realloc(k->syms, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->syms = v;
		k->cap = cap;
	}
	/* Only the name just added can be shared: it must end the arena. */
	k->last_pfx = len > PFX_LEN && (size_t)off + len + 1 == k->names_len &&
			      !strncmp(name, "__pfx_", PFX_LEN)
			  ? (size_t)off
			  : 0;
	k->syms[k->n++] = (struct ksym){addr, (uint32_t)off, module, 0};
	return 0;
}

/* Gives back the tables' unused capacity once loaded (a failed shrink keeps it). */
static void shrink(struct ksyms *k)
{
	struct ksym *v = k->n ? realloc(k->syms, k->n * sizeof(*v)) : NULL;
	char *names = realloc(k->names, k->names_len);

	if (v) {
		k->syms = v;
		k->cap = k->n;
	}
	if (names) {
		k->names = names;
		k->names_cap = k->names_len;
	}
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Module names repeat for thousands of lines in a row: the last one is interned. Returns
 * mod's index in modules, 0 for none, or a negative errno (-E2BIG past
 * KSYMS_MODULES_MAX runs of module lines). */
static int module_index(struct ksyms *k, const char *mod)
{
	const char *last = k->names + k->modules[k->nmodules - 1];
	size_t len;
	int64_t off;
	uint32_t *v;

	if (!mod)
		return 0;
	len = strcspn(mod, "]");
	if (k->nmodules > 1 && strncmp(last, mod, len) == 0 && last[len] == '\0')
		return k->nmodules - 1;
	if (k->nmodules == KSYMS_MODULES_MAX)
		return -E2BIG;
	v = realloc(k->modules, (k->nmodules + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	k->modules = v;
	off = arena_add(k, mod, len);
	if (off < 0)
		return (int)off;
	k->modules[k->nmodules] = (uint32_t)off;
	return k->nmodules++;
}

/* Parses "ADDR TYPE NAME [MODULE]" by hand: sscanf took most of the load's user time
 * over 120k lines. Returns false for a line that is not one. */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name, char **module)
{
	char *p = line, *end;

	*addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return false;
	p = end + 1;
	if (!*p || p[1] != ' ')
		return false;
	*type = *p;
	p += 2;
	*name = p;
	p += strcspn(p, " \t\n");
	if (p == *name || p - *name > 255)
		return false;
	*module = *p && *p != '\n' ? strchr(p, '[') : NULL;
	*p = '\0';
	return true;
}

static int ksyms__parse(struct ksyms *k, FILE *fp)
{
	char line[512], type, *name, *modname;
	bool any_nonzero = false;
	uint64_t addr;
	int err, mod;

	k->modules = calloc(1, sizeof(*k->modules));
	if (!k->modules || arena_add(k, "", 0) < 0)
		return -ENOMEM;
	k->nmodules = 1;
	while (fgets(line, sizeof(line), fp)) {
		if (!parse_line(line, &addr, &type, &name, &modname))
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		any_nonzero |= addr != 0;
		mod = module_index(k, modname ? modname + 1 : NULL);
		if (mod < 0)
			return mod;
		err = ksyms__push(k, addr, name, (uint16_t)mod);
		if (err)
			return err;
	}
	if (!any_nonzero)
		return -EPERM;
	qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	shrink(k);
	return 0;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	FILE *fp;
	int err;

	if (!k)
		return NULL;
	fp = fopen(path, "re");
	if (!fp) {
		err = -errno;
		goto fail;
	}
	/* Each read of /proc/kallsyms is a pass of the kernel's generator: few, large. */
	setvbuf(fp, NULL, _IOFBF, 256 << 10);
	err = ksyms__parse(k, fp);
	fclose(fp);
	if (err)
		goto fail;
	return k;
fail:
	ksyms__free(k);
	errno = -err;
	return NULL;
}

void ksyms__free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k->modules);
	free(k);
}

const char *ksyms__lookup(const struct ksyms *k, uint64_t addr, const char **module)
{
	size_t lo = 0, hi = k->n;
	const struct ksym *s;

	/* Find the last symbol at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &k->syms[lo - 1];
	if (module)
		*module = k->names + k->modules[s->module];
	return k->names + s->name + (s->pfx && addr - s->addr >= s->pfx ? PFX_LEN : 0);
}

size_t ksyms__memory(const struct ksyms *k)
{
	return k ? k->cap * sizeof(*k->syms) + k->names_cap + k->nmodules * sizeof(*k->modules) : 0;
}

struct ksyms_loading {
	pthread_t thread;
	const char *path;
	struct ksyms *k;
	int err;
};

static void *load_main(void *arg)
{
	struct ksyms_loading *l = arg;

	pthread_setname_np(pthread_self(), "ebprof-ksyms");
	l->k = ksyms__load(l->path);
	l->err = l->k ? 0 : errno;
	return NULL;
}

struct ksyms_loading *ksyms__load_start(const char *path)
{
	struct ksyms_loading *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->path = path;
	if (crash__thread_create(&l->thread, load_main, l)) {
		free(l);
		return NULL;
	}
	return l;
}

struct ksyms *ksyms__load_finish(struct ksyms_loading *l)
{
	struct ksyms *k;
	int err;

	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_join(l->thread, NULL);
	k = l->k;
	err = l->err;
	free(l);
	errno = err;
	return k;
}

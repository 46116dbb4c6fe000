// SPDX-License-Identifier: Apache-2.0
/* Managed pcs named from a CoreCLR process's code heaps and its modules' metadata
 * (dotnet_names.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "interp/dotnet/dotnet_names.h"
#include "interp/dotnet/dotnet_pe.h"
#include "interp/runtime_state.h"

#define MAX_MODULES 256
#define MAX_FILE (512u << 20) /* an assembly larger than this is not opened */

/* A module whose methods were named: its file mapped, its metadata (ok), or not. */
struct dn_module {
	uint64_t module;
	bool ok;
	char file[DN_NAME_MAX + 8]; /* "Name.dll" */
	void *map;
	size_t size;
	struct dn_pe pe;
};

struct dn_names {
	uint32_t pid; /* first: the memory reader's context (runtime_proc__read) */
	const struct dn_layout *l;
	uint64_t jm_addr;
	int nheaps;
	struct dn_heap heaps[DN_MAX_HEAPS];
	uint32_t nmodules;
	struct dn_module *modules[MAX_MODULES]; /* made as the process's frames need them */
};

struct dn_names *dn_names__new(uint32_t pid, const struct dn_layout *l, uint64_t jm_addr)
{
	struct dn_names *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->pid = pid;
	n->l = l;
	n->jm_addr = jm_addr;
	return n;
}

void dn_names__free(struct dn_names *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < n->nmodules; i++) {
		if (n->modules[i]->map)
			munmap(n->modules[i]->map, n->modules[i]->size);
		free(n->modules[i]);
	}
	free(n);
}

/* The heap holding pc, the heaps read again when none does (one was added). */
static const struct dn_heap *heap_of(struct dn_names *n, uint64_t pc)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n->nheaps; i++)
			if (pc >= n->heaps[i].start && pc < n->heaps[i].end)
				return &n->heaps[i];
		if (pass)
			break;
		n->nheaps =
		    dn_code__heaps(runtime_proc__read, n, n->l, n->jm_addr, n->heaps, DN_MAX_HEAPS);
		if (n->nheaps < 0)
			n->nheaps = 0;
	}
	return NULL;
}

/* The path of the file pid maps whose name is name.dll or name.exe, into path. */
static int find_file(uint32_t pid, const char *name, char *path, size_t cap)
{
	char maps[64], line[4096 + 128];
	size_t len = strlen(name);
	int err = -ENOENT;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%u/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/'), *base;

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		base = strrchr(p, '/') + 1;
		if (!strncmp(base, name, len) &&
		    (!strcmp(base + len, ".dll") || !strcmp(base + len, ".exe")))
			err = snprintf(path, cap, "/proc/%u/root%s", pid, p) < (int)cap
				  ? 0
				  : -ENAMETOOLONG;
	}
	fclose(f);
	return err;
}

/* Maps module file path and reads its metadata into m. */
static void open_module(struct dn_module *m, const char *path)
{
	m->map = dn_pe__map(path, MAX_FILE, &m->size);
	m->ok = m->map && !dn_pe__open(&m->pe, m->map, m->size);
}

/* The module at address module (named name), its file opened the first time. NULL when
 * the table is full (or on ENOMEM). */
static struct dn_module *module_of(struct dn_names *n, uint64_t module, const char *name)
{
	char path[4096 + 64];
	struct dn_module *m;
	const char *base;

	for (uint32_t i = 0; i < n->nmodules; i++)
		if (n->modules[i]->module == module)
			return n->modules[i];
	if (n->nmodules >= MAX_MODULES)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	n->modules[n->nmodules++] = m;
	m->module = module;
	snprintf(m->file, sizeof(m->file), "%s", name);
	if (find_file(n->pid, name, path, sizeof(path)))
		return m;
	base = strrchr(path, '/') + 1;
	snprintf(m->file, sizeof(m->file), "%s", base);
	open_module(m, path);
	return m;
}

static void stub_name(uint32_t kind, char *func, size_t cap)
{
	/* STUB_CODE_BLOCK_JUMPSTUB is 1 in every version; the other kinds' numbers
	 * moved between versions, and are said as numbers. */
	if (kind == 1)
		snprintf(func, cap, "[.NET stub: jump stub]");
	else
		snprintf(func, cap, "[.NET stub: kind %u]", kind);
}

int dn_names__lookup(struct dn_names *n, uint64_t pc, char *func, size_t cap, const char **file,
		     uint64_t *start, uint64_t *header)
{
	const struct dn_heap *h = heap_of(n, pc);
	struct dn_method md = {0};
	struct dn_module *m;

	*file = "";
	if (!h || dn_code__start(runtime_proc__read, n, h, pc, &md.start) ||
	    dn_code__header(runtime_proc__read, n, md.start, &md.header))
		return DN_NAME_NONE;
	*start = md.start;
	*header = md.header;
	if (dn_code__method(runtime_proc__read, n, n->l, &md))
		return DN_NAME_NONE;
	if (md.stub) {
		stub_name(md.stub, func, cap);
		return DN_NAME_STUB;
	}
	/* A dynamic method (an IL stub: P/Invoke and delegate marshalling) has no token. */
	if (md.classification == 7) {
		snprintf(func, cap, "[.NET stub: IL stub]");
		return DN_NAME_STUB;
	}
	m = module_of(n, md.module, md.module_name);
	if (!m)
		return DN_NAME_NONE;
	*file = m->file;
	if (!m->ok || dn_pe__method_name(&m->pe, md.token, func, cap))
		snprintf(func, cap, "[.NET method 0x06%06x]", md.token & 0xffffff);
	return DN_NAME_METHOD;
}

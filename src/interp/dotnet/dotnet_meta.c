// SPDX-License-Identifier: Apache-2.0
/* CoreCLR's version, DAC table and managed ranges (dotnet_meta.h): every input is
 * foreign (a path, a file's bytes, another process's memory), every read bounded. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "interp/dotnet/dotnet_meta.h"

/* Parses "N.N.N" exactly (each number at most 9 digits) into v. */
static bool parse_triple(const char *s, size_t len, uint32_t v[3])
{
	uint32_t k = 0, digits = 0;

	memset(v, 0, 3 * sizeof(*v));
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (!digits || ++k > 2)
				return false;
			digits = 0;
		} else if (s[i] >= '0' && s[i] <= '9' && digits < 9) {
			v[k] = v[k] * 10 + (uint32_t)(s[i] - '0');
			digits++;
		} else {
			return false;
		}
	}
	return k == 2 && digits;
}

bool dn_version__from_path(const char *path, struct dn_version *out)
{
	const char *file = strrchr(path, '/'), *dir;

	memset(out, 0, sizeof(*out));
	if (!file || file == path)
		return false;
	for (dir = file - 1; dir > path && dir[-1] != '/'; dir--)
		;
	return parse_triple(dir, (size_t)(file - dir), out->v);
}

/* Copies the token at s (up to a space or the end, at most cap - 1 bytes) into dst. */
static void copy_token(char *dst, size_t cap, const char *s, const char *end)
{
	size_t n = 0;

	while (s + n < end && n + 1 < cap && s[n] > ' ' && s[n] < 0x7f)
		n++;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

bool dn_version__from_data(const void *data, size_t len, struct dn_version *out)
{
	static const char tag[] = "@(#)Version ", commit[] = "@Commit: ";
	const char *d = data, *end = d + len, *at, *c;
	uint32_t v[3] = {0};

	at = memmem(data, len, tag, sizeof(tag) - 1);
	if (!at)
		return false;
	at += sizeof(tag) - 1;
	copy_token(out->build, sizeof(out->build), at, end);
	c = at + strlen(out->build);
	while (c < end && *c == ' ')
		c++;
	if ((size_t)(end - c) > sizeof(commit) - 1 && !memcmp(c, commit, sizeof(commit) - 1))
		copy_token(out->commit, sizeof(out->commit), c + sizeof(commit) - 1, end);
	/* The file version is major.minor.build.revision (8.0.424.16909): its patch is not
	 * the release's (8.0.4), which only the folder says. */
	if (!out->v[0] && sscanf(out->build, "%u.%u", &v[0], &v[1]) == 2) {
		out->v[0] = v[0];
		out->v[1] = v[1];
	}
	return true;
}

int dn_dac__read(dn_read_fn read, void *ctx, uint64_t table, uint64_t base, uint64_t span,
		 uint64_t out[DN_DAC_ENTRIES])
{
	uint64_t e[DN_DAC_ENTRIES];
	int err = read(ctx, table, e, sizeof(e));

	if (err)
		return err;
	for (int i = 0; i < DN_DAC_ENTRIES; i++) {
		if (!e[i])
			return -EAGAIN;
		if (e[i] >= base && e[i] - base < span)
			out[i] = e[i];
		else if (e[i] < span)
			out[i] = base + e[i];
		else
			return -EINVAL;
	}
	return 0;
}

uint32_t dn_ranges__build(const struct dn_map *maps, uint32_t n, struct dn_range *out, uint32_t max,
			  uint32_t *dropped)
{
	uint32_t k = 0;
	bool open = false;

	*dropped = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (maps[i].kind != DN_MAP_MANAGED || maps[i].end <= maps[i].start) {
			open = false;
			continue;
		}
		/* Mappings come sorted; one that is not (or overlaps) starts a run anew. */
		if (open && maps[i].start >= out[k - 1].high) {
			out[k - 1].high = maps[i].end;
			continue;
		}
		if (k >= max) {
			(*dropped)++;
			open = false;
			continue;
		}
		out[k++] = (struct dn_range){.low = maps[i].start, .high = maps[i].end};
		open = true;
	}
	return k;
}

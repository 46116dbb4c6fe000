// SPDX-License-Identifier: Apache-2.0
/* What libcurl costs a process's resident set, step by step, as the agent loads it
 * (export/curl_lib.c): dlopen of libcurl.so.4 and its libraries, an optional
 * OPENSSL_init_ssl first with the flags given (e.g. 0x100081: no error strings, no
 * config), curl_global_init with the flags given, one plaintext POST, then the read-only
 * file pages given back (MADV_PAGEOUT) and three more POSTs. RSS, file-backed and
 * anonymous, from /proc/self/smaps_rollup. Issue 37's question: can a plaintext endpoint
 * avoid OpenSSL's initialisation, and what would it save.
 *   cc -O1 -o /tmp/curl_rss bench/curl_rss.c -ldl
 *   /tmp/curl_rss URL [GLOBAL_FLAGS [OPENSSL_INIT_FLAGS]]   (URL: a sink, bench/otlp_sink.py) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static void rss(const char *what)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	long r = 0, a = 0;
	char l[256];

	if (!f)
		return;
	while (fgets(l, sizeof(l), f)) {
		if (!strncmp(l, "Rss:", 4))
			r = atol(l + 4);
		if (!strncmp(l, "Anonymous:", 10))
			a = atol(l + 10);
	}
	fclose(f);
	printf("%-32s RSS %6ld KiB: file %6ld, anonymous %5ld\n", what, r, r - a, a);
}

/* MADV_PAGEOUT over every read-only file mapping, as util/resident.c does. */
static void page_out(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char l[4096], perm[8];

	if (!f)
		return;
	while (fgets(l, sizeof(l), f))
		if (sscanf(l, "%lx-%lx %7s", &lo, &hi, perm) == 3 && !strchr(perm, 'w') &&
		    strchr(l, '/'))
			madvise((void *)lo, hi - lo, MADV_PAGEOUT);
	fclose(f);
}

int main(int argc, char **argv)
{
	long gflags = argc > 2 ? strtol(argv[2], NULL, 0) : 3; /* CURL_GLOBAL_DEFAULT */
	unsigned long long pre = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
	void *h, *e;
	int (*global_init)(long);
	void *(*easy_init)(void);
	int (*setopt)(void *, int, ...);
	int (*perform)(void *);

	if (argc < 2)
		return 2;
	rss("start");
	h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 1;
	rss("libcurl loaded");
	if (pre) {
		void *ssl = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
		int (*init)(unsigned long long, const void *) =
		    ssl ? dlsym(ssl, "OPENSSL_init_ssl") : NULL;

		if (!init || !init(pre, NULL))
			return 1;
		rss("OPENSSL_init_ssl first");
	}
	global_init = dlsym(h, "curl_global_init");
	easy_init = dlsym(h, "curl_easy_init");
	setopt = dlsym(h, "curl_easy_setopt");
	perform = dlsym(h, "curl_easy_perform");
	if (!global_init || !easy_init || !setopt || !perform || global_init(gflags))
		return 1;
	rss("curl_global_init");
	e = easy_init();
	setopt(e, 10002 /* CURLOPT_URL */, argv[1]);
	setopt(e, 99 /* CURLOPT_NOSIGNAL */, 1L);
	setopt(e, 10015 /* CURLOPT_POSTFIELDS */, "x");
	printf("POST: %d\n", perform(e));
	rss("one POST");
	page_out();
	rss("read-only file pages given back");
	for (int i = 0; i < 3; i++)
		perform(e);
	rss("three more POSTs");
	return 0;
}

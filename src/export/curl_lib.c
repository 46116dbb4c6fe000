// SPDX-License-Identifier: Apache-2.0
/* Loading libcurl and libcrypto on first use (see curl_lib.h for why). The sonames are
 * Debian's: libcurl4 (or libcurl4-openssl-dev's libcurl.so.4) and libssl3's
 * libcrypto.so.3, which libcurl itself depends on, so loading it costs nothing more. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "export/curl_lib.h"
#include "util/log.h"

static struct curl_lib lib;
static const struct curl_lib *loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Each symbol, the offset of its slot in the table, and the library it comes from. */
static const struct {
	const char *name;
	size_t slot;
	int crypto;
} symbols[] = {
    {"curl_global_init", offsetof(struct curl_lib, global_init), 0},
    {"curl_easy_init", offsetof(struct curl_lib, easy_init), 0},
    {"curl_easy_setopt", offsetof(struct curl_lib, easy_setopt), 0},
    {"curl_easy_perform", offsetof(struct curl_lib, easy_perform), 0},
    {"curl_easy_getinfo", offsetof(struct curl_lib, easy_getinfo), 0},
    {"curl_easy_cleanup", offsetof(struct curl_lib, easy_cleanup), 0},
    {"curl_easy_strerror", offsetof(struct curl_lib, easy_strerror), 0},
    {"curl_slist_append", offsetof(struct curl_lib, slist_append), 0},
    {"curl_slist_free_all", offsetof(struct curl_lib, slist_free_all), 0},
    {"curl_url", offsetof(struct curl_lib, url), 0},
    {"curl_url_set", offsetof(struct curl_lib, url_set), 0},
    {"curl_url_get", offsetof(struct curl_lib, url_get), 0},
    {"curl_url_cleanup", offsetof(struct curl_lib, url_cleanup), 0},
    {"curl_free", offsetof(struct curl_lib, free), 0},
    {"curl_version_info", offsetof(struct curl_lib, version_info), 0},
    {"EVP_DecodeBlock", offsetof(struct curl_lib, decode_base64), 1},
};

static void *open_lib(const char *soname, const char *package)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		pr_err("OTLP needs %s (Debian package %s): %s", soname, package, dlerror());
	return h;
}

static void load(void)
{
	void *curl = open_lib("libcurl.so.4", "libcurl4");
	void *crypto = curl ? open_lib("libcrypto.so.3", "libssl3") : NULL;

	if (!curl || !crypto)
		return;
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *fn = dlsym(symbols[i].crypto ? crypto : curl, symbols[i].name);

		if (!fn) {
			pr_err("OTLP: %s has no %s: %s",
			       symbols[i].crypto ? "libcrypto" : "libcurl", symbols[i].name,
			       dlerror());
			return;
		}
		*(void **)((char *)&lib + symbols[i].slot) = fn;
	}
	if (lib.global_init(CURL_GLOBAL_DEFAULT)) {
		pr_err("OTLP: curl_global_init failed");
		return;
	}
	/* The handles stay open for the life of the process: libcurl keeps global state. */
	loaded = &lib;
}

const struct curl_lib *curl_lib__get(void)
{
	pthread_once(&once, load);
	return loaded;
}

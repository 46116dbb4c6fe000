/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl (and the one libcrypto function the OTLP transport uses), loaded with dlopen
 * the first time the agent needs them. Linking libcurl pulled 30 more shared libraries
 * into every `ebprof record`, about 11 ms of start-up on page faults alone, for a
 * transport only `ebprof agent` uses; `record` and `check` also run on hosts without
 * libcurl installed. Calls go through this table with the types of curl.h. */
#ifndef EBPROF_CURL_LIB_H
#define EBPROF_CURL_LIB_H

#include <curl/curl.h>

struct curl_lib {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
	__typeof__(curl_url) *url;
	__typeof__(curl_url_set) *url_set;
	__typeof__(curl_url_get) *url_get;
	__typeof__(curl_url_cleanup) *url_cleanup;
	__typeof__(curl_free) *free;
	__typeof__(curl_version_info) *version_info;
	/* libcrypto's EVP_DecodeBlock: base64 of gRPC's binary trailers */
	int (*decode_base64)(unsigned char *out, const unsigned char *in, int len);
};

/* Loads the libraries and runs curl_global_init once (thread-safe). Returns the table,
 * or NULL after logging which library could not be loaded and the package to install. */
const struct curl_lib *curl_lib__get(void);

#endif

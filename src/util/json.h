/* SPDX-License-Identifier: Apache-2.0 */
/* JSON strings from text another process gave us (thread and function names, paths):
 * whatever the bytes, what is written is valid JSON and valid UTF-8. One writer for
 * every JSON output: `ebprof check --json`, `ebprof dump --json`, the flame graph's
 * embedded data. */
#ifndef EBPROF_UTIL_JSON_H
#define EBPROF_UTIL_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UTF8_BAD UINT32_MAX

/* Decodes one UTF-8 sequence at p, which is NUL-terminated. Returns its length and sets
 * *cp to the code point, or to UTF8_BAD (length 1) for a byte that starts no valid
 * sequence: stray continuation bytes, overlong forms, surrogates, past U+10FFFF. */
size_t utf8_next(const unsigned char *p, uint32_t *cp);

enum json_flags {
	/* Also no '<', '>' or '&' (so no "</script" or "<!--"), and no line separators:
	 * safe inside an HTML <script>. */
	JSON_IN_SCRIPT = 1,
};

/* s as a JSON string, quotes included: quotes, backslashes and control characters
 * escaped, invalid UTF-8 as U+FFFD. */
void json_put_string(FILE *f, const char *s, unsigned int flags);

#endif

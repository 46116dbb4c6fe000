/* SPDX-License-Identifier: Apache-2.0 */
/* Error text for an errno or one of libbpf's own codes: libbpf returns -LIBBPF_ERRNO__*
 * (4000 and up: a file that is not ELF, a verifier refusal...), which strerror calls
 * "Unknown error 4001". Every message about a libbpf error goes through here. */
#ifndef EBPROF_UTIL_ERRSTR_H
#define EBPROF_UTIL_ERRSTR_H

#include <stddef.h>

#define ERRSTR_LEN 128

/* The text for err (negative or positive) in buf (len bytes); returns buf. */
const char *errstr_r(int err, char *buf, size_t len);

/* The text for err in a buffer that lives until the end of the enclosing block (a
 * compound literal): for the arguments of one message. */
#define errstr(err) errstr_r((err), (char[ERRSTR_LEN]){0}, ERRSTR_LEN)

#endif

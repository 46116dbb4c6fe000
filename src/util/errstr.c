// SPDX-License-Identifier: Apache-2.0
/* errno and libbpf error texts (errstr.h says why). */
#include "util/errstr.h"

#include <stdio.h>

#include <bpf/libbpf.h>

const char *errstr_r(int err, char *buf, size_t len)
{
	/* libbpf_strerror answers errno values too (strerror_r), and fails only for codes it
	 * does not know, which keep their number. */
	if (libbpf_strerror(err, buf, len))
		snprintf(buf, len, "unknown error %d", err < 0 ? -err : err);
	return buf;
}

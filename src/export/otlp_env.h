/* SPDX-License-Identifier: Apache-2.0 */
/* The OpenTelemetry environment variables that set resource attributes:
 * OTEL_RESOURCE_ATTRIBUTES ("k=v,k2=v2", values percent-encoded) and OTEL_SERVICE_NAME.
 * The agent applies them host-wide, to every process's resource. */
#ifndef EBPROF_EXPORT_OTLP_ENV_H
#define EBPROF_EXPORT_OTLP_ENV_H

#include <stddef.h>

#include "export/otlp.h"

struct otlp_env {
	struct otlp_attr *attrs; /* decoded, keys unique (a repeated key: the last wins) */
	size_t nattrs;
	/* OTEL_SERVICE_NAME, else service.name from OTEL_RESOURCE_ATTRIBUTES (then not in
	 * attrs), else NULL. */
	char *service_name;
};

/*
 * Parses the values of OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (either may be
 * NULL or empty: unset). Whitespace around keys, values and commas is ignored, and so
 * are empty entries ("a=b,,c=d", a trailing comma); keys and values are percent-decoded.
 * Returns 0 with env filled (free with otlp_env__free), or -EINVAL with a one-line reason
 * in err (naming the variable and the entry) and env empty; -ENOMEM.
 */
int otlp_env__parse(struct otlp_env *env, const char *resource_attributes, const char *service_name,
		    char *err, size_t errlen);

void otlp_env__free(struct otlp_env *env);

#endif

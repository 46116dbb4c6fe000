/* SPDX-License-Identifier: Apache-2.0 */
/* Parser of OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME: the attributes a user sets
 * for every resource the agent sends. Malformed input is refused whole, with the entry
 * that is wrong, rather than half applied. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/otlp_env.h"

#define VAR "OTEL_RESOURCE_ATTRIBUTES"
#define SHOW_MAX 60 /* characters of a bad entry quoted in an error */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Narrows [*s, *e) to its text without surrounding whitespace. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && is_space(**s))
		(*s)++;
	while (*e > *s && is_space((*e)[-1]))
		(*e)--;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decodes [s, e) into a new string; *why says what is wrong on -EINVAL. */
static int percent_decode(const char *s, const char *e, char **out, const char **why)
{
	char *d = malloc(e - s + 1), *p = d;
	int hi, lo;

	if (!d)
		return -ENOMEM;
	while (s < e) {
		if (*s != '%') {
			*p++ = *s++;
			continue;
		}
		hi = e - s > 2 ? hex_digit(s[1]) : -1;
		lo = e - s > 2 ? hex_digit(s[2]) : -1;
		if (e - s < 3 || hi < 0 || lo < 0) {
			*why = "'%' is not followed by two hex digits";
			goto bad;
		}
		if (!hi && !lo) {
			*why = "%00 (a NUL byte) cannot be carried";
			goto bad;
		}
		*p++ = (char)(hi << 4 | lo);
		s += 3;
	}
	*p = '\0';
	*out = d;
	return 0;
bad:
	free(d);
	return -EINVAL;
}

/* Sets key = value (both malloc'd, taken over), replacing an earlier value of key. */
static int env__set(struct otlp_env *env, char *key, char *value)
{
	struct otlp_attr *a;

	if (!strcmp(key, "service.name")) {
		free(env->service_name);
		env->service_name = value;
		free(key);
		return 0;
	}
	for (size_t i = 0; i < env->nattrs; i++) {
		if (!strcmp(env->attrs[i].key, key)) {
			free((char *)env->attrs[i].value);
			env->attrs[i].value = value;
			free(key);
			return 0;
		}
	}
	a = realloc(env->attrs, (env->nattrs + 1) * sizeof(*a));
	if (!a) {
		free(key);
		free(value);
		return -ENOMEM;
	}
	env->attrs = a;
	env->attrs[env->nattrs++] = (struct otlp_attr){key, value};
	return 0;
}

/* Parses one "key=value" entry [s, e), already trimmed and not empty. */
static int env__entry(struct otlp_env *env, const char *s, const char *e, const char **why)
{
	const char *eq = memchr(s, '=', e - s), *ks = s, *ke = eq, *vs = eq + 1, *ve = e;
	char *key = NULL, *value = NULL;
	int err;

	if (!eq) {
		*why = "has no '='";
		return -EINVAL;
	}
	trim(&ks, &ke);
	trim(&vs, &ve);
	if (ks == ke) {
		*why = "has an empty key";
		return -EINVAL;
	}
	err = percent_decode(ks, ke, &key, why);
	if (!err)
		err = percent_decode(vs, ve, &value, why);
	if (err) {
		free(key);
		return err;
	}
	return env__set(env, key, value);
}

static int env__attributes(struct otlp_env *env, const char *list, char *err, size_t errlen)
{
	const char *s = list, *e, *why = NULL;
	size_t n = 0;
	int ret;

	for (; *s; s = *e ? e + 1 : e) {
		const char *ts, *te;

		e = strchrnul(s, ',');
		ts = s;
		te = e;
		trim(&ts, &te);
		n++;
		if (ts == te)
			continue; /* "a=b,,c=d" and a trailing comma are harmless */
		ret = env__entry(env, ts, te, &why);
		if (ret == -EINVAL)
			snprintf(err, errlen, "%s: entry %zu \"%.*s%s\" %s", VAR, n,
				 (int)(te - ts > SHOW_MAX ? SHOW_MAX : te - ts), ts,
				 te - ts > SHOW_MAX ? "..." : "", why);
		if (ret)
			return ret;
	}
	return 0;
}

int otlp_env__parse(struct otlp_env *env, const char *resource_attributes, const char *service_name,
		    char *err, size_t errlen)
{
	const char *s = service_name, *e = s ? s + strlen(s) : NULL;
	int ret = 0;

	memset(env, 0, sizeof(*env));
	if (errlen)
		err[0] = '\0';
	if (resource_attributes)
		ret = env__attributes(env, resource_attributes, err, errlen);
	if (!ret && s) {
		trim(&s, &e);
		if (s < e) { /* set: it overrides service.name from the attributes */
			free(env->service_name);
			env->service_name = strndup(s, e - s);
			ret = env->service_name ? 0 : -ENOMEM;
		}
	}
	if (ret)
		otlp_env__free(env);
	return ret;
}

void otlp_env__free(struct otlp_env *env)
{
	for (size_t i = 0; i < env->nattrs; i++) {
		free((char *)env->attrs[i].key);
		free((char *)env->attrs[i].value);
	}
	free(env->attrs);
	free(env->service_name);
	memset(env, 0, sizeof(*env));
}

// SPDX-License-Identifier: Apache-2.0
/* A zend_function read from another process and named (php_names.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interp/php/php_names.h"

#define PHP_HEAD_MAX 256 /* bytes of a function's head read: every member used lies there */
#define STR_HEAD 32	 /* a zend_string's header: len and the first bytes of val lie there */

static uint64_t field64(const uint8_t *head, size_t size, uint16_t off)
{
	uint64_t v = 0;

	if ((size_t)off + sizeof(v) <= size)
		memcpy(&v, head + off, sizeof(v));
	return v;
}

/* Reads the zend_string at addr into out (cap bytes, NUL-terminated; cut to fit), and
 * its hash into *hash when not NULL. A NUL inside the text ends it there. Returns 0 or a
 * negative errno. */
static int read_string(const struct php_mem *m, const struct php_name_offsets *o, uint64_t addr,
		       char *out, size_t cap, uint64_t *hash)
{
	uint8_t head[STR_HEAD];
	uint64_t len;
	int err;

	out[0] = '\0';
	if (!addr || o->str_len + sizeof(len) > sizeof(head) ||
	    PHP_STR_HASH + sizeof(*hash) > sizeof(head))
		return -EINVAL;
	err = m->read(m->ctx, addr, head, sizeof(head));
	if (err)
		return err;
	memcpy(&len, head + o->str_len, sizeof(len));
	if (hash)
		memcpy(hash, head + PHP_STR_HASH, sizeof(*hash));
	if (len >= cap)
		len = cap - 1;
	err = m->read(m->ctx, addr + o->str_val, out, len);
	if (err) {
		out[0] = '\0';
		return err;
	}
	out[len] = '\0';
	return 0;
}

/* "{closure}" for a closure, however the version names it: "{closure}", in a namespace
 * "App\{closure}", and from 8.4 "{closure:WHERE:LINE}" (WHERE a file, or a method with
 * its namespace), whose file and line the frame carries anyway. */
static bool closure_name(char *name)
{
	const char *own = name;

	if (strncmp(own, "{closure", 8) != 0) {
		own = strstr(name, "\\{closure");
		if (!own)
			return false;
		own++;
	}
	if (own[8] != '}' && own[8] != ':')
		return false;
	strcpy(name, "{closure}");
	return true;
}

/* Prefixes the method name in f->name with its class's: "Class::method". */
static void add_class(const struct php_mem *m, const struct php_name_offsets *o, uint64_t scope,
		      struct php_func *f)
{
	char cls[PHP_NAME_MAX];
	uint64_t name = 0;
	size_t c, n = strlen(f->name);

	if (!scope || m->read(m->ctx, scope + o->class_name, &name, sizeof(name)))
		return;
	if (read_string(m, o, name, cls, sizeof(cls), NULL) || !cls[0])
		return;
	/* "Class::" before the method's name, the whole cut to the buffer. */
	c = strlen(cls) + 2;
	if (c >= sizeof(f->name))
		return;
	if (n > sizeof(f->name) - 1 - c)
		n = sizeof(f->name) - 1 - c;
	memmove(f->name + c, f->name, n);
	memcpy(f->name, cls, c - 2);
	memcpy(f->name + c - 2, "::", 2);
	f->name[c + n] = '\0';
}

/* The bytes of a function's head to read: a user function's up to its line_start. */
static size_t head_size(const struct php_name_offsets *o, uint8_t type)
{
	size_t n = o->fn_scope + 8;

	if (type != PHP_INTERNAL_FUNCTION) {
		if ((size_t)o->fn_filename + 8 > n)
			n = o->fn_filename + 8;
		if ((size_t)o->fn_line_start + 4 > n)
			n = o->fn_line_start + 4;
		if ((size_t)o->fn_opcodes + 8 > n)
			n = o->fn_opcodes + 8;
		if ((size_t)o->fn_last + 4 > n)
			n = o->fn_last + 4;
	}
	return n;
}

int php_func__read(const struct php_mem *mem, const struct php_layout *l, uint64_t addr,
		   struct php_func *out)
{
	const struct php_name_offsets *o = &l->names;
	uint8_t head[PHP_HEAD_MAX];
	size_t n;
	int err;

	memset(out, 0, sizeof(*out));
	err = mem->read(mem->ctx, addr + o->fn_type, &out->type, 1);
	if (err)
		return err;
	if (out->type != PHP_INTERNAL_FUNCTION && out->type != PHP_FN_USER &&
	    out->type != PHP_FN_EVAL_CODE)
		return -EINVAL;
	n = head_size(o, out->type);
	if (n > sizeof(head))
		return -EINVAL;
	err = mem->read(mem->ctx, addr, head, n);
	if (err)
		return err;
	if (out->type == PHP_INTERNAL_FUNCTION) {
		out->tag = php_tag(field64(head, n, o->fn_name));
	} else {
		out->opcodes = field64(head, n, o->fn_opcodes);
		memcpy(&out->last, head + o->fn_last, sizeof(out->last));
		out->tag = php_tag(out->opcodes);
		err = read_string(mem, o, field64(head, n, o->fn_filename), out->file,
				  sizeof(out->file), NULL);
		if (err)
			return err;
	}
	/* Top-level code has no name: the frame says what ran it. */
	if (!field64(head, n, o->fn_name) || out->type == PHP_FN_EVAL_CODE) {
		out->code = out->type != PHP_INTERNAL_FUNCTION;
		return out->code ? 0 : -EINVAL;
	}
	err = read_string(mem, o, field64(head, n, o->fn_name), out->name, sizeof(out->name), NULL);
	if (err)
		return err;
	if (!out->name[0])
		return -EINVAL;
	if (!closure_name(out->name))
		add_class(mem, o, field64(head, n, o->fn_scope), out);
	return 0;
}

#define OPS_PER_READ 128

int php_func__lines(const struct php_mem *mem, const struct php_layout *l, const struct php_func *f,
		    uint32_t **lines, uint32_t *n)
{
	uint8_t ops[OPS_PER_READ * PHP_OP_SIZE];
	uint32_t count = f->last < PHP_LINES_MAX ? f->last : PHP_LINES_MAX, *out;
	int err;

	*lines = NULL;
	*n = 0;
	if (!f->opcodes || !count || l->names.op_lineno + 4 > PHP_OP_SIZE)
		return -ENOENT;
	out = malloc(count * sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i += OPS_PER_READ) {
		uint32_t k = count - i < OPS_PER_READ ? count - i : OPS_PER_READ;

		err = mem->read(mem->ctx, f->opcodes + (uint64_t)i * PHP_OP_SIZE, ops,
				k * PHP_OP_SIZE);
		if (err) {
			free(out);
			return err;
		}
		for (uint32_t j = 0; j < k; j++)
			memcpy(&out[i + j], ops + j * PHP_OP_SIZE + l->names.op_lineno, 4);
	}
	*lines = out;
	*n = count;
	return 0;
}

int php_code__read(const struct php_mem *mem, const struct php_layout *l, uint64_t addr,
		   struct php_func *out)
{
	uint64_t hash = 0, len = 0, tail = 0;
	int err;

	memset(out, 0, sizeof(*out));
	out->type = PHP_FN_USER;
	out->code = true;
	err = read_string(mem, &l->names, addr, out->file, sizeof(out->file), &hash);
	if (!err)
		err = mem->read(mem->ctx, addr + l->names.str_len, &len, sizeof(len));
	/* The tag the walker made: the hash and the text's last 8 bytes. */
	if (!err && len >= sizeof(tail))
		err = mem->read(mem->ctx, addr + l->names.str_val + len - sizeof(tail), &tail,
				sizeof(tail));
	if (err)
		return err;
	out->tag = php_tag(hash ^ tail);
	return out->file[0] ? 0 : -EINVAL;
}

const char *php_func__frame_name(const struct php_func *f, unsigned int kind)
{
	static const char *const code[] = {
	    [PHP_CODE_MAIN] = "{main}",
	    [PHP_CODE_INCLUDE] = "include",
	    [PHP_CODE_INCLUDE_ONCE] = "include_once",
	    [PHP_CODE_REQUIRE] = "require",
	    [PHP_CODE_REQUIRE_ONCE] = "require_once",
	    [PHP_CODE_EVAL] = "eval",
	};

	if (!f->code)
		return f->name;
	if (f->type == PHP_FN_EVAL_CODE)
		return code[PHP_CODE_EVAL];
	return kind < sizeof(code) / sizeof(code[0]) ? code[kind] : code[PHP_CODE_MAIN];
}

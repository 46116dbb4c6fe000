// SPDX-License-Identifier: Apache-2.0
/* Unit tests of what ebprof reads of PHP: the version text of a build, execute_ex's
 * dispatch jump, and zend_functions laid out in a fake process memory as PHP 7.4, 8.2
 * and 8.4 lay them out (php_layout.c): a method, a namespaced closure and 8.4's named
 * closure, an internal function, a script's top-level code and eval'd code, top-level
 * code known by its file name alone, with their tags, the names their frames show and
 * their oplines' lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "interp/php/php_layout.h"
#include "interp/php/php_names.h"

#define BASE 0x100000ull
#define MEM 4096

/* The fake memory: MEM bytes at BASE. */
static uint8_t mem[MEM];

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < BASE || addr - BASE > MEM || len > MEM - (addr - BASE))
		return -EFAULT;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

static const struct php_mem reader = {.read = fake_read};

static void put64(uint32_t off, uint64_t v)
{
	memcpy(mem + off, &v, 8);
}

/* A zend_string at off holding s; returns its address. */
static uint64_t string_at(uint32_t off, const char *s)
{
	uint64_t len = strlen(s);

	memset(mem + off, 0, 24);
	memcpy(mem + off + 16, &len, 8);
	memcpy(mem + off + 24, s, len + 1);
	return BASE + off;
}

/* A user function at 0 of layout l: name (0: none), class (0: none), type, opcodes. */
static void user_function(const struct php_layout *l, uint8_t type, uint64_t name, uint64_t cls,
			  uint64_t opcodes)
{
	memset(mem, 0, 512);
	mem[l->names.fn_type] = type;
	put64(l->names.fn_name, name);
	put64(l->names.fn_scope, cls);
	put64(l->names.fn_opcodes, opcodes);
	put64(l->names.fn_filename, string_at(0x800, "/srv/app/Repo.php"));
}

static void test_version_text(void)
{
	static const char rodata[] = "\0PHP/9.9\0X-Powered-By: PHP/8.2.32\0Zend";
	static const char suffix[] = "X-Powered-By: PHP/7.4.33-nmm1";
	char text[PHP_VERSION_TEXT];

	CHECK(php_layout__version(rodata, sizeof(rodata), text, sizeof(text)) == 0x0802);
	CHECK(!strcmp(text, "8.2.32"));
	CHECK(php_layout__version(suffix, sizeof(suffix) - 1, text, sizeof(text)) == 0x0704);
	CHECK(!strcmp(text, "7.4.33-nmm1"));
	CHECK(php_layout__version("X-Powered-By: PHP/", 18, text, sizeof(text)) == 0);
	CHECK(php_layout__version("PHP/8.4.1", 9, text, sizeof(text)) == 0);
	CHECK(php_layout__table(0x0802) && php_layout__table(0x0704) && php_layout__table(0x0804));
	CHECK(!php_layout__table(0x0803) && !php_layout__table(0));
}

static void test_dispatch(void)
{
	/* push %r13; push %r12; push %rbp; push %rbx; sub $0x78,%rsp; mov (%rdi),%r15;
	 * jmp *(%r15) */
	static const uint8_t code[] = {0x41, 0x55, 0x41, 0x54, 0x55, 0x53, 0x48, 0x83, 0xec,
				       0x78, 0x4c, 0x8b, 0x3f, 0x41, 0xff, 0x27, 0x90};

	CHECK(php_layout__dispatch(code, sizeof(code)) == 13);
	CHECK(php_layout__dispatch(code, 15) == -1);
	CHECK(php_layout__dispatch(code + 13, 4) == -1); /* inside a prologue: not taken */
}

static void test_method(void)
{
	static const uint16_t versions[] = {0x0704, 0x0802, 0x0804};

	for (size_t i = 0; i < 3; i++) {
		const struct php_layout *l = php_layout__table(versions[i]);
		struct php_func f;

		user_function(l, PHP_FN_USER, string_at(0x600, "find"), BASE + 0x700, 0x5000);
		put64(0x700 + l->names.class_name, string_at(0x740, "App\\Repo"));
		CHECK(php_func__read(&reader, l, BASE, &f) == 0);
		CHECK(!strcmp(f.name, "App\\Repo::find"));
		CHECK(!strcmp(f.file, "/srv/app/Repo.php"));
		CHECK(!f.code && f.tag == php_tag(0x5000));
		CHECK(!strcmp(php_func__frame_name(&f, PHP_CODE_INCLUDE), "App\\Repo::find"));
	}
}

static void test_closures(void)
{
	const struct php_layout *l = php_layout__table(0x0802);
	struct php_func f;

	user_function(l, PHP_FN_USER, string_at(0x600, "App\\{closure}"), BASE + 0x700, 0x5000);
	put64(0x700 + l->names.class_name, string_at(0x740, "App\\Repo"));
	CHECK(php_func__read(&reader, l, BASE, &f) == 0);
	CHECK(!strcmp(f.name, "{closure}"));
	l = php_layout__table(0x0804);
	user_function(l, PHP_FN_USER, string_at(0x600, "{closure:/srv/app/Repo.php:33}"), 0,
		      0x5000);
	CHECK(php_func__read(&reader, l, BASE, &f) == 0);
	CHECK(!strcmp(f.name, "{closure}"));
	user_function(l, PHP_FN_USER, string_at(0x600, "App\\{closure:App\\Repo::find():11}"),
		      BASE + 0x700, 0x5000);
	CHECK(php_func__read(&reader, l, BASE, &f) == 0);
	CHECK(!strcmp(f.name, "{closure}"));
	/* A function merely named like one is not a closure. */
	user_function(l, PHP_FN_USER, string_at(0x600, "{closures}"), 0, 0x5000);
	CHECK(php_func__read(&reader, l, BASE, &f) == 0);
	CHECK(!strcmp(f.name, "{closures}"));
}

static void test_internal(void)
{
	const struct php_layout *l = php_layout__table(0x0804);
	uint64_t name = string_at(0x600, "array_map");
	struct php_func f;

	memset(mem, 0, 512);
	mem[0] = PHP_INTERNAL_FUNCTION;
	put64(l->names.fn_name, name);
	CHECK(php_func__read(&reader, l, BASE, &f) == 0);
	CHECK(!strcmp(f.name, "array_map") && !f.file[0] && !f.code);
	CHECK(f.tag == php_tag(name));
	/* Without a name it is nothing a frame can show. */
	put64(l->names.fn_name, 0);
	CHECK(php_func__read(&reader, l, BASE, &f) == -EINVAL);
}

static void test_top_level_code(void)
{
	const struct php_layout *l = php_layout__table(0x0704);
	struct php_func f;

	user_function(l, PHP_FN_USER, 0, 0, 0x6000);
	CHECK(php_func__read(&reader, l, BASE, &f) == 0);
	CHECK(f.code && !strcmp(f.file, "/srv/app/Repo.php"));
	CHECK(!strcmp(php_func__frame_name(&f, PHP_CODE_MAIN), "{main}"));
	CHECK(!strcmp(php_func__frame_name(&f, PHP_CODE_REQUIRE_ONCE), "require_once"));
	CHECK(!strcmp(php_func__frame_name(&f, PHP_CODE_INCLUDE), "include"));
	CHECK(!strcmp(php_func__frame_name(&f, 7), "{main}"));
	user_function(l, PHP_FN_EVAL_CODE, 0, 0, 0x6000);
	CHECK(php_func__read(&reader, l, BASE, &f) == 0);
	CHECK(!strcmp(php_func__frame_name(&f, PHP_CODE_MAIN), "eval"));
}

/* The lines of a function's oplines, each from its zend_op (lineno at 24 of 32 bytes). */
static void test_lines(void)
{
	const struct php_layout *l = php_layout__table(0x0802);
	uint32_t *lines = NULL, n = 0, line;
	struct php_func f;

	user_function(l, PHP_FN_USER, string_at(0x600, "leaf"), 0, BASE + 0xa00);
	memcpy(mem + l->names.fn_last, &(uint32_t){3}, 4);
	for (uint32_t i = 0; i < 3; i++) {
		line = 40 + i;
		memcpy(mem + 0xa00 + i * PHP_OP_SIZE + 24, &line, 4);
	}
	CHECK(php_func__read(&reader, l, BASE, &f) == 0 && f.last == 3);
	CHECK(php_func__lines(&reader, l, &f, &lines, &n) == 0 && n == 3);
	CHECK(lines && lines[0] == 40 && lines[2] == 42);
	free(lines);
	/* Oplines past memory: nothing kept. */
	memcpy(mem + l->names.fn_last, &(uint32_t){1000}, 4);
	CHECK(php_func__read(&reader, l, BASE, &f) == 0);
	CHECK(php_func__lines(&reader, l, &f, &lines, &n) == -EFAULT && !lines && !n);
}

/* Top-level code sent as its file name: the name's text, the tag of its hash. */
static void test_code_by_file(void)
{
	const struct php_layout *l = php_layout__table(0x0804);
	uint64_t file = string_at(0x900, "/srv/app/body.php"), hash = 0x1234567890abcdefull, tail;
	struct php_func f;

	memcpy(mem + 0x900 + 8, &hash, 8);
	memcpy(&tail, "body.php", 8);
	CHECK(php_code__read(&reader, l, file, &f) == 0);
	CHECK(f.code && !strcmp(f.file, "/srv/app/body.php") && f.tag == php_tag(hash ^ tail));
	/* Freed: the allocator's pointer in its last bytes changes the tag. */
	memcpy(mem + 0x900 + 24 + 15, "\x92\x7f", 2);
	CHECK(php_code__read(&reader, l, file, &f) == 0 && f.tag != php_tag(hash ^ tail));
	string_at(0x900, "a.php");
	CHECK(php_code__read(&reader, l, file, &f) == 0 && f.tag == php_tag(0));
	CHECK(!strcmp(php_func__frame_name(&f, PHP_CODE_INCLUDE), "include"));
	CHECK(!strcmp(php_func__frame_name(&f, PHP_CODE_EVAL), "eval"));
	string_at(0x900, "");
	CHECK(php_code__read(&reader, l, file, &f) == -EINVAL);
	CHECK(php_code__read(&reader, l, BASE + MEM - 8, &f) == -EFAULT);
}

static void test_bounded(void)
{
	const struct php_layout *l = php_layout__table(0x0802);
	uint64_t huge = 1ull << 40;
	struct php_func f;

	/* A name longer than the buffer is cut; one whose text lies outside memory fails. */
	user_function(l, PHP_FN_USER, string_at(0x600, "f"), 0, 0x5000);
	memset(mem + 0x600 + 24, 'a', MEM - 0x600 - 24);
	put64(0x600 + 16, MEM - 0x600 - 24);
	CHECK(php_func__read(&reader, l, BASE, &f) == 0);
	CHECK(strlen(f.name) == PHP_NAME_MAX - 1);
	put64(0x600 + 16, huge);
	CHECK(php_func__read(&reader, l, BASE, &f) == 0 && strlen(f.name) == PHP_NAME_MAX - 1);
	put64(l->names.fn_name, BASE + MEM - 8);
	CHECK(php_func__read(&reader, l, BASE, &f) == -EFAULT);
	/* A type no function has. */
	mem[0] = 9;
	CHECK(php_func__read(&reader, l, BASE, &f) == -EINVAL);
	CHECK(php_func__read(&reader, l, BASE + MEM, &f) == -EFAULT);
}

int main(void)
{
	RUN_TEST(test_version_text);
	RUN_TEST(test_dispatch);
	RUN_TEST(test_method);
	RUN_TEST(test_closures);
	RUN_TEST(test_internal);
	RUN_TEST(test_top_level_code);
	RUN_TEST(test_lines);
	RUN_TEST(test_code_by_file);
	RUN_TEST(test_bounded);
	HARNESS_EXIT();
}

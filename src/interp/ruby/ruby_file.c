// SPDX-License-Identifier: Apache-2.0
/* Discovery from a libruby file (ruby_file.h). Each piece is found from what the build
 * exports, the symbol when there is one (2.7 and 3.1 export rb_vm_exec and the VM's
 * pointer), else from the code of an exported function that reaches it; a function's
 * extent is its FDE's in .eh_frame_hdr (no Debian libruby has .symtab). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "interp/ruby/ruby_file.h"

#define CODE_MAX 4096	    /* bytes of a function read */
#define HDR_MAX (16u << 20) /* bytes of .eh_frame_hdr read */
#define CORE_MIN_SIZE 4096  /* the interpreter loop is the largest function vm_exec calls */
#define MAX_CALLS 64

struct code_buf {
	struct rb_code c;
	uint8_t bytes[CODE_MAX];
};

/* Reads len bytes of e at ELF address vaddr. 0 or -errno. */
static int read_vaddr(const struct elf_file *e, uint64_t vaddr, void *buf, size_t len)
{
	uint64_t off;
	ssize_t n;

	if (!elf_file__vaddr_to_off(e, vaddr, &off))
		return -ENOENT;
	n = pread(elf_file__fd(e), buf, len, (off_t)off);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* The code of [vaddr, end), at most CODE_MAX bytes, into b. */
static int read_code(const struct elf_file *e, uint64_t vaddr, uint64_t end, struct code_buf *b)
{
	size_t len = end > vaddr && end - vaddr < CODE_MAX ? (size_t)(end - vaddr) : CODE_MAX;

	b->c = (struct rb_code){.vaddr = vaddr, .bytes = b->bytes, .len = len};
	return read_vaddr(e, vaddr, b->bytes, len);
}

/* An exported function's code (its symbol's size bounds it). */
static int read_function(const struct elf_file *e, const char *name, struct code_buf *b)
{
	uint64_t value, size;

	if (elf_file__symbol(e, name, &value, &size) || !value)
		return -ENOENT;
	return read_code(e, value, value + (size ? size : CODE_MAX), b);
}

bool rb_file__is_ruby(const struct elf_file *e)
{
	return e && !elf_file__symbol(e, "ruby_version", NULL, NULL);
}

/* ruby_version: "3.1.2". */
static int read_version(const struct elf_file *e, struct rb_file_info *out)
{
	unsigned int major, minor;
	uint64_t value;

	if (elf_file__symbol(e, "ruby_version", &value, NULL) ||
	    read_vaddr(e, value, out->release, sizeof(out->release) - 1))
		return -ENOENT;
	out->release[sizeof(out->release) - 1] = '\0';
	if (sscanf(out->release, "%u.%u", &major, &minor) != 2 || major > 255 || minor > 255)
		return -ENOENT;
	out->version = (uint16_t)(major << 8 | minor);
	return 0;
}

struct fde_hdr {
	const void *data;
	size_t len;
	uint64_t vaddr;
};

static int function_bounds(const struct fde_hdr *h, uint64_t vaddr, uint64_t range[2])
{
	uint64_t start, end;

	if (rb_fde__bounds(h->data, h->len, h->vaddr, vaddr, &start, &end) || start != vaddr)
		return -ENOENT;
	range[0] = start;
	range[1] = end;
	return 0;
}

/* vm_exec: exported as rb_vm_exec (2.7, 3.1), else the tail call that ends
 * rb_iseq_eval_main (3.3: `jmp vm_exec` after the main frame is pushed). */
static int find_vm_exec(const struct elf_file *e, const struct fde_hdr *h, struct rb_file_info *out)
{
	uint64_t value, size, target;
	struct code_buf b;

	if (!elf_file__symbol(e, "rb_vm_exec", &value, NULL) && value)
		return function_bounds(h, value, out->exec);
	if (elf_file__symbol(e, "rb_iseq_eval_main", &value, &size) || !value ||
	    read_code(e, value, value + size, &b) ||
	    rb_code__tail_call(&b.c, value + size, &target))
		return -ENOENT;
	return function_bounds(h, target, out->exec);
}

/* vm_exec_core: the largest function vm_exec calls directly (the interpreter loop, 17 to
 * 20 KiB, against a few hundred bytes for the rest). */
static int find_core(const struct elf_file *e, const struct fde_hdr *h, struct rb_file_info *out)
{
	uint64_t calls[MAX_CALLS], best = 0, range[2];
	struct code_buf b;
	size_t n;

	if (read_code(e, out->exec[0], out->exec[1], &b))
		return -ENOENT;
	n = rb_code__calls(&b.c, calls, MAX_CALLS);
	for (size_t i = 0; i < n; i++) {
		if (function_bounds(h, calls[i], range) || range[1] - range[0] < CORE_MIN_SIZE)
			continue;
		if (range[1] - range[0] > best) {
			best = range[1] - range[0];
			memcpy(out->core, range, sizeof(range));
		}
	}
	return best ? 0 : -ENOENT;
}

/* The thread's execution context: 3.x's TLS slot, through rb_errinfo's access to it; 2.7
 * keeps it per thread in rb_thread_t (the walker searches the VM's threads) and the GVL
 * holder's in an exported global. */
static int find_ec(const struct elf_file *e, struct rb_file_info *out)
{
	struct code_buf b;

	if (out->version < 0x0300)
		return elf_file__symbol(e, "ruby_current_execution_context_ptr", &out->ec_global,
					NULL);
	if (read_function(e, "rb_errinfo", &b) ||
	    rb_code__tls_index(&b.c, &out->tls_index, &out->tls_off))
		return -ENOENT;
	return 0;
}

/* The VM's pointer and the GC's flag, from rb_during_gc. Its objspace member must be the
 * layout's: a build laid out otherwise is not unwound with it. */
static int find_gc(const struct elf_file *e, struct rb_file_info *out)
{
	struct code_buf b;

	if (read_function(e, "rb_during_gc", &b) || rb_code__during_gc(&b.c, &out->gc))
		return -ENOENT;
	if (out->gc.objspace != out->l->vm_objspace)
		return -EINVAL;
	/* Through the GOT the pointer is exported (2.7, 3.1): its symbol says where. */
	if (!out->gc.via_got)
		out->vm_ptr = out->gc.vm_ptr;
	else if (elf_file__symbol(e, "ruby_current_vm_ptr", &out->vm_ptr, NULL))
		return -ENOENT;
	return 0;
}

/* ruby_global_symbols, from rb_id2str (and the lookup it jumps to). Optional: without
 * it C methods are not named. */
static void find_symbols(const struct elf_file *e, const struct fde_hdr *h,
			 struct rb_file_info *out)
{
	struct code_buf b, next;
	uint64_t target, range[2];
	bool have_next;

	if (read_function(e, "rb_id2str", &b))
		return;
	have_next = !rb_code__first_jump(&b.c, &target) && !function_bounds(h, target, range) &&
		    !read_code(e, range[0], range[1], &next);
	if (rb_code__symbols(&b.c, have_next ? &next.c : NULL, &out->symbols, &out->last_op_id))
		out->symbols = 0;
}

static int load_hdr(const struct elf_file *e, struct fde_hdr *h)
{
	struct elf_section s;

	if (elf_file__section(e, ".eh_frame_hdr", &s) ||
	    elf_file__section_data(e, &s, HDR_MAX, &h->data, &h->len))
		return -ENOENT;
	h->vaddr = s.addr;
	return 0;
}

static int missing(struct rb_file_info *out, const char *what)
{
	out->missing = what;
	return -ENOENT;
}

int rb_file__inspect(const struct elf_file *e, struct rb_file_info *out)
{
	struct fde_hdr h;

	memset(out, 0, sizeof(*out));
	if (read_version(e, out))
		return missing(out, "a readable ruby_version");
	out->l = rb_layout__get(out->version);
	if (!out->l)
		return -ENOTSUP;
	if (load_hdr(e, &h))
		return missing(out, ".eh_frame_hdr (the extent of its functions)");
	if (find_vm_exec(e, &h, out))
		return missing(out,
			       "vm_exec (neither rb_vm_exec nor rb_iseq_eval_main's tail call)");
	if (!elf_file__vaddr_to_off(e, out->exec[0], &out->exec_off[0]))
		return missing(out, "vm_exec's place in the file");
	out->exec_off[1] = out->exec_off[0] + (out->exec[1] - out->exec[0]);
	if (find_core(e, &h, out))
		return missing(out, "vm_exec_core (no large function vm_exec calls)");
	if (find_ec(e, out))
		return missing(out, "the execution context (rb_errinfo's TLS access)");
	if (find_gc(e, out))
		return missing(out,
			       "the VM's pointer (rb_during_gc, read as this version's layout)");
	find_symbols(e, &h, out);
	return 0;
}

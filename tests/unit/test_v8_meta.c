// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the decoder of V8's embedded blob getters (v8_meta__decode_return), on
 * the instructions Debian's libnode108 (Node 18) has for DefaultEmbeddedBlobCode() and
 * DefaultEmbeddedBlobCodeSize() on arm64 (through the GOT), the other arm64 forms, and
 * x86-64's. */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "interp/v8/v8_meta.h"

static int decode(uint16_t machine, const uint32_t *insn, size_t n, uint64_t vaddr,
		  struct v8_return *r)
{
	uint8_t code[24] = {0};

	memcpy(code, insn, n * 4);
	return v8_meta__decode_return(machine, code, sizeof(code), vaddr, r);
}

static void test_arm64_got(void)
{
	/* adrp x0, 0x295d000; ldr x0, [x0, #2312]; ldr x0, [x0]; ret at 0xeb3700 */
	static const uint32_t code[] = {0xd000d540, 0xf9448400, 0xf9400000, 0xd65f03c0};
	/* adrp x0, 0x2951000; ldr x0, [x0, #2952]; ldr w0, [x0]; ret at 0xeb3710 */
	static const uint32_t size[] = {0xd000d4e0, 0xf945c400, 0xb9400000, 0xd65f03c0};
	struct v8_return r;

	CHECK(decode(EM_AARCH64, code, 4, 0xeb3700, &r) == 0);
	CHECK(r.target == 0x295d908 && r.derefs == 1 && r.width == 8);
	CHECK(decode(EM_AARCH64, size, 4, 0xeb3710, &r) == 0);
	CHECK(r.target == 0x2951b88 && r.derefs == 1 && r.width == 4);
}

static void test_arm64_direct(void)
{
	/* bti c; adrp x0, +2 pages; add x0, x0, #0x10; ret: an address */
	static const uint32_t addr[] = {0xd503245f, 0xd0000000, 0x91004000, 0xd65f03c0};
	/* adrp x8, +2 pages; ldr w0, [x8, #8]; ret: the value there */
	static const uint32_t value[] = {0xd0000008, 0xb9400900, 0xd65f03c0};
	struct v8_return r;

	CHECK(decode(EM_AARCH64, addr, 4, 0x1000, &r) == 0);
	CHECK(r.target == 0x3010 && r.derefs == 0 && r.width == 0);
	CHECK(decode(EM_AARCH64, value, 3, 0x1ffc, &r) == 0);
	CHECK(r.target == 0x3008 && r.derefs == 0 && r.width == 4);
}

static void test_arm64_refused(void)
{
	/* The address left in x1, not the return register. */
	static const uint32_t other_reg[] = {0xd0000001, 0xd65f03c0};
	/* No ret where the value is returned. */
	static const uint32_t no_ret[] = {0xd0000000, 0xf9400000, 0xd503201f};
	/* A load through another register than the one adrp set. */
	static const uint32_t other_base[] = {0xd0000000, 0xf9400020, 0xd65f03c0};
	struct v8_return r;

	CHECK(decode(EM_AARCH64, other_reg, 2, 0x1000, &r) == -EINVAL);
	CHECK(decode(EM_AARCH64, no_ret, 3, 0x1000, &r) == -EINVAL);
	CHECK(decode(EM_AARCH64, other_base, 3, 0x1000, &r) == -EINVAL);
	CHECK(v8_meta__decode_return(EM_AARCH64, (const uint8_t *)other_reg, 6, 0, &r) == -EINVAL);
}

static void test_x86(void)
{
	/* lea 0x100(%rip), %rax; mov (%rax), %rax; ret */
	static const uint8_t code[16] = {0x48, 0x8d, 0x05, 0x00, 0x01, 0x00,
					 0x00, 0x48, 0x8b, 0x00, 0xc3};
	struct v8_return r;

	CHECK(v8_meta__decode_return(EM_X86_64, code, sizeof(code), 0x1000, &r) == 0);
	CHECK(r.target == 0x1107 && r.width == 8 && r.derefs == 0);
	CHECK(v8_meta__decode_return(EM_386, code, sizeof(code), 0x1000, &r) == -EINVAL);
}

int main(void)
{
	RUN_TEST(test_arm64_got);
	RUN_TEST(test_arm64_direct);
	RUN_TEST(test_arm64_refused);
	RUN_TEST(test_x86);
	HARNESS_EXIT();
}

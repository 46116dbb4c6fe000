// SPDX-License-Identifier: GPL-2.0
/* Programs for the loader's tests: one that is short but expensive to verify (a loop the
 * verifier walks iteration by iteration) and one that is long but cheap (straight-line
 * code verified once), so instruction count misranks them and measured cost does not. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} loadtest_sink SEC(".maps");

const volatile __u32 loop_rounds = 4000;
/* Set by a test to make long_but_fast index past its map value, which the verifier
 * rejects with a real log: a load failure among several jobs. */
const volatile __u32 fail_index = 0;

SEC("perf_event")
int short_but_slow(void *ctx)
{
	__u64 acc = bpf_ktime_get_ns();
	__u32 key = 0;
	__u64 *v;

	/* A bounded loop without bpf_loop(): the verifier walks every iteration. */
	for (__u32 i = 0; i < loop_rounds && i < 4000; i++) {
		if (acc & 1)
			acc = acc * 3 + i;
		else
			acc ^= acc >> 7;
	}
	v = bpf_map_lookup_elem(&loadtest_sink, &key);
	if (v)
		*v = acc;
	return 0;
}

#define STEP(n) acc = (acc ^ (n)) * 0x9e3779b97f4a7c15ULL;
#define STEP10(n) STEP(n##0) STEP(n##1) STEP(n##2) STEP(n##3) STEP(n##4) \
	STEP(n##5) STEP(n##6) STEP(n##7) STEP(n##8) STEP(n##9)

SEC("perf_event")
int long_but_fast(void *ctx)
{
	__u64 acc = bpf_ktime_get_ns();
	__u32 key = 0;
	__u64 *v;

	STEP10(1) STEP10(2) STEP10(3) STEP10(4) STEP10(5) STEP10(6) STEP10(7) STEP10(8)
	STEP10(9) STEP10(10) STEP10(11) STEP10(12) STEP10(13) STEP10(14) STEP10(15)
	STEP10(16) STEP10(17) STEP10(18) STEP10(19) STEP10(20) STEP10(21) STEP10(22)
	STEP10(23) STEP10(24) STEP10(25) STEP10(26) STEP10(27) STEP10(28) STEP10(29)
	v = bpf_map_lookup_elem(&loadtest_sink, &key);
	if (v)
		v[fail_index] = acc;
	return 0;
}

SEC("perf_event")
int trivial(void *ctx)
{
	return 0;
}

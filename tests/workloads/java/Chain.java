// SPDX-License-Identifier: Apache-2.0
// A chain of small static methods the JIT inlines into a hot loop: main -> outer ->
// middle -> leaf, leaf spinning in a loop whose stride depends on the data (not a counted loop, so
// C2 keeps a safepoint poll in it: a debug point of leaf's own). Usage: java Chain SECONDS
public class Chain {
	static long leaf(long x) {
		for (long i = 0; i < 1000; i += 1 + (x & 1)) x = x * 31 + i; // LEAF_LINE
		return x;
	}

	static long middle(long x) {
		return leaf(x) ^ (x >>> 3);
	}

	static long outer(long x) {
		return middle(x) + 1;
	}

	public static void main(String[] args) {
		long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L, s = 0;
		while (System.nanoTime() < end)
			s += outer(s);
		System.out.println(s == 42 ? "" : "done");
	}
}

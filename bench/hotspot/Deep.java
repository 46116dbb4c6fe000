// SPDX-License-Identifier: Apache-2.0
// bench/hotspot.sh's workload: a Java stack DEPTH frames deep (down() recursing, which
// the JIT compiles but does not flatten) over a spinning leaf. Usage: java Deep DEPTH SECONDS
public class Deep {
	static long spin(long x) {
		for (long i = 0; i < 1000; i += 1 + (x & 1)) x = x * 31 + i;
		return x;
	}

	static long down(int d, long x) {
		return d <= 1 ? spin(x) : down(d - 1, x) + 1;
	}

	public static void main(String[] args) {
		int depth = Integer.parseInt(args[0]);
		long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L, s = 0;
		while (System.nanoTime() < end)
			s += down(depth, s);
		System.out.println(s == 42 ? "" : "done");
	}
}

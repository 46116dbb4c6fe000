// SPDX-License-Identifier: Apache-2.0
// The interpreter's current line: run with -Xint, leaf's loop is three lines with no call
// in them, so the interpreter never stores its bytecode pointer in the frame there (it
// does only when it calls out): a sample names the right line only from the register the
// interpreter keeps it in. Usage: java -Xint Interp SECONDS
public class Interp {
	static long leaf(long x) {
		for (int i = 0; i < 100000; i++) {
			x = x * 31 + i; // LINE_A
			x ^= x >>> 7; // LINE_B
			x += i * 3L; // LINE_C
		}
		return x;
	}

	public static void main(String[] args) {
		long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L, s = 0;
		while (System.nanoTime() < end)
			s += leaf(s);
		System.out.println(s == 42 ? "" : "done");
	}
}

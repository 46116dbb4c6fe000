// SPDX-License-Identifier: Apache-2.0
// Threads for tests/kernel/dump.sh, each in a state `ebprof dump` must show whole:
// "spinner" runs spinOuter -> spinMiddle -> spinLeaf, "sleeper" sleeps in napMain -> nap
// (Thread.sleep). Prints "ready" once both are in place. Usage: java Dump SECONDS
public class Dump {
	static volatile long sink;

	static long spinLeaf(long x) {
		for (long i = 0; i < 600; i += 1 + (x & 1)) x = x * 31 + i; // SPIN_LINE
		return x;
	}

	static void spinMiddle(long end) {
		long s = 0;
		while (System.nanoTime() < end)
			s += spinLeaf(s);
		sink = s;
	}

	static void spinOuter(long end) {
		spinMiddle(end);
	}

	static void nap(long ms) throws InterruptedException {
		Thread.sleep(ms); // NAP_LINE
	}

	static void napMain(long ms) {
		try {
			nap(ms);
		} catch (InterruptedException e) {
			// the test ends
		}
	}

	public static void main(String[] args) throws Exception {
		long ms = Long.parseLong(args[0]) * 1000L;
		long end = System.nanoTime() + ms * 1_000_000L;
		Thread a = new Thread(() -> spinOuter(end), "spinner");
		Thread b = new Thread(() -> napMain(ms), "sleeper");
		a.setDaemon(true);
		b.setDaemon(true);
		a.start();
		b.start();
		Thread.sleep(1000);
		System.out.println("ready");
		Thread.sleep(ms);
	}
}

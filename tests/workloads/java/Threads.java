// SPDX-License-Identifier: Apache-2.0
// Two threads with different chains: "alpha" runs alphaMain -> alphaWork, "beta" runs
// betaMain -> betaStep -> betaWork; each must show only its own. Usage: java Threads SECONDS
public class Threads {
	static volatile long sink;

	static long alphaWork(long x) {
		for (long i = 0; i < 500; i += 1 + (x & 1)) x = x * 17 + i; // ALPHA_LINE
		return x;
	}

	static void alphaMain(long end) {
		long s = 0;
		while (System.nanoTime() < end)
			s += alphaWork(s);
		sink = s;
	}

	static long betaWork(long x) {
		for (long i = 0; i < 700; i += 1 + (x & 1)) x = (x ^ i) * 13; // BETA_LINE
		return x;
	}

	static long betaStep(long x) {
		return betaWork(x) + 3;
	}

	static void betaMain(long end) {
		long s = 0;
		while (System.nanoTime() < end)
			s += betaStep(s);
		sink = s;
	}

	public static void main(String[] args) throws Exception {
		long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
		Thread a = new Thread(() -> alphaMain(end), "alpha");
		Thread b = new Thread(() -> betaMain(end), "beta");
		a.start();
		b.start();
		a.join();
		b.join();
	}
}

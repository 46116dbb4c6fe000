// SPDX-License-Identifier: Apache-2.0
// A lambda/stream pipeline: run() -> LongStream.map(Stream::mix) -> ... -> mix, the
// lambda's body, called through the stream library's generated code. Usage: java Stream SECONDS
import java.util.stream.LongStream;

public class Stream {
	static long mix(long x) {
		long r = x;
		for (long i = 0; i < 200; i += 1 + (r & 1)) r = r * 29 + (i ^ x); // MIX_LINE
		return r;
	}

	static long run(long n) {
		return LongStream.range(0, n).map(Stream::mix).filter(v -> (v & 1) == 0).sum();
	}

	public static void main(String[] args) {
		long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L, s = 0;
		while (System.nanoTime() < end)
			s += run(1000);
		System.out.println(s == 42 ? "" : "done");
	}
}

// SPDX-License-Identifier: Apache-2.0
// Java -> JNI -> C -> back: compress() calls java.util.zip.Deflater, whose native method
// runs zlib's deflate in libz. Usage: java Zip SECONDS
import java.util.zip.Deflater;

public class Zip {
	static byte[] input = new byte[1 << 16];
	static byte[] output = new byte[1 << 17];

	static int compress(Deflater d) {
		d.reset();
		d.setInput(input);
		d.finish();
		int n = 0;
		while (!d.finished())
			n += d.deflate(output); // COMPRESS_LINE
		return n;
	}

	public static void main(String[] args) {
		long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L, s = 0;
		for (int i = 0; i < input.length; i++)
			input[i] = (byte) ((i * 7) ^ (i >> 5));
		Deflater d = new Deflater(9);
		while (System.nanoTime() < end)
			s += compress(d);
		System.out.println(s == 42 ? "" : "done");
	}
}

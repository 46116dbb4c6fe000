// SPDX-License-Identifier: Apache-2.0
// bench/dotnet.sh's workload: a C# stack DEPTH frames deep (Down recursing, which the JIT
// compiles but does not flatten) over a spinning leaf. Usage: dotnet Deep.exe DEPTH SECONDS
using System;
using System.Runtime.CompilerServices;

public static class Deep {
	[MethodImpl(MethodImplOptions.NoInlining)]
	static long Spin(long x) {
		for (long i = 0; i < 1000; i += 1 + (x & 1))
			x = x * 31 + i;
		return x;
	}

	[MethodImpl(MethodImplOptions.NoInlining)]
	static long Down(int d, long x) {
		return d <= 1 ? Spin(x) : Down(d - 1, x) + 1;
	}

	public static void Main(string[] args) {
		int depth = int.Parse(args[0]);
		DateTime end = DateTime.UtcNow.AddSeconds(double.Parse(args[1]));
		long s = 0;
		while (DateTime.UtcNow < end)
			s += Down(depth, s);
		Console.WriteLine(s == 42 ? "" : "done");
	}
}

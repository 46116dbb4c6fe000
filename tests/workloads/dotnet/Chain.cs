// SPDX-License-Identifier: Apache-2.0
// The .NET test workload (tests/kernel/dotnet.sh), compiled by Debian's mcs against
// mscorlib and run on CoreCLR 8 through a runtimeconfig.json. One mode per run:
//   chain SECS   Outer -> Middle -> Leaf spinning (tier-0 code first, tier-1 after)
//   sort SECS    Array.Sort with a managed comparer: CoreLib's ready-to-run sort between
//                C# frames (SortLoop -> Array.Sort ... -> Compare)
//   qsort SECS   a P/Invoke into libc's qsort whose comparer is a C# delegate: managed,
//                then libc, then managed frames again (QsortLoop -> qsort -> ByteCompare)
//   threads SECS two threads, each its own chain (ThreadA -> SpinA, ThreadB -> SpinB)
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace Ebprof.Workload {
	public static class Chain {
		static long sink;
		static DateTime end;

		[MethodImpl(MethodImplOptions.NoInlining)]
		static long Leaf(long n) {
			long s = 0;
			for (long i = 0; i < n; i++) // LEAF
				s += i ^ (s >> 3);
			return s;
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static long Middle(long n) { return Leaf(n) + 1; }

		[MethodImpl(MethodImplOptions.NoInlining)]
		static long Outer(long n) { return Middle(n) + 1; }

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void ChainLoop() {
			while (DateTime.UtcNow < end)
				sink += Outer(200000);
		}

		sealed class Descending : IComparer<int> {
			[MethodImpl(MethodImplOptions.NoInlining)]
			public int Compare(int a, int b) {
				int x = 0;
				for (int i = 0; i < 20; i++)
					x += (a ^ i) & 1;
				return b.CompareTo(a) + (x & 0);
			}
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void SortLoop() {
			var rnd = new Random(1);
			var a = new int[20000];
			var cmp = new Descending();
			while (DateTime.UtcNow < end) {
				for (int i = 0; i < a.Length; i++)
					a[i] = rnd.Next();
				Array.Sort(a, cmp);
			}
		}

		[UnmanagedFunctionPointer(CallingConvention.Cdecl)]
		delegate int Comparer(IntPtr a, IntPtr b);

		[DllImport("libc.so.6", CallingConvention = CallingConvention.Cdecl)]
		static extern void qsort(IntPtr base_, UIntPtr n, UIntPtr size, Comparer cmp);

		[MethodImpl(MethodImplOptions.NoInlining)]
		static int ByteCompare(IntPtr a, IntPtr b) {
			int x = 0;
			for (int i = 0; i < 50; i++)
				x += i & 1;
			return Marshal.ReadInt32(a).CompareTo(Marshal.ReadInt32(b)) + (x & 0);
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void QsortLoop() {
			const int n = 20000;
			Comparer cmp = ByteCompare;
			IntPtr buf = Marshal.AllocHGlobal(n * 4);
			var rnd = new Random(2);
			while (DateTime.UtcNow < end) {
				for (int i = 0; i < n; i++)
					Marshal.WriteInt32(buf, i * 4, rnd.Next());
				qsort(buf, (UIntPtr)n, (UIntPtr)4, cmp);
			}
			GC.KeepAlive(cmp);
			Marshal.FreeHGlobal(buf);
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static long SpinA(long n) { return Leaf(n) + 2; }

		[MethodImpl(MethodImplOptions.NoInlining)]
		static long SpinB(long n) { return Leaf(n) + 3; }

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void ThreadA() {
			while (DateTime.UtcNow < end)
				Interlocked.Add(ref sink, SpinA(100000));
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void ThreadB() {
			while (DateTime.UtcNow < end)
				Interlocked.Add(ref sink, SpinB(100000));
		}

		static void Threads() {
			var a = new Thread(ThreadA);
			var b = new Thread(ThreadB);
			a.Start();
			b.Start();
			a.Join();
			b.Join();
		}

		public static int Main(string[] args) {
			if (args.Length != 2) {
				Console.Error.WriteLine("usage: Chain.exe chain|sort|qsort|threads SECS");
				return 2;
			}
			end = DateTime.UtcNow.AddSeconds(double.Parse(args[1]));
			switch (args[0]) {
			case "chain": ChainLoop(); break;
			case "sort": SortLoop(); break;
			case "qsort": QsortLoop(); break;
			case "threads": Threads(); break;
			default: Console.Error.WriteLine("unknown mode " + args[0]); return 2;
			}
			Console.WriteLine(sink == 42 ? "" : "done");
			return 0;
		}
	}
}

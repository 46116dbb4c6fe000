<?php
// SPDX-License-Identifier: Apache-2.0
// A generator that spins before each value, consumed by foreach: every resumption runs
// it on an execute_ex of its own, under the consumer's frame, for SECS seconds.
function numbers($n)
{
	for ($k = 0; $k < $n; $k++) {
		$x = 0;
		for ($i = 0; $i < 20000; $i++) { $x = ($x * 5 + $i) % 8191; } // GEN_LINE
		yield $x;
	}
}

function consume()
{
	$sum = 0;
	foreach (numbers(100) as $v) {
		$sum += $v;
	}
	return $sum;
}

$end = microtime(true) + (float)($argv[1] ?? 5);
while (microtime(true) < $end) {
	consume();
}
echo "done\n";

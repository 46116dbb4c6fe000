<?php
// SPDX-License-Identifier: Apache-2.0
// Three functions calling each other, the leaf spinning on one line, for SECS seconds:
// the first argument, or ?secs= when an FPM pool serves it.
function leaf($n)
{
	$x = 0;
	for ($i = 0; $i < $n; $i++) { $x = ($x * 31 + $i) % 1000003; } // LEAF_LINE
	return $x;
}

function middle($n)
{
	return leaf($n) + 1;
}

function outer($n)
{
	return middle($n) + 1;
}

$end = microtime(true) + (float)($argv[1] ?? $_GET['secs'] ?? 5);
while (microtime(true) < $end) {
	outer(100000);
}
echo "done\n";

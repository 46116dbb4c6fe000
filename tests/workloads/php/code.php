<?php
// SPDX-License-Identifier: Apache-2.0
// Code that is not a script's own: a function defined in a required file, one defined
// by eval, and a file's top-level code run by include, each spinning in turn for SECS
// seconds.
require_once __DIR__ . '/lib.php';
eval('function eval_spin($n) { $x = 0; for ($i = 0; $i < $n; $i++) { $x = ($x * 7 + $i) % 1009; } return $x; }');

$end = microtime(true) + (float)($argv[1] ?? 5);
while (microtime(true) < $end) {
	lib_spin(200000);
	eval_spin(200000);
	include __DIR__ . '/body.php';
}
echo "done\n";

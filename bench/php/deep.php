<?php
// SPDX-License-Identifier: Apache-2.0
// bench/php.sh's workload: a PHP stack DEPTH frames deep ({main}, down recursing, spin)
// spinning in its innermost frame for SECONDS. Usage: deep.php DEPTH SECONDS
function spin($deadline)
{
	$t = 0;
	while (microtime(true) < $deadline) {
		for ($i = 0; $i < 1000; $i++) {
			$t += $i * $i % 7;
		}
	}
	return $t;
}

function down($n, $deadline)
{
	if ($n <= 1) {
		return spin($deadline);
	}
	return down($n - 1, $deadline) + 1;
}

down((int)$argv[1] - 2, microtime(true) + (float)$argv[2]);

<?php
// SPDX-License-Identifier: Apache-2.0
// A function of a required file (code.php).
function lib_spin($n)
{
	$x = 0;
	for ($i = 0; $i < $n; $i++) { $x = ($x * 13 + $i) % 10007; } // LIB_LINE
	return $x;
}

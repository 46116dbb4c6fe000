<?php
// SPDX-License-Identifier: Apache-2.0
// A method of a namespaced class hands a closure to array_map, which calls it from C:
// {closure} above array_map above array_map's own native frames, for SECS seconds.
namespace App;

class Repo
{
	public function find(array $ids): array
	{
		return array_map(function ($x) {
			$s = 0;
			for ($i = 0; $i < 5000; $i++) { $s += ($x * $i) % 7; } // CLOSURE_LINE
			return $s;
		}, $ids);
	}
}

$repo = new Repo();
$ids = range(1, 50);
$end = microtime(true) + (float)($argv[1] ?? 5);
while (microtime(true) < $end) {
	$repo->find($ids);
}
echo "done\n";

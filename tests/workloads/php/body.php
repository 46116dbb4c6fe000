<?php
// SPDX-License-Identifier: Apache-2.0
// Top-level code code.php includes on every round.
$y = 0;
for ($j = 0; $j < 200000; $j++) { $y = ($y * 17 + $j) % 65521; } // BODY_LINE

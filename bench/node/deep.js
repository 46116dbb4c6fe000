// SPDX-License-Identifier: Apache-2.0
// bench/node.sh's workload: a JavaScript stack DEPTH frames deep (recursion the
// optimizer does not inline away), spinning in its leaf for SECONDS.
'use strict';

function spin(n) {
  let s = 0;
  for (let k = 0; k < n; k++) s += (k * 31) % 7;
  return s;
}

function down(d, end) {
  if (d > 1) return down(d - 1, end) + 1;
  let t = 0;
  while (Date.now() < end) t += spin(10000);
  return t;
}

const depth = +process.argv[2] || 1, seconds = +process.argv[3] || 10;
down(depth, Date.now() + 1000 * seconds);

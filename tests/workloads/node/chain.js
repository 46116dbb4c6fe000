// SPDX-License-Identifier: Apache-2.0
// A chain of small functions the optimizer inlines into a hot loop: main -> outer ->
// middle -> leaf, for tests/kernel/node.sh. Argument: seconds to run.
'use strict';

function leaf(i) {
  let s = 0;
  for (let k = 0; k < 64; k++) s += (i * k) % 7; // LEAF_LINE
  return s;
}

function middle(i) {
  return leaf(i) + 1;
}

function outer(n) {
  let t = 0;
  for (let i = 0; i < n; i++) t += middle(i);
  return t;
}

function main(seconds) {
  const end = Date.now() + 1000 * seconds;
  let t = 0;
  while (Date.now() < end) t += outer(5000);
  return t;
}

main(+process.argv[2] || 5);

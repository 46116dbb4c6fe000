// SPDX-License-Identifier: Apache-2.0
// JavaScript -> a native addon -> JavaScript, for tests/kernel/node.sh: main calls the
// addon's repeat, which calls work back from C. Arguments: the addon's path, seconds.
'use strict';
const addon = require(process.argv[2]);

function work() {
  let s = 0;
  for (let k = 0; k < 20000; k++) s += (k * 17) % 5; // WORK_LINE
  return s;
}

function main(seconds) {
  const end = Date.now() + 1000 * seconds;
  let t = 0;
  while (Date.now() < end) t += addon.repeat(work, 100);
  return t;
}

main(+process.argv[3] || 5);

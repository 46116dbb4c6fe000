// SPDX-License-Identifier: Apache-2.0
// An async function awaiting in a loop, its work done between the awaits, for
// tests/kernel/node.sh. Argument: seconds to run.
'use strict';

function work(i) {
  let s = 0;
  for (let k = 0; k < 20000; k++) s += (i * k) % 13; // WORK_LINE
  return s;
}

async function loop(seconds) {
  const end = Date.now() + 1000 * seconds;
  let t = 0;
  for (let i = 0; Date.now() < end; i++) {
    t += work(i);
    await null;
  }
  return t;
}

loop(+process.argv[2] || 5);

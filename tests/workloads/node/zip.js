// SPDX-License-Identifier: Apache-2.0
// A chain through zlib.deflateSync into libz's deflate, for tests/kernel/node.sh.
// Argument: seconds to run.
'use strict';
const zlib = require('zlib');

const data = Buffer.alloc(1 << 18);
for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 251;

function compress(buf) {
  return zlib.deflateSync(buf, { level: 9 }); // COMPRESS_LINE
}

function main(seconds) {
  const end = Date.now() + 1000 * seconds;
  let n = 0;
  while (Date.now() < end) n += compress(data).length;
  return n;
}

main(+process.argv[2] || 5);

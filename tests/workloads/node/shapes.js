// SPDX-License-Identifier: Apache-2.0
// A class method and an arrow function in a hot loop, for tests/kernel/node.sh.
// Argument: seconds to run.
'use strict';

class Shape {
  constructor(n) {
    this.n = n;
  }

  area(scale) {
    let a = 0;
    for (let k = 0; k < 64; k++) a += ((this.n + k) * scale) % 11; // AREA_LINE
    return a;
  }
}

const measure = (shapes) => {
  let t = 0;
  for (const s of shapes) t += s.area(3); // ARROW_LINE
  return t;
};

function main(seconds) {
  const shapes = [];
  for (let i = 0; i < 1000; i++) shapes.push(new Shape(i));
  const end = Date.now() + 1000 * seconds;
  let t = 0;
  while (Date.now() < end) t += measure(shapes);
  return t;
}

main(+process.argv[2] || 5);

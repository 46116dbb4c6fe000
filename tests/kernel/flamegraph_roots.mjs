// SPDX-License-Identifier: Apache-2.0
// Prints what a flame graph page (record's flamegraph.html) puts above the frames: for
// each path of root, process and labels nodes that frames hang from, one line
// "NAME;NAME... WEIGHT" (the "all" node left out), read from the data the page embeds as
// its script reads it (src/export/flamegraph.c: put_data). A kernel test checks these
// lines as it checks folded stacks: which processes, under which root, with which labels.
import fs from 'node:fs';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node flamegraph_roots.mjs FLAMEGRAPH.html\n');
  process.exit(2);
}
const page = fs.readFileSync(file, 'utf8');
const m = /<script type="application\/json" id="fg-data">([^]*?)<\/script>/.exec(page);
if (!m) {
  process.stderr.write(`flamegraph_roots.mjs: no fg-data in ${file}\n`);
  process.exit(1);
}
const d = JSON.parse(m[1]);
const above = new Set(['root', 'process', 'labels']);
const weights = new Map();
let at = 0;

// Walks the node at `at` (nodes: [name, kind, weight, children] in preorder) below path,
// the names above it; null below a frame, whose weight its outermost frame counted.
function walk(path) {
  const [name, kind, weight, children] = d.nodes.slice(at, at + 4);
  at += 4;
  const kindName = d.kinds[kind]?.name;
  let next = null;
  if (path && !above.has(kindName)) {
    const key = path.join(';');
    weights.set(key, (weights.get(key) ?? 0) + weight);
  } else if (path) {
    next = kindName === 'root' ? path : [...path, d.names[name]];
  }
  for (let i = 0; i < children; i++) walk(next);
}
walk([]);
for (const [path, w] of weights) process.stdout.write(`${path} ${w}\n`);

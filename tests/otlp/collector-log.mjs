// SPDX-License-Identifier: Apache-2.0
// Reads the log of the OpenTelemetry Collector (tests/otlp/collector, JSON encoding):
// no entry at warn level or worse, nothing that is not a log entry, and, when asked,
// that the debug exporter's dump (the collector's own rendering of what it received,
// every index resolved through the dictionary) holds a resource of a given pid whose
// text contains given strings. Exit status 0 when all holds, 1 with the problems.
import fs from 'node:fs';

const USAGE = `usage: node collector-log.mjs LOG [--pid PID] [--has TEXT]... [--allow LEVEL]...
  --pid PID     the debug exporter dumped a resource with process.pid PID
  --has TEXT    ... whose dump contains TEXT (repeatable)
  --allow LEVEL entries at LEVEL (warn, error) are no problem (repeatable)
example: node collector-log.mjs otelcol.log --pid 1234 --has 'container.id: Str(ab12...)'
`;

function usage(msg) {
  if (msg) process.stderr.write(`collector-log.mjs: ${msg}\n`);
  process.stderr.write(USAGE);
  process.exit(2);
}

const a = { file: null, pid: null, has: [], allow: new Set(['debug', 'info']) };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const f = argv[i];
  const v = () => argv[++i] ?? usage(`${f} needs a value`);
  if (f === '--pid') a.pid = v();
  else if (f === '--has') a.has.push(v());
  else if (f === '--allow') a.allow.add(v());
  else if (f === '-h' || f === '--help') usage();
  else if (!f.startsWith('--') && !a.file) a.file = f;
  else usage(`unknown argument ${f}`);
}
if (!a.file) usage('no log file');
if (a.has.length && a.pid === null) usage('--has needs --pid');

const problems = [];
let text;
try {
  text = fs.readFileSync(a.file, 'utf8');
} catch (e) {
  usage(`cannot read ${a.file}: ${e.message}`);
}
const dumps = [];
text.split('\n').forEach((line, n) => {
  if (!line.trim()) return;
  let e;
  try {
    e = JSON.parse(line);
  } catch {
    problems.push(`line ${n + 1} is not a log entry: ${line.slice(0, 200)}`);
    return;
  }
  if (!a.allow.has(e.level)) {
    problems.push(`line ${n + 1}: ${e.level}: ${e.msg} ${e.error ?? ''}`.slice(0, 300));
  }
  if (typeof e.msg === 'string' && e.msg.includes('ResourceProfiles #')) dumps.push(e.msg);
});

if (a.pid !== null) {
  const mine = dumps.flatMap((d) => d.split('ResourceProfiles #'))
    .filter((r) => r.includes(`-> process.pid: Int(${a.pid})\n`));
  if (!mine.length) problems.push(`no resource with process.pid ${a.pid} in ${dumps.length} dumps`);
  for (const t of a.has) if (!mine.some((r) => r.includes(t))) problems.push(`no dump of pid ${a.pid} holds ${t}`);
}

if (problems.length) {
  for (const p of problems.slice(0, 10)) process.stderr.write(`collector-log.mjs: ${p}\n`);
  process.stdout.write(`collector log check failed: ${problems.length} problem(s)\n`);
  process.exit(1);
}
process.stdout.write(`collector log check passed: ${dumps.length} dumps\n`);

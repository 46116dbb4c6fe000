// SPDX-License-Identifier: Apache-2.0
// Checks what a test receiver recorded (one JSON line per ExportProfilesServiceRequest)
// against the OTLP Profiles rules a backend relies on: every index in range, entry 0 of
// each dictionary table its zero value, string_table[0] == "", unique keys per attribute
// list, sample values/timestamps of matching length, required resource and sample
// attributes; and, when asked, that given functions appear in sampled stacks. With
// --otlp-json it reads what the OpenTelemetry Collector's file exporter wrote instead.
// Exit status 0 when everything holds, 1 with one line per problem otherwise.
import fs from 'node:fs';
import { fromOtlpJsonLine } from './otlp-json.mjs';

const USAGE = `usage: node check.mjs FILE.jsonl [options]
  --function NAME        a sampled stack contains a frame of function NAME (repeatable)
  --pid PID              --function must hold within process PID's resource
  --resource-attr KEY    every resource has attribute KEY (default: process.pid, service.name)
  --sample-attr KEY      every sample has attribute KEY (default: thread.id)
  --frame-type TYPE      some location has profile.frame.type TYPE (repeatable)
  --sample-type T/UNIT   some profile has sample_type T in UNIT (repeatable)
  --dev-version V        every request carried otlp-profiles-development-version V
  --min-requests N       at least N requests (default 1)
  --min-samples N        at least N samples in all (default 1)
  --pid-attr KEY=VALUE   process PID's resource has attribute KEY equal to VALUE (repeatable;
                         a list's VALUE is its values joined by commas)
  --pid-no-attr KEY      process PID's resource has no attribute KEY (repeatable)
  --every-attr KEY=VALUE every resource has attribute KEY equal to VALUE (repeatable)
  --build-id FILE=HEX    mappings of FILE (a path, or a bare name for any path) carry GNU build id HEX
  --otlp-json            FILE holds OTLP/JSON ProfilesData lines (the collector's file exporter)
example: node check.mjs /tmp/req.jsonl --function main --function work --pid 1234
`;

function parseArgs(argv) {
  const a = {
    file: null, functions: [], pid: null, frameTypes: [], sampleTypes: [], devVersion: null,
    resourceAttrs: null, sampleAttrs: null, minRequests: 1, minSamples: 1, pidAttrs: [],
    pidNoAttrs: [], everyAttrs: [], buildIds: [], otlpJson: false,
  };
  const pair = (flag, v) => {
    const m = /^([^=]+)=(.*)$/.exec(v);
    if (!m) usage(`${flag} needs KEY=VALUE`);
    return { key: m[1], value: m[2] };
  };
  const intArg = (flag, v) => {
    if (!/^\d+$/.test(v ?? '')) usage(`${flag} needs a non-negative integer`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    const v = () => argv[++i] ?? usage(`${f} needs a value`);
    if (f === '-h' || f === '--help') usage();
    else if (f === '--function') a.functions.push(v());
    else if (f === '--frame-type') a.frameTypes.push(v());
    else if (f === '--sample-type') a.sampleTypes.push(v());
    else if (f === '--dev-version') a.devVersion = v();
    else if (f === '--pid') a.pid = intArg(f, v());
    else if (f === '--resource-attr') (a.resourceAttrs ??= []).push(v());
    else if (f === '--sample-attr') (a.sampleAttrs ??= []).push(v());
    else if (f === '--min-requests') a.minRequests = intArg(f, v());
    else if (f === '--min-samples') a.minSamples = intArg(f, v());
    else if (f === '--pid-attr') a.pidAttrs.push(pair(f, v()));
    else if (f === '--pid-no-attr') a.pidNoAttrs.push(v());
    else if (f === '--every-attr') a.everyAttrs.push(pair(f, v()));
    else if (f === '--build-id') a.buildIds.push(pair(f, v()));
    else if (f === '--otlp-json') a.otlpJson = true;
    else if (!f.startsWith('--') && !a.file) a.file = f;
    else usage(`unknown argument ${f}`);
  }
  if (!a.file) usage('no file');
  if ((a.pidAttrs.length || a.pidNoAttrs.length) && a.pid === null) usage('--pid-attr and --pid-no-attr need --pid');
  a.resourceAttrs ??= ['process.pid', 'service.name'];
  a.sampleAttrs ??= ['thread.id'];
  return a;
}

function usage(msg) {
  if (msg) process.stderr.write(`check.mjs: ${msg}\n`);
  process.stderr.write(USAGE);
  process.exit(2);
}

const args = parseArgs(process.argv.slice(2));
const problems = [];
const MAX_PROBLEMS = 50;
const problem = (where, what) => {
  if (problems.length < MAX_PROBLEMS) problems.push(`${where}: ${what}`);
  else if (problems.length === MAX_PROBLEMS) problems.push('... (more problems not shown)');
};

const isInt = (x) => Number.isInteger(x);
const isZero = (x) => x === undefined || x === null || x === 0 || x === '0' || x === '' || x === false;
const zeroBytes = (b, n) => b === '' || b === undefined || Buffer.from(b, 'base64').equals(Buffer.alloc(n));
const emptyList = (l) => l === undefined || (Array.isArray(l) && l.length === 0);

// Checks idx is a valid index into table (of length n); nonzero: 0 not allowed.
function index(where, idx, n, nonzero = false) {
  if (!isInt(idx)) problem(where, `index ${JSON.stringify(idx)} is not an integer`);
  else if (idx < 0 || idx >= n) problem(where, `index ${idx} out of range [0, ${n})`);
  else if (nonzero && idx === 0) problem(where, 'index 0 (the zero value) where an entry is required');
  else return true;
  return false;
}

function checkZeroEntries(where, d) {
  const first = (t) => (Array.isArray(d[t]) && d[t].length ? d[t][0] : null);
  for (const t of ['mapping_table', 'location_table', 'function_table', 'link_table',
    'string_table', 'attribute_table', 'stack_table']) {
    if (!first(t) && first(t) !== '') problem(where, `${t} is empty: entry 0 must be present`);
  }
  if (d.string_table?.[0] !== '') problem(where, `string_table[0] is ${JSON.stringify(d.string_table?.[0])}, not ""`);
  const m = first('mapping_table');
  if (m && !(isZero(m.memory_start) && isZero(m.memory_limit) && isZero(m.file_offset) &&
    isZero(m.filename_strindex) && emptyList(m.attribute_indices)))
    problem(where, 'mapping_table[0] is not the zero Mapping');
  const l = first('location_table');
  if (l && !(isZero(l.mapping_index) && isZero(l.address) && emptyList(l.lines) && emptyList(l.attribute_indices)))
    problem(where, 'location_table[0] is not the zero Location');
  const f = first('function_table');
  if (f && !(isZero(f.name_strindex) && isZero(f.system_name_strindex) && isZero(f.filename_strindex) &&
    isZero(f.start_line)))
    problem(where, 'function_table[0] is not the zero Function');
  const k = first('link_table');
  if (k && !(zeroBytes(k.trace_id, 16) && zeroBytes(k.span_id, 8)))
    problem(where, 'link_table[0] is not the zero Link');
  const a = first('attribute_table');
  if (a && !(isZero(a.key_strindex) && isZero(a.unit_strindex) && !a.value?.value))
    problem(where, 'attribute_table[0] is not the zero KeyValueAndUnit');
  const s = first('stack_table');
  if (s && !emptyList(s.location_indices)) problem(where, 'stack_table[0] is not the empty Stack');
}

// Checks an attribute_indices list: in range, not 0, one key once.
function checkAttrList(where, list, d) {
  const keys = new Set();
  for (const i of list ?? []) {
    if (!index(`${where}.attribute_indices`, i, d.attribute_table.length, true)) continue;
    const key = d.attribute_table[i].key_strindex;
    if (keys.has(key)) problem(where, `attribute key "${d.string_table[key]}" listed twice`);
    keys.add(key);
  }
}

// The attribute of key among list, as {type, value}, or null.
function attrOf(list, d, key) {
  for (const i of list ?? []) {
    const a = d.attribute_table[i];
    if (a && d.string_table[a.key_strindex] === key) return anyValue(a.value, d);
  }
  return null;
}

function anyValue(v, d) {
  if (!v || !v.value) return null;
  const which = v.value;
  if (which === 'string_value_strindex') return d.string_table[v[which]] ?? null;
  // A list (container.image.tags) compares as its values joined by commas.
  if (which === 'array_value') return (v.array_value.values ?? []).map((x) => anyValue(x, d)).join(',');
  return v[which];
}

function checkDictionary(where, d) {
  const ns = d.string_table.length;
  const str = (w, i) => index(w, i, ns);
  d.mapping_table.forEach((m, i) => {
    const w = `${where}.mapping_table[${i}]`;
    str(`${w}.filename_strindex`, m.filename_strindex);
    if (i) checkAttrList(w, m.attribute_indices, d);
  });
  d.location_table.forEach((l, i) => {
    const w = `${where}.location_table[${i}]`;
    index(`${w}.mapping_index`, l.mapping_index, d.mapping_table.length);
    (l.lines ?? []).forEach((ln, j) =>
      index(`${w}.lines[${j}].function_index`, ln.function_index, d.function_table.length, true));
    if (i) checkAttrList(w, l.attribute_indices, d);
  });
  d.function_table.forEach((f, i) => {
    const w = `${where}.function_table[${i}]`;
    for (const fld of ['name_strindex', 'system_name_strindex', 'filename_strindex']) str(`${w}.${fld}`, f[fld]);
    if (i && !f.name_strindex && !f.system_name_strindex && !f.filename_strindex)
      problem(w, 'a Function with no name, system name or file name');
  });
  d.attribute_table.forEach((a, i) => {
    const w = `${where}.attribute_table[${i}]`;
    str(`${w}.key_strindex`, a.key_strindex);
    str(`${w}.unit_strindex`, a.unit_strindex);
    if (i && !a.key_strindex) problem(w, 'an attribute with the empty key');
    if (a.value?.value === 'string_value_strindex') str(`${w}.value.string_value_strindex`, a.value.string_value_strindex);
  });
  d.stack_table.forEach((s, i) =>
    (s.location_indices ?? []).forEach((li, j) =>
      index(`${where}.stack_table[${i}].location_indices[${j}]`, li, d.location_table.length, true)));
}

// Function names of the stack at stack_index, leaf first.
function stackNames(d, stackIndex) {
  const names = [];
  for (const li of d.stack_table[stackIndex]?.location_indices ?? []) {
    for (const ln of d.location_table[li]?.lines ?? []) {
      const fn = d.function_table[ln.function_index];
      if (fn) names.push(d.string_table[fn.name_strindex]);
    }
  }
  return names;
}

const totals = { requests: 0, resources: 0, profiles: 0, samples: 0 };
const foundFunctions = new Set();
const foundFrameTypes = new Set();
const foundSampleTypes = new Set();
let pidSeen = false;

function checkSample(w, s, p, d, inScope) {
  totals.samples++;
  index(`${w}.stack_index`, s.stack_index, d.stack_table.length);
  index(`${w}.link_index`, s.link_index, d.link_table.length);
  checkAttrList(w, s.attribute_indices, d);
  const nv = s.values?.length ?? 0;
  const nt = s.timestamps_unix_nano?.length ?? 0;
  if (!nv && !nt) problem(w, 'neither values nor timestamps');
  if (nv && nt && nv !== nt) problem(w, `${nv} values but ${nt} timestamps`);
  const start = BigInt(p.time_unix_nano ?? 0);
  const end = start + BigInt(p.duration_nano ?? 0);
  for (const t of s.timestamps_unix_nano ?? []) {
    if (BigInt(t) < start || (p.duration_nano !== '0' && BigInt(t) >= end))
      problem(w, `timestamp ${t} outside the profile's [${start}, ${end})`);
  }
  for (const key of args.sampleAttrs) {
    if (attrOf(s.attribute_indices, d, key) === null) problem(w, `no sample attribute ${key}`);
  }
  if (inScope) for (const n of stackNames(d, s.stack_index)) if (args.functions.includes(n)) foundFunctions.add(n);
}

function checkProfile(w, p, d, inScope) {
  totals.profiles++;
  if (!p.sample_type) problem(w, 'no sample_type');
  else {
    index(`${w}.sample_type.type_strindex`, p.sample_type.type_strindex, d.string_table.length, true);
    index(`${w}.sample_type.unit_strindex`, p.sample_type.unit_strindex, d.string_table.length);
    const name = (i) => d.string_table[i ?? 0] ?? '?';
    foundSampleTypes.add(`${name(p.sample_type.type_strindex)}/${name(p.sample_type.unit_strindex)}`);
  }
  if (p.period_type) {
    index(`${w}.period_type.type_strindex`, p.period_type.type_strindex, d.string_table.length);
    index(`${w}.period_type.unit_strindex`, p.period_type.unit_strindex, d.string_table.length);
  }
  if (p.profile_id && !zeroBytes(p.profile_id, 0) && Buffer.from(p.profile_id, 'base64').length !== 16)
    problem(w, 'profile_id is not 16 bytes');
  checkAttrList(w, p.attribute_indices, d);
  (p.samples ?? []).forEach((s, i) => checkSample(`${w}.samples[${i}]`, s, p, d, inScope));
}

function checkResource(w, rp, d) {
  totals.resources++;
  const attrs = new Map();
  for (const kv of rp.resource?.attributes ?? []) {
    // OTLP 1.10 lets a key be a string_table reference; the collector writes them so.
    const key = kv.key || d.string_table[kv.key_strindex ?? 0] || '';
    if (attrs.has(key)) problem(w, `resource attribute ${key} twice`);
    attrs.set(key, anyValue(kv.value, d));
  }
  for (const key of args.resourceAttrs) if (!attrs.has(key)) problem(w, `no resource attribute ${key}`);
  const pid = attrs.get('process.pid');
  for (const { key, value } of args.everyAttrs) {
    const got = attrs.get(key);
    if (String(got) !== value)
      problem(w, `${key} is ${JSON.stringify(got ?? null)}, expected ${JSON.stringify(value)} (process ${pid}, ${attrs.get('process.executable.name')})`);
  }
  const inScope = args.pid === null || String(pid) === String(args.pid);
  if (args.pid !== null && inScope) {
    pidSeen = true;
    for (const { key, value } of args.pidAttrs) {
      const got = attrs.get(key);
      if (String(got) !== value) problem(w, `${key} is ${JSON.stringify(got ?? null)}, expected ${JSON.stringify(value)}`);
    }
    for (const key of args.pidNoAttrs)
      if (attrs.has(key)) problem(w, `${key} is ${JSON.stringify(attrs.get(key))}, expected none`);
  }
  (rp.scope_profiles ?? []).forEach((sp, i) =>
    (sp.profiles ?? []).forEach((p, j) =>
      checkProfile(`${w}.scope_profiles[${i}].profiles[${j}]`, p, d, inScope)));
}

// Mappings of the files --build-id names: each must carry the build id it gives.
const buildIdsSeen = new Set();
function checkBuildIds(where, d) {
  d.mapping_table.forEach((m, i) => {
    const path = d.string_table[m.filename_strindex] ?? '';
    for (const { key: file, value: hex } of args.buildIds) {
      if (path !== file && (file.includes('/') || path.split('/').pop() !== file)) continue;
      const got = attrOf(m.attribute_indices, d, 'process.executable.build_id.gnu');
      if (got !== hex) problem(`${where}.mapping_table[${i}]`, `${file} has build id ${got}, expected ${hex}`);
      else buildIdsSeen.add(file);
    }
  });
}

function checkRequest(where, req) {
  totals.requests++;
  const d = req.dictionary;
  if (!d) {
    problem(where, 'no dictionary');
    return;
  }
  for (const t of ['mapping_table', 'location_table', 'function_table', 'link_table',
    'string_table', 'attribute_table', 'stack_table'])
    d[t] ??= [];
  checkZeroEntries(where, d);
  checkDictionary(`${where}.dictionary`, d);
  checkBuildIds(`${where}.dictionary`, d);
  for (const l of d.location_table) {
    const t = attrOf(l.attribute_indices, d, 'profile.frame.type');
    if (t !== null) foundFrameTypes.add(t);
  }
  (req.resource_profiles ?? []).forEach((rp, i) => checkResource(`${where}.resource_profiles[${i}]`, rp, d));
}

let lines;
try {
  lines = fs.readFileSync(args.file, 'utf8').split('\n').filter((l) => l.trim());
} catch (e) {
  usage(`cannot read ${args.file}: ${e.message}`);
}
lines.forEach((line, n) => {
  let entry;
  try {
    entry = JSON.parse(line);
  } catch (e) {
    problem(`line ${n + 1}`, `not JSON: ${e.message}`);
    return;
  }
  if (args.otlpJson) {
    const got = fromOtlpJsonLine(line);
    if (got.error) return problem(`line ${n + 1}`, got.error);
    entry = { request: got.request };
  }
  if (!entry.request) problem(`line ${n + 1}`, 'no "request"');
  else checkRequest(`line ${n + 1} request`, entry.request);
  if (args.devVersion !== null) {
    const got = (entry.metadata ?? entry.headers ?? {})['otlp-profiles-development-version'];
    if (got !== args.devVersion) problem(`line ${n + 1}`, `otlp-profiles-development-version ${got ?? '(none)'}, expected ${args.devVersion}`);
  }
});

if (totals.requests < args.minRequests) problem(args.file, `${totals.requests} requests, expected at least ${args.minRequests}`);
if (totals.samples < args.minSamples) problem(args.file, `${totals.samples} samples, expected at least ${args.minSamples}`);
if (args.pid !== null && !pidSeen) problem(args.file, `no resource with process.pid ${args.pid}`);
for (const f of args.functions) if (!foundFunctions.has(f)) problem(args.file, `function ${f} is in no sampled stack${args.pid !== null ? ` of pid ${args.pid}` : ''}`);
for (const { key: f } of args.buildIds) if (!buildIdsSeen.has(f)) problem(args.file, `no mapping of ${f}`);
for (const t of args.frameTypes) if (!foundFrameTypes.has(t)) problem(args.file, `no location with profile.frame.type ${t}`);
for (const t of args.sampleTypes) {
  if (!foundSampleTypes.has(t)) problem(args.file, `no profile with sample_type ${t} (found ${[...foundSampleTypes].join(', ')})`);
}

const summary = `${totals.requests} requests, ${totals.resources} resources, ${totals.profiles} profiles, ${totals.samples} samples`;
if (problems.length) {
  for (const p of problems) process.stderr.write(`check.mjs: ${p}\n`);
  process.stdout.write(`otlp check failed: ${problems.length} problem(s) in ${summary}\n`);
  process.exit(1);
}
process.stdout.write(`otlp check passed: ${summary}\n`);

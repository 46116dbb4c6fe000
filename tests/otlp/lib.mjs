// SPDX-License-Identifier: Apache-2.0
// What the two test receivers share: loading the OTLP .proto files ebprof is built from
// (the pinned release's, which the build fetched into $BUILD/proto: scripts/otlp-proto.sh),
// turning a decoded request into one JSON line, command-line/environment options, and
// the behaviour a test asks for (fail, partial success, delay).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const PROTO_ROOT = path.resolve(here, '../..', process.env.BUILD || 'build', 'proto');
export const SERVICE_PROTO =
  'opentelemetry/proto/collector/profiles/v1development/profiles_service.proto';
const PKG = 'opentelemetry.proto.collector.profiles.v1development';
export const SERVICE_PATH = `/${PKG}.ProfilesService/Export`;
export const HTTP_PATH = '/v1development/profiles';

// The JSON form every receiver writes: 64-bit integers as decimal strings (JSON numbers
// lose precision past 2^53), bytes as base64, zero-valued fields present, and the set
// member of a oneof named by its own key. proto-loader is given the same options.
export const TO_OBJECT = {
  longs: String,
  enums: String,
  bytes: String,
  defaults: true,
  arrays: true,
  oneofs: true,
};

let root;
export function protoRoot() {
  if (root) return root;
  root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync(SERVICE_PROTO, { keepCase: true });
  // google.rpc.Status, the body of an OTLP/HTTP error answer. Only these two fields.
  root.define('google.rpc').add(
    new protobuf.Type('Status')
      .add(new protobuf.Field('code', 1, 'int32'))
      .add(new protobuf.Field('message', 2, 'string')),
  );
  return root;
}

export const requestType = () => protoRoot().lookupType(`${PKG}.ExportProfilesServiceRequest`);
export const responseType = () => protoRoot().lookupType(`${PKG}.ExportProfilesServiceResponse`);
export const statusType = () => protoRoot().lookupType('google.rpc.Status');

// Options come from --flag value or, for each, the environment variable
// OTLP_RECEIVER_<FLAG> (--fail-first -> OTLP_RECEIVER_FAIL_FIRST). Flags win.
export function parseOptions(argv, known, usage) {
  const opts = {};
  for (const name of Object.keys(known)) {
    const env = process.env[`OTLP_RECEIVER_${name.toUpperCase().replace(/-/g, '_')}`];
    opts[name] = env !== undefined && env !== '' ? env : known[name];
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') {
      process.stdout.write(usage);
      process.exit(0);
    }
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(a);
    if (!m || !(m[1] in known)) die(`unknown argument ${a}\n${usage}`);
    const value = m[2] !== undefined ? m[2] : argv[++i];
    if (value === undefined) die(`${a} needs a value`);
    opts[m[1]] = value;
  }
  return opts;
}

export function die(msg) {
  process.stderr.write(`otlp receiver: ${msg}\n`);
  process.exit(2);
}

export function intOption(opts, name, min = 0) {
  const v = opts[name];
  if (v === null || v === undefined || v === '') return null;
  if (!/^-?\d+$/.test(String(v)) || Number(v) < min) die(`--${name}: not an integer >= ${min}: ${v}`);
  return Number(v);
}

// "N:message" or "N" -> { rejected_profiles: "N", error_message }.
export function partialSuccess(spec) {
  if (!spec) return null;
  const m = /^(\d+)(?::(.*))?$/s.exec(spec);
  if (!m) die(`--partial-success: expected REJECTED[:MESSAGE], got ${spec}`);
  return { rejected_profiles: m[1], error_message: m[2] ?? '' };
}

// Decides how to answer request number seq (1-based): fail while seq <= fail-first (or
// always with --fail and no --fail-first), else succeed, possibly partially.
export function behaviour(opts) {
  const failFirst = intOption(opts, 'fail-first', 0);
  const delayMs = intOption(opts, 'delay-ms', 0) ?? 0;
  const partial = partialSuccess(opts['partial-success']);
  return (seq) => {
    const failing = opts.fail && (failFirst === null || seq <= failFirst);
    return { fail: failing ? opts.fail : null, partial, delayMs };
  };
}

export function tlsOptions(opts) {
  if (!opts['tls-cert'] && !opts['tls-key']) return null;
  if (!opts['tls-cert'] || !opts['tls-key']) die('--tls-cert and --tls-key go together');
  return { cert: fs.readFileSync(opts['tls-cert']), key: fs.readFileSync(opts['tls-key']) };
}

// Appends one JSON line per request to the --out file (synchronously, so a test that
// reads the file after the answer arrived sees the line).
export function recorder(file) {
  let seq = 0;
  return {
    next: () => ++seq,
    write(entry) {
      if (file) fs.appendFileSync(file, JSON.stringify(entry) + '\n');
    },
  };
}

// Tells the test where to connect: "listening PORT" on stdout, and the port in
// --port-file (written whole, then renamed, so a poller never reads half of it).
export function announce(opts, port) {
  if (opts['port-file']) {
    fs.writeFileSync(`${opts['port-file']}.tmp`, `${port}\n`);
    fs.renameSync(`${opts['port-file']}.tmp`, opts['port-file']);
  }
  process.stdout.write(`listening ${port}\n`);
}

export const COMMON_FLAGS = {
  host: '127.0.0.1',
  port: '0',
  'port-file': null,
  out: null,
  'tls-cert': null,
  'tls-key': null,
  fail: null,
  'fail-first': null,
  'partial-success': null,
  'delay-ms': null,
};

export const COMMON_USAGE = `  --host ADDR            address to listen on (default 127.0.0.1)
  --port N               port (default 0: any free port, printed as "listening N")
  --port-file FILE       also write the port to FILE
  --out FILE             append each request as one JSON line to FILE
  --tls-cert F --tls-key F   serve TLS with this certificate and key
  --fail STATUS          answer with this error instead (see below)
  --fail-first N         only the first N requests fail, later ones succeed
  --partial-success N[:MSG]  succeed with partial_success{rejected_profiles N, MSG}
  --delay-ms MS          wait before answering (timeouts)
Every flag can also be set as OTLP_RECEIVER_<FLAG> (e.g. OTLP_RECEIVER_FAIL_FIRST=2).
`;

// The OTLP Profiles development version a request carries (gRPC metadata or HTTP
// header, one name), checked as the collector does before decoding: absent means "1",
// anything but exactly one "1" is refused. Returns an error message or null.
export const DEV_VERSION_HEADER = 'otlp-profiles-development-version';
export function devVersionError(value) {
  const v = value === undefined ? '1' : value;
  if (Array.isArray(v) || String(v).includes(',')) return `${DEV_VERSION_HEADER} must have exactly one value`;
  return String(v) === '1' ? null : `unsupported ${DEV_VERSION_HEADER} '${v}': supported version is 1`;
}

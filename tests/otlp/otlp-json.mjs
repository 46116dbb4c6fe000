// SPDX-License-Identifier: Apache-2.0
// Reads OTLP/JSON profiles (what the collector's file exporter writes: one ProfilesData
// per line, lowerCamelCase names, 64-bit integers as strings, ids in hex) into the form
// the test receivers record, so check.mjs judges both alike. A key that the .proto files
// ebprof is built from (lib.mjs: PROTO_ROOT) do not define is an error: the collector
// speaks a schema ebprof does not know.
import path from 'node:path';
import protobuf from 'protobufjs';
import { PROTO_ROOT, SERVICE_PROTO, TO_OBJECT, requestType } from './lib.mjs';

const REQUEST = 'opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest';
// bytes fields that OTLP/JSON writes in hex rather than base64.
const HEX_FIELDS = new Set(['profileId', 'traceId', 'spanId']);

let camelType;
function jsonType() {
  if (camelType) return camelType;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync(SERVICE_PROTO); // without keepCase: field names become the JSON names
  camelType = root.lookupType(REQUEST);
  return camelType;
}

// Walks obj as a message of type, turning hex ids into bytes and listing unknown keys.
function prepare(type, obj, where, unknown) {
  for (const [key, v] of Object.entries(obj)) {
    const f = type.fields[key];
    if (!f) {
      unknown.push(`${where}.${key}`);
      continue;
    }
    f.resolve();
    if (HEX_FIELDS.has(key) && typeof v === 'string') {
      if (!/^([0-9a-f]{2})*$/.test(v)) unknown.push(`${where}.${key} (not hex: ${v})`);
      obj[key] = Buffer.from(v, 'hex');
    } else if (f.resolvedType instanceof protobuf.Type && v !== null && typeof v === 'object') {
      const items = f.repeated ? v : [v];
      items.forEach((item, i) =>
        prepare(f.resolvedType, item, f.repeated ? `${where}.${key}[${i}]` : `${where}.${key}`, unknown));
    }
  }
}

// One line of OTLP/JSON ProfilesData -> { request } as the receivers record it, or
// { error } saying what was wrong with it.
export function fromOtlpJsonLine(line) {
  let obj;
  try {
    obj = JSON.parse(line);
  } catch (e) {
    return { error: `not JSON: ${e.message}` };
  }
  const unknown = [];
  prepare(jsonType(), obj, 'ProfilesData', unknown);
  if (unknown.length) return { error: `fields ebprof's proto does not define: ${unknown.slice(0, 5).join(', ')}` };
  // ProfilesData and ExportProfilesServiceRequest share their field numbers (resource
  // profiles 1, dictionary 2), so the binary form is decoded as a request.
  const bin = jsonType().encode(jsonType().fromObject(obj)).finish();
  return { request: requestType().toObject(requestType().decode(bin), TO_OBJECT) };
}

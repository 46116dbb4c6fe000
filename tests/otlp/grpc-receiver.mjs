// SPDX-License-Identifier: Apache-2.0
// A test OTLP/gRPC receiver: serves ProfilesService/Export (@grpc/grpc-js, with the
// service and messages loaded by @grpc/proto-loader from the repository's .proto files),
// accepts gzip-compressed messages, optionally over TLS, writes each request as one JSON
// line, and answers as told: success, partial success, or an error status.
import { createRequire } from 'node:module';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import {
  PROTO_ROOT, SERVICE_PROTO, SERVICE_PATH, TO_OBJECT, COMMON_FLAGS, COMMON_USAGE,
  parseOptions, behaviour, tlsOptions, recorder, announce, die, devVersionError, DEV_VERSION_HEADER,
} from './lib.mjs';

const USAGE = `usage: node grpc-receiver.mjs [flags]
${COMMON_USAGE}  STATUS is a gRPC status name or number, e.g. UNAVAILABLE or 14.
example: node grpc-receiver.mjs --out /tmp/req.jsonl --fail UNAVAILABLE --fail-first 2
`;

const opts = parseOptions(process.argv.slice(2), COMMON_FLAGS, USAGE);
const decide = behaviour(opts);
const rec = recorder(opts.out);

function statusCode(s) {
  if (/^\d+$/.test(s) && Number(s) > 0 && Number(s) <= 16) return Number(s);
  if (s in grpc.status && s !== 'OK') return grpc.status[s];
  die(`--fail: not a gRPC error status: ${s}`);
}
if (opts.fail) statusCode(opts.fail);

const def = protoLoader.loadSync(SERVICE_PROTO, { ...TO_OBJECT, keepCase: true, includeDirs: [PROTO_ROOT] });
const pkg = grpc.loadPackageDefinition(def);
const service = pkg.opentelemetry.proto.collector.profiles.v1development.ProfilesService.service;
if (service.Export.path !== SERVICE_PATH) die(`unexpected method path ${service.Export.path}`);

// grpc-js decompresses a message before the application sees it and drops the
// grpc-encoding header, yet the tests must know whether the client really compressed
// (a message's own flag says so, whatever the header). So wrap the pinned grpc-js's
// decompression step (an internal of 1.14: the version is locked in package-lock.json)
// and remember, per decompressed buffer, how it arrived.
const wire = new WeakMap();
{
  const require = createRequire(import.meta.url);
  const internals = require('@grpc/grpc-js/build/src/server-interceptors.js');
  const proto = internals.BaseServerInterceptingCall?.prototype;
  if (!proto?.decompressMessage) die('this grpc-js has no decompressMessage to observe');
  const decompress = proto.decompressMessage;
  proto.decompressMessage = async function (message, encoding) {
    const out = await decompress.call(this, message, encoding);
    const compressed = message.readUInt8(0) === 1;
    wire.set(out, { compression: compressed ? encoding : 'identity', wireBytes: message.length - 5 });
    return out;
  };
}

// Keep how the message came and its size beside the decoded object.
const decode = service.Export.requestDeserialize;
service.Export.requestDeserialize = (buf) => ({ size: buf.length, wire: wire.get(buf), request: decode(buf) });

function metadataOf(call) {
  const md = {};
  for (const [k, v] of Object.entries(call.metadata.getMap())) md[k] = String(v);
  return md;
}

function exportHandler(call, callback) {
  const versions = call.metadata.get(DEV_VERSION_HEADER).map(String);
  const bad = devVersionError(versions.length > 1 ? versions : versions[0]);
  if (bad) {
    callback({ code: grpc.status.INVALID_ARGUMENT, details: bad });
    return;
  }
  const seq = rec.next();
  const how = decide(seq);
  const md = metadataOf(call);
  const entry = {
    seq,
    transport: 'grpc',
    path: SERVICE_PATH,
    compression: call.request.wire?.compression ?? 'unknown',
    userAgent: md['user-agent'] ?? null,
    bytes: call.request.size,
    wireBytes: call.request.wire?.wireBytes ?? null,
    metadata: md,
    answered: how.fail ? { status: how.fail } : { status: 'OK', partialSuccess: how.partial },
    request: call.request.request,
  };
  rec.write(entry);
  setTimeout(() => {
    if (how.fail) {
      callback({ code: statusCode(how.fail), details: `test receiver told to fail (${how.fail})` });
      return;
    }
    callback(null, how.partial ? { partial_success: how.partial } : {});
  }, how.delayMs);
}

const server = new grpc.Server();
server.addService(service, { Export: exportHandler });
const tls = tlsOptions(opts);
const creds = tls
  ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: tls.cert, private_key: tls.key }], false)
  : grpc.ServerCredentials.createInsecure();
server.bindAsync(`${opts.host}:${opts.port}`, creds, (err, port) => {
  if (err) die(`cannot listen on ${opts.host}:${opts.port}: ${err.message}`);
  announce(opts, port);
});

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    server.forceShutdown();
    process.exit(0);
  });
}

// SPDX-License-Identifier: Apache-2.0
// A test OTLP client: sends a file holding a serialized ExportProfilesServiceRequest to
// a receiver over gRPC (@grpc/grpc-js) or HTTP (fetch-free: node's http/https), gzip'd or
// not, and prints what came back as one JSON line: {"ok", "status", "partialSuccess",
// "message"}. It checks the receivers here; ebprof's own transport is the real client.
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import zlib from 'node:zlib';
import grpc from '@grpc/grpc-js';
import { SERVICE_PATH, HTTP_PATH, TO_OBJECT, parseOptions, die, responseType, statusType } from './lib.mjs';

const USAGE = `usage: node send.mjs --grpc HOST:PORT | --http URL  --file REQUEST.bin [--gzip 1] [--ca CERT] [--h2 1]
example: node send.mjs --http http://127.0.0.1:4318 --file req.bin --gzip 1
`;
const opts = parseOptions(process.argv.slice(2), { grpc: null, http: null, file: null, gzip: null, ca: null, h2: null }, USAGE);
if (!opts.file || !!opts.grpc === !!opts.http) die(USAGE);
const body = fs.readFileSync(opts.file);
const gzip = opts.gzip === '1';
const Response = responseType();
const print = (o) => process.stdout.write(JSON.stringify(o) + '\n');

function viaGrpc() {
  const creds = opts.ca
    ? grpc.credentials.createSsl(fs.readFileSync(opts.ca))
    : grpc.credentials.createInsecure();
  const client = new grpc.Client(opts.grpc, creds, {
    'grpc.default_compression_algorithm': gzip ? 2 : 0, // 2: gzip
  });
  client.makeUnaryRequest(
    SERVICE_PATH,
    (b) => b, // already serialized
    (b) => Response.toObject(Response.decode(b), TO_OBJECT),
    body,
    new grpc.Metadata(),
    { deadline: Date.now() + 10000 },
    (err, resp) => {
      if (err) print({ ok: false, status: grpc.status[err.code], message: err.details });
      else print({ ok: true, status: 'OK', partialSuccess: resp.partial_success ?? null });
      client.close();
    },
  );
}

function printHttp(code, headers, b) {
  if (code === 200) {
    const r = Response.toObject(Response.decode(b), TO_OBJECT);
    print({ ok: true, status: 200, partialSuccess: r.partial_success ?? null });
  } else {
    const s = statusType().decode(b);
    print({ ok: false, status: code, message: s.message, retryAfter: headers['retry-after'] ?? null });
  }
}

function viaHttp() {
  const url = new URL(HTTP_PATH, opts.http);
  const payload = gzip ? zlib.gzipSync(body) : body;
  const ca = opts.ca ? fs.readFileSync(opts.ca) : undefined;
  const headers = {
    'content-type': 'application/x-protobuf',
    'content-length': payload.length,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  };
  const collect = (stream, done) => {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => done(Buffer.concat(chunks)));
  };
  if (opts.h2 === '1') {
    const session = http2.connect(url.origin, { ca });
    session.on('error', (e) => die(e.message));
    const req = session.request({ ':method': 'POST', ':path': url.pathname, ...headers });
    req.on('response', (h) =>
      collect(req, (b) => {
        printHttp(h[':status'], h, b);
        session.close();
      }));
    req.end(payload);
    return;
  }
  const lib = url.protocol === 'https:' ? https : http;
  const req = lib.request(url, { method: 'POST', ca, headers });
  req.on('response', (res) => collect(res, (b) => printHttp(res.statusCode, res.headers, b)));
  req.on('error', (e) => die(e.message));
  req.end(payload);
}

if (opts.grpc) viaGrpc();
else viaHttp();

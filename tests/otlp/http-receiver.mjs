// SPDX-License-Identifier: Apache-2.0
// A test OTLP/HTTP receiver: takes POST /v1development/profiles with a protobuf
// ExportProfilesServiceRequest (Content-Encoding gzip or none), over HTTP/1.1, or over
// TLS with HTTP/2 or HTTP/1.1 by ALPN; decodes it with protobufjs from the repository's
// .proto files, writes it as one JSON line, and answers as told: success, partial
// success, or an error status with a google.rpc.Status body (and Retry-After).
import http from 'node:http';
import http2 from 'node:http2';
import zlib from 'node:zlib';
import {
  HTTP_PATH, TO_OBJECT, COMMON_FLAGS, COMMON_USAGE,
  parseOptions, behaviour, tlsOptions, recorder, announce, die, intOption, devVersionError,
  DEV_VERSION_HEADER,
  requestType, responseType, statusType,
} from './lib.mjs';

const USAGE = `usage: node http-receiver.mjs [flags]
${COMMON_USAGE}  --retry-after S        send Retry-After: S with a failure
  STATUS is an HTTP status, e.g. 503 or 429.
example: node http-receiver.mjs --out /tmp/req.jsonl --fail 503 --fail-first 1 --retry-after 1
`;

const MAX_BODY = 64 << 20; // the size limit OTLP receivers commonly apply, after gunzip

const opts = parseOptions(process.argv.slice(2), { ...COMMON_FLAGS, 'retry-after': null }, USAGE);
const decide = behaviour(opts);
const rec = recorder(opts.out);
const retryAfter = intOption(opts, 'retry-after', 0);
if (opts.fail && !(/^\d{3}$/.test(opts.fail) && Number(opts.fail) >= 400))
  die(`--fail: not an HTTP error status: ${opts.fail}`);
const Request = requestType();
const Response = responseType();
const Status = statusType();

function reply(res, code, body, extra = {}) {
  res.writeHead(code, { 'content-type': 'application/x-protobuf', ...extra });
  res.end(body);
}

// The gRPC code a google.rpc.Status carries for an HTTP status (UNKNOWN otherwise).
const GRPC_CODE = { 400: 3, 404: 5, 413: 8, 415: 3, 429: 8, 500: 13, 502: 14, 503: 14, 504: 4 };

function replyStatus(res, code, message, extra) {
  reply(res, code, Status.encode({ code: GRPC_CODE[code] ?? 2, message }).finish(), extra);
}

// Returns the request body, gunzipped when Content-Encoding says gzip.
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) reject(new Error('body too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function handle(req, res) {
  if (req.method !== 'POST' || req.url !== HTTP_PATH) {
    replyStatus(res, 404, `only POST ${HTTP_PATH}`);
    return;
  }
  const type = (req.headers['content-type'] || '').split(';')[0].trim();
  if (type !== 'application/x-protobuf') {
    replyStatus(res, 415, `content-type ${type || '(none)'}: this receiver takes application/x-protobuf`);
    return;
  }
  const bad = devVersionError(req.headers[DEV_VERSION_HEADER]);
  if (bad) {
    replyStatus(res, 400, bad);
    return;
  }
  const encoding = (req.headers['content-encoding'] || 'identity').toLowerCase();
  let body, wireBytes;
  try {
    body = await readBody(req);
    wireBytes = body.length;
    if (encoding === 'gzip') body = zlib.gunzipSync(body, { maxOutputLength: MAX_BODY });
    else if (encoding !== 'identity') throw new Error(`content-encoding ${encoding} not supported`);
  } catch (e) {
    replyStatus(res, 400, e.message);
    return;
  }
  let request;
  try {
    request = Request.toObject(Request.decode(body), TO_OBJECT);
  } catch (e) {
    replyStatus(res, 400, `not an ExportProfilesServiceRequest: ${e.message}`);
    return;
  }
  const seq = rec.next();
  const how = decide(seq);
  rec.write({
    seq,
    transport: 'http',
    httpVersion: req.httpVersion,
    path: req.url,
    compression: encoding,
    userAgent: req.headers['user-agent'] ?? null,
    bytes: body.length,
    wireBytes,
    headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => !k.startsWith(':'))),
    answered: how.fail ? { status: Number(how.fail), retryAfter } : { status: 200, partialSuccess: how.partial },
    request,
  });
  setTimeout(() => {
    if (how.fail) {
      const extra = retryAfter !== null ? { 'retry-after': String(retryAfter) } : {};
      replyStatus(res, Number(how.fail), `test receiver told to fail (${how.fail})`, extra);
      return;
    }
    const msg = how.partial ? { partial_success: how.partial } : {};
    reply(res, 200, Response.encode(Response.fromObject(msg)).finish());
  }, how.delayMs);
}

const onRequest = (req, res) =>
  handle(req, res).catch((e) => {
    process.stderr.write(`otlp http receiver: ${e.stack}\n`);
    if (!res.headersSent) replyStatus(res, 500, e.message);
  });
const tls = tlsOptions(opts);
const server = tls
  ? http2.createSecureServer({ ...tls, allowHTTP1: true }, onRequest)
  : http.createServer(onRequest);
server.on('error', (e) => die(`cannot listen on ${opts.host}:${opts.port}: ${e.message}`));
server.listen(Number(opts.port), opts.host, () => announce(opts, server.address().port));

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));

// SPDX-License-Identifier: Apache-2.0
// A stand-in for the Kubernetes API server, only as far as the collector's k8s_attributes
// processor reads it (tests/kernel/collector.sh): GET /api/v1/pods, as a list and as a
// watch, over plain HTTP on the loopback. The pods are the test's, from a JSON file; the
// field selector spec.nodeName=NAME is applied as the real server applies it, and any
// other selector or path is refused (400, 404), so a request this server does not answer
// as the API server would shows in the log rather than passing. A watch asking for the
// initial events (client-go's watch-list, on by default since client-go 0.35) gets each
// pod as ADDED, then the bookmark that ends them; a plain watch stays open with nothing to
// say. The plain list is client-go's way without watch-list (KUBE_FEATURE_WatchListClient=
// false in the collector's environment). Every request is logged, one line each:
// "METHOD URL STATUS".
import fs from 'node:fs';
import http from 'node:http';

const USAGE = `usage: node kube-api.mjs --pods FILE --log FILE [--port N] [--port-file FILE]
  --pods FILE       a JSON array of Pod objects (v1) to serve
  --log FILE        append one line per request: method, URL, status
  --port N          port on 127.0.0.1 (default 0: any free one)
  --port-file FILE  write the port there once listening
`;

function usage(msg) {
  if (msg) process.stderr.write(`kube-api.mjs: ${msg}\n`);
  process.stderr.write(USAGE);
  process.exit(2);
}

const a = { pods: null, log: null, port: 0, portFile: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const f = argv[i];
  const v = () => argv[++i] ?? usage(`${f} needs a value`);
  if (f === '--pods') a.pods = v();
  else if (f === '--log') a.log = v();
  else if (f === '--port') a.port = Number(v());
  else if (f === '--port-file') a.portFile = v();
  else usage(`unknown argument ${f}`);
}
if (!a.pods || !a.log || !Number.isInteger(a.port)) usage();

const RV = '1'; // the one resource version: nothing changes while the test runs
const pods = JSON.parse(fs.readFileSync(a.pods, 'utf8')).map((p) => ({
  kind: 'Pod',
  apiVersion: 'v1',
  ...p,
  metadata: { resourceVersion: RV, ...p.metadata },
}));

function log(req, status) {
  fs.appendFileSync(a.log, `${req.method} ${req.url} ${status}\n`);
}

function send(req, res, status, body) {
  log(req, status);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function refuse(req, res, status, message) {
  send(req, res, status, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message,
    reason: status === 404 ? 'NotFound' : 'BadRequest', code: status,
  });
}

// The pods a field selector keeps; null for a selector this server does not implement.
function selected(selector) {
  if (!selector) return pods;
  const m = /^spec\.nodeName==?([^,]+)$/.exec(selector);
  return m ? pods.filter((p) => p.spec?.nodeName === m[1]) : null;
}

function serve(req, res) {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (req.method !== 'GET' || url.pathname !== '/api/v1/pods')
    return refuse(req, res, 404, `not served by this test server: ${req.method} ${url.pathname}`);
  const q = url.searchParams;
  if (q.get('labelSelector'))
    return refuse(req, res, 400, `label selectors are not implemented here: ${q.get('labelSelector')}`);
  const items = selected(q.get('fieldSelector'));
  if (!items)
    return refuse(req, res, 400, `field selector not implemented here: ${q.get('fieldSelector')}`);
  if (q.get('watch') !== 'true' && q.get('watch') !== '1')
    return send(req, res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: RV }, items });

  log(req, 200);
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  if (q.get('sendInitialEvents') === 'true') {
    for (const p of items) res.write(JSON.stringify({ type: 'ADDED', object: p }) + '\n');
    res.write(JSON.stringify({
      type: 'BOOKMARK',
      object: {
        kind: 'Pod', apiVersion: 'v1',
        metadata: { resourceVersion: RV, annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    }) + '\n');
  }
  // Open until the client goes or the time it asked for runs out.
  const secs = Number(q.get('timeoutSeconds')) || 300;
  const timer = setTimeout(() => res.end(), secs * 1000);
  res.on('close', () => clearTimeout(timer));
}

const server = http.createServer(serve);
server.listen(a.port, '127.0.0.1', () => {
  const { port } = server.address();
  if (a.portFile) fs.writeFileSync(a.portFile, `${port}\n`);
  process.stderr.write(`kube-api.mjs: listening on 127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => process.exit(0));

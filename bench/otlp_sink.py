#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The cheapest OTLP/HTTP receiver for bench/agent.sh: accepts every POST with 200 and an
# empty body (a valid, empty ExportProfilesServiceResponse) and counts requests, bytes and
# duplicates (a body it already took, by hash), so the benchmark measures the agent, not a
# collector. --delay S answers S seconds after reading a request (taken, stored, then
# slow to say so: a collector under load), one thread per connection so a slow answer does
# not hold up the next request. Not used by the tests, which decode and check what they
# receive (tests/otlp/).
#   bench/otlp_sink.py PORT COUNTS_FILE [--delay S]
import argparse
import hashlib
import http.server
import threading
import time


class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    lock = threading.Lock()
    requests = 0
    body_bytes = 0
    duplicates = 0
    seen = set()
    delay = 0.0
    counts = ""

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        digest = hashlib.sha256(body).digest()
        with Sink.lock:
            Sink.requests += 1
            Sink.body_bytes += n
            Sink.duplicates += digest in Sink.seen
            Sink.seen.add(digest)
            with open(Sink.counts, "w") as f:
                f.write(f"{Sink.requests} {Sink.body_bytes} {Sink.duplicates}\n")
        if Sink.delay:
            time.sleep(Sink.delay)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()
        except OSError:
            pass  # the agent gave up waiting: what was taken stays counted

    def log_message(self, *args):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("counts")
    ap.add_argument("--delay", type=float, default=0.0)
    a = ap.parse_args()
    Sink.delay, Sink.counts = a.delay, a.counts
    with open(a.counts, "w") as f:
        f.write("0 0 0\n")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), Sink)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()

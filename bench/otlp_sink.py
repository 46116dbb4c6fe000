#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The cheapest OTLP/HTTP receiver for bench/agent.sh: accepts every POST with 200 and an
# empty body (a valid, empty ExportProfilesServiceResponse) and counts requests and
# bytes, so the benchmark measures the agent, not a collector. Not used by the tests,
# which decode and check what they receive (tests/otlp/).
import http.server
import sys


class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    requests = 0
    body_bytes = 0

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(n)
        Sink.requests += 1
        Sink.body_bytes += n
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
        with open(sys.argv[2], "w") as f:
            f.write(f"{Sink.requests} {Sink.body_bytes}\n")

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()

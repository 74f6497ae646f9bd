#!/usr/bin/env python3
"""prometheus_fake.py PORTFILE [UPSTREAM CAFILE] - a broken "Prometheus" for
prometheus_source.sh and prometheus_robust.sh.

Listens on 127.0.0.1 (a free port, written to PORTFILE) and answers
/MODE/api/v1/query by MODE, the first path segment of the base URL:
  500      HTTP 500 with a text body
  garbage  HTTP 200 with a body that is not JSON
  cut      HTTP 200 promising 100000 bytes, sending 40, then closing
  hang     reads the request and never answers
  auth     an empty vector if the Authorization header is
           "Bearer s3cret-token", else HTTP 401
  warn     an empty vector with a warning attached
  slow     an empty vector after 3 s (longer than the test's --timeout)
  big      one query (the first of each refresh) gets a vector that never
           ends, sent as fast as the client reads; the others an empty one
  nochrony (with UPSTREAM, a real Prometheus's base URL, and the CA that
           signed its certificate) forwards each query and its Authorization
           header there, except those about chrony_exporter's series, which
           get HTTP 500: a server failing some of its queries
  sent     how many bytes the longest "big" answer got out before the
           client hung up (plain text)
Only what the real server cannot be made to do; the rest of the test talks
to the real Prometheus."""
import http.server
import socketserver
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

EMPTY = b'{"status":"success","data":{"resultType":"vector","result":[]}}'
BIG_SAMPLE = b'{"metric":{"__name__":"node_timex_status","instance":"big:9100"},"value":[1,"1"]},'
big_lock = threading.Lock()
big_state = {"sent": 0, "last_start": 0.0}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, code, body, length=None):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        mode = self.path.split("/")[1]
        if mode == "500":
            self.send(500, b"internal error\n")
        elif mode == "garbage":
            self.send(200, b"<html>this is no Prometheus</html>")
        elif mode == "cut":
            self.send(200, EMPTY[:40], length=100000)
            self.wfile.flush()
            self.close_connection = True
        elif mode == "hang":
            time.sleep(3600)
        elif mode == "auth":
            if self.headers.get("Authorization") == "Bearer s3cret-token":
                self.send(200, EMPTY)
            else:
                self.send(401, b'{"status":"error","errorType":"unauthorized","error":"no token"}')
        elif mode == "warn":
            self.send(200, b'{"status":"success","warnings":["store eu-1 did not answer: partial result"],'
                           b'"data":{"resultType":"vector","result":[]}}')
        elif mode == "slow":
            time.sleep(3)
            self.send(200, EMPTY)
        elif mode == "big":
            self.big()
        elif mode == "nochrony":
            self.forward()
        elif mode == "sent":
            with big_lock:
                self.send(200, str(big_state["sent"]).encode())
        else:
            self.send(404, b"unknown mode\n")

    def forward(self):
        rest = self.path[len("/nochrony"):]
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(rest).query).get("query", [""])[0]
        if "chrony_" in query:
            self.send(500, b"internal error\n")
            return
        req = urllib.request.Request(sys.argv[2].rstrip("/") + rest)
        if self.headers.get("Authorization"):
            req.add_header("Authorization", self.headers["Authorization"])
        ctx = ssl.create_default_context(cafile=sys.argv[3])
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=5) as r:
                self.send(r.status, r.read())
        except urllib.error.HTTPError as e:
            self.send(e.code, e.read())

    def big(self):
        # a refresh sends its queries within milliseconds: the first of
        # them (after a quiet second) gets the endless answer
        with big_lock:
            now = time.monotonic()
            endless = now - big_state["last_start"] > 1.0
            big_state["last_start"] = now
        if not endless:
            self.send(200, EMPTY)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()  # no length: the body ends when the connection does
        self.close_connection = True
        sent = 0
        chunk = BIG_SAMPLE * 4096
        try:
            self.wfile.write(b'{"status":"success","data":{"resultType":"vector","result":[')
            while sent < (1 << 30):
                self.wfile.write(chunk)
                sent += len(chunk)
        except OSError:
            pass
        with big_lock:
            big_state["sent"] = max(big_state["sent"], sent)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()

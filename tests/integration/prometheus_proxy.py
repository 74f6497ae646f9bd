#!/usr/bin/python3
"""prometheus_proxy.py - a proxy to a real Prometheus that slows or breaks
some of its answers, for states the real server does not reach with a few
nodes' data (a shim: the tests that use it say so).

  prometheus_proxy.py UPSTREAM PORTFILE MODEFILE

Listens on a free port of 127.0.0.1 (written to PORTFILE) and forwards
every GET to UPSTREAM.  MODEFILE's first line, read at each request, says
what to do besides:
  pass          nothing
  slow          hold each request for the week (604800s in the query) 3 s
  fail-timex    answer the week's timex part with HTTP 500
  hold-after-4  hold every query_range after the first four for an hour
"""
import http.server
import socketserver
import sys
import threading
import time
import urllib.parse
import urllib.request

up, port_file, mode_file = sys.argv[1], sys.argv[2], sys.argv[3]
ranges, lock = [0], threading.Lock()


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        q = urllib.parse.unquote(self.path)
        with open(mode_file) as f:
            mode = f.read().strip()
        week = "604800s" in q
        if mode == "fail-timex" and week and "node_timex_frequency_adjustment_ratio" in q:
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "slow" and week:
            time.sleep(3)
        if mode == "hold-after-4" and "/query_range" in self.path:
            with lock:
                ranges[0] += 1
                held = ranges[0] > 4
            if held:
                time.sleep(3600)
        with urllib.request.urlopen(up + self.path) as r:
            body = r.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


s = S(("127.0.0.1", 0), H)
with open(port_file, "w") as f:
    f.write(str(s.server_address[1]))
s.serve_forever()

#!/usr/bin/env python3
"""A small HTTP file server for t051-bundle: serves a directory on
loopback with Range support, and can misbehave on purpose.

  bundle_httpd.py DIR --port-file F [--log F] [--cut NAME:BYTES[:TIMES]]
                  [--no-range] [--delay SECONDS]

--cut NAME:BYTES:TIMES  the first TIMES requests (default 1) for a file
                        named NAME get the full Content-Length but only
                        BYTES of the body, then the connection is dropped.
--no-range              ignore Range headers (always 200 and the whole file).
--delay SECONDS         wait before answering a .deb (to see parallel clients).
Every request is logged as "METHOD PATH RANGE-OR-DASH STATUS"; with --delay,
"inflight N" lines give how many .deb requests were being answered at once.
"""
import argparse
import http.server
import os
import re
import socketserver
import sys
import threading
import time
import urllib.parse

args = None
cuts = {}
lock = threading.Lock()
inflight = [0]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *a):
        pass

    def log_req(self, status):
        if args.log:
            with lock, open(args.log, "a") as f:
                f.write("%s %s %s %d\n" % (self.command, self.path,
                        self.headers.get("Range") or "-", status))

    def do_HEAD(self):
        self.do_GET(body=False)

    def do_GET(self, body=True):
        if args.delay and self.path.endswith(".deb"):
            with lock:
                inflight[0] += 1
                if args.log:
                    with open(args.log, "a") as f:
                        f.write("inflight %d\n" % inflight[0])
            time.sleep(args.delay)
            with lock:
                inflight[0] -= 1
        rel = urllib.parse.unquote(self.path.split("?", 1)[0]).lstrip("/")
        path = os.path.realpath(os.path.join(args.dir, rel))
        if not path.startswith(os.path.realpath(args.dir) + os.sep) or \
                not os.path.isfile(path):
            self.log_req(404)
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        size = os.path.getsize(path)
        start = 0
        rng = self.headers.get("Range")
        m = re.match(r"bytes=(\d+)-$", rng or "")
        if m and not args.no_range:
            start = int(m.group(1))
            if start >= size:
                self.log_req(416)
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range",
                             "bytes %d-%d/%d" % (start, size - 1, size))
            status = 206
        else:
            self.send_response(200)
            status = 200
        self.log_req(status)
        self.send_header("Content-Length", str(size - start))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        if not body:
            return
        name = os.path.basename(path)
        limit = None
        with lock:
            c = cuts.get(name)
            if c and c[1] > 0:
                c[1] -= 1
                limit = c[0]
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read()
        if limit is not None:
            self.wfile.write(data[:limit])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(data)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # Clients that hang up (curl after a cut) are expected here.
        if not isinstance(sys.exc_info()[1], (ConnectionError, OSError)):
            super().handle_error(request, client_address)


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--port-file", required=True)
    p.add_argument("--log")
    p.add_argument("--cut", action="append", default=[])
    p.add_argument("--no-range", action="store_true")
    p.add_argument("--delay", type=float, default=0)
    args = p.parse_args()
    for c in args.cut:
        parts = c.split(":")
        cuts[parts[0]] = [int(parts[1]), int(parts[2]) if len(parts) > 2 else 1]
    srv = Server(("127.0.0.1", 0), Handler)
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(args.port_file + ".tmp", args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

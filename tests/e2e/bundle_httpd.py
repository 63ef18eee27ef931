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
import sys
import time
import urllib.parse

from faulty_http import lock, send_ranged, serve, take_cut

args = None
cuts = {}
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
        self.do_GET()

    def do_GET(self):
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
        with open(path, "rb") as f:
            data = f.read()
        name = os.path.basename(path)
        send_ranged(self, data, self.log_req, ranged=not args.no_range,
                    cut=lambda: take_cut(cuts, name))


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
    return serve(Handler, args.port_file)


if __name__ == "__main__":
    sys.exit(main())

"""What the e2e tests' HTTP servers (bundle_httpd.py, oci_registry.py)
share: a threaded loopback server that shrugs off clients hanging up and
writes its port to a file once listening, and a body sender that honours
"Range: bytes=N-" and can cut a body short on purpose (full
Content-Length, fewer bytes, then the connection drops) to test resumes.
"""
import http.server
import os
import re
import socketserver
import sys
import threading

lock = threading.Lock()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # Clients that hang up (curl after a cut) are expected here.
        if not isinstance(sys.exc_info()[1], (ConnectionError, OSError)):
            super().handle_error(request, client_address)


def serve(handler, port_file):
    """Serve on a free port of 127.0.0.1, written to port_file (renamed
    into place, so a reader never sees half a number) before the first
    request is taken; until killed."""
    srv = Server(("127.0.0.1", 0), handler)
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(port_file + ".tmp", port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def take_cut(cuts, key):
    """Bytes to send of the next body for key, or None.  cuts maps a key
    to [BYTES, TIMES]; each cut taken counts TIMES down."""
    with lock:
        c = cuts.get(key)
        if c and c[1] > 0:
            c[1] -= 1
            return c[0]
    return None


def send_ranged(h, data, log, headers=(), ranged=True, cut=None):
    """Answer h's GET or HEAD with data: 206 from "Range: bytes=N-" when
    ranged, 416 past the end, else 200.  log(status) is called before the
    answer.  cut, when given, is called for a GET only and returns the
    bytes to send before dropping the connection, or None for all."""
    size = len(data)
    start = 0
    hdrs = list(headers)
    status = 200
    m = re.match(r"bytes=(\d+)-$", h.headers.get("Range") or "")
    if m and ranged:
        start = int(m.group(1))
        if start >= size:
            log(416)
            h.send_response(416)
            h.send_header("Content-Range", "bytes */%d" % size)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        status = 206
        hdrs.append(("Content-Range",
                     "bytes %d-%d/%d" % (start, size - 1, size)))
    log(status)
    h.send_response(status)
    for k, v in hdrs:
        h.send_header(k, v)
    h.send_header("Content-Length", str(size - start))
    h.send_header("Content-Type", "application/octet-stream")
    h.end_headers()
    if h.command == "HEAD":
        return
    body = data[start:]
    limit = cut() if cut is not None else None
    if limit is not None:
        h.wfile.write(body[:limit])
        h.wfile.flush()
        h.close_connection = True
        h.connection.shutdown(2)
        return
    h.wfile.write(body)

#!/usr/bin/env python3
"""A small OCI registry for t053-bundle-images (and t103, t107): serves
synthetic multi-arch images on loopback behind a Bearer token, and can
misbehave on purpose.

  oci_registry.py DIR --port-file F [--log F] --image REPO:TAG ...
                  [--corrupt WHAT] [--cut WHAT:BYTES[:TIMES]] [--no-auth]
                  [--diff-ids]

DIR holds the images (made on the first start, reused after, so a restarted
registry serves the same digests) and DIR/images.json describes them:
{"REPO:TAG": {"index": DIGEST, "amd64": {"manifest": DIGEST, "config":
DIGEST, "layers": [DIGEST, DIGEST]}, "arm64": {...}}}.  Each image is an
OCI index with linux/amd64 and linux/arm64 manifests (plus an attestation
entry with platform unknown/unknown), a config and two gzip tar layers.

WHAT names a blob: a digest, or amd64-config, amd64-layer0, amd64-layer1.
--corrupt WHAT   serve that blob with one byte changed (same size).
--cut WHAT:BYTES:TIMES  the first TIMES requests (default 1) for that blob
                 get the full Content-Length but only BYTES of the body.
--no-auth        no token needed.
--diff-ids       configs with real rootfs.diff_ids, so that runtimes can
                 import and unpack the images (t103).
Requests are logged as "METHOD PATH RANGE-OR-DASH AUTH STATUS" where AUTH
is "token" or "-".
"""
import argparse
import gzip
import hashlib
import http.server
import io
import json
import os
import re
import sys
import tarfile
import urllib.parse

from faulty_http import lock, send_ranged, serve, take_cut

args = None
blobs = {}        # digest -> path
manifests = {}    # (repo, ref) -> (media type, digest)
cuts = {}         # digest -> [bytes, times]
corrupt = set()
TOKEN = "t0ken-%s" % os.urandom(8).hex()

MT_INDEX = "application/vnd.oci.image.index.v1+json"
MT_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
MT_CONFIG = "application/vnd.oci.image.config.v1+json"
MT_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"


def put(root, data):
    d = "sha256:" + hashlib.sha256(data).hexdigest()
    p = os.path.join(root, "blobs", d[7:])
    if not os.path.exists(p):
        with open(p + ".tmp", "wb") as f:
            f.write(data)
        os.rename(p + ".tmp", p)
    return d, len(data)


def layer(name, size):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as t:
        data = os.urandom(size)
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        ti.mode = 0o644
        t.addfile(ti, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def make_images(root, images, diff_ids=False):
    """Each image for amd64 and arm64 (two gzip layers each) under an
    index that also holds an attestation manifest, as buildkit adds
    (never picked).  diff_ids (--diff-ids): a real rootfs.diff_ids (the
    SHA-256 of each uncompressed layer) and small files at /etc/IMAGE-N,
    so that runtimes can import and unpack them (ctr images import,
    docker load), and no attestation.  images.json remembers which kind
    an image was made as, and a DIR reused for the other kind remakes it."""
    os.makedirs(os.path.join(root, "blobs"), exist_ok=True)
    desc_path = os.path.join(root, "images.json")
    desc = json.load(open(desc_path)) if os.path.exists(desc_path) else {}
    for image in images:
        if image in desc and desc[image].get("diff_ids", False) == diff_ids:
            continue
        entry = {"diff_ids": diff_ids}
        mans = []
        for arch in ("amd64", "arm64"):
            layers, ids = [], []
            for i, size in enumerate((300 * 1024, 40 * 1024)):
                if diff_ids:
                    name = "etc/%s-%s-%d" % (arch, image.replace("/", "_").replace(":", "_"), i)
                else:
                    name = "%s/%s-%d" % (arch, image.replace("/", "_"), i)
                gz = layer(name, size)
                if diff_ids:
                    ids.append("sha256:" + hashlib.sha256(gzip.decompress(gz)).hexdigest())
                ld, ls = put(root, gz)
                layers.append({"mediaType": MT_LAYER, "digest": ld, "size": ls})
            cfg = json.dumps({"architecture": arch, "os": "linux",
                              "config": {"Cmd": ["/bin/true"]},
                              "rootfs": {"type": "layers", "diff_ids": ids},
                              "created": "2024-01-01T00:00:00Z",
                              "comment": image}).encode()
            cd, cs = put(root, cfg)
            man = json.dumps({"schemaVersion": 2, "mediaType": MT_MANIFEST,
                              "config": {"mediaType": MT_CONFIG, "digest": cd, "size": cs},
                              "layers": layers}, indent=2).encode()
            md, ms = put(root, man)
            mans.append({"mediaType": MT_MANIFEST, "digest": md, "size": ms,
                         "platform": {"architecture": arch, "os": "linux"}})
            entry[arch] = {"manifest": md, "config": cd,
                           "layers": [l["digest"] for l in layers]}
        if not diff_ids:
            mans.append({"mediaType": MT_MANIFEST, "digest": mans[0]["digest"],
                         "size": mans[0]["size"],
                         "platform": {"architecture": "unknown", "os": "unknown"}})
        idx = json.dumps({"schemaVersion": 2, "mediaType": MT_INDEX,
                          "manifests": mans}).encode()
        entry["index"], _ = put(root, idx)
        desc[image] = entry
    with open(desc_path + ".tmp", "w") as f:
        json.dump(desc, f, indent=1)
    os.rename(desc_path + ".tmp", desc_path)
    return desc


def blob_of(desc, what):
    if what.startswith("sha256:"):
        return what
    arch, kind = what.split("-", 1)
    for entry in desc.values():
        if kind == "config":
            return entry[arch]["config"]
        return entry[arch]["layers"][int(kind[len("layer"):])]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *a):
        pass

    def log_req(self, status, authed):
        if args.log:
            with lock, open(args.log, "a") as f:
                f.write("%s %s %s %s %d\n" % (self.command, self.path,
                        self.headers.get("Range") or "-",
                        "token" if authed else "-", status))

    def reply(self, status, body=b"", ctype="application/json", headers=(),
              authed=False):
        self.log_req(status, authed)
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/token":
            q = urllib.parse.parse_qs(url.query)
            if q.get("service") != ["test-registry"] or \
                    not q.get("scope", [""])[0].startswith("repository:"):
                return self.reply(400, b'{"errors": [{"code": "DENIED"}]}')
            return self.reply(200, json.dumps({"token": TOKEN}).encode())
        m = re.match(r"^/v2/(.+)/(manifests|blobs)/([^/]+)$", url.path)
        authed = self.headers.get("Authorization") == "Bearer " + TOKEN
        if url.path == "/v2/":
            # the API's base, where clients learn the challenge (the
            # Distribution registry's proxy asks it before any pull)
            if authed or args.no_auth:
                return self.reply(200, b"{}", authed=authed)
            host = "127.0.0.1:%d" % self.server.server_address[1]
            return self.reply(401, b'{"errors": [{"code": "UNAUTHORIZED"}]}',
                              headers=[("WWW-Authenticate",
                                        'Bearer realm="http://%s/token",'
                                        'service="test-registry"' % host)])
        if not m:
            return self.reply(404, b'{"errors": [{"code": "NOT_FOUND"}]}')
        repo, kind, ref = m.groups()
        if not authed and not args.no_auth:
            host = "127.0.0.1:%d" % self.server.server_address[1]
            return self.reply(401, b'{"errors": [{"code": "UNAUTHORIZED"}]}',
                              headers=[("WWW-Authenticate",
                                        'Bearer realm="http://%s/token",'
                                        'service="test-registry",'
                                        'scope="repository:%s:pull"' % (host, repo))])
        if kind == "manifests":
            if ref.startswith("sha256:"):
                key = ref
            else:
                entry = desc.get("%s:%s" % (repo, ref))
                key = entry["index"] if entry else None
            if key is None or key not in blobs:
                return self.reply(404, b'{"errors": [{"code": "MANIFEST_UNKNOWN"}]}',
                                  authed=authed)
            data = open(blobs[key], "rb").read()
            mt = json.loads(data).get("mediaType", MT_MANIFEST)
            return self.reply(200, data, ctype=mt,
                              headers=[("Docker-Content-Digest", key)], authed=authed)
        if ref not in blobs:
            return self.reply(404, b'{"errors": [{"code": "BLOB_UNKNOWN"}]}',
                              authed=authed)
        data = bytearray(open(blobs[ref], "rb").read())
        if ref in corrupt:
            data[len(data) // 2] ^= 0xFF
        send_ranged(self, bytes(data), lambda st: self.log_req(st, authed),
                    headers=[("Docker-Content-Digest", ref)],
                    cut=lambda: take_cut(cuts, ref))


desc = {}


def main():
    global args, desc
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--port-file", required=True)
    p.add_argument("--log")
    p.add_argument("--image", action="append", default=[])
    p.add_argument("--corrupt", action="append", default=[])
    p.add_argument("--cut", action="append", default=[])
    p.add_argument("--no-auth", action="store_true")
    p.add_argument("--diff-ids", action="store_true")
    args = p.parse_args()
    desc = make_images(args.dir, args.image, args.diff_ids)
    for name in os.listdir(os.path.join(args.dir, "blobs")):
        if not name.endswith(".tmp"):
            blobs["sha256:" + name] = os.path.join(args.dir, "blobs", name)
    for c in args.corrupt:
        corrupt.add(blob_of(desc, c))
    for c in args.cut:
        parts = c.split(":")
        if parts[0] == "sha256":
            what, n, times = "sha256:" + parts[1], parts[2], parts[3] if len(parts) > 3 else 1
        else:
            what, n, times = parts[0], parts[1], parts[2] if len(parts) > 2 else 1
        cuts[blob_of(desc, what)] = [int(n), int(times)]
    return serve(Handler, args.port_file)


if __name__ == "__main__":
    sys.exit(main())

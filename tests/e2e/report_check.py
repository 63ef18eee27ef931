#!/usr/bin/env python3
"""report_check.py: assertions on a report as Chromium rendered it.

    report_check.py dom DOM.html CHECK.json LS.json [VERIFY.json]
        The DOM Chromium dumped (--dump-dom) holds: a <g class="rack"
        data-rack=R> for every rack the checks name, every node of
        `provision ls --json` in its rack at its unit (or in the list of
        unplaced nodes), one <tr class="check fail"> per failing check
        with its subject and check, no script and nothing fetched from
        the network; with VERIFY.json, one <tr class="verify V"> per
        verify check, its text escaped (no element made from it).
    report_check.py png FILE.png WIDTH HEIGHT
        The screenshot is a WIDTHxHEIGHT PNG showing the worker colour
        of the rack elevation (#59a14f) over many pixels.

Prints what it checked; exits 1 with the reason on the first failure.
"""
import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser

PX_PER_U = 18


def fail(msg):
    print("report_check: " + msg)
    sys.exit(1)


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.racks = {}          # rack -> {"units": n, "nodes": {name: attrs}}
        self.unplaced = set()
        self.checks = []         # (classes, [cell texts])
        self.verify = []
        self.scripts = 0
        self.external = []
        self.switches = set()
        self.rects = {}          # node -> rect attrs
        self._row = None
        self._cell = None
        self._rack = None
        self._item = None
        self._span = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        self.stack.append((tag, cls))
        if tag in ("script", "iframe", "object", "embed"):
            self.scripts += 1
        for k in ("src", "href"):
            v = a.get(k)
            if v and re.match(r"(?i)\s*(https?:|//)", v):
                self.external.append(v)
        if tag == "link":
            self.external.append(a.get("href", "link"))
        if tag == "g" and "rack" in cls:
            self._rack = a["data-rack"]
            self.racks[self._rack] = {"units": int(a["data-units"]),
                                      "nodes": {}}
        elif tag == "g" and "node" in cls and self._rack is not None:
            self._item = a["data-node"]
            self.racks[self._rack]["nodes"][self._item] = a
        elif tag == "g" and "switch" in cls:
            self.switches.add(a["data-switch"])
        elif tag == "rect" and self._item is not None:
            self.rects.setdefault(self._item, a)
        elif tag == "span" and "unracked" in cls:
            self.unplaced.add(a["data-node"])
        elif tag == "tr" and ("check" in cls or "verify" in cls):
            self._row = (tag, cls, [])
        elif tag == "td" and self._row is not None:
            self._cell = []
        elif self._cell is not None and tag not in ("br",):
            # an element inside a check or verify cell: escaping failed
            self._cell.append("<%s>" % tag)

    def handle_endtag(self, tag):
        while self.stack:
            t, cls = self.stack.pop()
            if t == tag:
                break
        if tag == "g" and self._item is not None:
            self._item = None
        elif tag == "g" and self._rack is not None and self._item is None:
            # closes the rack group when no item is open
            if not any(t == "g" for t, _ in self.stack):
                self._rack = None
        elif tag == "td" and self._row is not None and self._cell is not None:
            self._row[2].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            _, cls, cells = self._row
            (self.checks if "check" in cls else self.verify).append(
                (cls, cells))
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def check_dom(dom_path, check_path, ls_path, verify_path=None):
    d = Dom()
    d.feed(open(dom_path, encoding="utf-8").read())
    chk = json.load(open(check_path))
    ls = json.load(open(ls_path))

    if d.scripts:
        fail("the page holds %d script/iframe/object elements" % d.scripts)
    if d.external:
        fail("the page fetches from the network: %s" % d.external[:3])

    racks = set()
    for r in chk["rows"]:
        m = re.match(r"^rack '([^']+)'( feed .*)?$", r["subject"] or "")
        if m:
            racks.add(m.group(1))
    for r in sorted(racks):
        if r not in d.racks:
            fail("rack %s is not drawn (have %s)" % (r, sorted(d.racks)))
    print("racks: %d drawn (%s)" % (len(d.racks), ", ".join(sorted(d.racks))))

    nodes = 0
    for n in ls["nodes"]:
        name, rack, u = n["name"], n.get("rack"), n.get("u") or 0
        if rack and u > 0:
            if rack not in d.racks or name not in d.racks[rack]["nodes"]:
                fail("node %s is not drawn in rack %s" % (name, rack))
            g = d.racks[rack]["nodes"][name]
            if int(g["data-u"]) != u:
                fail("node %s drawn at U%s, plan says U%d"
                     % (name, g["data-u"], u))
            # to scale: its box spans data-height units from the bottom
            h = int(g["data-height"])
            units = d.racks[rack]["units"]
            rect = d.rects.get(name)
            if rect is None:
                fail("node %s has no box" % name)
            if u + h - 1 <= units and "conflict" not in g.get("class", ""):
                want_y = 10 + (units - (u + h - 1)) * PX_PER_U + 1
                if abs(float(rect["y"]) - want_y) > 0.01 or \
                        int(rect["height"]) != h * PX_PER_U - 2:
                    fail("node %s: box y=%s h=%s, want y=%s h=%s"
                         % (name, rect["y"], rect["height"], want_y,
                            h * PX_PER_U - 2))
        elif name not in d.unplaced:
            fail("node %s (no rack unit) is not listed as unplaced" % name)
        nodes += 1
    print("nodes: %d all in place" % nodes)

    fails = [r for r in chk["rows"] if r["verdict"] == "fail"]
    shown = [c for cls, c in d.checks if "fail" in cls]
    if len(shown) != len(fails) or len(fails) != chk["summary"]["fail"]:
        fail("%d failing checks shown, check --json has %d"
             % (len(shown), len(fails)))
    for r in fails:
        if not any(c[2] == r["subject"] and c[3] == r["check"]
                   and c[4] == (r["measured"] or "") for c in shown):
            fail("failing check '%s: %s' is not in the page"
                 % (r["subject"], r["check"]))
    if len(d.checks) != len(chk["rows"]):
        fail("%d check rows shown of %d" % (len(d.checks), len(chk["rows"])))
    print("checks: %d rows, %d failing, all shown" % (len(d.checks),
                                                      len(fails)))

    if verify_path:
        v = json.load(open(verify_path))
        if len(d.verify) != len(v["checks"]):
            fail("%d verify rows shown of %d" % (len(d.verify),
                                                 len(v["checks"])))
        for (cls, cells), c in zip(d.verify, v["checks"]):
            # verify before rows wrote node and reason
            subject = c.get("subject", c.get("node"))
            hint = c.get("hint", c.get("reason"))
            if c["verdict"] not in cls:
                fail("verify row %s/%s lacks class %s"
                     % (subject, c["check"], c["verdict"]))
            if cells[2] != subject or cells[3] != c["check"] or \
                    cells[6] != (hint or ""):
                fail("verify row differs: %s vs %s" % (cells, c))
        print("verify: %d rows, text escaped" % len(d.verify))


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("unexpected PNG format %s" % (hdr,))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def check_png(path, want_w, want_h):
    w, h, bpp, rows = png_pixels(path)
    if (w, h) != (want_w, want_h):
        fail("screenshot is %dx%d, not %dx%d" % (w, h, want_w, want_h))
    green = 0
    for r in rows:
        for x in range(0, len(r), bpp):
            if abs(r[x] - 0x59) < 6 and abs(r[x + 1] - 0xa1) < 6 and \
                    abs(r[x + 2] - 0x4f) < 6:
                green += 1
    if green < 2000:
        fail("screenshot shows %d worker-coloured pixels: the racks were "
             "not drawn" % green)
    print("screenshot: %dx%d, %d worker-coloured pixels" % (w, h, green))


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "dom":
        check_dom(*sys.argv[2:6])
    elif len(sys.argv) == 5 and sys.argv[1] == "png":
        check_png(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        print(__doc__)
        sys.exit(2)

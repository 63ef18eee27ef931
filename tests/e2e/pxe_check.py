#!/usr/bin/env python3
"""Helpers for t050-pxe (standard library; PyYAML where it is installed).

  pxe_check.py plan-with-macs EXAMPLE LS-JSON OUT
      Copy a plan, replacing its nodes: section by one entry per node
      (from `provision ls --json`) that adds a generated MAC.
  pxe_check.py user-data FILE KEYFILE NODE CIDR MAC
      Check an autoinstall user-data file with a YAML parser; print its
      late-commands, one per line, for the test to run.  Exit 77 when
      PyYAML is missing.
  pxe_check.py kickstart FILE KEYFILE USER ADDR MAC
      Split each kickstart command as pykickstart does (shlex, comments)
      and check sshkey and network.
"""
import json
import re
import shlex
import sys


def fail(msg):
    print("pxe_check: " + msg, file=sys.stderr)
    sys.exit(1)


def plan_with_macs(example, lsjson, out):
    text = open(example).read().splitlines(True)
    nodes = json.load(open(lsjson))["nodes"]
    res, skip = [], False
    for line in text:
        if re.match(r"^nodes:", line):
            skip = True
            res.append("nodes:\n")
            for i, n in enumerate(nodes):
                e = {"name": n["name"], "role": n["role"],
                     "address": n["address"],
                     "mac": "02:00:5e:%02x:%02x:%02x" % (
                         (i >> 16) & 255, (i >> 8) & 255, i & 255)}
                for k in ("hardware", "rack", "u"):
                    if n.get(k) is not None:
                        e[k] = n[k]
                if n.get("interfaces"):
                    e["interfaces"] = n["interfaces"]
                res.append("  - " + json.dumps(e) + "\n")
            continue
        if skip and re.match(r"^[A-Za-z_]+:", line):
            skip = False
        if not skip:
            res.append(line)
    open(out, "w").write("".join(res))


def user_data(path, keyfile, node, cidr, mac):
    try:
        import yaml
    except ImportError:
        sys.exit(77)
    key = open(keyfile).read().strip()
    text = open(path).read()
    if not text.startswith("#cloud-config\n"):
        fail("user-data does not start with #cloud-config")
    d = yaml.safe_load(text)
    ai = d["autoinstall"]
    if ai["version"] != 1:
        fail("autoinstall version")
    if ai["identity"]["hostname"] != node:
        fail("hostname %r" % ai["identity"]["hostname"])
    if ai["ssh"]["authorized-keys"] != [key]:
        fail("authorized-keys %r != %r" % (ai["ssh"]["authorized-keys"], key))
    eth = ai["network"]["ethernets"]["provision0"]
    if eth["match"]["macaddress"] != mac or eth["addresses"] != [cidr]:
        fail("network %r" % eth)
    for c in ai["late-commands"]:
        if not isinstance(c, str) or "\n" in c:
            fail("late-command %r" % c)
        print(c)


def kickstart(path, keyfile, user, addr, mac):
    key = open(keyfile).read().strip()
    seen = set()
    section = None
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("%"):
            section = None if line == "%end" else line.split()[0]
            continue
        if section is not None:
            continue
        words = shlex.split(line, comments=True)
        seen.add(words[0])
        if words[0] == "sshkey":
            if words[1:] != ["--username=" + user, key]:
                fail("sshkey %r" % words)
        if words[0] == "network":
            if "--ip=" + addr not in words or "--device=" + mac not in words:
                fail("network %r" % words)
    for need in ("url", "network", "sshkey", "rootpw", "autopart"):
        if need not in seen:
            fail("no '%s' command" % need)


def main():
    if len(sys.argv) < 2:
        fail("usage")
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "plan-with-macs":
        plan_with_macs(*a)
    elif cmd == "user-data":
        user_data(*a)
    elif cmd == "kickstart":
        kickstart(*a)
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main()

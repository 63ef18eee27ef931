#!/usr/bin/env python3
"""Redfish BMC emulator for tests.

Serves a DMTF Redfish mockup directory (each resource is DIR/index.json) over
HTTPS (or plain HTTP with --http), with Basic and session authentication,
in-memory state for power, boot override and virtual media, optional
asynchronous actions with task monitors, and fault injection.  One process
can serve many BMCs (--listen-many), each with its own state.

With --qemu SYSTEM=SOCKET a system is a real QEMU VM (qemuvm.py): power,
boot override and the virtual CD act on it over QMP.

Python 3 standard library only.  See README.md next to this file.
"""

import argparse
import base64
import collections
import datetime
import errno
import hashlib
import hmac
import ipaddress
import json
import math
import os
import secrets
import select
import signal
import socket
import socketserver
import subprocess
import ssl
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

import qemuvm

ROOT = "/redfish/v1"
SESSIONS = ROOT + "/SessionService/Sessions"
SESSION_SERVICE = ROOT + "/SessionService"
TASKS = ROOT + "/TaskService/Tasks"
MONITORS = ROOT + "/TaskService/TaskMonitors"
PUBLIC_GET = ("/redfish", ROOT, ROOT + "/odata", ROOT + "/$metadata")
MAX_BODY = 1 << 20
MAX_LOG = 10000
JSON_TYPE = "application/json; charset=utf-8"

# Every ResetType the ComputerSystem schema defines.
RESET_TYPES = ("On", "ForceOff", "GracefulShutdown", "GracefulRestart",
	       "ForceRestart", "Nmi", "ForceOn", "PushPowerButton",
	       "PowerCycle", "Suspend", "Pause", "Resume", "FullPowerCycle")
BOOT_TARGETS = ("None", "Pxe", "Floppy", "Cd", "Usb", "Hdd", "BiosSetup",
		"Utilities", "Diags", "UefiShell", "UefiTarget", "SDCard",
		"UefiHttp", "RemoteDrive", "UefiBootNext", "Recovery")
BOOT_ENABLED = ("Disabled", "Once", "Continuous")
BOOT_MODES = ("Legacy", "UEFI")
TRANSFER_PROTOCOLS = ("CIFS", "FTP", "SFTP", "HTTP", "HTTPS", "NFS", "SCP",
		      "TFTP", "OEM")
URI_SCHEMES = {"http": "HTTP", "https": "HTTPS", "nfs": "NFS", "cifs": "CIFS",
	       "smb": "CIFS", "ftp": "FTP", "sftp": "SFTP", "scp": "SCP",
	       "tftp": "TFTP"}
FAULT_MODES = ("none", "slow", "drop", "hang")

# Messages used when the mockup's Base registry lacks them.
FALLBACK_PREFIX = "Base.1.8.1."
FALLBACK_MESSAGES = {
	"PreconditionFailed": {
		"Message": "The ETag supplied did not match the ETag required "
			   "to change this resource.",
		"Severity": "Critical",
		"Resolution": "Try the operation again using the appropriate "
			      "ETag."},
	"OperationFailed": {
		"Message": "An error occurred internal to the service as part "
			   "of the overall request.",
		"Severity": "Warning", "Resolution": "None."},
}


def now_mono():
	return time.monotonic()


def iso(mono):
	"""ISO 8601 UTC time for a time.monotonic() instant."""
	wall = time.time() - (time.monotonic() - mono)
	return datetime.datetime.fromtimestamp(
		wall, tz=datetime.timezone.utc).isoformat(timespec="seconds")


def type_name(doc):
	"""'ComputerSystem' for '#ComputerSystem.v1_20_0.ComputerSystem'."""
	t = doc.get("@odata.type") if isinstance(doc, dict) else None
	if not isinstance(t, str) or not t:
		return ""
	return t.rsplit(".", 1)[-1]


def norm_path(path):
	"""Drop the trailing slash (and a fragment) so /redfish/v1/ == /redfish/v1."""
	path = path.split("#", 1)[0]
	while len(path) > 1 and path.endswith("/"):
		path = path[:-1]
	return path


def redact(obj):
	"""A copy of a JSON value with secrets replaced, for the request log."""
	if isinstance(obj, dict):
		out = {}
		for k, v in obj.items():
			lk = k.lower()
			if "password" in lk or "token" in lk or "secret" in lk:
				out[k] = "<redacted>"
			else:
				out[k] = redact(v)
		return out
	if isinstance(obj, list):
		return [redact(v) for v in obj]
	return obj


def etag_of(doc):
	data = json.dumps(doc, sort_keys=True).encode()
	return 'W/"%s"' % hashlib.sha256(data).hexdigest()[:16]


def etag_matches(header, etag):
	if header is None:
		return False
	want = etag[2:] if etag.startswith("W/") else etag
	for part in header.split(","):
		part = part.strip()
		if part == "*":
			return True
		if part.startswith("W/"):
			part = part[2:]
		if part == want:
			return True
	return False


class RfError(Exception):
	"""A Redfish error answer: HTTP status and @Message.ExtendedInfo."""

	def __init__(self, status, messages, headers=None):
		super().__init__(messages[0]["Message"] if messages else "")
		self.status = status
		self.messages = messages
		self.headers = headers or {}


class Response:
	"""An answer ready to send.  body is bytes (JSON is encoded here)."""

	def __init__(self, status, body=None, headers=None, ctype=JSON_TYPE):
		self.status = status
		self.headers = dict(headers or {})
		self.ctype = ctype
		if body is None:
			self.body = b""
		elif isinstance(body, bytes):
			self.body = body
		else:
			self.body = (json.dumps(body, indent=2) + "\n").encode()
		self.close = False


def error_body(messages):
	first = messages[0]
	return {"error": {"code": first["MessageId"],
			  "message": first["Message"],
			  "@Message.ExtendedInfo": messages}}


class Mockup:
	"""A read-only mockup tree loaded once and shared by every BMC.

	A directory is a DMTF mockup (DIR/index.json per resource); a .json
	file is a whole tree in one object, {URI: resource}, plus an optional
	"_emulator" object of behaviours (see README.md, "Shapes")."""

	BEHAVIOURS = ("about", "login_status")

	def __init__(self, root):
		self.root = root
		self.res = {}
		self.raw = {}
		self.by_type = collections.defaultdict(list)
		self.behave = {}
		if os.path.isfile(root) and root.endswith(".json"):
			self._load_file(root)
			self.reg_prefix, self.messages = self._registry()
			return
		if not os.path.isfile(os.path.join(root, "index.json")):
			raise ValueError("%s: no index.json (service root); not a "
					 "Redfish mockup directory" % root)
		for dirpath, dirnames, filenames in os.walk(root):
			dirnames.sort()
			rel = os.path.relpath(dirpath, root)
			base = ROOT
			if rel != ".":
				base = ROOT + "/" + rel.replace(os.sep, "/")
			for fn in sorted(filenames):
				full = os.path.join(dirpath, fn)
				if fn == "index.json":
					self._add(base, full)
				elif fn == "index.xml":
					with open(full, "rb") as f:
						self.raw[base] = (f.read(),
								  "application/xml")
				elif fn.endswith(".json") and rel != ".":
					self._add(base + "/" + fn, full)
		self.reg_prefix, self.messages = self._registry()

	def _load_file(self, file):
		with open(file, encoding="utf-8") as f:
			try:
				tree = json.load(f)
			except ValueError as e:
				raise ValueError("%s: %s" % (file, e)) from None
		if not isinstance(tree, dict):
			raise ValueError("%s: not a JSON object of URI: resource"
					 % file)
		self.behave = tree.pop("_emulator", {})
		for k in self.behave:
			if k not in self.BEHAVIOURS:
				raise ValueError("%s: unknown _emulator key '%s' "
						 "(known: %s)" % (file, k,
						 ", ".join(self.BEHAVIOURS)))
		for uri, doc in tree.items():
			if not uri.startswith(ROOT) or not isinstance(doc, dict):
				raise ValueError("%s: '%s' is not a /redfish/v1 URI "
						 "with an object" % (file, uri))
			self._add_doc(uri, doc)
		if ROOT not in self.res:
			raise ValueError("%s: no %s (service root)" % (file, ROOT))

	def _add(self, path, full):
		with open(full, encoding="utf-8") as f:
			try:
				doc = json.load(f)
			except ValueError as e:
				raise ValueError("%s: %s" % (full, e)) from None
		self._add_doc(path, doc)

	def _add_doc(self, path, doc):
		path = norm_path(path)
		self.res[path] = doc
		t = type_name(doc)
		if t:
			self.by_type[t].append(path)

	def _registry(self):
		for doc in self.res.values():
			if (isinstance(doc, dict) and doc.get("RegistryPrefix") == "Base"
					and isinstance(doc.get("Messages"), dict)):
				prefix = "Base.%s." % doc.get("RegistryVersion", "1.0.0")
				return prefix, doc["Messages"]
		return "Base.1.5.0.", {}

	def message(self, mid, *args):
		m = self.messages.get(mid)
		full = self.reg_prefix + mid
		if m is None:
			m = FALLBACK_MESSAGES.get(mid, {"Message": mid,
							"Severity": "Critical",
							"Resolution": "None."})
			full = FALLBACK_PREFIX + mid
		text = m.get("Message", mid)
		for i in range(len(args), 0, -1):
			text = text.replace("%%%d" % i, str(args[i - 1]))
		sev = m.get("Severity", "Critical")
		return {"@odata.type": "#Message.v1_1_1.Message",
			"MessageId": full, "Message": text,
			"MessageArgs": [str(a) for a in args],
			"Severity": sev, "MessageSeverity": sev,
			"Resolution": m.get("Resolution", "None.")}


class Faults:
	"""Fault injection settings of one BMC."""

	def __init__(self, mode="none", delay_s=0.0, count=0,
		     path_prefix="/redfish"):
		self.mode = mode
		self.delay_s = delay_s
		self.count = count
		self.path_prefix = path_prefix
		self.fired = 0

	@staticmethod
	def parse(obj):
		"""Faults from a JSON object; ValueError says what is wrong."""
		if not isinstance(obj, dict):
			raise ValueError("the body must be a JSON object")
		known = ("mode", "delay_s", "count", "path_prefix")
		for k in obj:
			if k not in known:
				raise ValueError("unknown key '%s' (known: %s)"
						 % (k, ", ".join(known)))
		mode = obj.get("mode", "none")
		if isinstance(mode, int) and not isinstance(mode, bool):
			mode = str(mode)
		if not isinstance(mode, str):
			raise ValueError("mode must be a string")
		if mode not in FAULT_MODES:
			if not (mode.isdigit() and 400 <= int(mode) <= 599):
				raise ValueError("mode '%s' is not one of none, slow, "
						 "drop, hang or an HTTP status "
						 "400-599" % mode)
		delay = obj.get("delay_s", 2.0 if mode == "slow" else 0.0)
		if (isinstance(delay, bool) or not isinstance(delay, (int, float))
				or delay < 0 or delay > 3600):
			raise ValueError("delay_s must be a number 0-3600")
		count = obj.get("count", 0)
		if isinstance(count, bool) or not isinstance(count, int) or count < 0:
			raise ValueError("count must be an integer >= 0 "
					 "(0: until changed)")
		prefix = obj.get("path_prefix", "/redfish")
		if not isinstance(prefix, str) or not prefix.startswith("/"):
			raise ValueError("path_prefix must be a string starting "
					 "with /")
		return Faults(mode, float(delay), count, prefix)

	def take(self, path):
		"""The (mode, delay) to apply to a request for path, or None."""
		if self.mode == "none" or not path.startswith(self.path_prefix):
			return None
		snap = (self.mode, self.delay_s)
		self.fired += 1
		if self.count > 0:
			self.count -= 1
			if self.count == 0:
				self.mode = "none"
		return snap

	def to_json(self):
		return {"mode": self.mode, "delay_s": self.delay_s,
			"count": self.count, "path_prefix": self.path_prefix,
			"fired": self.fired}


class SysState:
	"""Power state of one ComputerSystem; trans is (target, until) or None."""

	def __init__(self, power):
		self.power = power
		self.trans = None
		self.resets = []
		self.boots = []

	def target(self):
		return self.trans[0] if self.trans else self.power

	def reported(self):
		if self.trans:
			return "PoweringOn" if self.trans[0] == "On" else "PoweringOff"
		return self.power


class Task:
	def __init__(self, tid, name, uri, body, effect, start, delay):
		self.id = tid
		self.name = name
		self.uri = uri
		self.body = body
		self.effect = effect
		self.start = start
		self.end = start + delay
		self.state = "Running"
		self.status = "OK"
		self.messages = []
		self.error = None
		self.done_at = None
		self.monitor = True

	def resource(self, now):
		pct = 100
		if self.state == "Running":
			span = self.end - self.start
			pct = 0 if span <= 0 else int(min(99, 100 * (now - self.start) / span))
		doc = {"@odata.type": "#Task.v1_7_0.Task",
		       "@odata.id": TASKS + "/" + self.id,
		       "Id": self.id, "Name": "Task " + self.id,
		       "TaskState": self.state, "TaskStatus": self.status,
		       "StartTime": iso(self.start),
		       "PercentComplete": pct,
		       "TaskMonitor": MONITORS + "/" + self.id,
		       "Messages": self.messages,
		       "Payload": {"HttpOperation": "POST",
				   "TargetUri": self.uri,
				   "HttpHeaders": [],
				   "JsonBody": json.dumps(self.body)}}
		if self.done_at is not None:
			doc["EndTime"] = iso(self.done_at)
		return doc


class Bmc:
	"""One emulated BMC: the mockup plus its own in-memory state."""

	def __init__(self, mockup, opts, password, address):
		self.m = mockup
		self.opts = opts
		self.password = password
		self.address = address
		self.port = None
		self.lock = threading.RLock()
		self.log = collections.deque(maxlen=opts.log_size)
		self.seq = 0
		self.reset_state()

	# --- state ---------------------------------------------------------

	def reset_state(self):
		with self.lock:
			self.overlay = {}
			self.sessions = collections.OrderedDict()
			self.tokens = {}
			self.tasks = collections.OrderedDict()
			self.next_task = 1000
			self.systems = {}
			self.qemu = {}
			self.reset_allowed = {}
			self.chassis_sys = {}
			self.manager_resets = {}
			self.updates = []
			self.log.clear()
			o = self.opts
			self.faults = Faults(o.fault, o.fault_delay, o.fault_count,
					     o.fault_path)
			self._init_systems()
			self._init_media()
			self._init_sessions()
			for path in self.m.by_type.get("Manager", []):
				self.manager_resets[path] = []

	def _init_systems(self):
		for path in self.m.by_type.get("ComputerSystem", []):
			doc = self.m.res[path]
			power = self.opts.power_state or doc.get("PowerState", "On")
			if power not in ("On", "Off"):
				power = "Off" if power == "PoweringOn" else "On"
			vm = self.opts.qemu_vms.get(doc.get("Id"))
			if vm is not None:
				self.qemu[path] = vm
				power = vm.power_state()
				# the VM boots in the order it was started with
				if isinstance(doc.get("Boot"), dict):
					self.writable(path)["Boot"][
						"BootSourceOverrideEnabled"] = "Disabled"
			self.systems[path] = SysState(power)
			act = doc.get("Actions", {}).get("#ComputerSystem.Reset")
			allowed = list(RESET_TYPES)
			key = "ResetType@Redfish.AllowableValues"
			if self.opts.reset_types:
				allowed = list(self.opts.reset_types)
			elif isinstance(act, dict) and isinstance(act.get(key), list):
				allowed = list(act[key])
				if "PowerCycle" not in allowed:
					allowed.append("PowerCycle")
			self.reset_allowed[path] = allowed
			if isinstance(act, dict) and key in act:
				w = self.writable(path)
				w["Actions"]["#ComputerSystem.Reset"][key] = list(allowed)
		for path in self.m.by_type.get("Chassis", []):
			links = self.m.res[path].get("Links", {})
			for ref in links.get("ComputerSystems", []):
				sp = norm_path(ref.get("@odata.id", ""))
				if sp in self.systems:
					self.chassis_sys[path] = sp
					break

	def _init_media(self):
		for path in self.m.by_type.get("VirtualMedia", []):
			vm = self.media_vm(path)
			if vm is not None:
				# the VM's drive is empty until InsertMedia
				w = self.writable(path)
				w.update({"Image": None, "ImageName": None,
					  "Inserted": False,
					  "ConnectedVia": "NotConnected"})
				try:
					vm.eject()
				except (OSError, ValueError, qemuvm.QemuError) as e:
					sys.stderr.write("emulator: qemu: %s\n" % e)
			doc = self.doc(path)
			acts = doc.get("Actions")
			if (isinstance(acts, dict) and "#VirtualMedia.InsertMedia" in acts
					and "#VirtualMedia.EjectMedia" in acts):
				continue
			w = self.writable(path)
			acts = w.setdefault("Actions", {})
			for name in ("InsertMedia", "EjectMedia"):
				acts.setdefault("#VirtualMedia." + name, {
					"target": "%s/Actions/VirtualMedia.%s"
						  % (path, name)})

	def _init_sessions(self):
		doc = self.m.res.get(SESSION_SERVICE, {})
		timeout = doc.get("SessionTimeout", 1800)
		if self.opts.session_timeout:
			timeout = self.opts.session_timeout
			if SESSION_SERVICE in self.m.res:
				self.writable(SESSION_SERVICE)["SessionTimeout"] = timeout
		self.session_timeout = timeout

	def media_vm(self, path):
		"""The QEMU VM whose CD drive a CD/DVD VirtualMedia slot is: the
		slot's system's, or that of the first server its manager
		manages that has a VM."""
		types = self.m.res[path].get("MediaTypes")
		if isinstance(types, list) and not ({"CD", "DVD"} & set(types)):
			return None
		for sp, vm in self.qemu.items():
			if path.startswith(sp + "/"):
				return vm if vm.has_cd() else None
		for mp in self.m.by_type.get("Manager", []):
			if not path.startswith(mp + "/"):
				continue
			links = self.m.res[mp].get("Links", {})
			for ref in links.get("ManagerForServers", []):
				vm = self.qemu.get(norm_path(ref.get("@odata.id", "")))
				if vm is not None:
					return vm if vm.has_cd() else None
		return None

	def vm_call(self, fn, *args):
		"""fn(*args) on a VM; its failure is the BMC's 500."""
		try:
			return fn(*args)
		except (OSError, ValueError, qemuvm.QemuError,
			subprocess.SubprocessError) as e:
			sys.stderr.write("emulator: qemu: %s\n" % e)
			raise RfError(500, [self.msg("InternalError")])

	def writable(self, path):
		"""This BMC's own copy of a mockup resource, made on first write."""
		if path not in self.overlay:
			self.overlay[path] = json.loads(json.dumps(self.m.res[path]))
		return self.overlay[path]

	def doc(self, path):
		if path in self.overlay:
			return self.overlay[path]
		return self.m.res.get(path)

	def msg(self, mid, *args):
		return self.m.message(mid, *args)

	def err(self, status, mid, *args, headers=None):
		return RfError(status, [self.msg(mid, *args)], headers)

	# --- time ----------------------------------------------------------

	def settle(self, now):
		"""Finish the tasks and power transitions due by now, in order."""
		for path, vm in self.qemu.items():
			self.systems[path].power = vm.power_state()
		while True:
			due = None
			for t in self.tasks.values():
				if t.state == "Running" and t.end <= now:
					if due is None or t.end < due[0]:
						due = (t.end, "task", t)
			for path, s in self.systems.items():
				if s.trans and s.trans[1] <= now:
					if due is None or s.trans[1] < due[0]:
						due = (s.trans[1], "power", path)
			if due is None:
				break
			if due[1] == "task":
				self._finish_task(due[2])
			else:
				s = self.systems[due[2]]
				self._power_done(due[2], s.trans[0], due[0])
		for sid in list(self.sessions):
			s = self.sessions[sid]
			if now - s["last"] > self.session_timeout:
				del self.tokens[s["token"]]
				del self.sessions[sid]

	def _finish_task(self, task):
		try:
			task.effect(task.end)
			task.state = "Completed"
			task.status = "OK"
			task.messages = [self.msg("Success")]
		except RfError as e:
			task.state = "Exception"
			task.status = "Critical"
			task.messages = e.messages
			task.error = e
		task.done_at = task.end

	# --- power ---------------------------------------------------------

	def _power_start(self, path, to, t):
		s = self.systems[path]
		if self.opts.power_delay <= 0:
			s.trans = None
			self._power_done(path, to, t)
		else:
			s.trans = (to, t + self.opts.power_delay)

	def _power_done(self, path, to, t):
		s = self.systems[path]
		s.power = to
		s.trans = None
		if to != "On":
			return
		doc = self.writable(path)
		boot = doc.setdefault("Boot", {})
		enabled = boot.get("BootSourceOverrideEnabled", "Disabled")
		target = boot.get("BootSourceOverrideTarget", "None")
		source = None
		if enabled in ("Once", "Continuous") and target not in (None, "None"):
			source = target
		s.boots.append({"time": iso(t), "override": source,
				"mode": boot.get("BootSourceOverrideMode")})
		if enabled == "Once":
			boot["BootSourceOverrideEnabled"] = "Disabled"
		doc["LastResetTime"] = iso(t)

	def _reset(self, path, rtype, t):
		s = self.systems[path]
		cur = s.target()
		s.resets.append({"ResetType": rtype, "time": iso(t)})
		if path in self.qemu:
			self._reset_vm(path, rtype, t)
			return
		if rtype in ("On", "ForceOn"):
			if cur == "Off":
				self._power_start(path, "On", t)
		elif rtype in ("ForceOff", "GracefulShutdown"):
			if cur == "On":
				self._power_start(path, "Off", t)
		elif rtype in ("ForceRestart", "GracefulRestart", "PowerCycle",
			       "FullPowerCycle"):
			self._power_start(path, "On", t)
		elif rtype == "PushPowerButton":
			self._power_start(path, "Off" if cur == "On" else "On", t)
		# Nmi, Suspend, Pause, Resume: recorded, no power change.

	def _reset_vm(self, path, rtype, t):
		"""The reset on the system's real VM; a boot it starts is
		recorded (and a Once override spent) as for the others."""
		vm = self.qemu[path]
		s = self.systems[path]
		boot = self.doc(path).get("Boot", {})
		target = boot.get("BootSourceOverrideTarget", "None")
		enabled = boot.get("BootSourceOverrideEnabled", "Disabled")
		booted = False
		if rtype in ("On", "ForceOn"):
			booted = self.vm_call(vm.power_on, target, enabled)
		elif rtype == "ForceOff":
			self.vm_call(vm.force_off)
		elif rtype == "GracefulShutdown":
			self.vm_call(vm.graceful_off)
		elif rtype == "ForceRestart":
			self.vm_call(vm.restart, target, enabled)
			booted = True
		elif rtype in ("PowerCycle", "FullPowerCycle"):
			self.vm_call(vm.power_cycle, target, enabled)
			booted = True
		elif rtype == "GracefulRestart":
			self.vm_call(vm.graceful_restart, target, enabled)
			booted = True
		elif rtype == "PushPowerButton":
			if vm.power_state() == "Off":
				booted = self.vm_call(vm.power_on, target, enabled)
			else:
				self.vm_call(vm.graceful_off)
		elif rtype == "Nmi":
			self.vm_call(vm.nmi)
		s.trans = None
		if booted:
			self._power_done(path, "On", t)
		s.power = vm.power_state()

	# --- rendering -----------------------------------------------------

	def render(self, path, now):
		"""The resource at path as served now (a new dict), or None."""
		if path == SESSIONS:
			doc = dict(self.m.res.get(path) or {
				"@odata.type": "#SessionCollection.SessionCollection",
				"Name": "Session Collection", "@odata.id": SESSIONS})
			doc["Members"] = [{"@odata.id": SESSIONS + "/" + sid}
					  for sid in self.sessions]
			doc["Members@odata.count"] = len(self.sessions)
			return doc
		if path.startswith(SESSIONS + "/"):
			s = self.sessions.get(path[len(SESSIONS) + 1:])
			return self._session_doc(s) if s else None
		if path == TASKS and path in self.m.res:
			doc = dict(self.m.res[path])
			members = list(doc.get("Members", []))
			members += [{"@odata.id": TASKS + "/" + tid}
				    for tid in self.tasks]
			doc["Members"] = members
			doc["Members@odata.count"] = len(members)
			return doc
		if path.startswith(TASKS + "/"):
			t = self.tasks.get(path[len(TASKS) + 1:])
			if t:
				return t.resource(now)
		base = self.doc(path)
		if not isinstance(base, dict):
			return None
		doc = dict(base)
		if path in self.systems:
			doc["PowerState"] = self.systems[path].reported()
		elif path in self.chassis_sys and "PowerState" in doc:
			doc["PowerState"] = self.systems[self.chassis_sys[path]].reported()
		return doc

	def _session_doc(self, s):
		return {"@odata.type": "#Session.v1_6_0.Session",
			"@odata.id": SESSIONS + "/" + s["id"],
			"Id": s["id"], "Name": "User Session",
			"Description": "Manager User Session",
			"UserName": s["user"], "CreatedTime": iso(s["created"]),
			"SessionType": "Redfish"}

	def expand(self, obj, mode, levels, now, in_links=False):
		if levels <= 0:
			return obj
		if isinstance(obj, dict):
			ref = obj.get("@odata.id")
			if len(obj) == 1 and isinstance(ref, str) and "#" not in ref:
				want = (mode == "*" or (mode == "." and not in_links)
					or (mode == "~" and in_links))
				if want:
					target = self.render(norm_path(ref), now)
					if target is not None:
						return self.expand(target, mode, levels - 1,
								   now)
				return obj
			return {k: self.expand(v, mode, levels, now,
					       in_links or k == "Links")
				for k, v in obj.items()}
		if isinstance(obj, list):
			return [self.expand(v, mode, levels, now, in_links)
				for v in obj]
		return obj

	# --- authentication ------------------------------------------------

	def authenticate(self, headers, now):
		"""(kind, user): kind is how credentials came (None: none),
		user is None when they are wrong."""
		tok = headers.get("X-Auth-Token")
		if tok is not None:
			sid = self.tokens.get(tok)
			if sid is None:
				return "session", None
			s = self.sessions[sid]
			s["last"] = now
			return "session", s["user"]
		auth = headers.get("Authorization")
		if auth is None:
			return None, None
		scheme, _, value = auth.strip().partition(" ")
		if scheme.lower() != "basic":
			return "other", None
		try:
			raw = base64.b64decode(value.strip(), validate=True)
			user, sep, pw = raw.decode("utf-8").partition(":")
		except (ValueError, UnicodeDecodeError):
			return "basic", None
		if sep and self.check_password(user, pw):
			return "basic", user
		return "basic", None

	def check_password(self, user, pw):
		ok_user = hmac.compare_digest(user.encode(), self.opts.user.encode())
		ok_pw = hmac.compare_digest(pw.encode(), self.password.encode())
		return ok_user and ok_pw

	# --- request dispatch ----------------------------------------------

	def dispatch(self, method, path, query, headers, body, ctx):
		"""Answer one Redfish request; ctx gets auth facts for the log."""
		with self.lock:
			now = now_mono()
			self.settle(now)
			path = norm_path(path)
			try:
				return self._dispatch(method, path, query, headers,
						      body, ctx, now)
			except RfError as e:
				return Response(e.status, error_body(e.messages),
						e.headers)

	def _dispatch(self, method, path, query, headers, body, ctx, now):
		kind, user = self.authenticate(headers, now)
		ctx["auth"] = kind
		ctx["auth_ok"] = None if kind is None else user is not None
		ctx["user"] = user
		public = ((method in ("GET", "HEAD") and path in PUBLIC_GET)
			  or (method == "POST" and path == SESSIONS))
		if not public and user is None:
			raise self.err(401, "NoValidSession", headers={
				"WWW-Authenticate": 'Basic realm="Redfish"'})
		if method in ("GET", "HEAD"):
			return self.do_get(path, query, headers, now)
		if method == "POST":
			return self.do_post(path, headers, body, now)
		if method == "PATCH":
			return self.do_patch(path, headers, body, now)
		if method == "DELETE":
			return self.do_delete(path, now)
		return self.not_allowed(path, now)

	def not_allowed(self, path, now):
		if path.startswith(MONITORS + "/"):
			if path[len(MONITORS) + 1:] in self.tasks:
				raise RfError(405, [self.msg("GeneralError")],
					      {"Allow": "GET, HEAD, DELETE"})
		if self.render(path, now) is None:
			raise self.err(404, "ResourceMissingAtURI", path)
		allow = ["GET", "HEAD"]
		if self.patchable(path):
			allow.append("PATCH")
		if path == SESSIONS:
			allow.append("POST")
		if path.startswith(SESSIONS + "/"):
			allow.append("DELETE")
		raise RfError(405, [self.msg("GeneralError")],
			      {"Allow": ", ".join(allow)})

	def patchable(self, path):
		return (path in self.systems or path == SESSION_SERVICE
			or path in self.m.by_type.get("VirtualMedia", ()))

	def parse_json(self, headers, body, empty_ok):
		if not body.strip():
			if empty_ok:
				return {}
			raise self.err(400, "EmptyJSON")
		ctype = headers.get("Content-Type", "")
		if ctype.split(";", 1)[0].strip().lower() != "application/json":
			raise self.err(415, "UnrecognizedRequestBody")
		dups = []

		def pairs(items):
			d = {}
			for k, v in items:
				if k in d:
					dups.append(k)
				d[k] = v
			return d
		try:
			obj = json.loads(body.decode("utf-8"), object_pairs_hook=pairs)
		except (UnicodeDecodeError, ValueError):
			raise self.err(400, "MalformedJSON") from None
		if not isinstance(obj, dict):
			raise self.err(400, "UnrecognizedRequestBody")
		if dups:
			raise RfError(400, [self.msg("PropertyDuplicate", k)
					    for k in dups])
		return obj

	# --- GET -----------------------------------------------------------

	def do_get(self, path, query, headers, now):
		if path == "/redfish":
			return Response(200, {"v1": ROOT + "/"})
		if path in self.m.raw:
			data, ctype = self.m.raw[path]
			return Response(200, data, ctype=ctype)
		if path.startswith(MONITORS + "/"):
			return self.get_monitor(path[len(MONITORS) + 1:], now)
		expand = None
		only = False
		for k, v in parse_qsl(query, keep_blank_values=True):
			if k == "$expand":
				expand = self.parse_expand(v)
			elif k == "only":
				only = True
			elif k == "excerpt":
				pass
			elif k.startswith("$"):
				raise self.err(501, "QueryNotSupported")
		doc = self.render(path, now)
		if doc is None:
			raise self.err(404, "ResourceMissingAtURI", path)
		if only and isinstance(doc.get("Members"), list):
			if len(doc["Members"]) == 1:
				ref = doc["Members"][0].get("@odata.id", "")
				member = self.render(norm_path(ref), now)
				if member is not None:
					doc = member
		elif only:
			raise self.err(400, "QueryNotSupportedOnResource")
		etag = etag_of(doc)
		if etag_matches(headers.get("If-None-Match"), etag):
			return Response(304, headers={"ETag": etag})
		if expand:
			doc = self.expand(doc, expand[0], expand[1], now)
		return Response(200, doc, {"ETag": etag})

	def parse_expand(self, value):
		if not value or value[0] not in ".*~":
			raise self.err(400, "QueryParameterValueFormatError",
				       value, "$expand")
		mode, rest = value[0], value[1:]
		levels = 1
		if rest:
			if not (rest.startswith("($levels=") and rest.endswith(")")):
				raise self.err(400, "QueryParameterValueFormatError",
					       value, "$expand")
			try:
				levels = int(rest[len("($levels="):-1])
			except ValueError:
				raise self.err(400, "QueryParameterValueFormatError",
					       value, "$expand") from None
			if levels < 1 or levels > 6:
				raise self.err(400, "QueryParameterOutOfRange",
					       str(levels), "$levels", "1-6")
		return mode, levels

	def get_monitor(self, tid, now):
		task = self.tasks.get(tid)
		if task is None or not task.monitor:
			raise self.err(404, "ResourceMissingAtURI",
				       MONITORS + "/" + tid)
		doc = task.resource(now)
		if task.state == "Running":
			wait = max(1, math.ceil(task.end - now))
			return Response(202, doc, {"Location": MONITORS + "/" + tid,
						   "Retry-After": str(wait)})
		if task.state == "Exception" and task.error is not None:
			return Response(task.error.status,
					error_body(task.error.messages))
		return Response(200, doc)

	# --- POST ----------------------------------------------------------

	def do_post(self, path, headers, body, now):
		if path == SESSIONS:
			return self.login(headers, body, now)
		if "/Actions/" in path:
			return self.action(path, headers, body, now)
		return self.not_allowed(path, now)

	def login(self, headers, body, now):
		req = self.parse_json(headers, body, False)
		missing = [k for k in ("UserName", "Password") if k not in req]
		if missing:
			raise RfError(400, [self.msg("CreateFailedMissingReqProperties",
						     k) for k in missing])
		for k in ("UserName", "Password"):
			if not isinstance(req[k], str):
				raise self.err(400, "PropertyValueTypeError",
					       "<redacted>" if k == "Password"
					       else req[k], k)
		if not self.check_password(req["UserName"], req["Password"]):
			raise self.err(401, "ResourceAtUriUnauthorized", SESSIONS,
				       "Invalid username or password")
		sid = secrets.token_hex(8).upper()
		token = secrets.token_urlsafe(24)
		s = {"id": sid, "token": token, "user": req["UserName"],
		     "created": now, "last": now}
		self.sessions[sid] = s
		self.tokens[token] = sid
		loc = SESSIONS + "/" + sid
		status = self.m.behave.get("login_status", 201)
		body = None if status == 204 else self._session_doc(s)
		return Response(status, body,
				{"X-Auth-Token": token, "Location": loc})

	def action(self, path, headers, body, now):
		res_path = path.split("/Actions/", 1)[0]
		doc = self.render(res_path, now)
		if doc is None:
			raise self.err(404, "ResourceMissingAtURI", path)
		name = None
		acts = doc.get("Actions") if isinstance(doc.get("Actions"), dict) else {}
		cands = list(acts.items())
		if isinstance(acts.get("Oem"), dict):
			cands += list(acts["Oem"].items())
		for key, val in cands:
			if (key.startswith("#") and isinstance(val, dict)
					and norm_path(val.get("target", "")) == path):
				name = key[1:]
				break
		if name is None:
			raise self.err(404, "ActionNotSupported",
				       path.rsplit("/", 1)[-1])
		handler = {"ComputerSystem.Reset": self.act_system_reset,
			   "Manager.Reset": self.act_manager_reset,
			   "VirtualMedia.InsertMedia": self.act_insert_media,
			   "VirtualMedia.EjectMedia": self.act_eject_media,
			   "UpdateService.SimpleUpdate": self.act_simple_update,
			   }.get(name)
		if handler is None:
			raise self.err(501, "ActionNotSupported", name)
		req = self.parse_json(headers, body, True)
		effect = handler(res_path, doc, name, req)
		if self.opts.async_actions or name == "UpdateService.SimpleUpdate":
			tid = str(self.next_task)
			self.next_task += 1
			task = Task(tid, name, path, redact(req), effect, now,
				    self.opts.task_delay)
			self.tasks[tid] = task
			mon = MONITORS + "/" + tid
			return Response(202, task.resource(now),
					{"Location": mon, "Retry-After": str(
						max(1, math.ceil(self.opts.task_delay)))})
		effect(now)
		return Response(204)

	def check_params(self, action, req, spec):
		"""Validate action parameters; spec: name -> (types, required,
		allowed values or None)."""
		errs = []
		for k, v in req.items():
			if k not in spec:
				errs.append(self.msg("ActionParameterUnknown", action, k))
				continue
			types, _, allowed = spec[k]
			if isinstance(v, bool) and bool not in types:
				ok = False
			else:
				ok = isinstance(v, types)
			if not ok:
				shown = "<redacted>" if "password" in k.lower() else \
					json.dumps(v)
				errs.append(self.msg("ActionParameterValueTypeError",
						     shown, k, action))
			elif allowed is not None and v not in allowed:
				errs.append(self.msg("PropertyValueNotInList", v, k))
		for k, (_, required, _) in spec.items():
			if required and k not in req:
				errs.append(self.msg("ActionParameterMissing", action, k))
		if errs:
			raise RfError(400, errs)

	def action_info_spec(self, doc, key):
		"""Parameters from an action's @Redfish.ActionInfo, if any."""
		act = doc.get("Actions", {}).get(key, {})
		ref = act.get("@Redfish.ActionInfo") if isinstance(act, dict) else None
		info = self.doc(norm_path(ref)) if isinstance(ref, str) else None
		if not isinstance(info, dict):
			return None
		spec = {}
		for p in info.get("Parameters", []):
			t = {"String": (str,), "Boolean": (bool,),
			     "Number": (int, float), "StringArray": (list,),
			     "NumberArray": (list,), "Object": (dict,),
			     "ObjectArray": (list,)}.get(p.get("DataType"), (object,))
			spec[p.get("Name")] = (t, bool(p.get("Required")),
					       p.get("AllowableValues"))
		return spec

	def act_system_reset(self, path, doc, name, req):
		spec = {"ResetType": ((str,), True, self.reset_allowed[path])}
		self.check_params(name, req, spec)
		rtype = req["ResetType"]
		return lambda t: self._reset(path, rtype, t)

	def act_manager_reset(self, path, doc, name, req):
		act = doc.get("Actions", {}).get("#Manager.Reset", {})
		allowed = act.get("ResetType@Redfish.AllowableValues",
				  ["ForceRestart", "GracefulRestart"])
		self.check_params(name, req,
				  {"ResetType": ((str,), False, allowed)})
		rtype = req.get("ResetType", "GracefulRestart")

		def effect(t):
			self.manager_resets.setdefault(path, []).append(
				{"ResetType": rtype, "time": iso(t)})
		return effect

	def act_insert_media(self, path, doc, name, req):
		types = doc.get("MediaTypes")
		spec = {"Image": ((str,), True, None),
			"Inserted": ((bool,), False, None),
			"WriteProtected": ((bool,), False, None),
			"TransferProtocolType": ((str,), False, TRANSFER_PROTOCOLS),
			"TransferMethod": ((str,), False, ("Stream", "Upload")),
			"UserName": ((str,), False, None),
			"Password": ((str,), False, None),
			"MediaType": ((str,), False,
				      types if isinstance(types, list) else None)}
		self.check_params(name, req, spec)
		image = req["Image"]
		scheme = urlsplit(image).scheme.lower()
		if (not image or (scheme not in URI_SCHEMES
				  and "TransferProtocolType" not in req)):
			raise self.err(400, "ActionParameterValueFormatError",
				       image, "Image", name)
		proto = req.get("TransferProtocolType", URI_SCHEMES.get(scheme))
		inserted = req.get("Inserted", True)
		wp = req.get("WriteProtected", True)
		method = req.get("TransferMethod", "Stream")

		def effect(t):
			vm = self.media_vm(path)
			if vm is not None:
				if inserted:
					self.vm_call(vm.insert, image)
				else:
					self.vm_call(vm.eject)
			w = self.writable(path)
			w["Image"] = image
			w["ImageName"] = urlsplit(image).path.rsplit("/", 1)[-1] or image
			w["Inserted"] = inserted
			w["WriteProtected"] = wp
			w["ConnectedVia"] = "URI"
			w["TransferProtocolType"] = proto
			w["TransferMethod"] = method
		return effect

	def act_eject_media(self, path, doc, name, req):
		self.check_params(name, req, {})

		def effect(t):
			vm = self.media_vm(path)
			if vm is not None:
				self.vm_call(vm.eject)
			w = self.writable(path)
			w["Image"] = None
			w["ImageName"] = None
			w["Inserted"] = False
			w["ConnectedVia"] = "NotConnected"
		return effect

	def act_simple_update(self, path, doc, name, req):
		spec = self.action_info_spec(doc, "#UpdateService.SimpleUpdate")
		if spec is None:
			spec = {"ImageURI": ((str,), True, None),
				"TransferProtocol": ((str,), False, None),
				"Username": ((str,), False, None),
				"Password": ((str,), False, None)}
		spec.setdefault("Targets", ((list,), False, None))
		self.check_params(name, req, spec)
		rec = {k: v for k, v in redact(req).items()
		       if "password" not in k.lower()}

		def effect(t):
			rec["time"] = iso(t)
			self.updates.append(rec)
		return effect

	# --- PATCH ---------------------------------------------------------

	def do_patch(self, path, headers, body, now):
		if not self.patchable(path):
			return self.not_allowed(path, now)
		req = self.parse_json(headers, body, False)
		if not req:
			raise self.err(400, "EmptyJSON")
		cur = self.render(path, now)
		if "If-Match" in headers and not etag_matches(
				headers.get("If-Match"), etag_of(cur)):
			raise self.err(412, "PreconditionFailed")
		if path in self.systems:
			changes = self.check_system_patch(cur, req)
		elif path == SESSION_SERVICE:
			changes = self.check_session_patch(cur, req)
		else:
			changes = self.check_media_patch(cur, req)
			self.patch_media_vm(path, cur, changes)
		w = self.writable(path)
		for keys, value in changes:
			obj = w
			for k in keys[:-1]:
				obj = obj.setdefault(k, {})
			obj[keys[-1]] = value
		if path == SESSION_SERVICE:
			self.session_timeout = w["SessionTimeout"]
		doc = self.render(path, now)
		return Response(200, doc, {"ETag": etag_of(doc)})

	def patch_media_vm(self, path, cur, changes):
		"""A PATCH of Image/Inserted on a slot that is a VM's CD drive."""
		vm = self.media_vm(path)
		if vm is None:
			return
		new = {keys[0]: v for keys, v in changes if len(keys) == 1}
		image = new.get("Image", cur.get("Image"))
		inserted = new.get("Inserted", cur.get("Inserted"))
		if inserted and image:
			if image != cur.get("Image") or not cur.get("Inserted"):
				self.vm_call(vm.insert, image)
		elif cur.get("Inserted"):
			self.vm_call(vm.eject)

	def _check_value(self, errs, name, value, types, allowed):
		if isinstance(value, bool) and bool not in types:
			ok = False
		else:
			ok = isinstance(value, types)
		if not ok:
			errs.append(self.msg("PropertyValueTypeError",
					     json.dumps(value), name))
			return False
		if allowed is not None and value not in allowed:
			errs.append(self.msg("PropertyValueNotInList", value, name))
			return False
		return True

	def check_system_patch(self, cur, req):
		errs = []
		changes = []
		boot_cur = cur.get("Boot", {}) if isinstance(cur.get("Boot"), dict) else {}
		for k, v in req.items():
			if k == "Boot":
				if not isinstance(v, dict):
					errs.append(self.msg("PropertyValueTypeError",
							     json.dumps(v), "Boot"))
					continue
				for bk, bv in v.items():
					name = "Boot/" + bk
					av = boot_cur.get(bk + "@Redfish.AllowableValues")
					defaults = {"BootSourceOverrideTarget": BOOT_TARGETS,
						    "BootSourceOverrideEnabled": BOOT_ENABLED,
						    "BootSourceOverrideMode": BOOT_MODES}
					if bk in defaults:
						allowed = av if isinstance(av, list) else defaults[bk]
						if self._check_value(errs, name, bv, (str,),
								     allowed):
							changes.append((("Boot", bk), bv))
					elif bk in ("UefiTargetBootSourceOverride",
						    "HttpBootUri", "BootNext"):
						if self._check_value(errs, name, bv,
								     (str, type(None)), None):
							changes.append((("Boot", bk), bv))
					elif bk in boot_cur or bk.startswith("@"):
						errs.append(self.msg("PropertyNotWritable", name))
					else:
						errs.append(self.msg("PropertyUnknown", name))
			elif k == "AssetTag":
				if self._check_value(errs, k, v, (str,), None):
					changes.append(((k,), v))
			elif k == "IndicatorLED":
				if self._check_value(errs, k, v, (str,),
						     ("Lit", "Blinking", "Off")):
					changes.append(((k,), v))
			elif k == "LocationIndicatorActive":
				if self._check_value(errs, k, v, (bool,), None):
					changes.append(((k,), v))
			elif k in cur or k.startswith("@"):
				errs.append(self.msg("PropertyNotWritable", k))
			else:
				errs.append(self.msg("PropertyUnknown", k))
		if errs:
			raise RfError(400, errs)
		return changes

	def check_media_patch(self, cur, req):
		errs = []
		changes = []
		for k, v in req.items():
			if k == "Image":
				if self._check_value(errs, k, v, (str, type(None)), None):
					changes.append(((k,), v))
					name = None
					if v:
						name = urlsplit(v).path.rsplit("/", 1)[-1] or v
					changes.append((("ImageName",), name))
					if "Inserted" not in req:
						changes.append((("Inserted",), v is not None))
					changes.append((("ConnectedVia",),
							"URI" if v else "NotConnected"))
			elif k in ("Inserted", "WriteProtected"):
				if self._check_value(errs, k, v, (bool,), None):
					changes.append(((k,), v))
			elif k == "TransferProtocolType":
				if self._check_value(errs, k, v, (str,), TRANSFER_PROTOCOLS):
					changes.append(((k,), v))
			elif k in ("UserName", "Password"):
				pass
			elif k in cur or k.startswith("@"):
				errs.append(self.msg("PropertyNotWritable", k))
			else:
				errs.append(self.msg("PropertyUnknown", k))
		if errs:
			raise RfError(400, errs)
		return changes

	def check_session_patch(self, cur, req):
		errs = []
		changes = []
		for k, v in req.items():
			if k == "SessionTimeout":
				if self._check_value(errs, k, v, (int,), None):
					if 30 <= v <= 86400:
						changes.append(((k,), v))
					else:
						errs.append(self.msg("PropertyValueNotInList",
								     v, k))
			elif k in cur or k.startswith("@"):
				errs.append(self.msg("PropertyNotWritable", k))
			else:
				errs.append(self.msg("PropertyUnknown", k))
		if errs:
			raise RfError(400, errs)
		return changes

	# --- DELETE --------------------------------------------------------

	def do_delete(self, path, now):
		if path.startswith(SESSIONS + "/"):
			sid = path[len(SESSIONS) + 1:]
			s = self.sessions.pop(sid, None)
			if s is None:
				raise self.err(404, "ResourceMissingAtURI", path)
			del self.tokens[s["token"]]
			return Response(204)
		if path.startswith(MONITORS + "/"):
			task = self.tasks.get(path[len(MONITORS) + 1:])
			if task is None or not task.monitor:
				raise self.err(404, "ResourceMissingAtURI", path)
			if task.state == "Running":
				task.state = "Cancelled"
				task.status = "Warning"
				task.done_at = now
				task.messages = [self.msg("Success")]
			task.monitor = False
			return Response(204)
		return self.not_allowed(path, now)

	# --- emulator control (/_emulator) ---------------------------------

	def fault_response(self, mode, delay):
		code = int(mode)
		headers = {}
		if code == 401:
			m = self.msg("NoValidSession")
			headers["WWW-Authenticate"] = 'Basic realm="Redfish"'
		elif code == 503:
			wait = max(1, int(math.ceil(delay or 1)))
			m = self.msg("ServiceTemporarilyUnavailable", wait)
			headers["Retry-After"] = str(wait)
		elif code == 500:
			m = self.msg("InternalError")
		else:
			m = self.msg("GeneralError")
		return Response(code, error_body([m]), headers)

	def take_fault(self, path):
		with self.lock:
			return self.faults.take(norm_path(path))

	def log_start(self, method, target, kind, body, fault):
		entry = {"method": method, "path": target, "auth": kind,
			 "auth_ok": None, "user": None, "status": None,
			 "fault": fault[0] if fault else None, "ms": None}
		if method in ("POST", "PATCH", "PUT") and body:
			try:
				entry["body"] = redact(json.loads(body.decode("utf-8")))
			except (UnicodeDecodeError, ValueError):
				entry["body"] = {"unparsed_bytes": len(body)}
		with self.lock:
			self.seq += 1
			entry["seq"] = self.seq
			entry["time"] = datetime.datetime.now(
				datetime.timezone.utc).isoformat(timespec="milliseconds")
			self.log.append(entry)
		return entry

	def state(self, query):
		since = 0
		with_log = True
		for k, v in parse_qsl(query, keep_blank_values=True):
			if k == "since" and v.isdigit():
				since = int(v)
			elif k == "log" and v in ("0", "false", "no"):
				with_log = False
		with self.lock:
			now = now_mono()
			self.settle(now)
			systems = {}
			for path, s in self.systems.items():
				doc = self.doc(path)
				boot = doc.get("Boot", {})
				systems[doc.get("Id", path.rsplit("/", 1)[-1])] = {
					"@odata.id": path,
					"PowerState": s.reported(),
					"PowerTarget": s.target(),
					"Boot": {k: boot.get(k) for k in (
						"BootSourceOverrideTarget",
						"BootSourceOverrideEnabled",
						"BootSourceOverrideMode")},
					"resets": list(s.resets),
					"boots": list(s.boots)}
			media = {}
			for path in self.m.by_type.get("VirtualMedia", []):
				doc = self.doc(path)
				media[path] = {k: doc.get(k) for k in (
					"Image", "ImageName", "Inserted",
					"WriteProtected", "ConnectedVia",
					"TransferProtocolType")}
			out = {"address": self.address, "port": self.port,
			       "scheme": "http" if self.opts.http else "https",
			       "systems": systems,
			       "managers": {p: list(r) for p, r in
					    self.manager_resets.items()},
			       "virtual_media": media,
			       "sessions": [{"Id": s["id"], "UserName": s["user"],
					     "CreatedTime": iso(s["created"])}
					    for s in self.sessions.values()],
			       "tasks": [{"Id": t.id, "Action": t.name,
					  "TaskState": t.state,
					  "TaskMonitor": MONITORS + "/" + t.id}
					 for t in self.tasks.values()],
			       "updates": list(self.updates),
			       "faults": self.faults.to_json(),
			       "options": {"async_actions": self.opts.async_actions,
					   "power_delay_s": self.opts.power_delay,
					   "task_delay_s": self.opts.task_delay,
					   "session_timeout_s": self.session_timeout},
			       "log_seq": self.seq}
			if with_log:
				out["log"] = [dict(e) for e in self.log
					      if e["seq"] > since]
			return out

	def control(self, method, path, query, headers, body):
		path = norm_path(path)
		try:
			if path == "/_emulator/state" and method in ("GET", "HEAD"):
				return Response(200, self.state(query))
			if path == "/_emulator/faults" and method in ("GET", "HEAD"):
				with self.lock:
					return Response(200, self.faults.to_json())
			if path == "/_emulator/faults" and method == "POST":
				try:
					obj = json.loads(body.decode("utf-8") or "{}")
					faults = Faults.parse(obj)
				except (UnicodeDecodeError, ValueError) as e:
					return Response(400, {"error": str(e)})
				with self.lock:
					self.faults = faults
					return Response(200, faults.to_json())
			if path == "/_emulator/reset" and method == "POST":
				self.reset_state()
				return Response(204)
			if path == "/_emulator/log" and method == "DELETE":
				with self.lock:
					self.log.clear()
				return Response(204)
		except Exception:  # a bug here must not kill the connection
			traceback.print_exc()
			return Response(500, {"error": "emulator error"})
		return Response(404, {"error": "unknown control endpoint %s %s; "
				      "see tests/redfish/README.md" % (method, path)})


class BadRequest(Exception):
	def __init__(self, status, text):
		super().__init__(text)
		self.status = status


class Handler(BaseHTTPRequestHandler):
	protocol_version = "HTTP/1.1"
	server_version = "RedfishEmulator/1.0"
	sys_version = ""
	timeout = 120
	disable_nagle_algorithm = True

	def version_string(self):
		return self.server_version

	def log_message(self, fmt, *args):
		if self.server.opts.verbose:
			sys.stderr.write("%s:%s %s\n" % (self.server.bmc.address,
							self.server.bmc.port,
							fmt % args))

	def handle(self):
		try:
			super().handle()
		except (OSError, ValueError):
			self.close_connection = True

	def do_GET(self):
		self._handle("GET")

	def do_HEAD(self):
		self._handle("HEAD")

	def do_POST(self):
		self._handle("POST")

	def do_PATCH(self):
		self._handle("PATCH")

	def do_PUT(self):
		self._handle("PUT")

	def do_DELETE(self):
		self._handle("DELETE")

	def _read_body(self):
		te = self.headers.get("Transfer-Encoding", "")
		if "chunked" in te.lower():
			data = b""
			while True:
				line = self.rfile.readline(1024)
				try:
					size = int(line.split(b";", 1)[0].strip(), 16)
				except ValueError:
					raise BadRequest(400, "bad chunk size") from None
				if size == 0:
					while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
						pass
					return data
				if len(data) + size > MAX_BODY:
					raise BadRequest(413, "body too large")
				data += self.rfile.read(size)
				self.rfile.readline(8)
		n = self.headers.get("Content-Length")
		if n is None:
			return b""
		try:
			n = int(n)
		except ValueError:
			raise BadRequest(400, "bad Content-Length") from None
		if n < 0:
			raise BadRequest(400, "bad Content-Length")
		if n > MAX_BODY:
			raise BadRequest(413, "body too large")
		return self.rfile.read(n)

	def _handle(self, method):
		bmc = self.server.bmc
		split = urlsplit(self.path)
		path = unquote(split.path) or "/"
		try:
			body = self._read_body()
		except BadRequest as e:
			resp = Response(e.status, {"error": str(e)})
			resp.close = True
			self._send(resp, False)
			return
		if path == "/_emulator" or path.startswith("/_emulator/"):
			self._send(bmc.control(method, path, split.query,
					       self.headers, body),
				   method == "HEAD")
			return
		kind = None
		if "X-Auth-Token" in self.headers:
			kind = "session"
		elif "Authorization" in self.headers:
			kind = "basic"
		fault = bmc.take_fault(path)
		entry = bmc.log_start(method, self.path, kind, body, fault)
		start = now_mono()
		if fault:
			mode, delay = fault
			if mode == "hang":
				self._hang(delay)
				self._drop()
				return
			if delay > 0:
				time.sleep(delay)
			if mode == "drop":
				self._drop()
				return
			if mode != "slow":
				resp = bmc.fault_response(mode, delay)
				entry["status"] = resp.status
				self._send(resp, method == "HEAD")
				return
		ctx = {}
		try:
			resp = bmc.dispatch(method, path, split.query, self.headers,
					    body, ctx)
		except Exception:
			traceback.print_exc()
			resp = Response(500, error_body([bmc.msg("InternalError")]))
		entry.update(ctx)
		entry["status"] = resp.status
		entry["ms"] = int((now_mono() - start) * 1000)
		self._send(resp, method == "HEAD")

	def _send(self, resp, head):
		self.send_response(resp.status)
		self.send_header("OData-Version", "4.0")
		self.send_header("Cache-Control", "no-cache")
		for k, v in resp.headers.items():
			self.send_header(k, v)
		nobody = resp.status in (204, 304) or 100 <= resp.status < 200
		if not nobody:
			self.send_header("Content-Type", resp.ctype)
			self.send_header("Content-Length", str(len(resp.body)))
		if resp.close:
			self.send_header("Connection", "close")
			self.close_connection = True
		self.end_headers()
		if not head and not nobody:
			self.wfile.write(resp.body)

	def _drop(self):
		"""Close the connection without an answer (no TLS close_notify)."""
		self.close_connection = True
		try:
			self.connection.shutdown(socket.SHUT_RDWR)
		except OSError:
			pass

	def _hang(self, limit):
		"""Answer nothing until the client leaves, limit seconds pass
		(0: no limit) or the emulator stops."""
		conn = self.connection
		deadline = now_mono() + limit if limit > 0 else None
		while not self.server.stopping.is_set():
			wait = 0.5
			if deadline is not None:
				left = deadline - now_mono()
				if left <= 0:
					return
				wait = min(wait, left)
			try:
				ready, _, _ = select.select([conn], [], [], wait)
				if ready and not conn.recv(4096):
					return
			except ssl.SSLWantReadError:
				continue
			except (OSError, ValueError):
				return


class BmcServer(ThreadingHTTPServer):
	daemon_threads = True
	request_queue_size = 256
	allow_reuse_address = True

	def __init__(self, addr, bmc, ssl_ctx, opts, stopping):
		self.bmc = bmc
		self.ssl_ctx = ssl_ctx
		self.opts = opts
		self.stopping = stopping
		if ":" in addr[0]:
			self.address_family = socket.AF_INET6
		super().__init__(addr, Handler)

	def server_bind(self):
		# HTTPServer.server_bind does a reverse DNS lookup; skip it.
		socketserver.TCPServer.server_bind(self)
		self.server_name = self.server_address[0]
		self.server_port = self.server_address[1]

	def finish_request(self, request, client_address):
		if self.ssl_ctx is None:
			super().finish_request(request, client_address)
			return
		# The TLS handshake runs here, in the connection's own thread, so
		# a client that never sends a ClientHello blocks nobody else.
		request.settimeout(10)
		try:
			conn = self.ssl_ctx.wrap_socket(request, server_side=True)
		except (OSError, ValueError) as e:
			if self.opts.verbose:
				sys.stderr.write("TLS handshake from %s failed: %s\n"
						 % (client_address[0], e))
			return
		try:
			self.RequestHandlerClass(conn, client_address, self)
		finally:
			try:
				conn.close()
			except OSError:
				pass

	def handle_error(self, request, client_address):
		if self.opts.verbose:
			traceback.print_exc()


def parse_listen(text):
	"""('host', port) from HOST:PORT or [V6]:PORT."""
	host, sep, port = text.rpartition(":")
	if not sep or not port.isdigit() or int(port) > 65535:
		raise argparse.ArgumentTypeError(
			"'%s': expected HOST:PORT (PORT 0 picks a free one)" % text)
	host = host.strip("[]")
	try:
		ipaddress.ip_address(host)
	except ValueError:
		if host != "localhost":
			raise argparse.ArgumentTypeError(
				"'%s': HOST must be an IP address" % text) from None
		host = "127.0.0.1"
	return host, int(port)


def parse_listen_many(text):
	"""(['127.0.50.1', ...], port) from A.B.C.X-Y[,A.B.C.D...]:PORT."""
	spec, sep, port = text.rpartition(":")
	if not sep or not port.isdigit() or int(port) > 65535:
		raise argparse.ArgumentTypeError(
			"'%s': expected A.B.C.X-Y:PORT, e.g. 127.0.50.1-50:0" % text)
	hosts = []
	for item in spec.split(","):
		head, dash, last = item.rpartition("-")
		try:
			if dash:
				first = ipaddress.IPv4Address(head)
				n_last = int(last)
				base = str(first).rsplit(".", 1)[0]
				n_first = int(str(first).rsplit(".", 1)[1])
				if not n_first <= n_last <= 255:
					raise ValueError("range end %d" % n_last)
				hosts += ["%s.%d" % (base, i)
					  for i in range(n_first, n_last + 1)]
			else:
				hosts.append(str(ipaddress.IPv4Address(item)))
		except ValueError as e:
			raise argparse.ArgumentTypeError(
				"'%s': bad address or range '%s' (%s)"
				% (text, item, e)) from None
	if len(set(hosts)) != len(hosts):
		raise argparse.ArgumentTypeError("'%s': an address repeats" % text)
	return hosts, int(port)


def parse_args(argv):
	p = argparse.ArgumentParser(
		description="Redfish BMC emulator for tests (serves a DMTF "
			    "mockup). Prints 'PORT <n>' as its first line.")
	p.add_argument("--mockup", required=True, metavar="DIR",
		       help="mockup directory (DIR/index.json is the service root)")
	where = p.add_mutually_exclusive_group()
	where.add_argument("--listen", type=parse_listen,
			   default=("127.0.0.1", 0), metavar="HOST:PORT",
			   help="address to serve (default 127.0.0.1:0; port 0 "
				"picks a free port)")
	where.add_argument("--listen-many", type=parse_listen_many,
			   metavar="A.B.C.X-Y:PORT",
			   help="one BMC per address, same port, each with its "
				"own state, e.g. 127.0.50.1-50:0")
	p.add_argument("--cert", metavar="FILE", help="server certificate (PEM)")
	p.add_argument("--key", metavar="FILE", help="server private key (PEM)")
	p.add_argument("--http", action="store_true",
		       help="plain HTTP instead of HTTPS (debugging)")
	p.add_argument("--user", default="admin", help="user name (default admin)")
	p.add_argument("--password-file", required=True, metavar="FILE",
		       help="file holding the password (one trailing newline "
			    "is ignored)")
	p.add_argument("--power-delay", type=float, default=0.0, metavar="S",
		       help="seconds a power change reports PoweringOn/Off")
	p.add_argument("--power-state", choices=("On", "Off"),
		       help="initial PowerState of every system (default: "
			    "the mockup's)")
	p.add_argument("--reset-types", metavar="LIST",
		       help="comma-separated ResetType values to allow "
			    "(default: the mockup's list plus PowerCycle)")
	p.add_argument("--async-actions", action="store_true",
		       help="actions answer 202 + a task monitor")
	p.add_argument("--task-delay", type=float, default=1.0, metavar="S",
		       help="seconds an async task runs (default 1)")
	p.add_argument("--session-timeout", type=int, metavar="S",
		       help="idle seconds before a session expires (default: "
			    "the mockup's SessionTimeout)")
	p.add_argument("--fault", default="none", metavar="MODE",
		       help="none, slow, drop, hang or an HTTP status 400-599")
	p.add_argument("--fault-delay", type=float, metavar="S",
		       help="fault delay (slow: default 2; hang: 0 = forever)")
	p.add_argument("--fault-count", type=int, default=0, metavar="N",
		       help="fault only the next N requests (0: all)")
	p.add_argument("--fault-path", default="/redfish", metavar="PREFIX",
		       help="fault only paths starting with PREFIX")
	p.add_argument("--log-size", type=int, default=MAX_LOG, metavar="N",
		       help="request log entries kept per BMC")
	p.add_argument("--qemu", action="append", default=[],
		       metavar="SYSTEM=SOCKET",
		       help="the system with Id SYSTEM is the real QEMU VM "
			    "serving QMP on SOCKET (repeatable; --listen only)")
	p.add_argument("--verbose", action="store_true",
		       help="log requests and errors to stderr")
	opts = p.parse_args(argv)
	if opts.http and (opts.cert or opts.key):
		p.error("--http and --cert/--key exclude each other")
	if not opts.http and not (opts.cert and opts.key):
		p.error("HTTPS needs --cert FILE --key FILE (or use --http)")
	if opts.reset_types:
		types = [t.strip() for t in opts.reset_types.split(",") if t.strip()]
		bad = [t for t in types if t not in RESET_TYPES]
		if bad:
			p.error("--reset-types: unknown %s (known: %s)"
				% (", ".join(bad), ", ".join(RESET_TYPES)))
		opts.reset_types = types
	fault = {"mode": opts.fault, "count": opts.fault_count,
		 "path_prefix": opts.fault_path}
	if opts.fault_delay is not None:
		fault["delay_s"] = opts.fault_delay
	try:
		f = Faults.parse(fault)
	except ValueError as e:
		p.error("--fault: %s" % e)
	opts.fault, opts.fault_delay = f.mode, f.delay_s
	if opts.power_delay < 0 or opts.task_delay < 0:
		p.error("--power-delay and --task-delay must be >= 0")
	if opts.session_timeout is not None and opts.session_timeout < 1:
		p.error("--session-timeout must be >= 1")
	if opts.log_size < 1:
		p.error("--log-size must be >= 1")
	qemu = {}
	for item in opts.qemu:
		sid, eq, sock = item.partition("=")
		if not eq or not sid or not sock:
			p.error("--qemu '%s': SYSTEM=SOCKET (a system Id, the VM's "
				"QMP socket)" % item)
		if sid in qemu:
			p.error("--qemu: system '%s' given twice" % sid)
		qemu[sid] = sock
	if qemu and opts.listen_many:
		p.error("--qemu needs --listen (one BMC), not --listen-many")
	opts.qemu = qemu
	return opts


def bind_all(hosts, port, make):
	"""Servers on every host at one port; port 0 picks one free on all."""
	for _ in range(50):
		servers = []
		try:
			servers.append(make(hosts[0], port))
			chosen = servers[0].server_address[1]
			for h in hosts[1:]:
				servers.append(make(h, chosen))
			return servers, chosen
		except OSError as e:
			for s in servers:
				s.server_close()
			if port != 0 or e.errno != errno.EADDRINUSE:
				raise
	raise OSError(errno.EADDRINUSE, "no port free on all addresses")


def main(argv=None):
	opts = parse_args(argv)
	try:
		with open(opts.password_file, encoding="utf-8") as f:
			password = f.read()
	except OSError as e:
		sys.exit("emulator: --password-file: %s" % e)
	if password.endswith("\n"):
		password = password[:-1]
	if password.endswith("\r"):
		password = password[:-1]
	if not password:
		sys.exit("emulator: --password-file %s is empty" % opts.password_file)
	try:
		mockup = Mockup(opts.mockup)
	except (OSError, ValueError) as e:
		sys.exit("emulator: --mockup: %s" % e)
	ctx = None
	if not opts.http:
		ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
		ctx.minimum_version = ssl.TLSVersion.TLSv1_2
		try:
			ctx.load_cert_chain(opts.cert, opts.key)
		except (OSError, ssl.SSLError) as e:
			sys.exit("emulator: --cert/--key: %s" % e)
	opts.qemu_vms = {}
	for sid, sock in opts.qemu.items():
		try:
			opts.qemu_vms[sid] = qemuvm.QemuVm(sock, log=(
				lambda text: sys.stderr.write(text + "\n"))
				if opts.verbose else None)
		except (OSError, ValueError, qemuvm.QemuError) as e:
			sys.exit("emulator: --qemu %s: %s" % (sid, e))
	ids = set(mockup.res[p].get("Id") for p in
		  mockup.by_type.get("ComputerSystem", []))
	for sid in opts.qemu_vms:
		if sid not in ids:
			sys.exit("emulator: --qemu %s: the mockup has no system "
				 "with that Id (it has: %s)"
				 % (sid, ", ".join(sorted(str(i) for i in ids))))
	if opts.listen_many:
		hosts, port = opts.listen_many
	else:
		hosts, port = [opts.listen[0]], opts.listen[1]
	stopping = threading.Event()

	def make(host, p):
		return BmcServer((host, p), Bmc(mockup, opts, password, host),
				 ctx, opts, stopping)
	try:
		servers, port = bind_all(hosts, port, make)
	except OSError as e:
		sys.exit("emulator: cannot listen on %s port %d: %s"
			 % (hosts[0] if len(hosts) == 1 else
			    "%s..%s" % (hosts[0], hosts[-1]), port, e.strerror or e))
	for s in servers:
		s.bmc.port = port
	sys.stdout.write("PORT %d\n" % port)
	sys.stdout.flush()
	for s in servers:
		threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.2},
				 daemon=True).start()

	def on_signal(signum, frame):
		stopping.set()
	signal.signal(signal.SIGTERM, on_signal)
	signal.signal(signal.SIGINT, on_signal)
	while not stopping.wait(1.0):
		pass
	for s in servers:
		s.socket.close()
	for vm in opts.qemu_vms.values():
		vm.close()
	return 0


if __name__ == "__main__":
	sys.exit(main())

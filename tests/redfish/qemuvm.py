"""A real QEMU VM behind one emulated ComputerSystem (emulator.py --qemu).

Power, boot order and the virtual CD act on the VM through QMP (JSON over
the VM's unix socket, spoken here with the standard library):

- The VM is found by its QMP socket: the QEMU process whose command line
  names it.  Its command line and working folder are saved then, because
  "off" is real: ForceOff ends the QEMU process (QMP quit), and power-on
  starts QEMU again from the saved command line, as a real machine's
  power-on starts its firmware from scratch.
- Power-on launches QEMU paused (-S), puts the inserted image in the CD
  drive, and only then lets it run (QMP cont), so a CD override finds its
  medium at the first instruction.
- A boot override is QEMU's own -boot option on that launch: Once is
  "once=X,order=ORIG" (QEMU itself goes back to ORIG at the next reset,
  as a BMC clears a Once override after one boot); Continuous puts X
  first in the order.  A restart with an override pending therefore
  relaunches QEMU; a restart without one is QMP system_reset.
- The CD is the VM's first removable drive (QMP query-block); an image
  is fetched from its URL into a private folder (as a BMC's virtual media
  fetches it) and put in with blockdev-change-medium.

The VM's own network, disks and taps are whatever its command line says:
persistent taps (ip tuntap add) survive QEMU's exit, so the relaunched VM
is on the same bridge with the same MAC.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request

# Redfish BootSourceOverrideTarget -> QEMU -boot drive letter.
BOOT_LETTERS = {"Pxe": "n", "Hdd": "c", "Cd": "d", "Floppy": "a"}
# QEMU's default order when the command line has none.
DEFAULT_ORDER = "cad"


class QemuError(Exception):
	"""The VM did not do what was asked; the text says why."""


def _proc_argv(pid):
	try:
		with open("/proc/%d/cmdline" % pid, "rb") as f:
			raw = f.read()
	except OSError:
		return None
	if not raw:
		return None
	return [a.decode("utf-8", "surrogateescape")
		for a in raw.rstrip(b"\0").split(b"\0")]


def _names_socket(argv, path):
	"""True when a QEMU argv serves QMP (or a chardev) on unix PATH."""
	for i, a in enumerate(argv[:-1]):
		if a in ("-qmp", "-chardev", "-mon"):
			v = argv[i + 1]
			for part in v.split(","):
				if part in ("unix:" + path, "path=" + path):
					return True
	return False


def find_qemu(path):
	"""(pid, argv, cwd) of the QEMU serving QMP on PATH, or None."""
	for d in os.listdir("/proc"):
		if not d.isdigit():
			continue
		argv = _proc_argv(int(d))
		if not argv or "qemu-system" not in os.path.basename(argv[0]):
			continue
		if _names_socket(argv, path):
			try:
				cwd = os.readlink("/proc/%s/cwd" % d)
			except OSError:
				cwd = "/"
			return int(d), argv, cwd
	return None


class Qmp:
	"""One QMP conversation: connect, negotiate, commands, close."""

	def __init__(self, path, timeout=10.0):
		self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		self.sock.settimeout(timeout)
		try:
			self.sock.connect(path)
			self.f = self.sock.makefile("rwb")
			self._read()		# the greeting
			self.cmd("qmp_capabilities")
		except Exception:
			self.sock.close()
			raise

	def _read(self):
		while True:
			line = self.f.readline()
			if not line:
				raise QemuError("QMP connection closed")
			msg = json.loads(line)
			if "event" not in msg:
				return msg

	def cmd(self, name, **args):
		req = {"execute": name}
		if args:
			req["arguments"] = args
		self.f.write(json.dumps(req).encode() + b"\n")
		self.f.flush()
		msg = self._read()
		if "error" in msg:
			raise QemuError("QMP %s: %s" % (name, msg["error"].get("desc")))
		return msg.get("return")

	def close(self):
		try:
			self.f.close()
		finally:
			self.sock.close()

	def __enter__(self):
		return self

	def __exit__(self, *exc):
		self.close()


class QemuVm:
	"""The VM serving QMP on one socket.  Thread-safe."""

	def __init__(self, qmp_path, log=None):
		self.path = os.path.abspath(qmp_path)
		self.log = log or (lambda text: None)
		self.lock = threading.RLock()
		self.argv = None
		self.cwd = None
		self.pid = None
		self.cd_id = None	# qdev id (or QOM path) of the CD drive
		self.image = None	# local file in the drive, or None
		self.media_dir = tempfile.mkdtemp(prefix="emulator-media-")
		self.stopping = False	# a graceful shutdown asked and pending
		found = find_qemu(self.path)
		if found is None:
			raise QemuError("no QEMU process serves QMP on %s: start "
					"the VM first" % self.path)
		self.pid, self.argv, self.cwd = found
		self.cd_id = self._find_cd()

	def close(self):
		shutil.rmtree(self.media_dir, ignore_errors=True)

	# --- the process ---------------------------------------------------

	def _alive(self):
		if self.pid is not None:
			argv = _proc_argv(self.pid)
			if argv and _names_socket(argv, self.path):
				return True
		# A QEMU started by someone else (testbed-vm up) on the socket.
		found = find_qemu(self.path)
		if found is None:
			self.pid = None
			return False
		self.pid, self.argv, self.cwd = found
		return True

	def _wait_exit(self, seconds):
		end = time.monotonic() + seconds
		while time.monotonic() < end:
			if not self._alive():
				return True
			time.sleep(0.1)
		return False

	def _qmp(self, name, **args):
		with Qmp(self.path) as q:
			return q.cmd(name, **args)

	def status(self):
		"""QMP query-status's status ("running", "paused", ...) or
		"off" when no QEMU runs."""
		with self.lock:
			if not self._alive():
				self.stopping = False
				return "off"
			try:
				return self._qmp("query-status")["status"]
			except (OSError, ValueError, QemuError):
				# starting or just quitting: its process decides
				return "running" if self._alive() else "off"

	def power_state(self):
		"""Redfish PowerState: On while QEMU runs the guest."""
		st = self.status()
		if st in ("off", "shutdown"):
			return "Off"
		if self.stopping:
			return "PoweringOff"
		return "On"

	def _boot_arg(self, target, enabled):
		"""The -boot value for a launch with this override."""
		args = self.argv
		cur = None
		for i, a in enumerate(args[:-1]):
			if a == "-boot":
				cur = args[i + 1]
		parts = []
		order = DEFAULT_ORDER
		if cur is not None:
			for p in cur.split(","):
				if p.startswith("order="):
					order = p[len("order="):]
				elif "=" not in p:
					order = p	# the old "-boot cd" form
				elif not p.startswith("once="):
					parts.append(p)
		letter = BOOT_LETTERS.get(target)
		if letter is None or enabled not in ("Once", "Continuous"):
			return ",".join(["order=" + order] + parts)
		if enabled == "Once":
			return ",".join(["once=" + letter, "order=" + order] + parts)
		order = letter + order.replace(letter, "")
		return ",".join(["order=" + order] + parts)

	def _launch_argv(self, target, enabled):
		"""The saved command line with this -boot (in place) and -S."""
		argv = [a for a in self.argv if a != "-S"]
		boot = self._boot_arg(target, enabled)
		for i in range(len(argv) - 1):
			if argv[i] == "-boot":
				argv[i + 1] = boot
				return argv + ["-S"]
		return argv + ["-boot", boot, "-S"]

	def _launch(self, target, enabled):
		argv = self._launch_argv(target, enabled)
		self.log("qemu: launch %s" % " ".join(argv))
		if "-daemonize" in argv:
			r = subprocess.run(argv, cwd=self.cwd, stdin=subprocess.DEVNULL,
					   stdout=subprocess.DEVNULL,
					   stderr=subprocess.PIPE, timeout=120)
			if r.returncode != 0:
				raise QemuError("QEMU did not start (exit %d): %s" % (
					r.returncode, r.stderr.decode(errors="replace")
					.strip()[-500:]))
		else:
			subprocess.Popen(argv, cwd=self.cwd, stdin=subprocess.DEVNULL,
					 stdout=subprocess.DEVNULL,
					 stderr=subprocess.DEVNULL,
					 start_new_session=True)
		end = time.monotonic() + 60
		while True:
			found = find_qemu(self.path)
			if found is not None:
				try:
					with Qmp(self.path, timeout=5) as q:
						self.pid = found[0]
						if self.image is not None:
							self._change(q, self.image)
						q.cmd("cont")
					return
				except (OSError, ValueError):
					pass
			if time.monotonic() > end:
				raise QemuError("QEMU started but its QMP socket %s "
						"never answered" % self.path)
			time.sleep(0.1)

	def _kill(self):
		"""Power cut: QMP quit, then signals if QEMU lingers."""
		if not self._alive():
			return
		try:
			self._qmp("quit")
		except (OSError, ValueError, QemuError):
			pass
		if self._wait_exit(10):
			return
		for sig in (signal.SIGTERM, signal.SIGKILL):
			try:
				os.kill(self.pid, sig)
			except OSError:
				pass
			if self._wait_exit(10):
				return
		raise QemuError("QEMU pid %d does not exit" % self.pid)

	# --- power ---------------------------------------------------------

	def power_on(self, target, enabled):
		with self.lock:
			if self._alive():
				st = self._qmp("query-status")["status"]
				if st != "shutdown":
					return False
				self._kill()
			self.stopping = False
			self._launch(target, enabled)
			return True

	def force_off(self):
		with self.lock:
			self.stopping = False
			self._kill()

	def graceful_off(self):
		"""ACPI power button: the guest shuts down, QEMU then exits."""
		with self.lock:
			if not self._alive():
				return
			self._qmp("system_powerdown")
			self.stopping = True

	def restart(self, target, enabled):
		"""A hard reset; a new QEMU when the boot order must change."""
		override = (BOOT_LETTERS.get(target) is not None
			    and enabled in ("Once", "Continuous"))
		with self.lock:
			if self._alive() and not override:
				self._qmp("system_reset")
				return
			self._kill()
			self.stopping = False
			self._launch(target, enabled)

	def power_cycle(self, target, enabled):
		with self.lock:
			self._kill()
			self.stopping = False
			self._launch(target, enabled)

	def graceful_restart(self, target, enabled, wait=300):
		"""The guest shuts down, then the VM is powered on again (in a
		thread: the request does not wait for the guest)."""
		with self.lock:
			if not self._alive():
				self._launch(target, enabled)
				return
			self._qmp("system_powerdown")
			self.stopping = True

		def later():
			if not self._wait_exit(wait):
				self.log("qemu: guest did not power off in %d s: "
					 "cutting power" % wait)
			try:
				with self.lock:
					self._kill()
					self.stopping = False
					self._launch(target, enabled)
			except (OSError, QemuError, subprocess.SubprocessError) as e:
				self.log("qemu: graceful restart: %s" % e)
		threading.Thread(target=later, daemon=True).start()

	def nmi(self):
		with self.lock:
			if self._alive():
				self._qmp("inject-nmi")

	# --- the CD --------------------------------------------------------

	def _find_cd(self):
		try:
			devs = self._qmp("query-block")
		except (OSError, ValueError, QemuError):
			return None
		for d in devs:
			if d.get("removable"):
				return d.get("qdev") or d.get("device")
		return None

	def _change(self, q, path):
		try:
			q.cmd("blockdev-change-medium", id=self.cd_id, filename=path,
			      format="raw", **{"read-only-mode": "read-only"})
		except QemuError:
			# a tray the guest locked: force it open, then again
			q.cmd("eject", id=self.cd_id, force=True)
			q.cmd("blockdev-change-medium", id=self.cd_id, filename=path,
			      format="raw", **{"read-only-mode": "read-only"})

	def has_cd(self):
		return self.cd_id is not None

	def insert(self, url):
		"""Fetch URL and put it in the CD drive (now, or at power-on)."""
		if self.cd_id is None:
			raise QemuError("the VM has no removable drive (a CD) for "
					"virtual media")
		fd, tmp = tempfile.mkstemp(dir=self.media_dir, suffix=".iso")
		try:
			with os.fdopen(fd, "wb") as out, \
					urllib.request.urlopen(url, timeout=60) as r:
				shutil.copyfileobj(r, out)
		except (OSError, ValueError) as e:
			os.unlink(tmp)
			raise QemuError("cannot fetch %s: %s" % (url, e))
		with self.lock:
			old = self.image
			self.image = tmp
			if self._alive():
				with Qmp(self.path) as q:
					self._change(q, tmp)
			if old is not None:
				os.unlink(old)
		self.log("qemu: %s in the CD drive %s" % (url, self.cd_id))

	def eject(self):
		with self.lock:
			old = self.image
			self.image = None
			if self.cd_id is not None and self._alive():
				self._qmp("eject", id=self.cd_id, force=True)
			if old is not None:
				os.unlink(old)

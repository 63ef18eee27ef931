# provision: one binary, a static library, Check unit tests, shell e2e tests.
#
#   make deps        install every Debian package the build, tests and demo need (root)
#   make             build ./provision
#   make install     install the binary, templates, profiles and docs under
#                    $(DESTDIR)$(PREFIX) (PREFIX=/usr/local)
#   make test        unit tests, then CLI golden tests and end-to-end tests
#   make test SAN=1  the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make demo        the main job end to end on the local testbed
#   make test-vm     the VM suite: three QEMU VMs with systemd (tests/vm, not in `make test`)
#   make test-pxe    a blank VM netboots (iPXE, dnsmasq, provision pxe --serve) and installs Debian (slow)
#   make vagrant-box the Debian 12 box for vagrant-libvirt, added as provision/debian12
#   make test-vagrant vagrant/ for real: vagrant up, check, apply twice, verify (not in `make test`)
#   make bench       benchmarks (bench/), by hand
#   make style       banned functions, header self-containment, clang-format
#
# DEVELOPER=1 turns every warning into an error.  The test goals (test,
# unit, cli, e2e, style, fuzz) imply it, and so does CI (.ci/run): a
# warning fails the tests, while a user's `make` with a newer compiler
# still builds.

CC	?= cc
PKGS	 = yaml-0.1 libssh2 libcurl libarchive libpci
WARN	 = -Wall -Wextra -Wstrict-prototypes -Wvla -Wwrite-strings \
	   -Wformat-security -Wno-unused-parameter -Wshadow
ifneq ($(filter test unit cli e2e style check-headers fuzz fuzz-regress,$(MAKECMDGOALS)),)
DEVELOPER ?= 1
endif
ifeq ($(DEVELOPER),1)
WARN	+= -Werror
endif
CFLAGS	?= -O2 -g

# Install layout; the data dir (templates/, profiles/) is compiled into
# lib/fs.o as the last place fs_data_dir() looks.
PREFIX	?= /usr/local
bindir	 = $(PREFIX)/bin
datadir	 = $(PREFIX)/share/provision
docdir	 = $(PREFIX)/share/doc/provision
INSTALL	?= install

# pkg-config runs once per make, not once per compiler call.
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
ALL_CFLAGS := -std=c11 -pthread $(WARN) $(CFLAGS) $(PKG_CFLAGS) \
	-DPROV_DATADIR='"$(datadir)"' -iquote lib -iquote cmd
LIBS	:= $(PKG_LIBS) -lcrypto -lm -pthread

ifeq ($(SAN),1)
BUILD	 = build-san
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDSAN	 = -fsanitize=address,undefined
# leaks inside libraries we cannot change, each with its reason
export LSAN_OPTIONS = suppressions=$(CURDIR)/tests/lsan.supp
else
BUILD	 = build
LDSAN	 =
endif

LIB_SRCS  = $(sort $(wildcard lib/*.c))
CMD_SRCS  = $(sort $(wildcard cmd/*.c))
TEST_SRCS = $(sort $(wildcard tests/unit/test_*.c))
# Shell that runs on nodes lives in templates/remote/; scripts/embed-sh
# compiles it in (lib/remote.h), so the binary stays one file.
REMOTE_SH = $(sort $(wildcard templates/remote/*.sh))
LIB_OBJS  = $(LIB_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/remote.o
CMD_OBJS  = $(CMD_SRCS:%.c=$(BUILD)/%.o)
TEST_BINS = $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
BIN	  = $(BUILD)/provision

# Debian packages: build, unit tests, e2e tests (sshd, testbed, emulator), demo.
DEPS_PKGS = build-essential pkg-config libyaml-dev libssh2-1-dev \
	libcurl4-openssl-dev libarchive-dev libpci-dev libssl-dev check \
	openssh-client openssh-server pciutils pci.ids shellcheck debootstrap \
	iproute2 util-linux procps python3 openssl curl ca-certificates \
	xorriso vagrant chromium clang clang-format libclang-rt-14-dev sudo time pdsh \
	cloud-init dnsmasq-base dpkg-dev zstd debian-archive-keyring \
	libfuzzer-14-dev skopeo prometheus \
	qemu-system-x86 qemu-utils socat apt-cacher-ng fdisk e2fsprogs \
	vagrant-libvirt libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients \
	ipxe debian-installer-12-netboot-amd64

.PHONY: all deps deps-ensure deps-check test test-vm test-pxe vagrant-box test-vagrant unit e2e cli demo bench style \
	check-headers clean fuzz install FORCE
all: provision

provision: $(BIN)
	@if [ "$(SAN)" != 1 ]; then cp $(BIN) provision.tmp && mv -f provision.tmp provision; fi

$(BUILD)/libprov.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(CMD_OBJS) $(BUILD)/libprov.a
	$(CC) $(LDSAN) -o $@ $(CMD_OBJS) $(BUILD)/libprov.a $(LIBS)

$(BUILD)/%.o: %.c $(wildcard lib/*.h cmd/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/remote.c: $(REMOTE_SH) scripts/embed-sh
	@mkdir -p $(dir $@)
	sh scripts/embed-sh $(REMOTE_SH) >$@.tmp && mv -f $@.tmp $@

$(BUILD)/gen/remote.o: $(BUILD)/gen/remote.c lib/remote.h
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The compiled-in data dir follows PREFIX: lib/fs.o is rebuilt when it changes.
$(BUILD)/lib/fs.o: $(BUILD)/DATADIR
$(BUILD)/DATADIR: FORCE
	@mkdir -p $(dir $@)
	@echo '$(datadir)' | cmp -s - $@ || echo '$(datadir)' >$@

$(BUILD)/tests/%: tests/unit/%.c tests/unit/test.h $(BUILD)/libprov.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -iquote tests/unit $(LDSAN) -o $@ $< $(BUILD)/libprov.a $(LIBS) $(CHECK_LIBS)

deps:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEPS_PKGS)

# The Debian packages of DEPS_PKGS that are not installed, one a line.
DEPS_MISSING = for p in $(DEPS_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done

# `make demo` on a fresh machine: install only what is missing.
deps-ensure:
	@missing=$$($(DEPS_MISSING)); \
	if [ -n "$$missing" ]; then echo "installing missing packages:" $$missing; $(MAKE) deps; fi

# `make test` never installs anything: it stops at once, naming what is
# missing and the command that installs it.
deps-check:
	@missing=$$($(DEPS_MISSING)); \
	if [ -n "$$missing" ]; then \
		echo "make test: missing Debian packages:" $$missing >&2; \
		echo "make test: run 'make deps' as root first" >&2; exit 1; \
	fi

# Unit tests first (fast), then the CLI against real files and real processes.
test: deps-check
	$(MAKE) unit cli e2e

# The sanitizers make code several times slower: each test's timeout
# scales with them (Check reads CK_TIMEOUT_MULTIPLIER).
UNIT_TIMEOUT_MULT = $(if $(filter 1,$(SAN)),4,1)
unit: $(TEST_BINS) $(BIN)
	@fail=0; for t in $(TEST_BINS); do \
		echo "== $$t"; \
		CK_TIMEOUT_MULTIPLIER=$(UNIT_TIMEOUT_MULT) PROV_SRCDIR=$(CURDIR) $$t || fail=1; \
	done; exit $$fail

cli: $(BIN)
	@PROVISION=$(CURDIR)/$(BIN) sh tests/cli/run.sh

# t032 writes its hostile plans with the unit test test_plan.
e2e: $(BIN) $(BUILD)/tests/test_plan
	@PROVISION=$(CURDIR)/$(BIN) SAN=$(SAN) sh tests/e2e/run.sh

# Real machines (docs/testbed-vm.md): the image (built when missing or
# stale, then cached), three VMs, apply, reboots, verify.  About 30 minutes
# on 2 cores under TCG; not part of `make test`.
# VM_TESTS: only these tests/vm tests (e.g. "t010 t020"); empty runs all.
VM_TESTS ?=
test-vm: deps-ensure
	$(MAKE) provision
	@PROVISION=$(CURDIR)/provision sh tests/vm/run.sh $(VM_TESTS)

# A blank VM installs Debian 12 over the network through provision pxe
# (tests/vm/pxe-install.sh): iPXE, dnsmasq, --serve, the preseed, the
# package cache, then apply.  Under TCG it takes most of an hour or more;
# not part of `make test` or `make test-vm`.
test-pxe: deps-ensure
	$(MAKE) provision
	@PROVISION=$(CURDIR)/provision sh tests/vm/pxe-install.sh

# vagrant/ for real (docs/vagrant.md).  vagrant-box: the Debian 12 box,
# made from the VM testbed's image (built when missing), added to the
# caller's Vagrant as provision/debian12.  test-vagrant: its own libvirtd,
# Vagrant and three VMs in a network namespace; `vagrant up`, check,
# apply, apply again with nothing changed, verify.  Not in `make test`.
VAGRANT_BOX_FILE ?= /var/tmp/provision-vagrant/debian12-libvirt.box
vagrant-box: deps-ensure
	scripts/testbed-vm box $(VAGRANT_BOX_FILE)
	vagrant box add --force --name provision/debian12 $(VAGRANT_BOX_FILE)

test-vagrant: deps-ensure
	$(MAKE) provision
	@PROVISION=$(CURDIR)/provision scripts/vagrant-e2e.sh all

demo: deps-ensure
	$(MAKE) provision
	./scripts/demo

bench: provision
	./bench/check.sh

# Installs what a built tree runs from: fs_data_dir() finds templates/
# and profiles/ under $(datadir), the path compiled in.
install: provision
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(datadir) $(DESTDIR)$(docdir)
	$(INSTALL) -m 755 provision $(DESTDIR)$(bindir)/provision
	rm -rf $(DESTDIR)$(datadir)/templates $(DESTDIR)$(datadir)/profiles
	cp -R templates profiles $(DESTDIR)$(datadir)/
	$(INSTALL) -m 644 README.md docs/*.md $(DESTDIR)$(docdir)/

# Formatting: scripts/style-check runs clang-format (.clang-format) on the
# files of STYLE_FILES and compares ignoring the width of inner white
# space, so the KNF alignment of declarations (tabs) stays ours.  A file
# joins the list once it conforms; new files start in it.
STYLE_FILES = $(filter-out $(STYLE_LEGACY),$(wildcard lib/*.[ch] cmd/*.[ch]))
STYLE_LEGACY = $(shell cat .style-legacy)

style:
	@! grep -nE '\b(sprintf|strcpy|strcat|strtok|gets|atoi|strncpy)\(' lib/*.c cmd/*.c | grep -v 'snprintf\|vsnprintf' || \
		{ echo "banned function used"; exit 1; }
	@$(MAKE) -s check-headers
	@sh scripts/style-check $(STYLE_FILES)

check-headers:
	@for h in lib/*.h cmd/*.h; do \
		printf '#include "compat.h"\n#include "%s"\n' $$(basename $$h) | \
		$(CC) $(ALL_CFLAGS) -fsyntax-only -x c - || exit 1; \
	done

clean:
	rm -rf build build-san build-fuzz provision

FORCE:

# Fuzzing (docs/reliability.md): one libFuzzer target per fuzz/fuzz_NAME.c,
# lib/ built again with clang, ASan and UBSan into build-fuzz/.
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=1]   fuzz each target; build-fuzz/summary.txt
#   make fuzz-regress                           replay fuzz/regress/NAME/* once
FUZZ_CC	?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_CFLAGS = -std=c11 $(filter-out -Werror,$(WARN)) -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	$(PKG_CFLAGS) -DPROV_DATADIR='"$(datadir)"' -iquote lib -iquote fuzz
FUZZ_NAMES = $(patsubst fuzz/fuzz_%.c,%,$(sort $(wildcard fuzz/fuzz_*.c)))
FUZZ_BINS = $(FUZZ_NAMES:%=build-fuzz/fuzz_%)

.PHONY: fuzz-regress
build-fuzz/lib/%.o: lib/%.c $(wildcard lib/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build-fuzz/gen/remote.c: $(REMOTE_SH) scripts/embed-sh
	@mkdir -p $(dir $@)
	sh scripts/embed-sh $(REMOTE_SH) >$@.tmp && mv -f $@.tmp $@

build-fuzz/gen/remote.o: build-fuzz/gen/remote.c lib/remote.h
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build-fuzz/libprov.a: $(LIB_SRCS:%.c=build-fuzz/%.o) build-fuzz/gen/remote.o
	@rm -f $@
	ar rcs $@ $^

build-fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h build-fuzz/libprov.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< build-fuzz/libprov.a $(LIBS)

fuzz: $(FUZZ_BINS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) sh fuzz/run.sh $(FUZZ_NAMES)

fuzz-regress: $(FUZZ_BINS)
	@sh fuzz/run.sh -regress $(FUZZ_NAMES)

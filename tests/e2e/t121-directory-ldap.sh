#!/bin/sh
# A site's LDAP directory on the local testbed: Debian's slapd on head-01
# (its own configuration, over LDAPS only, with a certificate of a CA made
# here, answering only the plan's bind DN) holds a user and a group; the
# plan's directory: names it with that CA and the bind password in a
# 0600 file.  apply installs sssd on every node: `getent passwd` and `id`
# answer the directory's user with its uid and group on every node, sssd
# alone answers it (getent -s sss), the bind password is in no log or
# state and only in a 0600 file of the nodes, `su -l` makes the user's
# home (pam_mkhomedir), verify's directory row is ok on every node, and a
# second apply changes nothing.  Then directory: leaves the plan: sssd
# stops, its configuration and packages go (sss out of nsswitch.conf and
# PAM), the user is unknown, and the apply after that changes nothing.
#
# Nodes start from fresh disks.  T121_KEEP=1 keeps the plan, logs and state.
# SAN=1: not run: dpkg, slapd and sssd take its time: the readers are
#   test_plan's and test_verify's, the secret's test_apply's and t104's
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
command -v openssl >/dev/null 2>&1 || skip_all "no openssl (make deps)"
cd "$TOP" || exit 1
testbed_lock || exit 1

TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
KEY=$TB/id_ed25519
KH=$TB/known_hosts
W=$(mktemp -d /tmp/t121.XXXXXX)
PLAN=$W/plan.yaml
STATE=$W/state
HEAD=127.0.10.1
NODES="127.0.10.1 127.0.10.2 127.0.10.3"
BASE=dc=testbed,dc=internal
# the bind password: random, so that finding it anywhere means a leak
PW=t121-$(openssl rand -hex 12)
export PROVISION

cleanup() {
	# 8>&-: the nodes must not inherit testbed_lock's descriptor
	scripts/testbed down "$PLAN" >/dev/null 2>&1 8>&-
	[ -n "${T121_KEEP:-}" ] && echo "# kept $W" || rm -rf "$W"
}
trap cleanup EXIT INT TERM

# ------------------------------------------------------------ the plan

# A CA, and head-01's certificate for slapd signed by it.
(
	cd "$W" &&
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=t121-ca \
		-keyout ca.key -out ca.pem &&
	openssl req -newkey rsa:2048 -nodes -subj /CN=head-01.testbed.internal \
		-keyout server.key -out server.csr &&
	printf 'subjectAltName=DNS:head-01.testbed.internal,DNS:head-01\n' >san.ext &&
	openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
		-days 2 -extfile san.ext -out server.pem
) >"$W/openssl.log" 2>&1 || { not_ok "a CA and slapd's certificate"; sed 's/^/# /' "$W/openssl.log"; done_testing; exit 1; }
(umask 077 && printf '%s\n' "$PW" >"$W/bind.secret" && printf '%s' "$PW" >"$W/bind.secret.raw")

plan_nodes() {
	cat <<EOF
version: 1
cluster: { name: testbed, domain: testbed.internal }
networks:
  lo: { cidr: 127.0.10.0/24, kind: ethernet, gbps: 10, role: management }
ssh:
  user: root
  identity: $KEY
  known_hosts: $KH
  host_keys: strict
  forks: 16
  connect_timeout_s: 10
nodes:
  - { name: head-01, role: head, address: 127.0.10.1 }
  - { name: "worker-[01-02]", role: worker, address: "127.0.10.[2-3]" }
software:
  os: { distro: debian, release: "12" }
  container_runtime: { engine: none }
  orchestrator: { kind: none }
  monitoring: { node_exporter: false }
EOF
}
{
	plan_nodes
	cat <<EOF
directory:
  ldap:
    uri: [ "ldaps://head-01.testbed.internal" ]
    base: $BASE
    user_base: ou=People,$BASE
    group_base: ou=Groups,$BASE
    bind_dn: cn=provision,$BASE
    bind_password_file: $W/bind.secret
    ca_file: $W/ca.pem
    verify_user: ldapuser
EOF
} >"$PLAN"
"$PROVISION" check "$PLAN" >"$W/check.txt" 2>&1
[ $? -ne 2 ] && ok "the plan loads" || { not_ok "the plan loads"; sed 's/^/# /' "$W/check.txt"; }

scripts/testbed down --purge "$PLAN" >/dev/null 2>&1 8>&-
check "testbed up" scripts/testbed up "$PLAN" 8>&-

# ------------------------------------------------------------ slapd

# Debian's slapd and ldap-utils on head-01; no daemon starts at install.
on $HEAD 'printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d &&
	echo "slapd slapd/no_configuration boolean true" | debconf-set-selections &&
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends slapd ldap-utils; rc=$?; rm -f /usr/sbin/policy-rc.d; exit $rc' \
	>"$W/slapd-install.log" 2>&1 && ok "slapd installs on head-01" ||
	{ not_ok "slapd installs on head-01"; tail -20 "$W/slapd-install.log" | sed 's/^/# /'; }

on $HEAD 'mkdir -p /etc/ldap/t121 /var/lib/ldap-t121 /run/slapd-t121 && cat >/etc/ldap/t121/ca.pem' <"$W/ca.pem"
on $HEAD 'cat >/etc/ldap/t121/server.pem' <"$W/server.pem"
on $HEAD 'umask 077 && cat >/etc/ldap/t121/server.key' <"$W/server.key"
# Only the bind DN may read the tree: an anonymous or unbound sssd gets
# nothing, so the password the step writes is the one that works.
on $HEAD 'cat >/etc/ldap/t121/slapd.conf' <<EOF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile /run/slapd-t121/slapd.pid
TLSCACertificateFile /etc/ldap/t121/ca.pem
TLSCertificateFile /etc/ldap/t121/server.pem
TLSCertificateKeyFile /etc/ldap/t121/server.key
database mdb
maxsize 10485760
suffix "$BASE"
rootdn "cn=admin,$BASE"
directory /var/lib/ldap-t121
access to attrs=userPassword by anonymous auth by * none
access to * by dn.exact="cn=provision,$BASE" read by * none
EOF
on $HEAD 'cat >/etc/ldap/t121/data.ldif' <<EOF
dn: $BASE
objectClass: dcObject
objectClass: organization
o: testbed
dc: testbed

dn: ou=People,$BASE
objectClass: organizationalUnit
ou: People

dn: ou=Groups,$BASE
objectClass: organizationalUnit
ou: Groups

dn: cn=provision,$BASE
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: provision
userPassword: $PW

dn: uid=ldapuser,ou=People,$BASE
objectClass: inetOrgPerson
objectClass: posixAccount
objectClass: shadowAccount
uid: ldapuser
cn: LDAP User
sn: User
uidNumber: 10001
gidNumber: 10000
homeDirectory: /home/ldapuser
loginShell: /bin/bash

dn: cn=ldapteam,ou=Groups,$BASE
objectClass: posixGroup
cn: ldapteam
gidNumber: 10000
memberUid: ldapuser
EOF
on $HEAD 'slapadd -f /etc/ldap/t121/slapd.conf -l /etc/ldap/t121/data.ldif &&
	chown -R openldap:openldap /var/lib/ldap-t121 /run/slapd-t121 /etc/ldap/t121 &&
	slapd -f /etc/ldap/t121/slapd.conf -h "ldaps://127.0.10.1:636/" -u openldap -g openldap' \
	>"$W/slapd.log" 2>&1 && ok "slapd runs on head-01 (ldaps://127.0.10.1:636)" ||
	{ not_ok "slapd runs on head-01 (ldaps://127.0.10.1:636)"; sed 's/^/# /' "$W/slapd.log"; }
# the host names the head as the nodes will (base writes their /etc/hosts)
got=$(on $HEAD "grep -q head-01.testbed.internal /etc/hosts || echo '127.0.10.1 head-01.testbed.internal' >>/etc/hosts
	LDAPTLS_CACERT=/etc/ldap/t121/ca.pem ldapsearch -x -H ldaps://head-01.testbed.internal \
		-D cn=provision,$BASE -y /dev/stdin -b ou=People,$BASE -LLL uid=ldapuser uidNumber" \
	<"$W/bind.secret.raw" 2>&1)
case $got in *"uidNumber: 10001"*) ok "slapd answers the bind DN over LDAPS" ;;
*) not_ok "slapd answers the bind DN over LDAPS: $got" ;; esac
got=$(on $HEAD "LDAPTLS_CACERT=/etc/ldap/t121/ca.pem ldapsearch -x -H ldaps://head-01.testbed.internal \
	-b ou=People,$BASE -LLL uid=ldapuser uidNumber" 2>&1)
case $got in *uidNumber*) not_ok "an anonymous search gets nothing: $got" ;;
*) ok "an anonymous search gets nothing" ;; esac

# ------------------------------------------------------------ apply

apply() {
	"$PROVISION" apply --plain --state-dir "$STATE" "$PLAN" >"$W/$1.txt" 2>&1
}

apply apply1; rc=$?
[ $rc -eq 0 ] && ok "first apply succeeds" ||
	{ not_ok "first apply succeeds (exit $rc)"; tail -40 "$W/apply1.txt" | sed 's/^/# /'; }

for a in $NODES; do
	got=$(on $a 'getent passwd ldapuser; id ldapuser; getent -s sss passwd ldapuser | cut -d: -f3' 2>&1)
	want="ldapuser:*:10001:10000:LDAP User:/home/ldapuser:/bin/bash
uid=10001(ldapuser) gid=10000(ldapteam) groups=10000(ldapteam)
10001"
	[ "$got" = "$want" ] && ok "$a: the directory's user, its uid and group, from sssd" ||
		{ not_ok "$a: the directory's user, its uid and group, from sssd"; printf '%s\n' "$got" | sed 's/^/# /'; }
done

# The bind password: a 0600 drop-in of sssd's, in no log, state or argv.
got=$(on 127.0.10.2 'stat -c "%a %U:%G" /etc/sssd/sssd.conf /etc/sssd/conf.d/90-provision-bind.conf; grep -c "^ldap_default_authtok = " /etc/sssd/conf.d/90-provision-bind.conf; grep -c authtok /etc/sssd/sssd.conf' 2>&1)
[ "$got" = "600 root:root
600 root:root
1
1" ] && ok "sssd.conf and the bind password's drop-in are 0600 root" ||
	{ not_ok "sssd.conf and the bind password's drop-in are 0600 root"; printf '%s\n' "$got" | sed 's/^/# /'; }
if grep -rlF -- "$PW" "$W"/apply1.txt "$STATE" 2>/dev/null | grep -q .; then
	not_ok "the bind password is in no log or state: $(grep -rlF -- "$PW" "$W"/apply1.txt "$STATE")"
else
	ok "the bind password is in no log or state"
fi
leak=
for a in $NODES; do
	on $a "grep -rlF -e '$PW' /var/log /var/lib/provision /run/provision /tmp /etc/provision 2>/dev/null" >"$W/leak.txt" 2>&1
	[ -s "$W/leak.txt" ] && leak="$leak $a:$(tr '\n' ' ' <"$W/leak.txt")"
done
[ -z "$leak" ] && ok "the bind password is in no node's logs or provision's files" ||
	not_ok "the bind password is on nodes:$leak"

# PAM: a session of the directory's user makes its home (pam_mkhomedir).
got=$(on 127.0.10.3 'su -l ldapuser -c "id -un; pwd"; stat -c "%U:%G" /home/ldapuser' 2>&1)
[ "$got" = "ldapuser
/home/ldapuser
ldapuser:ldapteam" ] && ok "su -l ldapuser on worker-02 makes its home (pam_mkhomedir)" ||
	{ not_ok "su -l ldapuser on worker-02 makes its home"; printf '%s\n' "$got" | sed 's/^/# /'; }

"$PROVISION" verify --json "$PLAN" >"$W/verify.json" 2>"$W/verify.err"
python3 - "$W/verify.json" <<'PY' && ok "verify: the directory answers on every node" ||
import json, sys
rows = json.load(open(sys.argv[1]))["checks"]
got = {r["subject"]: r for r in rows if r["check"] == "directory"}
for n in ("head-01", "worker-01", "worker-02"):
    assert got[n]["verdict"] == "ok", got.get(n)
    assert got[n]["measured"] == "ldapuser uid 10001 gid 10000", got[n]
PY
	{ not_ok "verify: the directory answers on every node"; grep '"directory"' "$W/verify.json" | head | sed 's/^/# /'; }

apply apply2; rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$W/apply2.txt" && ok "second apply: 0 changed" ||
	{ not_ok "second apply: 0 changed (exit $rc)"; grep -E 'changed|failed|check:' "$W/apply2.txt" | sed 's/^/# /' | head -20; }

# sssd killed behind our back: verify says so, apply starts it again.
on 127.0.10.2 'kill "$(cut -d" " -f1 /run/provision/sssd.pid)"' >/dev/null 2>&1
sleep 1
"$PROVISION" verify --json "$PLAN" >"$W/verify2.json" 2>/dev/null
python3 - "$W/verify2.json" <<'PY' && ok "verify fails worker-01's directory (sssd killed), no other node's" ||
import json, sys
rows = json.load(open(sys.argv[1]))["checks"]
got = {r["subject"]: r for r in rows if r["check"] == "directory"}
assert got["worker-01"]["verdict"] == "fail", got["worker-01"]
assert got["worker-01"]["measured"] == "sssd is not running", got["worker-01"]
assert got["worker-02"]["verdict"] == "ok", got["worker-02"]
PY
	{ not_ok "verify fails worker-01's directory (sssd killed)"; grep '"directory"' "$W/verify2.json" | head | sed 's/^/# /'; }

# ------------------------------------------------------------ removed

plan_nodes >"$PLAN"
apply apply3; rc=$?
[ $rc -eq 0 ] && ok "apply without directory: succeeds" ||
	{ not_ok "apply without directory: succeeds (exit $rc)"; tail -30 "$W/apply3.txt" | sed 's/^/# /'; }
for a in $NODES; do
	got=$(on $a 'getent passwd ldapuser || echo unknown
		pgrep -x sssd >/dev/null && echo sssd-runs
		ls -d /etc/sssd/sssd.conf /etc/sssd/conf.d/90-provision-bind.conf /etc/sssd/provision-ldap-ca.pem /var/lib/provision/directory /var/lib/sss 2>/dev/null
		grep -E "^(passwd|group):.*sss" /etc/nsswitch.conf
		grep -l pam_sss /etc/pam.d/common-* 2>/dev/null
		dpkg-query -W -f="\${Status} \${Package}\n" sssd-common sssd-ldap libnss-sss libpam-sss 2>/dev/null | grep "^install ok"' 2>&1)
	[ "$got" = unknown ] && ok "$a: sssd, its configuration, cache, packages, NSS and PAM entries gone" ||
		{ not_ok "$a: sssd, its configuration, cache, packages, NSS and PAM entries gone"; printf '%s\n' "$got" | sed 's/^/# /'; }
done
apply apply4; rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$W/apply4.txt" && ok "the apply after that: 0 changed" ||
	{ not_ok "the apply after that: 0 changed (exit $rc)"; grep -E 'changed|failed|check:' "$W/apply4.txt" | sed 's/^/# /' | head -20; }

done_testing

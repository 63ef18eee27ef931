/*
 * pxe.c: network installation files per node, and a small HTTP server
 * for them.  See pxe.h; docs/pxe.md is the user's side.
 *
 * The boot chain it prepares:
 *
 *	firmware PXE --DHCP/TFTP--> undionly.kpxe or ipxe.efi (dnsmasq)
 *	iPXE --TFTP--> boot.ipxe --HTTP--> ipxe/MAC.ipxe
 *	kernel + initrd --HTTP--> answers/MAC/{preseed.cfg,user-data,ks.cfg}
 *	installer: static address, host name, the provisioner's SSH key
 *
 * Values reach the files in one of two ways.  Host names, IPv4 addresses,
 * MACs, user names and URLs are checked against what the format allows
 * unquoted (they cannot contain a space, quote, '$' or newline), so they
 * are safe on a kernel command line, in a preseed line and in dnsmasq's
 * syntax alike.  Anything free-form (the SSH key's comment) is quoted for
 * the format it lands in: a YAML double-quoted scalar, a shell word
 * inside a preseed late_command, a kickstart quoted argument.  In YAML
 * files every value is quoted, checked or not.
 */
#include "compat.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "arc.h"
#include "buf.h"
#include "fs.h"
#include "json.h"
#include "plan.h"
#include "pxe.h"
#include "str.h"
#include "strvec.h"

#define PXE_TEMPLATE_MAX	(1u << 20)
#define PXE_KEY_MAX		(16u << 10)

/* Kernel and initrd inside the installer images we know. */
struct pxe_iso_layout {
	const char	*distro;
	const char	*kernel;
	const char	*initrd;
	const char	*what;
};

static const struct pxe_iso_layout pxe_iso_layouts[] = {
	{ "debian", "debian-installer/amd64/linux",
	  "debian-installer/amd64/initrd.gz", "Debian netboot.tar.gz" },
	{ "debian", "install.amd/vmlinuz", "install.amd/initrd.gz",
	  "Debian netinst ISO" },
	{ "ubuntu", "casper/vmlinuz", "casper/initrd",
	  "Ubuntu live-server ISO" },
	{ "ubuntu", "amd64/linux", "amd64/initrd", "Ubuntu netboot tarball" },
	{ "rocky", "images/pxeboot/vmlinuz", "images/pxeboot/initrd.img",
	  "Rocky Linux ISO" },
};

/* Everything one run shares. */
struct pxe_ctx {
	const struct plan	*p;
	const struct pxe_opts	*o;
	struct pxe_result	*res;
	char			*outdir;	/* absolute */
	const char		*distro, *release;
	char			*boot_dir;	/* "boot/debian-12" */
	const char		*base_url;
	const char		*mirror;
	char			*own_base_url, *own_mirror;
	char			 mirror_proto[8];
	char			*mirror_host, *mirror_dir;
	const char		*domain;	/* "" when none */
	const char		*user;		/* the plan's SSH user */
	char			*pubkey;
	const char		*gateway;	/* "" when none */
	struct strvec		 dns;
	struct buf		 t_boot, t_ipxe, t_answer, t_answer2;
	struct buf		 sums;		/* SHA256SUMS */
};

/* Small pure helpers. */

static int
pxe_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
pxe_mac_parse(char out[18], const char *s, const char **why)
{
	unsigned char	oct[6];
	size_t		i;
	int		sep = 0, hi, lo;
	const char	*q = s;

	*why = "not six hex octets separated by ':' or '-'";
	out[0] = '\0';
	for (i = 0; i < 6; i++) {
		if ((hi = pxe_hexval((unsigned char)q[0])) < 0 ||
		    (lo = pxe_hexval((unsigned char)q[1])) < 0)
			return -1;
		oct[i] = (unsigned char)(hi * 16 + lo);
		q += 2;
		if (i == 5)
			break;
		if (*q != ':' && *q != '-')
			return -1;
		if (sep != 0 && *q != sep)
			return -1;
		sep = *q++;
	}
	if (*q != '\0')
		return -1;
	if (oct[0] & 1) {
		*why = "a multicast or broadcast address, not a NIC's";
		return -1;
	}
	if ((oct[0] | oct[1] | oct[2] | oct[3] | oct[4] | oct[5]) == 0) {
		*why = "all zeroes";
		return -1;
	}
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", oct[0], oct[1],
	    oct[2], oct[3], oct[4], oct[5]);
	*why = NULL;
	return 0;
}

void
pxe_mac_dashes(char out[18], const char *mac)
{
	size_t	i;

	for (i = 0; i < 17 && mac[i] != '\0'; i++)
		out[i] = mac[i] == ':' ? '-' : mac[i];
	out[i] = '\0';
}

void
pxe_yaml_str(struct buf *b, const char *s)
{
	/* a JSON string is a YAML double-quoted scalar: one escaper for both */
	json_add_string(b, s);
}

void
pxe_ks_str(struct buf *b, const char *s)
{
	buf_addch(b, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			buf_addch(b, '\\');
		buf_addch(b, *s);
	}
	buf_addch(b, '"');
}

static int
pxe_is_b64(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
}

int
pxe_pubkey_check(char **out, const char *line, struct prov_err *err)
{
	static const char *const types[] = {
		"ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256",
		"ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
		"sk-ssh-ed25519@openssh.com",
		"sk-ecdsa-sha2-nistp256@openssh.com", NULL
	};
	const char	*p, *sp;
	size_t		 i, len, tlen;

	*out = NULL;
	len = strlen(line);
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
	    line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	for (i = 0; i < len; i++) {
		unsigned char	c = (unsigned char)line[i];

		if (c < 0x20 || c == 0x7f)
			return prov_err_set(err, PROV_E_USAGE, "SSH public key "
			    "has a control character or more than one line");
		if (c == '\\')
			return prov_err_set(err, PROV_E_USAGE, "SSH public key "
			    "has a backslash in its comment");
	}
	if ((sp = memchr(line, ' ', len)) == NULL)
		return prov_err_set(err, PROV_E_USAGE, "not an OpenSSH public "
		    "key line: 'TYPE BASE64 [COMMENT]'");
	tlen = (size_t)(sp - line);
	for (i = 0; types[i] != NULL; i++)
		if (strlen(types[i]) == tlen && strncmp(types[i], line,
		    tlen) == 0)
			break;
	if (types[i] == NULL)
		return prov_err_set(err, PROV_E_USAGE, "unknown SSH key type "
		    "'%.*s'", (int)(tlen > 40 ? 40 : tlen), line);
	p = sp + 1;
	for (i = 0; p + i < line + len && p[i] != ' '; i++)
		if (!pxe_is_b64((unsigned char)p[i]))
			return prov_err_set(err, PROV_E_USAGE, "SSH public key "
			    "is not base64 after its type");
	if (i < 16)
		return prov_err_set(err, PROV_E_USAGE, "SSH public key is "
		    "too short");
	*out = xstrndup(line, len);
	return 0;
}

int
pxe_url_ok(const char *s)
{
	const char	*p;

	if (!str_starts(s, "http://") && !str_starts(s, "https://") &&
	    !str_starts(s, "ftp://"))
		return 0;
	p = strstr(s, "://") + 3;
	if (*p == '\0' || *p == '/')
		return 0;
	for (p = s; *p != '\0'; p++) {
		unsigned char	c = (unsigned char)*p;

		if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' ||
		    c == '\\' || c == '`' || c == '<' || c == '>' || c == ',')
			return 0;
	}
	return 1;
}

void
pxe_netmask(char out[16], int prefix)
{
	uint32_t	m = prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu :
			    ~((1u << (32 - prefix)) - 1);

	snprintf(out, 16, "%u.%u.%u.%u", m >> 24, (m >> 16) & 255,
	    (m >> 8) & 255, m & 255);
}

static int
pxe_name_char(int c, int first)
{
	return (c >= 'A' && c <= 'Z') || c == '_' ||
	    (!first && c >= '0' && c <= '9');
}

static const char *
pxe_var_find(const struct pxe_var *v, size_t n, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strlen(v[i].name) == len && memcmp(v[i].name, name,
		    len) == 0)
			return v[i].value != NULL ? v[i].value : "";
	return NULL;
}

int
pxe_subst(struct buf *out, const char *tmpl, const char *label,
    const struct pxe_var *vars, size_t nv, struct prov_err *err)
{
	const char	*line = tmpl;
	unsigned	 lineno = 1;

	while (*line != '\0') {
		const char	*eol = strchr(line, '\n');
		const char	*end = eol != NULL ? eol : line + strlen(line);
		const char	*p = line, *ws;
		size_t		 start = out->len, indent;
		int		 only = 0;

		/* Indentation, and whether the line is one placeholder. */
		for (ws = line; ws < end && (*ws == ' ' || *ws == '\t'); ws++)
			;
		indent = (size_t)(ws - line);
		if (ws < end && *ws == '@') {
			const char	*q = ws + 1;

			while (q < end && pxe_name_char((unsigned char)*q,
			    q == ws + 1))
				q++;
			if (q > ws + 1 && q < end && *q == '@' &&
			    q + 1 == end)
				only = 1;
		}
		while (p < end) {
			const char	*q, *val, *v;

			if (*p != '@' || p + 1 >= end ||
			    !pxe_name_char((unsigned char)p[1], 1)) {
				buf_addch(out, *p++);
				continue;
			}
			for (q = p + 1; q < end &&
			    pxe_name_char((unsigned char)*q, q == p + 1); q++)
				;
			if (q >= end || *q != '@') {
				buf_addch(out, *p++);
				continue;
			}
			val = pxe_var_find(vars, nv, p + 1, (size_t)(q - p - 1));
			if (val == NULL)
				return prov_err_set(err, PROV_E_USAGE, "%s:%u: "
				    "unknown placeholder '%.*s'", label, lineno,
				    (int)(q - p + 1), p);
			for (v = val; *v != '\0'; v++) {
				buf_addch(out, *v);
				if (*v == '\n' && v[1] != '\0')
					buf_add(out, line, indent);
			}
			p = q + 1;
		}
		if (only && out->len == start + indent)
			buf_setlen(out, start);		/* drop the line */
		else if (eol != NULL)
			buf_addch(out, '\n');
		if (eol == NULL)
			break;
		line = eol + 1;
		lineno++;
	}
	return 0;
}

int
pxe_serve_path(struct buf *out, const char *target)
{
	const char	*p = target;
	struct buf	 dec = BUF_INIT;
	size_t		 i, seg;
	int		 r = -1;

	buf_reset(out);
	if (*p != '/')
		return -1;
	for (; *p != '\0' && *p != '?' && *p != '#'; p++) {
		int	c = (unsigned char)*p;

		if (c == '%') {
			int	hi = pxe_hexval((unsigned char)p[1]);
			int	lo = hi < 0 ? -1 : pxe_hexval((unsigned char)p[2]);

			if (hi < 0 || lo < 0)
				goto out;
			c = hi * 16 + lo;
			p += 2;
		}
		if (c == 0 || c < 0x20 || c == 0x7f || c == '\\')
			goto out;
		buf_addch(&dec, c);
	}
	/* Walk the segments: skip empty ones, refuse "." and "..". */
	for (i = 0; i < dec.len;) {
		while (i < dec.len && dec.buf[i] == '/')
			i++;
		seg = i;
		while (i < dec.len && dec.buf[i] != '/')
			i++;
		if (i == seg)
			break;
		if (dec.buf[seg] == '.')	/* ".", "..", dot files */
			goto out;
		if (out->len > 0)
			buf_addch(out, '/');
		buf_add(out, dec.buf + seg, i - seg);
	}
	r = 0;
out:
	if (r != 0)
		buf_reset(out);
	buf_release(&dec);
	return r;
}

/* Files. */

/* Served by dnsmasq's TFTP (not root): 0755, in a folder only we write. */
static int
pxe_mkdirs(const char *path, struct prov_err *err)
{
	return fs_mkdirs(path, 0755, err);
}

/* Write outdir/rel atomically and record its digest. */
static int
pxe_write(struct pxe_ctx *c, const char *rel, const struct buf *b,
    struct prov_err *err)
{
	char	*path = xasprintf("%s/%s", c->outdir, rel);
	char	*dir = xstrdup(path), *slash = strrchr(dir, '/');
	char	 hex[ARC_SHA256_HEX];
	int	 r = -1;

	*slash = '\0';
	if (pxe_mkdirs(dir, err) != 0)
		goto out;
	if (buf_write_file_atomic(path, b->buf, b->len, 0644) != 0) {
		prov_err_sys(err, "cannot write '%s'", path);
		goto out;
	}
	if (arc_sha256_buf(hex, b->buf, b->len, err) != 0)
		goto out;
	buf_addf(&c->sums, "%s  %s\n", hex, rel);
	strvec_push(&c->res->files, rel);
	r = 0;
out:
	free(dir);
	free(path);
	return r;
}

static int
pxe_template(struct buf *b, const struct pxe_ctx *c, const char *name,
    struct prov_err *err)
{
	char	*path = xasprintf("%s/pxe/%s", c->o->templates, name);
	int	 r = 0;

	buf_reset(b);
	if (buf_read_file(b, path) != 0)
		r = prov_err_sys(err, "cannot read template '%s'", path);
	else if (b->len > PXE_TEMPLATE_MAX || memchr(b->buf, '\0', b->len))
		r = prov_err_set(err, PROV_E_USAGE, "template '%s' is not a "
		    "text file", path);
	free(path);
	return r;
}

static void
pxe_row_add(struct pxe_result *res, const char *node, const char *mac,
    enum pxe_status st, char *why)
{
	struct pxe_row	*r;

	ALLOC_GROW(res->rows, res->n + 1, res->alloc);
	r = &res->rows[res->n++];
	memset(r, 0, sizeof *r);
	r->node = node;
	snprintf(r->mac, sizeof r->mac, "%s", mac != NULL ? mac : "");
	r->status = st;
	r->why = why;
	if (st == PXE_RENDERED)
		res->rendered++;
	else if (st == PXE_SKIPPED)
		res->skipped++;
	else
		res->failed++;
}

void
pxe_result_release(struct pxe_result *res)
{
	size_t	i;

	if (res == NULL)
		return;
	for (i = 0; i < res->n; i++)
		free(res->rows[i].why);
	free(res->rows);
	strvec_clear(&res->files);
	strvec_clear(&res->notes);
	free(res->boot_dir);
	memset(res, 0, sizeof *res);
	res->files = (struct strvec)STRVEC_INIT;
	res->notes = (struct strvec)STRVEC_INIT;
}

/* Shared settings. */

static int
pxe_user_ok(const char *s)
{
	size_t	i;

	if (s == NULL || s[0] == '\0' || strlen(s) > 32 ||
	    !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return 0;
	for (i = 1; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

static int
pxe_ipv4_ok(const char *s)
{
	uint32_t	a;

	return s != NULL && plan_parse_ipv4(s, &a) == 0;
}

/* Characters dnsmasq, iPXE and a preseed all take without quoting. */
static int
pxe_path_ok(const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char	c = (unsigned char)*s;

		if (c <= 0x20 || c == 0x7f || c == '"' || c == '\'' ||
		    c == '\\' || c == '#' || c == ',' || c == '$' || c == '`')
			return 0;
	}
	return 1;
}

static int
pxe_read_pubkey(struct pxe_ctx *c, struct prov_err *err)
{
	struct buf	 b = BUF_INIT;
	char		*path, *nl;
	int		 r = -1;

	if (c->o->pubkey_file != NULL)
		path = xstrdup(c->o->pubkey_file);
	else if (c->p->ssh.identity != NULL)
		path = xasprintf("%s.pub", c->p->ssh.identity);
	else
		return prov_err_setloc(err, PROV_E_USAGE, NULL, "give one with "
		    "--ssh-key FILE", "no SSH public key: the plan's "
		    "ssh.identity is not set");
	if (buf_read_file(&b, path) != 0) {
		prov_err_sys(err, "cannot read SSH public key '%s'", path);
		err->code = PROV_E_USAGE;
		goto out;
	}
	if (b.len > PXE_KEY_MAX) {
		prov_err_set(err, PROV_E_USAGE, "'%s' is too big for an SSH "
		    "public key", path);
		goto out;
	}
	/* The first line; a .pub file holds one key. */
	if ((nl = strchr(b.buf, '\n')) != NULL)
		buf_setlen(&b, (size_t)(nl - b.buf));
	if (pxe_pubkey_check(&c->pubkey, b.buf, err) != 0) {
		prov_err_prefix(err, "'%s': ", path);
		goto out;
	}
	r = 0;
out:
	free(path);
	buf_release(&b);
	return r;
}

static int
pxe_setup(struct pxe_ctx *c, struct prov_err *err)
{
	const struct pxe_opts	*o = c->o;
	const char		*m, *slash;
	char			*abs = NULL;
	size_t			 i;

	c->distro = c->p->sw.os_distro;
	c->release = c->p->sw.os_release;
	if (c->distro == NULL || c->release == NULL ||
	    !str_is_safe_word(c->release))
		return prov_err_set(err, PROV_E_PLAN, "the plan has no usable "
		    "software.os distro and release");
	if (strcmp(c->distro, "debian") != 0 &&
	    strcmp(c->distro, "ubuntu") != 0 && strcmp(c->distro, "rocky") != 0)
		return prov_err_set(err, PROV_E_PLAN, "cannot install '%s' over "
		    "the network (debian, ubuntu and rocky can)", c->distro);
	c->boot_dir = xasprintf("boot/%s-%s", c->distro, c->release);
	if (o->base_url != NULL) {
		size_t	n = strlen(o->base_url);

		if (!pxe_url_ok(o->base_url) || !str_starts(o->base_url, "http"))
			return prov_err_set(err, PROV_E_USAGE, "--url '%s' is not "
			    "an http(s) URL", o->base_url);
		/* The templates add the slash. */
		while (n > 8 && o->base_url[n - 1] == '/')
			n--;
		c->base_url = c->own_base_url = xstrndup(o->base_url, n);
	} else
		c->base_url = "http://${next-server}";
	if (o->gateway != NULL && !pxe_ipv4_ok(o->gateway))
		return prov_err_set(err, PROV_E_USAGE, "--gateway '%s' is not an "
		    "IPv4 address", o->gateway);
	c->gateway = o->gateway != NULL ? o->gateway : "";
	if (o->dns != NULL) {
		strvec_split(&c->dns, o->dns, ',', 1);
		for (i = 0; i < c->dns.n; i++)
			if (!pxe_ipv4_ok(c->dns.v[i]))
				return prov_err_set(err, PROV_E_USAGE, "--dns "
				    "'%s' is not an IPv4 address", c->dns.v[i]);
	}
	if (o->interface != NULL && (!str_is_safe_word(o->interface) ||
	    strlen(o->interface) > 15))
		return prov_err_set(err, PROV_E_USAGE, "'%s' is not a network "
		    "interface name", o->interface);
	c->domain = c->p->domain != NULL ? c->p->domain : "";
	if (c->domain[0] != '\0' && !str_is_hostname(c->domain))
		return prov_err_set(err, PROV_E_PLAN, "cluster domain '%s' is "
		    "not a DNS name", c->domain);
	c->user = c->p->ssh.user != NULL ? c->p->ssh.user : "root";
	if (!pxe_user_ok(c->user))
		return prov_err_set(err, PROV_E_PLAN, "SSH user '%s' is not a "
		    "user name an installer accepts", c->user);
	/* The package mirror the installer uses. */
	if (o->mirror != NULL)
		c->mirror = o->mirror;
	else if (strcmp(c->distro, "debian") == 0)
		c->mirror = "http://deb.debian.org/debian";
	else if (strcmp(c->distro, "ubuntu") == 0)
		c->mirror = "http://archive.ubuntu.com/ubuntu";
	else
		c->mirror = c->own_mirror = xasprintf("https://dl.rockylinux.org/"
		    "pub/rocky/%s/BaseOS/x86_64/os/", c->release);
	if (!pxe_url_ok(c->mirror))
		return prov_err_set(err, PROV_E_USAGE, "mirror '%s' is not an "
		    "http(s) or ftp URL without spaces or quotes", c->mirror);
	m = strstr(c->mirror, "://");
	snprintf(c->mirror_proto, sizeof c->mirror_proto, "%.*s",
	    (int)(m - c->mirror), c->mirror);
	m += 3;
	slash = strchr(m, '/');
	c->mirror_host = slash != NULL ? xstrndup(m, (size_t)(slash - m)) :
	    xstrdup(m);
	c->mirror_dir = xstrdup(slash != NULL ? slash : "/");
	if (pxe_read_pubkey(c, err) != 0)
		return -1;
	/* Everything checked: only now touch the disk. */
	if (pxe_mkdirs(o->outdir, err) != 0)
		return -1;
	if ((abs = realpath(o->outdir, NULL)) == NULL)
		return prov_err_sys(err, "cannot resolve '%s'", o->outdir);
	c->outdir = abs;
	if (!pxe_path_ok(c->outdir))
		return prov_err_setloc(err, PROV_E_USAGE, NULL, "use a directory "
		    "whose path has no spaces, quotes, '#', ',' or '$'",
		    "output directory '%s' cannot be written into dnsmasq's "
		    "configuration", c->outdir);
	return 0;
}

/* Nodes. */

struct pxe_node {
	const struct plan_node	*n;
	char			 mac[18], dash[18];
	char			 netmask[16];
	int			 prefix;
};

/*
 * 0: render it; 1: skip it; -1: it fails.  *why gets the reason (owned)
 * for both.
 */
static int
pxe_node_check(struct pxe_ctx *c, const struct plan_node *n,
    struct pxe_node *pn, char **why)
{
	const char	*w;
	uint32_t	 a;
	size_t		 i;

	memset(pn, 0, sizeof *pn);
	pn->n = n;
	*why = NULL;
	if (n->mac == NULL) {
		*why = xstrdup("no 'mac' in the plan");
		return 1;
	}
	if (n->address == NULL) {
		*why = xstrdup("no 'address' in the plan");
		return 1;
	}
	if (pxe_mac_parse(pn->mac, n->mac, &w) != 0) {
		*why = xasprintf("mac '%s' is %s", n->mac, w);
		return -1;
	}
	pxe_mac_dashes(pn->dash, pn->mac);
	if (!str_is_hostname(n->name) || strchr(n->name, '.') != NULL) {
		*why = xasprintf("'%s' is not a host name an installer "
		    "accepts", n->name);
		return -1;
	}
	if (plan_parse_ipv4(n->address, &a) != 0) {
		*why = xasprintf("address '%s' is not an IPv4 address",
		    n->address);
		return -1;
	}
	for (i = 0; i < c->p->nnets; i++) {
		const struct plan_net	*net = &c->p->nets[i];

		if (net->prefix > 0 && net->prefix <= 32 &&
		    (a & net->mask) == (net->addr & net->mask)) {
			pn->prefix = net->prefix;
			break;
		}
	}
	if (pn->prefix == 0) {
		*why = xasprintf("address %s is in none of the plan's networks",
		    n->address);
		return -1;
	}
	pxe_netmask(pn->netmask, pn->prefix);
	return 0;
}

static void
pxe_yaml_list(struct buf *b, const struct strvec *v)
{
	size_t	i;

	buf_adds(b, "[");
	for (i = 0; i < v->n; i++) {
		buf_adds(b, i ? ", " : "");
		pxe_yaml_str(b, v->v[i]);
	}
	buf_adds(b, "]");
}

/* The shell that gives the provisioner's key to the SSH user on /target. */
static void
pxe_late_key(struct buf *b, const struct pxe_ctx *c, int target_user)
{
	if (strcmp(c->user, "root") == 0 || !target_user) {
		buf_adds(b, "mkdir -p -m 700 /target/root/.ssh && echo ");
		buf_add_shquote(b, c->pubkey);
		buf_adds(b, " >> /target/root/.ssh/authorized_keys && "
		    "chmod 600 /target/root/.ssh/authorized_keys");
		return;
	}
	buf_addf(b, "in-target install -d -m 700 -o %s -g %s /home/%s/.ssh "
	    "&& echo ", c->user, c->user, c->user);
	buf_add_shquote(b, c->pubkey);
	buf_addf(b, " >> /target/home/%s/.ssh/authorized_keys && in-target "
	    "chown %s:%s /home/%s/.ssh/authorized_keys && chmod 600 "
	    "/target/home/%s/.ssh/authorized_keys", c->user, c->user, c->user,
	    c->user, c->user);
}

static void
pxe_late_sudo(struct buf *b, const struct pxe_ctx *c, const char *root)
{
	char	*line = xasprintf("%s ALL=(ALL) NOPASSWD:ALL", c->user);

	buf_adds(b, "echo ");
	buf_add_shquote(b, line);
	buf_addf(b, " > %s/etc/sudoers.d/provision && chmod 440 "
	    "%s/etc/sudoers.d/provision", root, root);
	free(line);
}

/* ipxe/MAC.ipxe: the boot script, pointing at the answer file. */
static int
pxe_render_ipxe(struct pxe_ctx *c, const struct pxe_node *pn,
    struct prov_err *err)
{
	struct buf	out = BUF_INIT, ans = BUF_INIT, ansdir = BUF_INIT;
	struct buf	iso = BUF_INIT, rel = BUF_INIT;
	int		debian = strcmp(c->distro, "debian") == 0;
	int		ubuntu = strcmp(c->distro, "ubuntu") == 0;
	int		r = -1;

	buf_addf(&ansdir, "%s/answers/%s/", c->base_url, pn->dash);
	buf_addf(&ans, "%s%s", ansdir.buf, debian ? "preseed.cfg" :
	    ubuntu ? "user-data" : "ks.cfg");
	buf_addf(&iso, "%s/iso/%s-%s.iso", c->base_url, c->distro, c->release);
	{
		const struct pxe_var	v[] = {
			{ "NODE", pn->n->name }, { "MAC", pn->mac },
			{ "MAC_DASH", pn->dash }, { "RELEASE", c->release },
			{ "BOOT_DIR", c->boot_dir }, { "BASE_URL", c->base_url },
			{ "ADDRESS", pn->n->address },
			{ "NETMASK", pn->netmask }, { "GATEWAY", c->gateway },
			{ "NO_DEFAULT_ROUTE", c->gateway[0] ? "false" : "true" },
			{ "DNS_FIRST", c->dns.n ? c->dns.v[0] : "" },
			{ "DOMAIN", c->domain }, { "ANSWER_URL", ans.buf },
			{ "ANSWER_DIR_URL", ansdir.buf }, { "ISO_URL", iso.buf },
			{ "MIRROR", c->mirror },
		};

		if (pxe_subst(&out, c->t_ipxe.buf, c->distro, v,
		    ARRAY_SIZE(v), err) != 0)
			goto out;
	}
	buf_addf(&rel, "ipxe/%s.ipxe", pn->dash);
	if (pxe_write(c, rel.buf, &out, err) != 0)
		goto out;
	r = 0;
out:
	buf_release(&out);
	buf_release(&ans);
	buf_release(&ansdir);
	buf_release(&iso);
	buf_release(&rel);
	return r;
}

/* answers/MAC/preseed.cfg: f1 the accounts, f2 late_command. */
static int
pxe_render_debian(struct pxe_ctx *c, const struct pxe_node *pn,
    struct prov_err *err)
{
	struct buf	 out = BUF_INIT, rel = BUF_INIT, dnsl = BUF_INIT;
	struct buf	 f1 = BUF_INIT, f2 = BUF_INIT;
	const char	*name = pn->n->name, *addr = pn->n->address;
	size_t		 i;
	int		 r = -1;

	for (i = 0; i < c->dns.n; i++)
		buf_addf(&dnsl, "%s%s", i ? " " : "", c->dns.v[i]);
	if (strcmp(c->user, "root") == 0)
		buf_adds(&f1, "d-i passwd/root-login boolean true\n"
		    "d-i passwd/make-user boolean false\n"
		    "d-i passwd/root-password-crypted password !");
	else
		buf_addf(&f1, "d-i passwd/root-login boolean false\n"
		    "d-i passwd/make-user boolean true\n"
		    "d-i passwd/user-fullname string provision\n"
		    "d-i passwd/username string %s\n"
		    "d-i passwd/user-password-crypted password !",
		    c->user);
	pxe_late_key(&f2, c, 1);
	if (strcmp(c->user, "root") != 0) {
		buf_adds(&f2, " && ");
		pxe_late_sudo(&f2, c, "/target");
	}
	{
		const struct pxe_var	v[] = {
			{ "NODE", name }, { "MAC", pn->mac },
			{ "RELEASE", c->release }, { "ADDRESS", addr },
			{ "NETMASK", pn->netmask },
			{ "GATEWAY", c->gateway },
			{ "NO_DEFAULT_ROUTE",
			  c->gateway[0] ? "false" : "true" },
			{ "DNS", dnsl.buf }, { "DOMAIN", c->domain },
			{ "MIRROR_PROTO", c->mirror_proto },
			{ "MIRROR_HOST", c->mirror_host },
			{ "MIRROR_DIR", c->mirror_dir },
			{ "USER_SETUP", f1.buf },
			{ "LATE_COMMAND", f2.buf },
		};

		if (pxe_subst(&out, c->t_answer.buf,
		    "debian-preseed.cfg", v, ARRAY_SIZE(v), err) != 0)
			goto out;
	}
	buf_addf(&rel, "answers/%s/preseed.cfg", pn->dash);
	if (pxe_write(c, rel.buf, &out, err) != 0)
		goto out;
	r = 0;
out:
	buf_release(&out);
	buf_release(&rel);
	buf_release(&dnsl);
	buf_release(&f1);
	buf_release(&f2);
	return r;
}

/* answers/MAC/user-data and meta-data (autoinstall). */
static int
pxe_render_ubuntu(struct pxe_ctx *c, const struct pxe_node *pn,
    struct prov_err *err)
{
	struct buf	 out = BUF_INIT, rel = BUF_INIT, f1 = BUF_INIT;
	struct buf	 f2 = BUF_INIT, f3 = BUF_INIT, f4 = BUF_INIT;
	struct buf	 f5 = BUF_INIT, f6 = BUF_INIT, f7 = BUF_INIT;
	struct buf	 f8 = BUF_INIT, f9 = BUF_INIT;
	struct strvec	 sv = STRVEC_INIT;
	const char	*name = pn->n->name, *addr = pn->n->address;
	int		 r = -1;

	/* Every value a quoted YAML scalar or a list of them. */
	pxe_yaml_str(&f1, name);
	pxe_yaml_str(&f2, strcmp(c->user, "root") == 0 ? "provision" :
	    c->user);
	pxe_yaml_str(&f3, c->pubkey);
	pxe_yaml_str(&f4, pn->mac);
	buf_addf(&rel, "%s/%d", addr, pn->prefix);
	pxe_yaml_str(&f5, rel.buf);
	buf_reset(&rel);
	if (c->gateway[0] != '\0') {
		buf_adds(&f6, "[{to: default, via: ");
		pxe_yaml_str(&f6, c->gateway);
		buf_adds(&f6, "}]");
	} else
		buf_adds(&f6, "[]");
	pxe_yaml_list(&f7, &c->dns);
	if (c->domain[0] != '\0')
		strvec_push(&sv, c->domain);
	pxe_yaml_list(&f8, &sv);
	/*
	 * late-commands, a block list indented by pxe_subst: root's
	 * key, or sudo for the SSH user (who is the identity user
	 * and gets the key from ssh.authorized-keys).
	 */
	if (strcmp(c->user, "root") == 0)
		pxe_late_key(&rel, c, 0);
	else
		pxe_late_sudo(&rel, c, "/target");
	buf_adds(&f9, "- ");
	pxe_yaml_str(&f9, rel.buf);
	buf_reset(&rel);
	{
		struct buf	mirror = BUF_INIT, iid = BUF_INIT;
		int		rr;

		pxe_yaml_str(&mirror, c->mirror);
		buf_addf(&rel, "provision-%s", pn->dash);
		pxe_yaml_str(&iid, rel.buf);
		buf_reset(&rel);
		{
			const struct pxe_var	v[] = {
				{ "NODE", f1.buf },
				{ "ADMIN_USER", f2.buf },
				{ "SSH_KEY", f3.buf },
				{ "MAC", f4.buf },
				{ "ADDRESS_CIDR", f5.buf },
				{ "ROUTES", f6.buf },
				{ "DNS_LIST", f7.buf },
				{ "SEARCH", f8.buf },
				{ "MIRROR", mirror.buf },
				{ "LATE_COMMANDS", f9.buf },
				{ "INSTANCE_ID", iid.buf },
			};

			rr = pxe_subst(&out, c->t_answer.buf,
			    "ubuntu-user-data", v, ARRAY_SIZE(v), err);
			if (rr == 0) {
				buf_addf(&rel, "answers/%s/user-data",
				    pn->dash);
				rr = pxe_write(c, rel.buf, &out, err);
				buf_reset(&rel);
				buf_reset(&out);
			}
			if (rr == 0)
				rr = pxe_subst(&out, c->t_answer2.buf,
				    "ubuntu-meta-data", v,
				    ARRAY_SIZE(v), err);
			if (rr == 0) {
				buf_addf(&rel, "answers/%s/meta-data",
				    pn->dash);
				rr = pxe_write(c, rel.buf, &out, err);
			}
		}
		buf_release(&mirror);
		buf_release(&iid);
		if (rr != 0)
			goto out;
	}
	r = 0;
out:
	buf_release(&out);
	buf_release(&rel);
	buf_release(&f1);
	buf_release(&f2);
	buf_release(&f3);
	buf_release(&f4);
	buf_release(&f5);
	buf_release(&f6);
	buf_release(&f7);
	buf_release(&f8);
	buf_release(&f9);
	strvec_clear(&sv);
	return r;
}

/* answers/MAC/ks.cfg (kickstart). */
static int
pxe_render_rocky(struct pxe_ctx *c, const struct pxe_node *pn,
    struct prov_err *err)
{
	struct buf	 out = BUF_INIT, rel = BUF_INIT, f1 = BUF_INIT;
	struct buf	 f2 = BUF_INIT, f3 = BUF_INIT, f4 = BUF_INIT;
	struct buf	 f5 = BUF_INIT, f6 = BUF_INIT;
	const char	*name = pn->n->name, *addr = pn->n->address;
	size_t		 i;
	int		 r = -1;

	if (c->gateway[0] != '\0')
		buf_addf(&f1, "--gateway=%s", c->gateway);
	if (c->dns.n > 0) {
		buf_adds(&f2, "--nameserver=");
		for (i = 0; i < c->dns.n; i++)
			buf_addf(&f2, "%s%s", i ? "," : "",
			    c->dns.v[i]);
	}
	buf_adds(&f3, name);
	if (c->domain[0] != '\0')
		buf_addf(&f3, ".%s", c->domain);
	if (strcmp(c->user, "root") != 0) {
		buf_addf(&f4, "user --name=%s --groups=wheel --lock",
		    c->user);
		pxe_late_sudo(&f5, c, "");
	}
	pxe_ks_str(&f6, c->pubkey);
	{
		const struct pxe_var	v[] = {
			{ "NODE", name }, { "MAC", pn->mac },
			{ "RELEASE", c->release },
			{ "MIRROR", c->mirror }, { "ADDRESS", addr },
			{ "NETMASK", pn->netmask },
			{ "KS_GATEWAY", f1.buf }, { "KS_DNS", f2.buf },
			{ "FQDN", f3.buf }, { "KS_USER", f4.buf },
			{ "KS_POST", f5.buf },
			{ "SSH_USER", c->user }, { "SSH_KEY", f6.buf },
		};

		if (pxe_subst(&out, c->t_answer.buf, "rocky-ks.cfg", v,
		    ARRAY_SIZE(v), err) != 0)
			goto out;
	}
	buf_addf(&rel, "answers/%s/ks.cfg", pn->dash);
	if (pxe_write(c, rel.buf, &out, err) != 0)
		goto out;
	r = 0;
out:
	buf_release(&out);
	buf_release(&rel);
	buf_release(&f1);
	buf_release(&f2);
	buf_release(&f3);
	buf_release(&f4);
	buf_release(&f5);
	buf_release(&f6);
	return r;
}

/* One node's boot script and answer files. */
static int
pxe_render_node(struct pxe_ctx *c, const struct pxe_node *pn,
    struct prov_err *err)
{
	if (pxe_render_ipxe(c, pn, err) != 0)
		return -1;
	if (strcmp(c->distro, "debian") == 0)
		return pxe_render_debian(c, pn, err);
	if (strcmp(c->distro, "ubuntu") == 0)
		return pxe_render_ubuntu(c, pn, err);
	return pxe_render_rocky(c, pn, err);
}

/* dnsmasq.conf: one dhcp-range per network that holds a rendered node. */
static int
pxe_render_dnsmasq(struct pxe_ctx *c, const struct pxe_node *nodes,
    size_t n, struct prov_err *err)
{
	struct buf	 t = BUF_INIT, out = BUF_INIT, iface = BUF_INIT;
	struct buf	 ranges = BUF_INIT, opts = BUF_INIT, hosts = BUF_INIT;
	char		*used = xcalloc(c->p->nnets + 1, 1);
	const char	*cluster = c->p->cluster != NULL &&
			    str_is_safe_word(c->p->cluster) ? c->p->cluster : "-";
	size_t		 i, k;
	int		 r = -1;

	if (pxe_template(&t, c, c->o->proxy_dhcp ? "dnsmasq-proxy.conf" :
	    "dnsmasq.conf", err) != 0)
		goto out;
	if (c->o->interface != NULL)
		buf_addf(&iface, "interface=%s\nbind-interfaces",
		    c->o->interface);
	else
		buf_adds(&iface, "# interface=IFACE (every interface: "
		    "set one with --interface)");
	for (i = 0; i < n; i++) {
		uint32_t	a;

		(void)plan_parse_ipv4(nodes[i].n->address, &a);
		for (k = 0; k < c->p->nnets; k++) {
			const struct plan_net	*net = &c->p->nets[k];
			struct in_addr		 ia;
			char			 nb[INET_ADDRSTRLEN], mask[16];

			if (used[k] || net->prefix <= 0 ||
			    (a & net->mask) != (net->addr & net->mask))
				continue;
			used[k] = 1;
			ia.s_addr = htonl(net->addr & net->mask);
			inet_ntop(AF_INET, &ia, nb, sizeof nb);
			pxe_netmask(mask, net->prefix);
			buf_addf(&ranges, "%sdhcp-range=%s,%s,%s%s",
			    ranges.len ? "\n" : "", nb,
			    c->o->proxy_dhcp ? "proxy" : "static", mask,
			    c->o->proxy_dhcp ? "" : ",12h");
			break;
		}
		if (c->o->proxy_dhcp)
			buf_addf(&hosts, "%sdhcp-host=%s,set:provision",
			    hosts.len ? "\n" : "", nodes[i].mac);
		else
			buf_addf(&hosts, "%sdhcp-host=%s,%s,%s",
			    hosts.len ? "\n" : "", nodes[i].mac,
			    nodes[i].n->address, nodes[i].n->name);
	}
	/* Without --gateway, no default route (dnsmasq would offer itself). */
	if (c->gateway[0] != '\0')
		buf_addf(&opts, "dhcp-option=option:router,%s", c->gateway);
	else
		buf_adds(&opts, "dhcp-option=option:router");
	if (c->dns.n > 0) {
		buf_adds(&opts, "\ndhcp-option=option:dns-server");
		for (i = 0; i < c->dns.n; i++)
			buf_addf(&opts, ",%s", c->dns.v[i]);
	}
	if (c->domain[0] != '\0')
		buf_addf(&opts, "\ndhcp-option=option:domain-name,%s",
		    c->domain);
	{
		const struct pxe_var	v[] = {
			{ "CLUSTER", cluster }, { "DIR", c->outdir },
			{ "INTERFACE", iface.buf },
			{ "DHCP_RANGES", ranges.buf },
			{ "DHCP_OPTIONS", opts.buf },
			{ "DHCP_HOSTS", hosts.buf },
		};

		if (pxe_subst(&out, t.buf, "dnsmasq.conf", v, ARRAY_SIZE(v),
		    err) != 0)
			goto out;
	}
	if (pxe_write(c, "dnsmasq.conf", &out, err) != 0)
		goto out;
	r = 0;
out:
	free(used);
	buf_release(&t);
	buf_release(&out);
	buf_release(&iface);
	buf_release(&ranges);
	buf_release(&opts);
	buf_release(&hosts);
	return r;
}

/* Installer image. */

static int
pxe_extract_iso(struct pxe_ctx *c, struct prov_err *err)
{
	struct arc_pick	 picks[2 * ARRAY_SIZE(pxe_iso_layouts)];
	char		*dests[2 * ARRAY_SIZE(pxe_iso_layouts)];
	char		*dir = xasprintf("%s/%s", c->outdir, c->boot_dir);
	char		*kpath = NULL, *ipath = NULL;
	struct buf	 tried = BUF_INIT;
	size_t		 i, n = 0, won = SIZE_MAX;
	int		 r = -1;

	memset(dests, 0, sizeof dests);
	if (pxe_mkdirs(dir, err) != 0)
		goto out;
	for (i = 0; i < ARRAY_SIZE(pxe_iso_layouts); i++) {
		const struct pxe_iso_layout	*l = &pxe_iso_layouts[i];

		if (strcmp(l->distro, c->distro) != 0)
			continue;
		dests[n] = xasprintf("%s/cand-%zu-kernel", dir, i);
		picks[n].member = l->kernel;
		picks[n].dest = dests[n];
		n++;
		dests[n] = xasprintf("%s/cand-%zu-initrd", dir, i);
		picks[n].member = l->initrd;
		picks[n].dest = dests[n];
		n++;
		buf_addf(&tried, "%s%s + %s (%s)", tried.len ? "; " : "",
		    l->kernel, l->initrd, l->what);
	}
	if (arc_extract(c->o->iso, picks, n, err) != 0)
		goto out;
	for (i = 0; i + 1 < n; i += 2)
		if (picks[i].found && picks[i + 1].found) {
			won = i;
			break;
		}
	if (won == SIZE_MAX) {
		prov_err_setloc(err, PROV_E_ARCHIVE, NULL, "is it an installer "
		    "image for the plan's distribution?", "'%s' has no "
		    "kernel and initrd where a %s installer keeps them "
		    "(looked for %s)", c->o->iso, c->distro, tried.buf);
		goto out;
	}
	kpath = xasprintf("%s/vmlinuz", dir);
	ipath = xasprintf("%s/initrd", dir);
	if (rename(picks[won].dest, kpath) != 0 ||
	    rename(picks[won + 1].dest, ipath) != 0) {
		prov_err_sys(err, "cannot rename into '%s'", dir);
		goto out;
	}
	buf_addf(&c->sums, "%s  %s/vmlinuz\n%s  %s/initrd\n", picks[won].sha256,
	    c->boot_dir, picks[won + 1].sha256, c->boot_dir);
	strvec_pushf(&c->res->files, "%s/vmlinuz", c->boot_dir);
	strvec_pushf(&c->res->files, "%s/initrd", c->boot_dir);
	c->res->have_kernel = 1;
	if (strcmp(c->distro, "debian") == 0 && won / 2 != 0)
		strvec_pushf(&c->res->notes, "the kernel and initrd came from "
		    "a netinst ISO's install.amd/: that initrd looks for the "
		    "CD; Debian's netboot.tar.gz (also accepted by --iso) is "
		    "the one made for network boot");
	if (strcmp(c->distro, "ubuntu") == 0) {
		char	*idir = xasprintf("%s/iso", c->outdir);
		char	*ipx = xasprintf("%s/%s-%s.iso", idir, c->distro,
			    c->release);

		if (pxe_mkdirs(idir, err) != 0) {
			free(idir);
			free(ipx);
			goto out;
		}
		(void)unlink(ipx);
		if (link(c->o->iso, ipx) != 0)
			strvec_pushf(&c->res->notes, "copy '%s' to '%s': casper "
			    "downloads the ISO at boot (%s)", c->o->iso, ipx,
			    strerror(errno));
		free(idir);
		free(ipx);
	}
	r = 0;
out:
	for (i = 0; i < n; i++) {
		if (dests[i] != NULL)
			(void)unlink(dests[i]);
		free(dests[i]);
	}
	free(kpath);
	free(ipath);
	free(dir);
	buf_release(&tried);
	return r;
}

/* Add boot files from an earlier --iso run to SHA256SUMS. */
static int
pxe_sum_existing(struct pxe_ctx *c, const char *rel, struct prov_err *err)
{
	char	*path = xasprintf("%s/%s", c->outdir, rel);
	char	 hex[ARC_SHA256_HEX];
	int	 r = 0;

	if (access(path, F_OK) == 0) {
		if ((r = arc_sha256_file(hex, NULL, path, err)) == 0)
			buf_addf(&c->sums, "%s  %s\n", hex, rel);
	}
	free(path);
	return r;
}

static int
pxe_exists(const struct pxe_ctx *c, const char *rel)
{
	char	*path = xasprintf("%s/%s", c->outdir, rel);
	int	 r = access(path, F_OK) == 0;

	free(path);
	return r;
}

/* The templates: boot.ipxe, the distribution's iPXE script and answers. */
static int
pxe_templates(struct pxe_ctx *c, struct prov_err *err)
{
	char	*rel;
	int	 r;

	if (pxe_template(&c->t_boot, c, "boot.ipxe", err) != 0)
		return -1;
	rel = xasprintf("%s.ipxe", c->distro);
	r = pxe_template(&c->t_ipxe, c, rel, err);
	free(rel);
	if (r != 0 || pxe_template(&c->t_answer, c,
	    strcmp(c->distro, "debian") == 0 ? "debian-preseed.cfg" :
	    strcmp(c->distro, "ubuntu") == 0 ? "ubuntu-user-data" :
	    "rocky-ks.cfg", err) != 0)
		return -1;
	if (strcmp(c->distro, "ubuntu") == 0 &&
	    pxe_template(&c->t_answer2, c, "ubuntu-meta-data", err) != 0)
		return -1;
	return 0;
}

/* Notes for what a boot still lacks; the kernel's sums when it is here. */
static int
pxe_missing(struct pxe_ctx *c, struct prov_err *err)
{
	char	*rel = NULL;
	int	 r = -1;

	if (c->o->iso == NULL) {
		rel = xasprintf("%s/vmlinuz", c->boot_dir);
		c->res->have_kernel = pxe_exists(c, rel);
		if (pxe_sum_existing(c, rel, err) != 0)
			goto out;
		free(rel);
		rel = xasprintf("%s/initrd", c->boot_dir);
		c->res->have_kernel = c->res->have_kernel && pxe_exists(c, rel);
		if (pxe_sum_existing(c, rel, err) != 0)
			goto out;
		if (!c->res->have_kernel)
			strvec_pushf(&c->res->notes, "no kernel and initrd in "
			    "'%s/%s': run again with --iso INSTALLER-IMAGE",
			    c->outdir, c->boot_dir);
	}
	if (!pxe_exists(c, "undionly.kpxe") || !pxe_exists(c, "ipxe.efi"))
		strvec_pushf(&c->res->notes, "copy undionly.kpxe and ipxe.efi "
		    "into '%s' (Debian package ipxe: /usr/lib/ipxe/)",
		    c->outdir);
	if (strcmp(c->distro, "ubuntu") == 0) {
		free(rel);
		rel = xasprintf("iso/ubuntu-%s.iso", c->release);
		if (!pxe_exists(c, rel) && c->o->iso == NULL)
			strvec_pushf(&c->res->notes, "put the Ubuntu %s "
			    "live-server ISO at '%s/%s': casper downloads it "
			    "at boot", c->release, c->outdir, rel);
	}
	r = 0;
out:
	free(rel);
	return r;
}

int
pxe_render(struct pxe_result *res, const struct plan *p,
    const struct pxe_opts *o, struct prov_err *err)
{
	struct pxe_ctx		  c;
	struct plan_node	**sel = NULL;
	struct pxe_node		 *ok = NULL;
	struct strvec		  macs = STRVEC_INIT;
	struct buf		  out = BUF_INIT;
	char			 *rel = NULL;
	size_t			  i, n, nok = 0;
	int			  r = -1;

	memset(&c, 0, sizeof c);
	c.p = p;
	c.o = o;
	c.res = res;
	c.dns = (struct strvec)STRVEC_INIT;
	if (pxe_setup(&c, err) != 0)
		goto out;
	res->boot_dir = xstrdup(c.boot_dir);
	if (pxe_templates(&c, err) != 0)
		goto out;
	if (o->iso != NULL && pxe_extract_iso(&c, err) != 0)
		goto out;

	if (plan_select(&sel, &n, p, o->nodes, err) != 0)
		goto out;
	ok = xcalloc(n + 1, sizeof *ok);
	for (i = 0; i < n; i++) {
		struct pxe_node	 pn;
		char		*why = NULL;
		int		 st = pxe_node_check(&c, sel[i], &pn, &why);

		if (st == 0 && strvec_find(&macs, pn.mac) >= 0) {
			why = xasprintf("mac %s is also another node's", pn.mac);
			st = -1;
		}
		if (st == 0) {
			if (pxe_render_node(&c, &pn, err) != 0)
				goto out;
			strvec_push(&macs, pn.mac);
			ok[nok++] = pn;
		}
		pxe_row_add(res, sel[i]->name, st == 1 ? NULL : pn.mac,
		    st == 0 ? PXE_RENDERED : st == 1 ? PXE_SKIPPED : PXE_FAILED,
		    why);
	}
	{
		const struct pxe_var	v[] = { { "BASE_URL", c.base_url } };

		if (pxe_subst(&out, c.t_boot.buf, "boot.ipxe", v,
		    ARRAY_SIZE(v), err) != 0 ||
		    pxe_write(&c, "boot.ipxe", &out, err) != 0)
			goto out;
	}
	if (pxe_render_dnsmasq(&c, ok, nok, err) != 0)
		goto out;

	/* What is still missing for a boot. */
	if (pxe_missing(&c, err) != 0)
		goto out;
	rel = xasprintf("%s/SHA256SUMS", c.outdir);
	if (buf_write_file_atomic(rel, c.sums.buf, c.sums.len, 0644) != 0) {
		prov_err_sys(err, "cannot write '%s'", rel);
		goto out;
	}
	strvec_push(&res->files, "SHA256SUMS");
	r = 0;
out:
	free(rel);
	free(sel);
	free(ok);
	strvec_clear(&macs);
	buf_release(&out);
	free(c.outdir);
	free(c.boot_dir);
	free(c.own_base_url);
	free(c.own_mirror);
	free(c.mirror_host);
	free(c.mirror_dir);
	free(c.pubkey);
	strvec_clear(&c.dns);
	buf_release(&c.t_boot);
	buf_release(&c.t_ipxe);
	buf_release(&c.t_answer);
	buf_release(&c.t_answer2);
	buf_release(&c.sums);
	return r;
}

/*
 * The server: one thread, poll(), GET and HEAD only, one request per
 * connection.  A request names a path under the served directory, which
 * is opened one component at a time with O_NOFOLLOW from the directory's
 * own descriptor: no "..", no symbolic link, no dot file, nothing but
 * regular files.  Files are streamed with sendfile() as the socket takes
 * them, so a 2 GiB ISO does not hold up the small files other nodes ask
 * for.
 */

#define PXE_REQ_MAX	8192

struct pxe_client {
	int		 fd;
	int		 file;		/* -1: none */
	char		 req[PXE_REQ_MAX];
	size_t		 reqlen;
	struct buf	 head;		/* status line, headers, small body */
	size_t		 headoff;
	off_t		 off, end;	/* file range still to send */
	time_t		 last;
	int		 writing;
	char		 logline[512];
};

static void
pxe_serve_log(struct pxe_serve *s, struct pxe_client *cl)
{
	if (s->log != NULL && cl->logline[0] != '\0')
		s->log(s->log_arg, cl->logline);
	cl->logline[0] = '\0';
}

static void
pxe_client_close(struct pxe_serve *s, struct pxe_client *cl)
{
	char	junk[512];

	pxe_serve_log(s, cl);
	/* Drain what the client still sent, so close() does not reset. */
	while (recv(cl->fd, junk, sizeof junk, MSG_DONTWAIT) > 0)
		;
	shutdown(cl->fd, SHUT_WR);
	close(cl->fd);
	if (cl->file >= 0)
		close(cl->file);
	buf_release(&cl->head);
	free(cl);
}

/* For the log: the request target with anything unprintable replaced. */
static void
pxe_printable(char *dst, size_t n, const char *src, size_t len)
{
	size_t	i;

	for (i = 0; i < len && i + 1 < n; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

static void
pxe_respond(struct pxe_client *cl, int code, const char *reason,
    const char *extra)
{
	char	body[128];
	int	n = snprintf(body, sizeof body, "%d %s\n", code, reason);

	buf_reset(&cl->head);
	buf_addf(&cl->head, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
	    "Content-Length: %d\r\nConnection: close\r\n%s\r\n%s", code,
	    reason, n, extra != NULL ? extra : "", body);
	cl->writing = 1;
}

static const char *
pxe_content_type(const char *rel)
{
	static const char *const text[] = {
		".ipxe", ".cfg", ".conf", "user-data", "meta-data",
		"vendor-data", "SHA256SUMS", NULL
	};
	size_t	i, n = strlen(rel);

	for (i = 0; text[i] != NULL; i++) {
		size_t	l = strlen(text[i]);

		if (n >= l && strcmp(rel + n - l, text[i]) == 0)
			return "text/plain; charset=utf-8";
	}
	return "application/octet-stream";
}

/* Open rel under dirfd without following any link; -1 with errno. */
static int
pxe_open_beneath(int dirfd, const char *rel)
{
	char	*copy = xstrdup(rel), *seg = copy, *slash;
	int	 fd = dup(dirfd), next, saved;

	while (fd >= 0 && seg != NULL) {
		slash = strchr(seg, '/');
		if (slash != NULL)
			*slash = '\0';
		next = openat(fd, seg, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
		    (slash != NULL ? O_DIRECTORY : 0));
		saved = errno;
		close(fd);
		errno = saved;
		fd = next;
		seg = slash != NULL ? slash + 1 : NULL;
	}
	free(copy);
	return fd;
}

static void
pxe_handle(struct pxe_serve *s, int dirfd, struct pxe_client *cl)
{
	struct buf	 rel = BUF_INIT;
	struct stat	 st;
	char		*sp1, *sp2, shown[256];
	int		 head = 0;

	cl->req[cl->reqlen] = '\0';
	sp1 = strchr(cl->req, ' ');
	sp2 = sp1 != NULL ? strchr(sp1 + 1, ' ') : NULL;
	if (sp1 == NULL || sp2 == NULL || !str_starts(sp2 + 1, "HTTP/1.")) {
		snprintf(cl->logline, sizeof cl->logline, "- - 400");
		pxe_respond(cl, 400, "Bad Request", NULL);
		goto out;
	}
	*sp2 = '\0';
	pxe_printable(shown, sizeof shown, sp1 + 1, strlen(sp1 + 1));
	*sp1 = '\0';
	if (strcmp(cl->req, "HEAD") == 0)
		head = 1;
	else if (strcmp(cl->req, "GET") != 0) {
		char	m[16];

		pxe_printable(m, sizeof m, cl->req, strlen(cl->req));
		snprintf(cl->logline, sizeof cl->logline, "%s %s 405", m,
		    shown);
		pxe_respond(cl, 405, "Method Not Allowed",
		    "Allow: GET, HEAD\r\n");
		goto out;
	}
	if (pxe_serve_path(&rel, sp1 + 1) != 0) {
		snprintf(cl->logline, sizeof cl->logline, "%s %s 400",
		    head ? "HEAD" : "GET", shown);
		pxe_respond(cl, 400, "Bad Request", NULL);
		goto out;
	}
	if (rel.len == 0 || (cl->file = pxe_open_beneath(dirfd,
	    rel.buf)) < 0 || fstat(cl->file, &st) != 0 ||
	    !S_ISREG(st.st_mode)) {
		snprintf(cl->logline, sizeof cl->logline, "%s %s 404",
		    head ? "HEAD" : "GET", shown);
		pxe_respond(cl, 404, "Not Found", NULL);
		goto out;
	}
	buf_reset(&cl->head);
	buf_addf(&cl->head, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n"
	    "Content-Length: %lld\r\nConnection: close\r\n\r\n",
	    pxe_content_type(rel.buf), (long long)st.st_size);
	cl->off = 0;
	cl->end = head ? 0 : st.st_size;
	cl->writing = 1;
	snprintf(cl->logline, sizeof cl->logline, "%s %s 200 %lld",
	    head ? "HEAD" : "GET", shown, (long long)st.st_size);
out:
	if (cl->writing && cl->file >= 0 && cl->end == 0) {
		close(cl->file);
		cl->file = -1;
	}
	buf_release(&rel);
	(void)s;
}

/* 1: keep the client; 0: close it. */
static int
pxe_client_read(struct pxe_serve *s, int dirfd, struct pxe_client *cl)
{
	ssize_t	n = recv(cl->fd, cl->req + cl->reqlen,
		    sizeof cl->req - 1 - cl->reqlen, 0);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (n <= 0)
		return 0;
	cl->reqlen += (size_t)n;
	cl->req[cl->reqlen] = '\0';
	if (strstr(cl->req, "\r\n\r\n") == NULL &&
	    strstr(cl->req, "\n\n") == NULL) {
		if (cl->reqlen + 1 >= sizeof cl->req) {
			snprintf(cl->logline, sizeof cl->logline, "- - 431");
			pxe_respond(cl, 431, "Request Header Fields Too Large",
			    NULL);
		}
		return 1;
	}
	/* The request line alone decides everything. */
	*strpbrk(cl->req, "\r\n") = '\0';
	cl->reqlen = strlen(cl->req);
	pxe_handle(s, dirfd, cl);
	return 1;
}

static int
pxe_client_write(struct pxe_client *cl)
{
	while (cl->headoff < cl->head.len) {
		ssize_t	n = send(cl->fd, cl->head.buf + cl->headoff,
			    cl->head.len - cl->headoff, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n <= 0)
			return 0;
		cl->headoff += (size_t)n;
	}
	while (cl->file >= 0 && cl->off < cl->end) {
		size_t	chunk = cl->end - cl->off > (1 << 20) ? (1 << 20) :
			    (size_t)(cl->end - cl->off);
		ssize_t	n = sendfile(cl->fd, cl->file, &cl->off, chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n <= 0)
			return 0;	/* the file shrank, or the peer left */
	}
	return 0;			/* done: close */
}

int
pxe_serve_listen(struct pxe_serve *s, const char *addr_port,
    struct prov_err *err)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	const char		*colon = strrchr(addr_port, ':');
	char			*host = NULL;
	long			 port;
	int			 fd = -1, one = 1, r = -1;

	s->listen_fd = -1;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	if (colon == NULL || str_to_long(colon + 1, &port) != 0 || port < 0 ||
	    port > 65535)
		return prov_err_set(err, PROV_E_USAGE, "'%s' is not ADDR:PORT",
		    addr_port);
	host = xstrndup(addr_port, (size_t)(colon - addr_port));
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		prov_err_set(err, PROV_E_USAGE, "'%s' is not an IPv4 address",
		    host);
		goto out;
	}
	sin.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		prov_err_sys(err, "cannot create a socket");
		goto out;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
	    listen(fd, 64) != 0) {
		prov_err_sys(err, "cannot listen on '%s'", addr_port);
		goto out;
	}
	if (getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
		prov_err_sys(err, "cannot listen on '%s'", addr_port);
		goto out;
	}
	s->port = ntohs(sin.sin_port);
	s->listen_fd = fd;
	fd = -1;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	free(host);
	return r;
}

int
pxe_serve_run(struct pxe_serve *s, struct prov_err *err)
{
	struct pxe_client	**cl = NULL;
	struct pollfd		 *pfd = NULL;
	size_t			  max = s->max_clients ? s->max_clients : 64;
	size_t			  n = 0, i;
	int			  idle = s->idle_s > 0 ? s->idle_s : 30;
	int			  dirfd, r = -1;

	dirfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		prov_err_sys(err, "cannot open '%s'", s->dir);
		goto out;
	}
	cl = xcalloc(max, sizeof *cl);
	pfd = xcalloc(max + 1, sizeof *pfd);
	while (s->stop == NULL || !*s->stop) {
		time_t	now;
		int	k;

		pfd[0].fd = s->listen_fd;
		pfd[0].events = POLLIN;
		for (i = 0; i < n; i++) {
			pfd[i + 1].fd = cl[i]->fd;
			pfd[i + 1].events = cl[i]->writing ? POLLOUT : POLLIN;
			pfd[i + 1].revents = 0;
		}
		k = poll(pfd, n + 1, 1000);
		if (k < 0 && errno != EINTR) {
			prov_err_sys(err, "poll");
			goto out;
		}
		now = time(NULL);
		for (i = n; i-- > 0;) {
			struct pxe_client	*c = cl[i];
			int			 keep = 1;
			short			 ev = k > 0 ? pfd[i + 1].revents : 0;

			if (ev & (POLLIN | POLLOUT | POLLHUP | POLLERR)) {
				c->last = now;
				if (!c->writing)
					keep = pxe_client_read(s, dirfd, c);
				if (keep && c->writing)
					keep = pxe_client_write(c);
			} else if (now - c->last > idle)
				keep = 0;
			if (!keep) {
				pxe_client_close(s, c);
				cl[i] = cl[--n];
			}
		}
		if (k > 0 && (pfd[0].revents & POLLIN)) {
			for (;;) {
				int			 fd;
				struct pxe_client	*c;

				fd = accept4(s->listen_fd, NULL, NULL,
				    SOCK_NONBLOCK | SOCK_CLOEXEC);
				if (fd < 0)
					break;
				if (n >= max) {
					static const char busy[] = "HTTP/1.1 "
					    "503 Service Unavailable\r\n"
					    "Content-Length: 0\r\n"
					    "Connection: close\r\n\r\n";

					(void)send(fd, busy, sizeof busy - 1,
					    MSG_NOSIGNAL | MSG_DONTWAIT);
					close(fd);
					continue;
				}
				c = xcalloc(1, sizeof *c);
				c->fd = fd;
				c->file = -1;
				c->head = (struct buf)BUF_INIT;
				c->last = now;
				cl[n++] = c;
			}
		}
	}
	r = 0;
out:
	for (i = 0; i < n; i++)
		pxe_client_close(s, cl[i]);
	free(cl);
	free(pfd);
	if (dirfd >= 0)
		close(dirfd);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
	return r;
}

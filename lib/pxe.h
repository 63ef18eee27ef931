/*
 * pxe.h: network installation files for the plan's nodes, keyed by MAC.
 *
 * pxe_render() writes into one directory everything a node needs to
 * install its OS with the plan's host name, static address and the
 * provisioner's SSH key, so that `provision apply` can follow:
 *
 *	DIR/boot.ipxe			chains to ipxe/${mac:hexhyp}.ipxe
 *	DIR/ipxe/MAC.ipxe		kernel, initrd and command line
 *	DIR/answers/MAC/...		preseed.cfg, user-data + meta-data,
 *					or ks.cfg
 *	DIR/dnsmasq.conf		DHCP reservations (or proxy-DHCP), TFTP
 *	DIR/boot/DISTRO-RELEASE/	vmlinuz + initrd, with --iso
 *	DIR/SHA256SUMS			of every file written (sha256sum -c)
 *
 * MAC is lower case with dashes ("0c-c4-7a-00-00-10"), as iPXE's
 * ${mac:hexhyp} writes it.  The files come from templates/pxe/; `@NAME@`
 * in a template is replaced by a value rendered for that file's format
 * (a quoted YAML scalar in user-data, a checked single line in a
 * preseed, ...).  Every plan value is checked before it is used: host
 * names, IPv4 addresses, MACs, URLs and the SSH public key.
 *
 * A node without `mac` or `address` is skipped with the reason; a node
 * whose values are wrong fails alone.  The result lists both.
 *
 *	struct pxe_opts o = PXE_OPTS_INIT;
 *	struct pxe_result res = PXE_RESULT_INIT;
 *	o.outdir = "pxe"; o.templates = "templates";
 *	if (pxe_render(&res, plan, &o, &err) != 0) ... could not write ...
 *	... res.rows[i]: node, mac, status, why ...
 *	pxe_result_release(&res);
 *
 * pxe_serve_*() is a small read-only HTTP server for DIR: GET and HEAD,
 * one thread, poll(), no directory listings, nothing outside DIR.
 */
#ifndef PROV_PXE_H
#define PROV_PXE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "strvec.h"

struct plan;

struct pxe_opts {
	const char	*outdir;
	const char	*templates;	/* the templates dir (holds pxe/) */
	const char	*base_url;	/* NULL: http://${next-server} */
	const char	*pubkey_file;	/* NULL: ssh.identity + .pub */
	const char	*gateway;	/* NULL: no default route */
	const char	*dns;		/* "a.b.c.d,..." or NULL */
	const char	*mirror;	/* NULL: the distribution's own */
	const char	*interface;	/* dnsmasq interface=, or NULL */
	const char	*iso;		/* installer image, or NULL */
	const char	*nodes;		/* hostlist, or NULL: every node */
	int		 proxy_dhcp;	/* the network has a DHCP server */
};

#define PXE_OPTS_INIT { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
	NULL, NULL, 0 }

enum pxe_status {
	PXE_RENDERED = 0,
	PXE_SKIPPED,		/* nothing to do: no mac, no address */
	PXE_FAILED,		/* a value is wrong */
};

struct pxe_row {
	const char	*node;		/* borrowed from the plan */
	char		 mac[18];	/* normalised, or "" */
	enum pxe_status	 status;
	char		*why;		/* skipped or failed: the reason */
};

struct pxe_result {
	struct pxe_row	*rows;
	size_t		 n, alloc;
	size_t		 rendered, skipped, failed;
	struct strvec	 files;		/* written, relative to outdir */
	struct strvec	 notes;		/* what the user still has to do */
	char		*boot_dir;	/* "boot/debian-12" */
	int		 have_kernel;	/* vmlinuz + initrd are in boot_dir */
};

#define PXE_RESULT_INIT { NULL, 0, 0, 0, 0, 0, STRVEC_INIT, STRVEC_INIT, \
	NULL, 0 }

/*
 * Render every selected node and the shared files.  Returns -1 only when
 * nothing sensible could be done (unreadable template, unwritable
 * directory, unreadable ISO or SSH key); per-node problems are rows.
 */
int	pxe_render(struct pxe_result *out, const struct plan *,
	    const struct pxe_opts *, struct prov_err *);
void	pxe_result_release(struct pxe_result *);

/* Pure helpers, exposed for the unit tests. */

/*
 * Parse a MAC written with ':' or '-' between six hex octets into
 * "aa:bb:cc:dd:ee:ff"; -1 (with *why) when it is not a unicast MAC.
 */
int	pxe_mac_parse(char out[18], const char *s, const char **why);
/* "aa:bb:..." to "aa-bb-...". */
void	pxe_mac_dashes(char out[18], const char *mac);
/* Append s as a double-quoted YAML scalar (YAML 1.1 and 1.2 safe). */
void	pxe_yaml_str(struct buf *, const char *s);
/* Append s as a kickstart double-quoted argument. */
void	pxe_ks_str(struct buf *, const char *s);
/*
 * Check an OpenSSH public key line ("TYPE BASE64 [COMMENT]") and copy it
 * without trailing white space; -1 with err when it is not one.
 */
int	pxe_pubkey_check(char **out, const char *line, struct prov_err *);
/* 1 when s is an http(s) or ftp URL without spaces, quotes or controls. */
int	pxe_url_ok(const char *s);
/* Dotted netmask of a prefix length (0..32). */
void	pxe_netmask(char out[16], int prefix);

struct pxe_var {
	const char	*name;
	const char	*value;
};

/*
 * Replace every `@NAME@` (NAME: [A-Z][A-Z0-9_]*) in tmpl by its value.
 * A value of several lines is indented like the placeholder's line; a
 * line holding only a placeholder that expands to nothing is dropped.
 * An unknown name is an error (a typo in a template).
 */
int	pxe_subst(struct buf *out, const char *tmpl, const char *label,
	    const struct pxe_var *, size_t n, struct prov_err *);

/*
 * Map an HTTP request target to a path relative to the served directory:
 * the query is dropped, %XX decoded, and "." / ".." segments, NUL,
 * control characters and backslashes refused (-1).  "/" gives "".
 */
int	pxe_serve_path(struct buf *out, const char *target);

/* The server. */
struct pxe_serve {
	const char		*dir;
	int			 listen_fd;	/* from pxe_serve_listen() */
	int			 port;		/* the bound port */
	size_t			 max_clients;	/* 0: 64 */
	int			 idle_s;	/* 0: 30 */
	volatile sig_atomic_t	*stop;		/* set by a signal handler */
	/* one line per request, e.g. "GET /boot.ipxe 200 812"; may be NULL */
	void			(*log)(void *arg, const char *line);
	void			*log_arg;
};

/* Bind "ADDR:PORT" (IPv4; port 0 picks one, stored in s->port). */
int	pxe_serve_listen(struct pxe_serve *, const char *addr_port,
	    struct prov_err *);
/* Serve until *stop is set; closes the listening socket. */
int	pxe_serve_run(struct pxe_serve *, struct prov_err *);

#endif

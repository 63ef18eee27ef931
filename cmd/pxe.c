/*
 * pxe.c: `provision pxe PLAN -o DIR`: network installation files.
 *
 * Renders per node, keyed by MAC, the iPXE script and the OS answer file
 * that install the plan's host name, static address and the
 * provisioner's SSH key (lib/pxe.c), plus boot.ipxe, dnsmasq.conf and
 * SHA256SUMS; `--iso` takes the kernel and initrd out of an installer
 * image.  Shows one row per node (rendered, skipped, failed) and what is
 * still missing for a boot.  `--serve ADDR:PORT` then serves DIR over
 * HTTP until interrupted.  Exit 0 when every node with a MAC rendered,
 * 1 when one failed or none rendered, 2 on bad usage or plan.
 */
#include "compat.h"

#include <signal.h>

#include "buf.h"
#include "cmd.h"
#include "fs.h"
#include "json.h"
#include "pxe.h"

struct pxe_cmd_opts {
	const char	*out;
	const char	*iso;
	const char	*serve;
	const char	*url;
	const char	*ssh_key;
	const char	*gateway;
	const char	*dns;
	const char	*mirror;
	const char	*interface;
	const char	*templates;
	const char	*nodes;
	int		 proxy_dhcp;
	int		 json;
};

static const struct opt_spec pxe_opts_spec[] = {
	{ "output", 'o', OPT_STR, offsetof(struct pxe_cmd_opts, out), "DIR",
	  "write the files here (required)" },
	{ "iso", 0, OPT_STR, offsetof(struct pxe_cmd_opts, iso), "FILE",
	  "take kernel and initrd from this installer image" },
	{ "serve", 0, OPT_STR, offsetof(struct pxe_cmd_opts, serve),
	  "ADDR:PORT", "then serve DIR over HTTP until interrupted" },
	{ "url", 0, OPT_STR, offsetof(struct pxe_cmd_opts, url), "URL",
	  "where nodes fetch DIR (default http://${next-server})" },
	{ "ssh-key", 0, OPT_STR, offsetof(struct pxe_cmd_opts, ssh_key), "FILE",
	  "public key to install (default: ssh.identity + .pub)" },
	{ "gateway", 0, OPT_STR, offsetof(struct pxe_cmd_opts, gateway),
	  "ADDR", "default route of the installed nodes (default none)" },
	{ "dns", 0, OPT_STR, offsetof(struct pxe_cmd_opts, dns), "ADDR,...",
	  "name servers of the installed nodes" },
	{ "mirror", 0, OPT_STR, offsetof(struct pxe_cmd_opts, mirror), "URL",
	  "package mirror for the installer" },
	{ "interface", 0, OPT_STR, offsetof(struct pxe_cmd_opts, interface),
	  "IFACE", "the interface dnsmasq serves" },
	{ "proxy-dhcp", 0, OPT_BOOL, offsetof(struct pxe_cmd_opts, proxy_dhcp),
	  NULL, "the network has a DHCP server: dnsmasq only adds boot info" },
	{ "templates", 0, OPT_STR, offsetof(struct pxe_cmd_opts, templates),
	  "DIR", "templates directory (holds pxe/)" },
	{ "nodes", 'n', OPT_STR, offsetof(struct pxe_cmd_opts, nodes),
	  "NODESET", "only these nodes (hostlist)" },
	{ "json", 0, OPT_BOOL, offsetof(struct pxe_cmd_opts, json), NULL,
	  "print the result as JSON" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_pxe_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_pxe_entry = {
	.name = "pxe",
	.usage = "-o DIR [--iso FILE] [--serve ADDR:PORT] [--proxy-dhcp] PLAN",
	.summary = "render iPXE scripts, answer files and dnsmasq.conf to "
	    "install nodes by MAC",
	.opts = pxe_opts_spec,
	.opts_size = sizeof(struct pxe_cmd_opts),
	.flags = CMD_LOADS_PLAN,
	.exec = cmd_pxe_exec,
};

static volatile sig_atomic_t cmd_pxe_stop;

static void
cmd_pxe_onsignal(int sig)
{
	(void)sig;
	cmd_pxe_stop = 1;
}

static const char *
cmd_pxe_status(enum pxe_status st)
{
	return st == PXE_RENDERED ? "rendered" : st == PXE_SKIPPED ?
	    "skipped" : "failed";
}

static void
cmd_pxe_json(struct cmd_ctx *ctx, const struct pxe_result *res,
    const char *dir)
{
	struct buf		b = BUF_INIT;
	struct json_writer	jw;
	size_t			i;

	json_init(&jw, &b);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "dir", dir);
	json_array_begin(&jw, "nodes", JSON_LINES);
	for (i = 0; i < res->n; i++) {
		const struct pxe_row	*r = &res->rows[i];

		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "name", r->node);
		json_str(&jw, "mac", r->mac[0] != '\0' ? r->mac : NULL);
		json_str(&jw, "status", cmd_pxe_status(r->status));
		json_str(&jw, "why", r->why);
		json_end(&jw);
	}
	json_end(&jw);
	json_strvec(&jw, "files", &res->files);
	json_strvec(&jw, "notes", &res->notes);
	json_int(&jw, "rendered", (long long)res->rendered);
	json_int(&jw, "skipped", (long long)res->skipped);
	json_int(&jw, "failed", (long long)res->failed);
	json_end(&jw);
	json_finish(&jw);
	fwrite(b.buf, 1, b.len, ctx->out);
	buf_release(&b);
}

static void
cmd_pxe_table(struct cmd_ctx *ctx, const struct pxe_result *res)
{
	size_t	i, w = 4;

	for (i = 0; i < res->n; i++)
		if (strlen(res->rows[i].node) > w)
			w = strlen(res->rows[i].node);
	fprintf(ctx->out, "%-*s  %-17s  %-8s  %s\n", (int)w, "NODE", "MAC",
	    "STATUS", "DETAIL");
	for (i = 0; i < res->n; i++) {
		const struct pxe_row	*r = &res->rows[i];

		fprintf(ctx->out, "%-*s  %-17s  %-8s  %s\n", (int)w, r->node,
		    r->mac[0] ? r->mac : "-", cmd_pxe_status(r->status),
		    r->why != NULL ? r->why : "");
	}
	fprintf(ctx->out, "%zu node%s: %zu rendered, %zu skipped, %zu failed\n",
	    res->n, res->n == 1 ? "" : "s", res->rendered, res->skipped,
	    res->failed);
	for (i = 0; i < res->notes.n; i++)
		fprintf(ctx->out, "note: %s\n", res->notes.v[i]);
}

static void
cmd_pxe_log(void *arg, const char *line)
{
	struct cmd_ctx	*ctx = arg;

	fprintf(ctx->out, "%s\n", line);
	fflush(ctx->out);
}

static int
cmd_pxe_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct pxe_cmd_opts	*o = optsp;
	struct pxe_opts		 po = PXE_OPTS_INIT;
	struct pxe_result	 res = PXE_RESULT_INIT;
	struct pxe_serve	 srv;
	struct prov_err		 err = PROV_ERR_INIT;
	struct sigaction	 sa;
	char			*templates = NULL, *url = NULL;
	int			 r = PROV_EXIT_USAGE;

	memset(&srv, 0, sizeof srv);
	srv.listen_fd = -1;
	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_pxe_entry, "unexpected "
		    "argument '%s'", argv[0]);
	if (o->out == NULL)
		return cmd_usage_error(ctx, &cmd_pxe_entry, "missing -o DIR");
	templates = o->templates != NULL ? xstrdup(o->templates) :
	    fs_data_dir("templates", "PROVISION_TEMPLATES");
	/* Listen first: a busy port fails before anything is written. */
	if (o->serve != NULL) {
		if (pxe_serve_listen(&srv, o->serve, &err) != 0)
			goto fail;
		if (o->url == NULL) {
			const char	*colon = strrchr(o->serve, ':');
			size_t		 hl = (size_t)(colon - o->serve);

			if (hl == 7 && strncmp(o->serve, "0.0.0.0", 7) == 0)
				url = xasprintf("http://${next-server}:%d",
				    srv.port);
			else
				url = xasprintf("http://%.*s:%d", (int)hl,
				    o->serve, srv.port);
		}
	}
	po.outdir = o->out;
	po.templates = templates;
	po.base_url = o->url != NULL ? o->url : url;
	po.pubkey_file = o->ssh_key;
	po.gateway = o->gateway;
	po.dns = o->dns;
	po.mirror = o->mirror;
	po.interface = o->interface;
	po.iso = o->iso;
	po.nodes = o->nodes;
	po.proxy_dhcp = o->proxy_dhcp;
	if (pxe_render(&res, ctx->plan, &po, &err) != 0)
		goto fail;
	if (o->json)
		cmd_pxe_json(ctx, &res, o->out);
	else
		cmd_pxe_table(ctx, &res);
	r = res.failed > 0 || res.rendered == 0 ? PROV_EXIT_FAIL : 0;
	if (res.rendered == 0 && res.failed == 0)
		cmd_errorf(ctx, "no node has both 'mac' and "
		    "'address' in the plan");
	if (o->serve == NULL)
		goto out;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = cmd_pxe_onsignal;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	srv.dir = o->out;
	srv.stop = &cmd_pxe_stop;
	srv.log = cmd_pxe_log;
	srv.log_arg = ctx;
	fprintf(ctx->out, "serving %s at %s/ (read-only; Ctrl-C stops)\n",
	    o->out, po.base_url);
	fflush(ctx->out);
	if (pxe_serve_run(&srv, &err) != 0)
		goto fail;
	goto out;
fail:
	cmd_error(ctx, &err);
	r = err.code == PROV_E_USAGE ? PROV_EXIT_USAGE : PROV_EXIT_FAIL;
out:
	if (srv.listen_fd >= 0)
		close(srv.listen_fd);
	pxe_result_release(&res);
	prov_err_release(&err);
	free(templates);
	free(url);
	return r;
}

/*
 * exec.c: `provision exec`: one command (or one file copy) on many nodes.
 *
 *	provision exec PLAN [-n NODESET] [--forks N] -- COMMAND ...
 *	provision exec -H 'gpu[01-08],head-01' [--user U] [-i KEY] -- COMMAND
 *	provision exec --hosts FILE --copy SRC --dest DIR
 *
 * The nodes come from the plan (names, addresses and its `ssh:` section)
 * or, without a plan, from -H hostlists and --hosts files (one hostlist
 * per line, '#' comments).  Flags override the plan.  Output is gathered
 * by default: nodes whose stdout and stderr are byte-for-byte the same
 * share one block headed by their folded hostlist, as `clush -b` shows
 * it; --prefix prints "node: line" as lines arrive instead.  A summary
 * line ends the run on stderr; the exit code is 0 only when every node
 * ran the command and it exited 0.
 *
 * --copy SRC [--dest DST] uploads a file over SFTP to every node (a
 * temporary name, fsync, SHA-256 checked on the node, then rename), before
 * the command when both are given; as `clush --copy`, DST defaults to
 * SRC's own path.  --stdin sends this process's stdin to every command:
 * the way to hand a node a secret without putting it in argv.
 */
#include "compat.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <termios.h>

#include <openssl/evp.h>

#include "buf.h"
#include "cmd.h"
#include "fs.h"
#include "hostlist.h"
#include "plan.h"
#include "ssh.h"
#include "str.h"
#include "strvec.h"

struct exec_opts {
	const char	*nodes;
	struct strvec	 host;
	const char	*hosts_file;
	long		 forks;
	const char	*user;
	long		 port;
	const char	*identity;
	const char	*known_hosts;
	int		 accept_new;
	const char	*jump;
	long		 timeout;
	long		 connect_timeout;
	int		 prefix;
	const char	*copy;
	const char	*dest;
	const char	*mode;
	int		 sudo;
	int		 use_stdin;
	const char	*passphrase_env;
	const char	*run_dir;
	long		 max_output;
	int		 no_agent;
};

static const struct opt_spec exec_opts_spec[] = {
	{ "nodes", 'n', OPT_STR, offsetof(struct exec_opts, nodes), "NODESET",
	  "only these plan nodes (hostlist, e.g. gpu[01-04])" },
	{ "host", 'H', OPT_LIST, offsetof(struct exec_opts, host), "HOSTLIST",
	  "hosts to run on without a plan (repeatable; host[1-9],h2)" },
	{ "hosts", 0, OPT_STR, offsetof(struct exec_opts, hosts_file), "FILE",
	  "hosts to run on, one hostlist per line" },
	{ "forks", 'f', OPT_LONG, offsetof(struct exec_opts, forks), "N",
	  "nodes busy at once (default: plan's ssh.forks, or 64)" },
	{ "user", 'l', OPT_STR, offsetof(struct exec_opts, user), "USER",
	  "log in as USER (default: plan's, or root)" },
	{ "port", 'p', OPT_LONG, offsetof(struct exec_opts, port), "PORT",
	  "SSH port (default 22)" },
	{ "identity", 'i', OPT_STR, offsetof(struct exec_opts, identity), "KEY",
	  "private key file (ed25519 or ECDSA)" },
	{ "known-hosts", 0, OPT_STR, offsetof(struct exec_opts, known_hosts),
	  "FILE", "known_hosts file (default ~/.ssh/known_hosts)" },
	{ "accept-new", 0, OPT_BOOL, offsetof(struct exec_opts, accept_new),
	  NULL, "record unknown hosts' keys (changed keys stay refused)" },
	{ "jump", 'J', OPT_STR, offsetof(struct exec_opts, jump),
	  "[USER@]HOST[:PORT]", "reach the nodes through this host" },
	{ "timeout", 't', OPT_LONG, offsetof(struct exec_opts, timeout), "S",
	  "stop a node's command after S seconds" },
	{ "connect-timeout", 0, OPT_LONG, offsetof(struct exec_opts,
	  connect_timeout), "S", "give up connecting after S seconds (10)" },
	{ "prefix", 0, OPT_BOOL, offsetof(struct exec_opts, prefix), NULL,
	  "print 'node: line' as output arrives instead of gathering" },
	{ "copy", 0, OPT_STR, offsetof(struct exec_opts, copy), "SRC",
	  "upload local file SRC to every node (checked by SHA-256)" },
	{ "dest", 0, OPT_STR, offsetof(struct exec_opts, dest), "DST",
	  "remote path or directory for --copy (default: SRC's path)" },
	{ "mode", 0, OPT_STR, offsetof(struct exec_opts, mode), "MODE",
	  "octal mode of the copied file (default 0644)" },
	{ "sudo", 0, OPT_BOOL, offsetof(struct exec_opts, sudo), NULL,
	  "run through 'sudo -n' when the user is not root" },
	{ "stdin", 0, OPT_BOOL, offsetof(struct exec_opts, use_stdin), NULL,
	  "send this process's stdin to every command" },
	{ "passphrase-env", 0, OPT_STR, offsetof(struct exec_opts,
	  passphrase_env), "VAR", "read the key's passphrase from $VAR" },
	{ "run-dir", 0, OPT_STR, offsetof(struct exec_opts, run_dir), "DIR",
	  "keep each node's whole output in DIR/NODE.out and .err" },
	{ "max-output", 0, OPT_LONG, offsetof(struct exec_opts, max_output),
	  "BYTES", "output kept in memory per node and stream (1 MiB)" },
	{ "no-agent", 0, OPT_BOOL, offsetof(struct exec_opts, no_agent), NULL,
	  "do not use ssh-agent keys" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_exec_exec(struct cmd_ctx *, void *, int, char **);

static void
cmd_exec_opts_init(void *p)
{
	struct exec_opts	*o = p;

	o->host = (struct strvec)STRVEC_INIT;
}

/*
 * Not CMD_LOADS_PLAN: without -H/--hosts the first argument is the plan,
 * with them every argument is the command, so exec loads the plan itself
 * (with cmd_load_plan, reporting errors as every command does).
 */
const struct cmd_entry cmd_exec_entry = {
	.name = "exec",
	.usage = "[PLAN [-n NODESET] | -H HOSTLIST | --hosts FILE] [OPTIONS] "
	    "[--copy SRC [--dest DST]] [--] COMMAND ...",
	.summary = "run a command (or copy a file) on many nodes over SSH",
	.opts = exec_opts_spec,
	.opts_size = sizeof(struct exec_opts),
	.opts_init = cmd_exec_opts_init,
	.exec = cmd_exec_exec,
};

/* Per node: output as it arrives (--prefix) and the result. */
struct exec_node {
	struct buf		 part[3];	/* partial lines, --prefix */
	struct ssh_result	 res;
	unsigned char		 digest[32];
};

struct exec_run {
	struct cmd_ctx		*ctx;
	struct ssh_host		*hosts;
	struct exec_node	*nodes;
	size_t			 n;
	int			 prefix;
	const struct ssh_job	*job;
	unsigned char		*asked;
};

/* Every node gets the one job, once. */
static const struct ssh_job *
cmd_exec_next(void *arg, size_t i)
{
	struct exec_run	*r = arg;

	if (r->asked[i])
		return NULL;
	r->asked[i] = 1;
	return r->job;
}

static void
cmd_exec_notes(struct cmd_ctx *ctx, struct ssh_pool *pool, size_t *shown)
{
	const struct strvec	*notes = ssh_pool_notes(pool);

	for (; *shown < notes->n; (*shown)++)
		cmd_errorf(ctx, "note: %s",
		    notes->v[*shown]);
}

static void
cmd_exec_prefix_line(struct exec_run *r, size_t i, int stream,
    const char *line, size_t len)
{
	FILE	*fp = stream == 1 ? r->ctx->out : r->ctx->err;

	fprintf(fp, "%s: %.*s\n", r->hosts[i].name, (int)len, line);
}

static void
cmd_exec_output(void *arg, size_t i, int stream, const char *data, size_t n)
{
	struct exec_run	*r = arg;
	struct buf	*part = &r->nodes[i].part[stream];
	const char	*nl;

	if (!r->prefix)
		return;
	while (n > 0 && (nl = memchr(data, '\n', n)) != NULL) {
		size_t	k = (size_t)(nl - data);

		if (part->len > 0) {
			buf_add(part, data, k);
			cmd_exec_prefix_line(r, i, stream, part->buf, part->len);
			buf_reset(part);
		} else
			cmd_exec_prefix_line(r, i, stream, data, k);
		data = nl + 1;
		n -= k + 1;
	}
	buf_add(part, data, n);
	/* A line longer than 64 KiB is shown in pieces. */
	if (part->len >= 65536) {
		cmd_exec_prefix_line(r, i, stream, part->buf, part->len);
		buf_reset(part);
	}
}

static void
cmd_exec_done(void *arg, size_t i, const struct ssh_job *job,
    struct ssh_result *res)
{
	struct exec_run		*r = arg;
	struct exec_node	*nd = &r->nodes[i];
	int			 s;

	(void)job;
	if (r->prefix) {
		for (s = 1; s <= 2; s++)
			if (nd->part[s].len > 0) {
				cmd_exec_prefix_line(r, i, s, nd->part[s].buf,
				    nd->part[s].len);
				buf_reset(&nd->part[s]);
			}
		if (res->status != SSH_OK && res->status != SSH_FAILED)
			fprintf(r->ctx->err, "%s: %s: %s\n", r->hosts[i].name,
			    ssh_status_name(res->status), res->error != NULL ?
			    res->error : "");
		fflush(r->ctx->out);
	}
	ssh_result_move(&nd->res, res);
}

/* Gathered output. */

static void
cmd_exec_digest(struct exec_node *nd)
{
	EVP_MD_CTX	*md = EVP_MD_CTX_new();
	unsigned int	 len = 0;
	char		 sep[64];

	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	snprintf(sep, sizeof sep, "%zu:%llu:%llu:", nd->res.out.len,
	    nd->res.out_total, nd->res.err_total);
	EVP_DigestUpdate(md, sep, strlen(sep));
	EVP_DigestUpdate(md, nd->res.out.buf, nd->res.out.len);
	EVP_DigestUpdate(md, nd->res.err.buf, nd->res.err.len);
	EVP_DigestFinal_ex(md, nd->digest, &len);
	EVP_MD_CTX_free(md);
}

static void
cmd_exec_block(FILE *fp, const char *hosts, size_t count,
    const struct buf *b, unsigned long long total, const char *spill)
{
	fprintf(fp, "---------------\n%s (%zu)\n---------------\n", hosts, count);
	fwrite(b->buf, 1, b->len, fp);
	if (b->len > 0 && b->buf[b->len - 1] != '\n')
		fputc('\n', fp);
	if (total > b->len) {
		fprintf(fp, "[... %llu more bytes not shown", total - b->len);
		if (spill != NULL && count == 1)
			fprintf(fp, "; all of it is in %s", spill);
		else if (spill != NULL)
			fprintf(fp, "; all of it is in %s and the others' files",
			    spill);
		fprintf(fp, "]\n");
	}
}

static int
cmd_exec_cmp_digest(const void *a, const void *b, void *arg)
{
	struct exec_run	*r = arg;
	size_t		 i = *(const size_t *)a, j = *(const size_t *)b;
	int		 c = memcmp(r->nodes[i].digest, r->nodes[j].digest, 32);

	if (c != 0)
		return c;
	return i < j ? -1 : i > j;
}

struct exec_group {
	size_t	first, from, to;
};

static int
cmd_exec_cmp_group(const void *a, const void *b)
{
	const struct exec_group	*x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

static void
cmd_exec_gather(struct exec_run *r)
{
	size_t			*order = xcalloc(r->n + 1, sizeof *order);
	struct exec_group	*groups = xcalloc(r->n + 1, sizeof *groups);
	size_t			 i, k, m = 0, ng = 0, gi;

	for (i = 0; i < r->n; i++) {
		struct exec_node	*nd = &r->nodes[i];

		if (nd->res.out.len == 0 && nd->res.err.len == 0)
			continue;
		cmd_exec_digest(nd);
		order[m++] = i;
	}
	/* Group equal outputs, then show groups in order of their first host. */
	qsort_r(order, m, sizeof *order, cmd_exec_cmp_digest, r);
	for (i = 0; i < m; i = k) {
		for (k = i + 1; k < m && memcmp(r->nodes[order[k]].digest,
		    r->nodes[order[i]].digest, 32) == 0; k++)
			;
		groups[ng].first = order[i];
		groups[ng].from = i;
		groups[ng++].to = k;
	}
	qsort(groups, ng, sizeof *groups, cmd_exec_cmp_group);
	for (gi = 0; gi < ng; gi++) {
		const char	**names;
		char		 *folded;
		size_t		  g;
		struct exec_node *first = &r->nodes[groups[gi].first];

		i = groups[gi].from;
		k = groups[gi].to;
		names = xcalloc(k - i, sizeof *names);
		for (g = i; g < k; g++)
			names[g - i] = r->hosts[order[g]].name;
		folded = hostlist_fold(names, k - i);
		if (first->res.out.len > 0)
			cmd_exec_block(r->ctx->out, folded, k - i,
			    &first->res.out, first->res.out_total,
			    first->res.out_spill);
		if (first->res.err.len > 0) {
			fflush(r->ctx->out);
			cmd_exec_block(r->ctx->err, folded, k - i,
			    &first->res.err, first->res.err_total,
			    first->res.err_spill);
		}
		free(folded);
		free(names);
	}
	fflush(r->ctx->out);
	free(order);
	free(groups);
}

/* Failed nodes grouped by what went wrong, then the summary line. */
static int
cmd_exec_summary(struct exec_run *r)
{
	struct strvec	 keys = STRVEC_INIT;
	struct buf	 fails = BUF_INIT, line = BUF_INIT;
	size_t		 i, k, count[SSH_ERROR + 1];
	const char	**names = NULL;

	memset(count, 0, sizeof count);
	for (i = 0; i < r->n; i++) {
		struct ssh_result	*res = &r->nodes[i].res;
		char			*key;

		count[res->status]++;
		if (res->status == SSH_OK)
			continue;
		if (res->status == SSH_FAILED)
			key = res->exit_signal != NULL ?
			    xasprintf("signal %s", res->exit_signal) :
			    xasprintf("exit %d", res->exit_code);
		else
			key = xasprintf("%s: %s", ssh_status_name(res->status),
			    res->error != NULL ? res->error : "");
		if (strvec_find(&keys, key) < 0)
			strvec_push(&keys, key);
		free(key);
	}
	names = xcalloc(r->n + 1, sizeof *names);
	for (k = 0; k < keys.n; k++) {
		size_t	m = 0;
		char	*folded;

		for (i = 0; i < r->n; i++) {
			struct ssh_result	*res = &r->nodes[i].res;
			char			*key;

			if (res->status == SSH_OK)
				continue;
			if (res->status == SSH_FAILED)
				key = res->exit_signal != NULL ?
				    xasprintf("signal %s", res->exit_signal) :
				    xasprintf("exit %d", res->exit_code);
			else
				key = xasprintf("%s: %s",
				    ssh_status_name(res->status),
				    res->error != NULL ? res->error : "");
			if (strcmp(key, keys.v[k]) == 0)
				names[m++] = r->hosts[i].name;
			free(key);
		}
		folded = hostlist_fold(names, m);
		if (strncmp(keys.v[k], "exit ", 5) == 0 ||
		    strncmp(keys.v[k], "signal ", 7) == 0)
			buf_addf(&fails, "%s%s: %s", fails.len ? "; " : "",
			    keys.v[k], folded);
		/* --prefix showed them as they happened. */
		if (!r->prefix)
			fprintf(r->ctx->err, "%s: %s\n", folded, keys.v[k]);
		free(folded);
	}
	buf_addf(&line, "%zu ok, %zu failed", count[SSH_OK], count[SSH_FAILED]);
	if (fails.len > 0)
		buf_addf(&line, " (%s)", fails.buf);
	buf_addf(&line, ", %zu unreachable, %zu timed out",
	    count[SSH_UNREACHABLE], count[SSH_TIMEOUT]);
	if (count[SSH_HOSTKEY])
		buf_addf(&line, ", %zu host key refused", count[SSH_HOSTKEY]);
	if (count[SSH_AUTH])
		buf_addf(&line, ", %zu login refused", count[SSH_AUTH]);
	if (count[SSH_ERROR])
		buf_addf(&line, ", %zu error%s", count[SSH_ERROR],
		    count[SSH_ERROR] == 1 ? "" : "s");
	fprintf(r->ctx->err, "%s\n", line.buf);
	free(names);
	strvec_clear(&keys);
	buf_release(&fails);
	buf_release(&line);
	return count[SSH_OK] == r->n ? PROV_EXIT_OK : PROV_EXIT_FAIL;
}

/* Hosts. */

static int
cmd_exec_add_hostlist(struct cmd_ctx *ctx, struct strvec *names,
    const char *list, const char *where)
{
	struct prov_err	err = PROV_ERR_INIT;

	if (hostlist_expand(names, list, 1000000, &err) != 0) {
		prov_err_prefix(&err, "%s", where);
		cmd_error(ctx, &err);
		prov_err_release(&err);
		return -1;
	}
	return 0;
}

static int
cmd_exec_read_hosts(struct cmd_ctx *ctx, struct strvec *names,
    const char *path)
{
	struct buf	 b = BUF_INIT;
	struct strvec	 lines = STRVEC_INIT;
	size_t		 i;
	int		 r = -1;

	if (buf_read_file(&b, path) != 0) {
		cmd_errorf(ctx, "cannot read '%s': %s",
		    path, strerror(errno));
		goto out;
	}
	strvec_split(&lines, b.buf, '\n', 1);
	for (i = 0; i < lines.n; i++) {
		char	*s = lines.v[i], *hash = strchr(s, '#'), *where;
		size_t	 l;

		if (hash != NULL)
			*hash = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		l = strlen(s);
		while (l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\t' ||
		    s[l - 1] == '\r'))
			s[--l] = '\0';
		if (*s == '\0')
			continue;
		where = xasprintf("%s:%zu: ", path, i + 1);
		if (cmd_exec_add_hostlist(ctx, names, s, where) != 0) {
			free(where);
			goto out;
		}
		free(where);
	}
	r = 0;
out:
	buf_release(&b);
	strvec_clear(&lines);
	return r;
}

/* Passphrases. */

static char *
cmd_exec_prompt(const char *prompt)
{
	struct termios	 old, quiet;
	char		 line[1024];
	FILE		*tty;
	char		*r = NULL;
	size_t		 l;

	tty = fopen("/dev/tty", "r+");
	if (tty == NULL)
		return NULL;
	if (tcgetattr(fileno(tty), &old) != 0) {
		fclose(tty);
		return NULL;
	}
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	fputs(prompt, tty);
	fflush(tty);
	tcsetattr(fileno(tty), TCSAFLUSH, &quiet);
	if (fgets(line, sizeof line, tty) != NULL) {
		l = strlen(line);
		if (l > 0 && line[l - 1] == '\n')
			line[--l] = '\0';
		r = xstrdup(line);
	}
	tcsetattr(fileno(tty), TCSAFLUSH, &old);
	fputc('\n', tty);
	fclose(tty);
	explicit_bzero(line, sizeof line);
	return r;
}

/*
 * The passphrase for cfg->identity when it is encrypted: from $VAR, else
 * from the terminal.  0 when none is needed or one was found.
 */
static int
cmd_exec_passphrase(struct cmd_ctx *ctx, struct ssh_config *cfg,
    const char *var, char **owned)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		*type = NULL, *prompt;
	const char	*v;
	int		 enc = 0;

	*owned = NULL;
	if (var != NULL && (v = getenv(var)) != NULL) {
		cfg->passphrase = v;
		return 0;
	}
	if (cfg->identity == NULL)
		return 0;
	if (ssh_key_info(cfg->identity, &type, &enc, &err) != 0) {
		cmd_error(ctx, &err);
		prov_err_release(&err);
		return -1;
	}
	free(type);
	if (!enc)
		return 0;
	prompt = xasprintf("Enter passphrase for key '%s': ", cfg->identity);
	*owned = cmd_exec_prompt(prompt);
	free(prompt);
	if (*owned == NULL) {
		cmd_errorf(ctx, "key '%s' is encrypted: set "
		    "the variable named by --passphrase-env (or the plan's "
		    "ssh.passphrase_env), or run from a terminal",
		    cfg->identity);
		return -1;
	}
	cfg->passphrase = *owned;
	return 0;
}

/* The flags that override the plan's ssh: section (or the defaults). */
static void
cmd_exec_config(const struct exec_opts *o, struct ssh_config *cfg)
{
	if (o->user != NULL)
		cfg->user = o->user;
	if (o->port > 0)
		cfg->port = o->port;
	if (o->identity != NULL)
		cfg->identity = o->identity;
	if (o->known_hosts != NULL)
		cfg->known_hosts = o->known_hosts;
	if (o->accept_new)
		cfg->accept_new = 1;
	if (o->jump != NULL) {
		cfg->jump = o->jump;
		cfg->jump_addr = NULL;
	}
	if (o->forks > 0)
		cfg->forks = o->forks;
	if (o->timeout > 0)
		cfg->command_timeout_s = o->timeout;
	if (o->connect_timeout > 0)
		cfg->connect_timeout_s = o->connect_timeout;
	if (o->sudo)
		cfg->become = 1;
	cfg->no_agent = o->no_agent;
	cfg->spill_dir = o->run_dir;
	cfg->out_max = (size_t)o->max_output;
	/* --prefix prints as it goes: little needs keeping. */
	if (o->prefix && o->max_output == 0)
		cfg->out_max = 64 * 1024;
}

/*
 * The job: --mode, --copy (a readable regular file) and stdin (read into
 * `in`, which the caller wipes).  0, or the exit code of a usage error.
 */
static int
cmd_exec_job(struct cmd_ctx *ctx, const struct exec_opts *o,
    struct ssh_job *job, struct buf *in)
{
	if (o->mode != NULL) {
		char	*end;
		long	 m = strtol(o->mode, &end, 8);

		if (*o->mode == '\0' || *end != '\0' || m < 0 || m > 07777) {
			return cmd_usage_error(ctx, &cmd_exec_entry, "--mode "
			    "wants an octal mode like 0755, not '%s'", o->mode);
		}
		job->upload_mode = (int)m;
	}
	if (o->copy != NULL) {
		struct stat	 st;
		const char	*why = NULL;

		if (stat(o->copy, &st) != 0 || access(o->copy, R_OK) != 0)
			why = strerror(errno);
		else if (!S_ISREG(st.st_mode))
			why = "not a regular file";
		if (why != NULL) {
			cmd_errorf(ctx, "cannot copy '%s': %s", o->copy, why);
			return PROV_EXIT_USAGE;
		}
		job->upload_src = o->copy;
		job->upload_dst = o->dest != NULL ? o->dest : o->copy;
	}
	if (o->use_stdin) {
		if (buf_read_file(in, "/dev/stdin") != 0) {
			cmd_errorf(ctx, "read stdin: %s", strerror(errno));
			return PROV_EXIT_USAGE;
		}
		job->stdin_data = in->buf;
		job->stdin_len = in->len;
	}

	return 0;
}

/*
 * The hosts to run on: the plan's selected nodes (its SSH settings into
 * cfg, its passphrase variable into *pass_env unless given), or -H and
 * --hosts.  -1 when said why.
 */
static int
cmd_exec_hosts(struct cmd_ctx *ctx, const struct exec_opts *o,
    const struct plan *p, struct ssh_config *cfg, struct plan_node ***sel,
    struct strvec *names, struct ssh_host **hosts, size_t *n,
    const char **pass_env)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct ssh_host	*h;
	size_t		 i;

	if (p != NULL) {
		ssh_config_from_plan(cfg, &p->ssh);
		if (plan_select(sel, n, p, o->nodes, &err) != 0) {
			cmd_error(ctx, &err);
			prov_err_release(&err);
			return -1;
		}
		*hosts = h = xcalloc(*n + 1, sizeof *h);
		for (i = 0; i < *n; i++) {
			h[i].name = (*sel)[i]->name;
			h[i].addr = (*sel)[i]->address;
		}
		if (*pass_env == NULL)
			*pass_env = p->ssh.passphrase_env;
		/* The plan's default key may not exist: the agent, then. */
		if (cfg->identity != NULL && o->identity == NULL &&
		    access(cfg->identity, F_OK) != 0 &&
		    getenv("SSH_AUTH_SOCK") != NULL)
			cfg->identity = NULL;
	} else {
		for (i = 0; i < o->host.n; i++)
			if (cmd_exec_add_hostlist(ctx, names, o->host.v[i],
			    "") != 0)
				return -1;
		if (o->hosts_file != NULL &&
		    cmd_exec_read_hosts(ctx, names, o->hosts_file) != 0)
			return -1;
		*n = names->n;
		*hosts = h = xcalloc(*n + 1, sizeof *h);
		for (i = 0; i < *n; i++)
			h[i].name = names->v[i];
	}
	return 0;
}

static void
cmd_exec_run_release(struct exec_run *run)
{
	size_t	i;
	int	k;

	for (i = 0; run->nodes != NULL && i < run->n; i++) {
		for (k = 0; k < 3; k++)
			buf_release(&run->nodes[i].part[k]);
		ssh_result_release(&run->nodes[i].res);
	}
	free(run->nodes);
	free(run->hosts);
	free(run->asked);
}

/* The command line's words that go together: 0, or the usage exit code. */
static int
cmd_exec_args(struct cmd_ctx *ctx, const struct exec_opts *o, int argc)
{
	if (argc == 0 && o->copy == NULL)
		return cmd_usage_error(ctx, &cmd_exec_entry, "missing command");
	if (o->dest != NULL && o->copy == NULL)
		return cmd_usage_error(ctx, &cmd_exec_entry,
		    "--dest needs --copy");
	if (o->forks < 0 || o->port < 0 || o->port > 65535 || o->timeout < 0 ||
	    o->connect_timeout < 0 || o->max_output < 0)
		return cmd_usage_error(ctx, &cmd_exec_entry, "negative or "
		    "out-of-range number");
	return 0;
}

static int
cmd_exec_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct exec_opts	 *o = optsp;
	struct plan		 *p = NULL;
	struct plan_node	**sel = NULL;
	struct strvec		  names = STRVEC_INIT;
	struct ssh_config	  cfg = SSH_CONFIG_INIT;
	struct ssh_job		  job = SSH_JOB_INIT;
	struct ssh_handler	  h;
	struct ssh_pool		 *pool = NULL;
	struct exec_run		  run;
	struct prov_err		  err = PROV_ERR_INIT;
	struct buf		  cmdline = BUF_INIT, in = BUF_INIT;
	char			 *pass = NULL;
	const char		 *pass_env = o->passphrase_env;
	size_t			  i, n = 0, shown = 0;
	int			  r = PROV_EXIT_USAGE, k;

	memset(&run, 0, sizeof run);
	if (o->host.n == 0 && o->hosts_file == NULL) {
		if (argc == 0)
			return cmd_usage_error(ctx, &cmd_exec_entry, "missing "
			    "plan file (or -H HOSTLIST / --hosts FILE)");
		ctx->plan_path = argv[0];
		p = ctx->plan = cmd_load_plan(ctx, argv[0]);
		if (p == NULL)
			goto out;
		argc--;
		argv++;
	} else if (o->nodes != NULL) {
		r = cmd_usage_error(ctx, &cmd_exec_entry, "-n selects plan "
		    "nodes; with -H or --hosts there is no plan");
		goto out;
	}
	if ((r = cmd_exec_args(ctx, o, argc)) != 0)
		goto out;
	r = PROV_EXIT_USAGE;
	for (k = 0; k < argc; k++) {
		if (k > 0)
			buf_addch(&cmdline, ' ');
		buf_adds(&cmdline, argv[k]);
	}

	/* Who, and how to reach them. */
	if (cmd_exec_hosts(ctx, o, p, &cfg, &sel, &names, &run.hosts, &n,
	    &pass_env) != 0)
		goto out;
	if (n == 0) {
		cmd_errorf(ctx, "no nodes to run on");
		goto out;
	}
	cmd_exec_config(o, &cfg);
	/* whole outputs go there under fixed names: ours alone, 0700 */
	if (o->run_dir != NULL && fs_mkdirs(o->run_dir, 0700, &err) != 0) {
		prov_err_prefix(&err, "--run-dir: ");
		cmd_error(ctx, &err);
		goto out;
	}
	if (cmd_exec_passphrase(ctx, &cfg, pass_env, &pass) != 0)
		goto out;

	/* What. */
	job.command = cmdline.len > 0 ? cmdline.buf : NULL;
	if ((r = cmd_exec_job(ctx, o, &job, &in)) != 0)
		goto out;
	r = PROV_EXIT_USAGE;
	run.ctx = ctx;
	run.n = n;
	run.prefix = o->prefix;
	run.nodes = xcalloc(n, sizeof *run.nodes);
	for (i = 0; i < n; i++) {
		for (k = 0; k < 3; k++)
			buf_init(&run.nodes[i].part[k], 0);
		ssh_result_init(&run.nodes[i].res);
	}
	if (ssh_pool_new(&pool, &cfg, run.hosts, n, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	cmd_exec_notes(ctx, pool, &shown);
	run.job = &job;
	run.asked = xcalloc(n, 1);
	h.next = cmd_exec_next;
	h.done = cmd_exec_done;
	h.output = cmd_exec_output;
	h.arg = &run;
	if (ssh_pool_run(pool, &h, &err) != 0) {
		cmd_error(ctx, &err);
		r = PROV_EXIT_FAIL;
		goto out;
	}
	cmd_exec_notes(ctx, pool, &shown);
	if (!o->prefix)
		cmd_exec_gather(&run);
	r = cmd_exec_summary(&run);
out:
	ssh_pool_free(pool);
	cmd_exec_run_release(&run);
	free(sel);
	strvec_clear(&names);
	buf_release(&cmdline);
	buf_release_secret(&in);
	if (pass != NULL)
		freezero_str(pass);
	prov_err_release(&err);
	return r;
}

/*
 * bundle.c: `provision bundle PLAN -o FILE`: an offline install kit.
 *
 * Lists the packages the plan's steps install, lets apt resolve their
 * dependencies for the plan's release, fetches every .deb into a cache
 * (parallel, resumable, checked against the index), and packs them as a
 * local apt repository with the rendered step scripts and a manifest
 * into one tar + zstd archive (lib/bundle.c, docs/bundle.md).  The
 * container images the plan runs are pulled from their registries
 * (lib/oci.c) into the same cache and packed as an OCI image layout.
 * `--manifest-only` stops after resolving and prints the manifest;
 * `--verify FILE` reads an archive back and checks every member.
 * `--sign KEY` signs the manifest (ed25519, lib/sig.c); --verify accepts
 * a bundle signed by the key the plan pins (offline.bundle_key) or
 * `--key FILE` gives, else only with `--insecure-unsigned`.
 * Exit 0 on success, 1 when something could not be fetched, packed or
 * verified, 2 on bad usage or an unreadable plan.
 */
#include "compat.h"

#include <sys/stat.h>

#include "buf.h"
#include "bundle.h"
#include "cmd.h"
#include "fs.h"
#include "sig.h"

struct bundle_cmd_opts {
	const char	*out;
	const char	*cache;
	const char	*verify;
	const char	*arch;
	const char	*templates;
	const char	*sign;
	const char	*key;
	struct strvec	 sources;
	struct strvec	 packages;
	struct strvec	 mirrors;
	struct strvec	 images;
	long		 jobs;
	long		 retries;
	long		 timeout;
	int		 manifest_only;
	int		 allow_missing;
	int		 no_images;
	int		 quiet;
	int		 insecure_unsigned;
};

static const struct opt_spec bundle_opts_spec[] = {
	{ "output", 'o', OPT_STR, offsetof(struct bundle_cmd_opts, out), "FILE",
	  "the archive to write (tar + zstd)" },
	{ "cache", 0, OPT_STR, offsetof(struct bundle_cmd_opts, cache), "DIR",
	  "download cache (default ~/.cache/provision/bundle)" },
	{ "manifest-only", 0, OPT_BOOL,
	  offsetof(struct bundle_cmd_opts, manifest_only), NULL,
	  "resolve and print the manifest; fetch and pack nothing" },
	{ "verify", 0, OPT_STR, offsetof(struct bundle_cmd_opts, verify),
	  "FILE", "check an archive against its manifest and its signature "
	  "(the key: the PLAN's offline.bundle_key or --key)" },
	{ "sign", 0, OPT_STR, offsetof(struct bundle_cmd_opts, sign), "KEY",
	  "sign the bundle with this ed25519 private key (PEM, mode 0600)" },
	{ "key", 0, OPT_STR, offsetof(struct bundle_cmd_opts, key), "FILE",
	  "--verify: the public key (PEM) the bundle must be signed with" },
	{ "insecure-unsigned", 0, OPT_BOOL,
	  offsetof(struct bundle_cmd_opts, insecure_unsigned), NULL,
	  "--verify: accept a bundle no pinned key vouches for" },
	{ "source", 0, OPT_LIST, offsetof(struct bundle_cmd_opts, sources),
	  "LINE", "apt source 'deb [opts] URL SUITE COMP...' (repeatable; "
	  "replaces the defaults)" },
	{ "package", 0, OPT_LIST, offsetof(struct bundle_cmd_opts, packages),
	  "NAME", "one more package (repeatable)" },
	{ "allow-missing", 0, OPT_BOOL,
	  offsetof(struct bundle_cmd_opts, allow_missing), NULL,
	  "a package in no index, an image that cannot be fetched: listed "
	  "in the manifest, not an error" },
	{ "image", 0, OPT_LIST, offsetof(struct bundle_cmd_opts, images),
	  "REF", "one more container image, e.g. "
	  "docker.io/library/busybox:1.36 (repeatable)" },
	{ "no-images", 0, OPT_BOOL, offsetof(struct bundle_cmd_opts, no_images),
	  NULL, "fetch no container images (listed as not fetched)" },
	{ "registry-mirror", 0, OPT_LIST,
	  offsetof(struct bundle_cmd_opts, mirrors), "HOST=URL",
	  "pull HOST's images from URL, e.g. nvcr.io=https://mirror:5000 "
	  "(repeatable; http:// only here)" },
	{ "arch", 0, OPT_STR, offsetof(struct bundle_cmd_opts, arch), "ARCH",
	  "Debian architecture (default amd64)" },
	{ "jobs", 'j', OPT_LONG, offsetof(struct bundle_cmd_opts, jobs), "N",
	  "parallel downloads (default 8)" },
	{ "retries", 0, OPT_LONG, offsetof(struct bundle_cmd_opts, retries),
	  "N", "resume a broken download N times (default 3)" },
	{ "timeout", 0, OPT_LONG, offsetof(struct bundle_cmd_opts, timeout),
	  "SECONDS", "give up on a stalled download (default 60)" },
	{ "templates", 0, OPT_STR, offsetof(struct bundle_cmd_opts, templates),
	  "DIR", "step templates to render into scripts/" },
	{ "quiet", 'q', OPT_BOOL, offsetof(struct bundle_cmd_opts, quiet), NULL,
	  "print only problems and the summary" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static void
cmd_bundle_init(void *optsp)
{
	struct bundle_cmd_opts	*o = optsp;

	o->sources = (struct strvec)STRVEC_INIT;
	o->packages = (struct strvec)STRVEC_INIT;
	o->mirrors = (struct strvec)STRVEC_INIT;
	o->images = (struct strvec)STRVEC_INIT;
	o->retries = -1;
}

static int cmd_bundle_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_bundle_entry = {
	.name = "bundle",
	.usage = "-o FILE [--sign KEY] [--cache DIR] [--manifest-only] PLAN | "
	    "--verify FILE [--key FILE | PLAN] [--insecure-unsigned]",
	.summary = "fetch every package the plan needs and pack an offline "
	    "bundle",
	.opts = bundle_opts_spec,
	.opts_size = sizeof(struct bundle_cmd_opts),
	.opts_init = cmd_bundle_init,
	.flags = CMD_LOADS_PLAN | CMD_PLAN_OPTIONAL,
	.exec = cmd_bundle_exec,
};

struct cmd_bundle_progress {
	struct cmd_ctx	*ctx;
	int		 quiet;
	size_t		 cached, fetched, failed;
};

static void
cmd_bundle_event(void *arg, enum bundle_event ev, const struct bundle_item *it,
    const char *msg)
{
	struct cmd_bundle_progress	*pr = arg;
	FILE				*out = pr->ctx->out;

	if (it->blob) {
		switch (ev) {
		case BUNDLE_EV_CACHED:
			pr->cached++;
			break;
		case BUNDLE_EV_FETCHED:
			pr->fetched++;
			if (!pr->quiet)
				fprintf(out, "fetched  %s blob %s (%lld bytes)\n",
				    it->name, it->version, (long long)it->size);
			break;
		case BUNDLE_EV_RETRY:
			fprintf(out, "resuming %s blob %s: %s\n", it->name,
			    it->version, msg != NULL ? msg : "");
			break;
		case BUNDLE_EV_IMAGE:
			if (!pr->quiet)
				fprintf(out, "image    %s %s (%s)\n", it->name,
				    it->version, msg != NULL ? msg : "");
			break;
		case BUNDLE_EV_IMAGE_SKIPPED:
			cmd_errorf(pr->ctx, "warning: %s: not bundled",
			    msg != NULL ? msg : it->name);
			break;
		case BUNDLE_EV_FAILED:
			pr->failed++;
			if (it->version == NULL)
				cmd_errorf(pr->ctx, "%s",
				    msg != NULL ? msg : "failed");
			else
				cmd_errorf(pr->ctx, "image '%s': blob %s: %s",
				    it->name, it->version,
				    msg != NULL ? msg : "failed");
			break;
		}
		fflush(out);
		return;
	}
	switch (ev) {
	case BUNDLE_EV_IMAGE:
	case BUNDLE_EV_IMAGE_SKIPPED:
		break;
	case BUNDLE_EV_CACHED:
		pr->cached++;
		if (!pr->quiet)
			fprintf(out, "cached   %s %s\n", it->name, it->version);
		break;
	case BUNDLE_EV_FETCHED:
		pr->fetched++;
		if (!pr->quiet)
			fprintf(out, "fetched  %s %s (%lld bytes)\n", it->name,
			    it->version, (long long)it->size);
		break;
	case BUNDLE_EV_RETRY:
		fprintf(out, "resuming %s %s: %s\n", it->name, it->version,
		    msg != NULL ? msg : "");
		break;
	case BUNDLE_EV_FAILED:
		pr->failed++;
		cmd_errorf(pr->ctx, "'%s': %s", it->filename,
		    msg != NULL ? msg : "failed");
		break;
	}
	fflush(out);
}

/*
 * The public key bundles must be signed with: --key, else the plan's
 * offline.bundle_key, else none (*out NULL).  -1 (printed) when it cannot
 * be read.
 */
static int
cmd_bundle_pin(struct cmd_ctx *ctx, const struct bundle_cmd_opts *o,
    struct sig_key **out)
{
	struct prov_err	 err = PROV_ERR_INIT;
	const char	*path = o->key;

	*out = NULL;
	if (path == NULL && ctx->plan != NULL)
		path = ctx->plan->offline.bundle_key;
	if (path == NULL)
		return 0;
	if (sig_key_load(out, path, SIG_PUBLIC, &err) == 0)
		return 0;
	if (o->key == NULL)
		prov_err_prefix(&err, "offline.bundle_key: ");
	cmd_error(ctx, &err);
	prov_err_release(&err);
	return -1;
}

static int
cmd_bundle_verify(struct cmd_ctx *ctx, const struct bundle_cmd_opts *o)
{
	struct bundle_check	chk = BUNDLE_CHECK_INIT;
	struct bundle_trust	trust = { NULL, 0 };
	struct sig_key		*pin = NULL;
	struct prov_err		err = PROV_ERR_INIT;
	size_t			i;
	int			r = PROV_EXIT_FAIL;

	if (cmd_bundle_pin(ctx, o, &pin) != 0)
		return PROV_EXIT_USAGE;
	trust.pinned = pin;
	trust.insecure_unsigned = o->insecure_unsigned;
	if (bundle_verify(&chk, o->verify, &trust, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	for (i = 0; i < chk.problems.n; i++)
		fprintf(ctx->out, "bad: %s\n", chk.problems.v[i]);
	if (chk.problems.n == 0)
		fprintf(ctx->out, "%s: %zu files, %zu packages: ok, %s\n",
		    o->verify, chk.members, chk.artifacts, chk.trust);
	else
		fprintf(ctx->out, "%s: %zu files, %zu packages: refused\n",
		    o->verify, chk.members, chk.artifacts);
	r = chk.problems.n == 0 ? 0 : PROV_EXIT_FAIL;
out:
	sig_key_free(pin);
	bundle_check_release(&chk);
	prov_err_release(&err);
	return r;
}

/*
 * --sign: the private key, checked against the plan's pin so that a
 * bundle apply would refuse is never made.  -1 (printed) on error.
 */
static int
cmd_bundle_signer(struct cmd_ctx *ctx, const struct bundle_cmd_opts *o,
    struct sig_key **out)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct sig_key	*pin = NULL;
	int		 r = -1;

	*out = NULL;
	if (o->sign == NULL)
		return 0;
	if (sig_key_load(out, o->sign, SIG_PRIVATE, &err) != 0) {
		prov_err_prefix(&err, "--sign: ");
		cmd_error(ctx, &err);
		goto out;
	}
	if (cmd_bundle_pin(ctx, o, &pin) != 0)
		goto out;
	if (pin != NULL && !sig_key_same(pin, *out)) {
		cmd_errorf(ctx, "--sign: key %s is not the one the plan pins "
		    "(offline.bundle_key: %s): apply would refuse the bundle",
		    sig_key_fingerprint(*out), sig_key_fingerprint(pin));
		goto out;
	}
	r = 0;
out:
	if (r != 0) {
		sig_key_free(*out);
		*out = NULL;
	}
	sig_key_free(pin);
	prov_err_release(&err);
	return r;
}

/* What goes with what: 0, or the usage error's exit code (said). */
static int
cmd_bundle_args(struct cmd_ctx *ctx, const struct bundle_cmd_opts *o)
{
	if (o->key != NULL || o->insecure_unsigned)
		return cmd_usage_error(ctx, &cmd_bundle_entry, "--key and "
		    "--insecure-unsigned go with --verify");
	if (ctx->plan == NULL)
		return cmd_usage_error(ctx, &cmd_bundle_entry, "missing plan "
		    "file");
	if (o->out == NULL && !o->manifest_only)
		return cmd_usage_error(ctx, &cmd_bundle_entry, "missing -o FILE");
	return 0;
}

/* --cache, else the user's cache: never a shared folder, it gets packed. */
static char *
cmd_bundle_cache(const struct bundle_cmd_opts *o, struct prov_err *err)
{
	char	*home, *cache;

	if (o->cache != NULL)
		return xstrdup(o->cache);
	if ((home = fs_cache_home(err)) == NULL)
		return NULL;
	cache = xasprintf("%s/provision/bundle", home);
	free(home);
	return cache;
}

static void
cmd_bundle_opts(struct bundle_opts *bo, const struct bundle_cmd_opts *o)
{
	bo->arch = o->arch;
	bo->sources = &o->sources;
	bo->packages = &o->packages;
	bo->jobs = o->jobs;
	bo->retries = o->retries;
	bo->timeout_s = o->timeout;
	bo->allow_missing = o->allow_missing;
	bo->registry_mirrors = &o->mirrors;
	bo->images = &o->images;
}

/* --manifest-only: the manifest to -o FILE or stdout, nothing fetched. */
static int
cmd_bundle_manifest(struct cmd_ctx *ctx, const struct bundle_cmd_opts *o,
    const struct bundle *b, struct prov_err *err)
{
	struct buf	m = BUF_INIT;
	int		r = 0;

	bundle_manifest(&m, b, NULL, 0);
	if (o->out == NULL)
		fwrite(m.buf, 1, m.len, ctx->out);
	else if (buf_write_file_atomic(o->out, m.buf, m.len, 0644) != 0)
		r = prov_err_sys(err, "cannot write '%s'", o->out);
	buf_release(&m);
	return r;
}

/* What was packed, and by which key it is signed (or that it is not). */
static void
cmd_bundle_said(struct cmd_ctx *ctx, const struct bundle_cmd_opts *o,
    const struct bundle *b, const struct cmd_bundle_progress *pr,
    int64_t total, const struct sig_key *signer)
{
	if (b->nimgs == 0)
		fprintf(ctx->out, "%s: %zu packages (%zu fetched, %zu from the "
		    "cache), %lld bytes\n", o->out, b->n, pr->fetched,
		    pr->cached, (long long)total);
	else
		fprintf(ctx->out, "%s: %zu packages and %zu image%s (%zu files "
		    "fetched, %zu from the cache), %lld bytes\n", o->out, b->n,
		    b->nimgs, b->nimgs == 1 ? "" : "s", pr->fetched,
		    pr->cached, (long long)total);
	if (signer != NULL)
		fprintf(ctx->out, "%s: signed by key %s\n", o->out,
		    sig_key_fingerprint(signer));
	else
		cmd_errorf(ctx, "warning: %s is not signed: apply --bundle "
		    "refuses it without --insecure-unsigned (sign with --sign "
		    "KEY, docs/bundle.md)", o->out);
}

static int
cmd_bundle_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct bundle_cmd_opts		*o = optsp;
	struct bundle			 b = BUNDLE_INIT;
	struct bundle_opts		 bo = BUNDLE_OPTS_INIT;
	struct cmd_bundle_progress	 pr;
	struct prov_err			 err = PROV_ERR_INIT;
	char				*cache = NULL, *templates = NULL;
	struct sig_key			*signer = NULL;
	int64_t				 total = 0;
	size_t				 i;
	int				 r = PROV_EXIT_FAIL;

	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_bundle_entry, "unexpected "
		    "argument '%s'", argv[0]);
	if (o->verify != NULL) {
		if (o->out != NULL || o->sign != NULL)
			return cmd_usage_error(ctx, &cmd_bundle_entry,
			    "--verify takes the archive, and a key or a plan");
		return cmd_bundle_verify(ctx, o);
	}
	if ((r = cmd_bundle_args(ctx, o)) != 0)
		return r;
	/* a key that cannot sign fails now, not after the downloads */
	if (cmd_bundle_signer(ctx, o, &signer) != 0)
		return PROV_EXIT_USAGE;
	if ((cache = cmd_bundle_cache(o, &err)) == NULL)
		goto fail;
	templates = o->templates != NULL ? xstrdup(o->templates) :
	    fs_data_dir("templates", "PROVISION_TEMPLATES");
	cmd_bundle_opts(&bo, o);
	bo.cache = cache;
	bo.templates = templates;
	bo.sign_key = signer;
	memset(&pr, 0, sizeof pr);
	pr.ctx = ctx;
	pr.quiet = o->quiet;

	if (bundle_plan(&b, ctx->plan, &bo, &err) != 0)
		goto fail;
	if (!o->quiet && !o->manifest_only)
		fprintf(ctx->out, "resolving %zu packages for %s %s (%s)\n",
		    b.wanted.n, b.distro, b.release, b.arch);
	fflush(ctx->out);
	if (bundle_resolve(&b, &bo, &err) != 0)
		goto fail;
	for (i = 0; i < b.missing.n; i++)
		cmd_errorf(ctx, "warning: '%s' is in no "
		    "index: not bundled", b.missing.v[i]);
	/* kubeadm's images it could not name; an image that cannot be
	   fetched is said by its event (BUNDLE_EV_IMAGE_SKIPPED) */
	for (i = 0; i < b.images_not_fetched.n; i++)
		cmd_errorf(ctx, "warning: image not "
		    "bundled: %s", b.images_not_fetched.v[i]);
	if (o->manifest_only) {
		if (cmd_bundle_manifest(ctx, o, &b, &err) != 0)
			goto fail;
		r = 0;
		goto out;
	}
	for (i = 0; i < b.n; i++)
		total += b.items[i].size;
	if (!o->quiet)
		fprintf(ctx->out, "%zu packages with their dependencies, %lld "
		    "bytes\n", b.n, (long long)total);
	if (fs_mkdirs(cache, 0700, &err) != 0)
		goto fail;
	if (!o->no_images && b.images.n > 0 &&
	    bundle_images(&b, &bo, cmd_bundle_event, &pr, &err) != 0)
		goto fail;
	for (i = 0; i < b.nblobs; i++)
		total += b.blobs[i].size;
	if (bundle_fetch(&b, &bo, cmd_bundle_event, &pr, &err) != 0 ||
	    bundle_pack(&b, ctx->plan, o->out, &bo, &err) != 0)
		goto fail;
	cmd_bundle_said(ctx, o, &b, &pr, total, signer);
	r = 0;
	goto out;
fail:
	cmd_error(ctx, &err);
	r = PROV_EXIT_FAIL;
out:
	bundle_release(&b);
	prov_err_release(&err);
	sig_key_free(signer);
	free(cache);
	free(templates);
	return r;
}

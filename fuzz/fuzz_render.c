/*
 * fuzz_render.c: the step renderer (render.h) over plans built from the
 * input, against the real templates/.
 *
 * The input is a plan, loaded as fuzz_plan.c loads it.  For the first
 * nodes of a plan that loads, render_step() renders a step and the
 * preamble (everything before the first empty line) is read back by a
 * small reader of the only shell it may contain: comment lines, `{` and
 * `}` lines, NAME='value' assignments (a value is single-quoted pieces
 * and \' escapes) and the PROV_SECRET_DIR line.  Anything else there
 * means a plan value escaped its quotes.  The values read back must be
 * the plan's, byte for byte, and every plan value that also goes into
 * generated config files (slurm.conf, /etc/hosts, prometheus.yml) must
 * be free of white space, control and shell characters, since there
 * quoting cannot help: validation has to refuse them.
 */
#include "compat.h"

#include <dirent.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "plan.h"
#include "render.h"
#include "strvec.h"

#include "fuzz.h"

#define FUZZ_RENDER_NODES	8

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char		*fuzz_render_profiles, *fuzz_render_templates;
static struct strvec	 fuzz_render_steps = STRVEC_INIT;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	DIR		*d;
	struct dirent	*e;
	size_t		 n;

	fuzz_render_profiles = fuzz_path("profiles");
	fuzz_render_templates = fuzz_path("templates");
	if ((d = opendir(fuzz_render_templates)) == NULL) {
		perror(fuzz_render_templates);
		abort();
	}
	while ((e = readdir(d)) != NULL) {
		n = strlen(e->d_name);
		if (n > 3 && strcmp(e->d_name + n - 3, ".sh") == 0 &&
		    strcmp(e->d_name, "lib.sh") != 0)
			strvec_pushf(&fuzz_render_steps, "%.*s", (int)(n - 3),
			    e->d_name);
	}
	closedir(d);
	FUZZ_ASSERT(fuzz_render_steps.n > 0);
	return 0;
}

/*
 * Read one single-quoted shell word at *p into out; advance *p past it.
 * 0, or -1 when the text there is not one.
 */
static int
fuzz_render_word(const char **p, struct buf *out)
{
	const char	*s = *p, *q;
	int		 pieces = 0;

	buf_reset(out);
	for (;;) {
		if (*s == '\'') {
			q = strchr(s + 1, '\'');
			if (q == NULL)
				return -1;
			buf_add(out, s + 1, (size_t)(q - s - 1));
			s = q + 1;
		} else if (s[0] == '\\' && s[1] == '\'') {
			buf_addch(out, '\'');
			s += 2;
		} else
			break;
		pieces++;
	}
	*p = s;
	return pieces > 0 ? 0 : -1;
}

/* The preamble's variables into names/values; aborts on stray shell. */
static void
fuzz_render_preamble(const char *script, struct strvec *names,
    struct strvec *values)
{
	const char	*p = script, *eol, *eq;
	struct buf	 v = BUF_INIT;

	FUZZ_ASSERT(strncmp(p, "#!/bin/sh\n", 10) == 0);
	for (;;) {
		eol = strchr(p, '\n');
		FUZZ_ASSERT(eol != NULL);
		if (eol == p)
			break;			/* the empty line: done */
		if (*p == '#' || strncmp(p, "{\n", 2) == 0 ||
		    strncmp(p, "}\n", 2) == 0 ||
		    strncmp(p, "PROV_SECRET_DIR=\"${PROV_SECRET_DIR:-}\"\n",
		    39) == 0) {
			p = eol + 1;
			continue;
		}
		eq = p + strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (eq == p || *eq != '=') {
			fprintf(stderr, "stray text in the preamble: %.*s\n",
			    (int)(eol - p), p);
			FUZZ_ASSERT(!"plan value outside its quotes");
		}
		strvec_pushf(names, "%.*s", (int)(eq - p), p);
		p = eq + 1;
		if (fuzz_render_word(&p, &v) != 0 || *p != '\n') {
			fprintf(stderr, "bad value for %s: %.40s\n",
			    names->v[names->n - 1], eq + 1);
			FUZZ_ASSERT(!"a value is not one quoted word");
		}
		strvec_push(values, v.buf);
		p++;
	}
	buf_release(&v);
}

static const char *
fuzz_render_get(const struct strvec *names, const struct strvec *values,
    const char *name)
{
	size_t	i, hit = names->n;

	for (i = 0; i < names->n; i++)
		if (strcmp(names->v[i], name) == 0) {
			FUZZ_ASSERT(hit == names->n);	/* set once */
			hit = i;
		}
	if (hit == names->n) {
		fprintf(stderr, "%s not set\n", name);
		FUZZ_ASSERT(!"variable missing from the preamble");
	}
	return values->v[hit];
}

#define FUZZ_RENDER_EQ(var, val)					\
	do {								\
		const char *v_ = (val) != NULL ? (val) : "";		\
		if (strcmp(fuzz_render_get(&names, &values, var), v_) != 0) { \
			fprintf(stderr, "%s: '%s' != '%s'\n", var,	\
			    fuzz_render_get(&names, &values, var), v_);	\
			FUZZ_ASSERT(!"value changed on its way");	\
		}							\
	} while (0)

/* A value also written into config files: nothing quoting would need. */
static void
fuzz_render_plain(const char *what, const char *s, const char *extra)
{
	const unsigned char	*u;

	if (s == NULL)
		return;
	for (u = (const unsigned char *)s; *u != '\0'; u++)
		if (!(*u >= 'a' && *u <= 'z') && !(*u >= 'A' && *u <= 'Z') &&
		    !(*u >= '0' && *u <= '9') && strchr("._+-", *u) == NULL &&
		    (extra == NULL || strchr(extra, *u) == NULL)) {
			fprintf(stderr, "%s: '%s'\n", what, s);
			FUZZ_ASSERT(!"validation let a config value through");
		}
}

static void
fuzz_render_plan(const struct plan *p)
{
	const struct plan_software	*sw = &p->sw;
	size_t				 i;

	fuzz_render_plain("cluster", p->cluster, NULL);
	fuzz_render_plain("domain", p->domain, NULL);
	fuzz_render_plain("os distro", sw->os_distro, NULL);
	fuzz_render_plain("os release", sw->os_release, NULL);
	fuzz_render_plain("driver branch", sw->driver_branch, NULL);
	fuzz_render_plain("driver version", sw->driver_version, NULL);
	fuzz_render_plain("cuda", sw->cuda, NULL);
	fuzz_render_plain("runtime", sw->runtime, NULL);
	fuzz_render_plain("orchestrator", sw->orchestrator, NULL);
	fuzz_render_plain("slurm cluster", sw->slurm_cluster, NULL);
	fuzz_render_plain("proctrack", sw->slurm_proctrack, NULL);
	fuzz_render_plain("k8s version", sw->k8s_version, NULL);
	fuzz_render_plain("pod cidr", sw->k8s_pod_cidr, "/:");
	fuzz_render_plain("cni", sw->k8s_cni, NULL);
	fuzz_render_plain("prometheus", sw->prometheus, NULL);
	fuzz_render_plain("grafana", sw->grafana, NULL);
	for (i = 0; i < sw->npartitions; i++) {
		fuzz_render_plain("partition", sw->partitions[i].name, NULL);
		fuzz_render_plain("partition nodes",
		    sw->partitions[i].nodes, "[],");
		fuzz_render_plain("max_time", sw->partitions[i].max_time,
		    ":");
	}
	for (i = 0; i < p->nnodes; i++) {
		fuzz_render_plain("node", p->nodes[i].name, NULL);
		fuzz_render_plain("address", p->nodes[i].address, ":");
	}
}

static void
fuzz_render_node(const struct plan *p, size_t i, const char *step)
{
	const struct plan_software	*sw = &p->sw;
	const struct plan_node		*head = render_head(p);
	struct render_in		 in = { .plan = p,
					    .templates = fuzz_render_templates };
	struct strvec			 names = STRVEC_INIT;
	struct strvec			 values = STRVEC_INIT;
	struct buf			 out = BUF_INIT;
	struct prov_err			 err = PROV_ERR_INIT;

	if (render_step(&out, &in, i, step, &err) != 0) {
		fprintf(stderr, "render '%s': %s\n", step, err.msg);
		FUZZ_ASSERT(!"a step of templates/ does not render");
	}
	fuzz_render_preamble(out.buf, &names, &values);
	FUZZ_RENDER_EQ("PROV_STEP", step);
	FUZZ_RENDER_EQ("NODE_NAME", p->nodes[i].name);
	FUZZ_RENDER_EQ("NODE_ROLE", plan_role_name(p->nodes[i].role));
	FUZZ_RENDER_EQ("CLUSTER_NAME", p->cluster);
	FUZZ_RENDER_EQ("CLUSTER_DOMAIN", p->domain);
	FUZZ_RENDER_EQ("HEAD_NAME", head != NULL ? head->name : NULL);
	FUZZ_RENDER_EQ("OS_DISTRO", sw->os_distro);
	FUZZ_RENDER_EQ("OS_RELEASE", sw->os_release);
	FUZZ_RENDER_EQ("DRIVER_BRANCH", sw->driver_branch);
	FUZZ_RENDER_EQ("DRIVER_VERSION", sw->driver_version);
	FUZZ_RENDER_EQ("CUDA_VERSION", sw->cuda);
	FUZZ_RENDER_EQ("ORCHESTRATOR", sw->orchestrator);
	FUZZ_RENDER_EQ("K8S_VERSION", sw->k8s_version);
	(void)fuzz_render_get(&names, &values, "HOSTS_BLOCK");
	(void)fuzz_render_get(&names, &values, "SLURM_CONF");
	(void)fuzz_render_get(&names, &values, "PROMETHEUS_CONF");
	strvec_clear(&names);
	strvec_clear(&values);
	buf_release(&out);
	prov_err_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct render_in	 in;
	struct buf		 b = BUF_INIT;
	struct plan		*p = NULL;
	size_t			 i;

	o.builtin_dir = fuzz_render_profiles;
	o.max_nodes = 10000;
	if (plan_load_buf(&p, "fuzz.yaml", (const char *)data, size, &o,
	    &errs) != 0 || p->nnodes == 0)
		goto out;
	fuzz_render_plan(p);
	for (i = 0; i < p->nnodes && i < FUZZ_RENDER_NODES; i++)
		fuzz_render_node(p, i, fuzz_render_steps.v[(i + size) %
		    fuzz_render_steps.n]);
	/* Steps that are not templates fail, and say so. */
	/* every field set: one left to the stack once read garbage */
	memset(&in, 0, sizeof in);
	in.plan = p;
	in.templates = fuzz_render_templates;
	FUZZ_ASSERT(render_step(&b, &in, 0, "no-such-step", &err) != 0);
	FUZZ_ASSERT(err.msg != NULL);
	prov_err_release(&err);
	buf_reset(&b);
	FUZZ_ASSERT(render_step(&b, &in, 0, "../templates/lib", &err) != 0);
out:
	buf_release(&b);
	prov_err_release(&err);
	prov_errs_release(&errs);
	plan_free(p);
	return 0;
}

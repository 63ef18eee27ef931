/*
 * state.c: apply's state file.  See state.h.
 *
 * The file is JSON (read back through libyaml, since JSON is YAML):
 *
 *	{"version": 1, "run": "20261130T190000Z", "status": "done", "nodes": {
 *	  "gpu01": {"base": {"result": "changed", "elapsed": 1.500,
 *	                     "at": 1764529200, "message": null}}
 *	}}
 *
 * one node a line.
 */
#include "compat.h"

#include "buf.h"
#include "json.h"
#include "schema.h"
#include "state.h"
#include "str.h"
#include "yml.h"

static const char *const state_names[] = { "pending", "running", "ok",
    "changed", "skipped", "failed", "unreachable", "interrupted", NULL };

const char *
state_res_name(enum state_res r)
{
	return (size_t)r < ARRAY_SIZE(state_names) - 1 ? state_names[r] : "?";
}

int
state_res_done(enum state_res r)
{
	return r == STATE_OK || r == STATE_CHANGED || r == STATE_SKIPPED;
}

static struct state_node *
state_node_get(struct state *st, const char *name, int create)
{
	size_t	i;

	for (i = 0; i < st->n; i++)
		if (strcmp(st->nodes[i].name, name) == 0)
			return &st->nodes[i];
	if (!create)
		return NULL;
	ALLOC_GROW(st->nodes, st->n + 1, st->alloc);
	memset(&st->nodes[st->n], 0, sizeof st->nodes[st->n]);
	st->nodes[st->n].name = xstrdup(name);
	return &st->nodes[st->n++];
}

static struct state_step *
state_step_get(struct state_node *n, const char *step, int create)
{
	size_t	i;

	for (i = 0; i < n->n; i++)
		if (strcmp(n->steps[i].name, step) == 0)
			return &n->steps[i];
	if (!create)
		return NULL;
	ALLOC_GROW(n->steps, n->n + 1, n->alloc);
	memset(&n->steps[n->n], 0, sizeof n->steps[n->n]);
	n->steps[n->n].name = xstrdup(step);
	return &n->steps[n->n++];
}

void
state_set(struct state *st, const char *node, const char *step,
    enum state_res res, const char *msg, double elapsed)
{
	struct state_step	*s = state_step_get(state_node_get(st, node, 1),
	    step, 1);

	s->res = res;
	s->elapsed = elapsed;
	s->at = time(NULL);
	free(s->msg);
	s->msg = msg != NULL ? xstrdup(msg) : NULL;
}

enum state_res
state_get(const struct state *st, const char *node, const char *step)
{
	struct state_node	*n = state_node_get((struct state *)st, node, 0);
	struct state_step	*s;

	if (n == NULL || (s = state_step_get(n, step, 0)) == NULL)
		return STATE_PENDING;
	return s->res;
}

int
state_has(const struct state *st, const char *node, const char *step)
{
	struct state_node	*n = state_node_get((struct state *)st, node, 0);

	return n != NULL && state_step_get(n, step, 0) != NULL;
}

void
state_to_json(struct buf *b, const struct state *st)
{
	struct json_writer	jw;
	size_t			i, j;

	json_init(&jw, b);
	json_object_begin(&jw, NULL, 0);
	json_int(&jw, "version", 1);
	json_str(&jw, "run", st->run_id != NULL ? st->run_id : "");
	json_str(&jw, "status", st->status != NULL ? st->status : "running");
	json_object_begin(&jw, "nodes", JSON_LINES);
	for (i = 0; i < st->n; i++) {
		const struct state_node	*n = &st->nodes[i];

		json_object_begin(&jw, n->name, 0);
		for (j = 0; j < n->n; j++) {
			const struct state_step	*s = &n->steps[j];

			json_object_begin(&jw, s->name, 0);
			json_str(&jw, "result", state_res_name(s->res));
			json_num(&jw, "elapsed", s->elapsed, 3);
			json_int(&jw, "at", (long long)s->at);
			json_str(&jw, "message", s->msg);
			json_end(&jw);
		}
		json_end(&jw);
	}
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
}

int
state_save(struct state *st, struct prov_err *err)
{
	struct buf	b = BUF_INIT;
	int		r;

	state_to_json(&b, st);
	r = buf_write_file_atomic(st->path, b.buf, b.len, 0600);
	buf_release(&b);
	if (r != 0)
		return prov_err_sys(err, "cannot write state '%s'", st->path);
	return 0;
}

static enum state_res
state_parse_res(const char *s)
{
	size_t	i;

	for (i = 0; state_names[i] != NULL; i++)
		if (strcmp(s, state_names[i]) == 0)
			return (enum state_res)i;
	return STATE_PENDING;
}

static int
state_parse(struct state *st, const struct yml_node *root,
    struct prov_err *err)
{
	const struct yml_node	*nodes, *v;
	struct state_node	*ns;
	size_t			 i, j;

	if (root == NULL || root->kind != YML_MAP)
		return prov_err_set(err, PROV_E_STATE, "state '%s' is not a "
		    "JSON object (move it away to start afresh)", st->path);
	if ((v = yml_map_get(root, "run")) != NULL && v->kind == YML_SCALAR)
		st->run_id = xstrdup(v->u.s);
	if ((v = yml_map_get(root, "status")) != NULL && v->kind == YML_SCALAR)
		st->status = xstrdup(v->u.s);
	nodes = yml_map_get(root, "nodes");
	if (nodes == NULL || nodes->kind != YML_MAP)
		return prov_err_set(err, PROV_E_STATE, "state '%s' has no "
		    "nodes (move it away to start afresh)", st->path);
	for (i = 0; i < nodes->n; i++) {
		const struct yml_node	*steps = nodes->u.pairs[i].val;
		const char		*name = nodes->u.pairs[i].key->u.s;

		if (steps->kind != YML_MAP)
			continue;
		(void)state_node_get(st, name, 1);
		for (j = 0; j < steps->n; j++) {
			const struct yml_node	*s = steps->u.pairs[j].val;
			const struct yml_node	*res = yml_map_get(s, "result");
			const struct yml_node	*el = yml_map_get(s, "elapsed");
			const struct yml_node	*at = yml_map_get(s, "at");
			const struct yml_node	*msg = yml_map_get(s, "message");
			const char		*step = steps->u.pairs[j].key->u.s;
			double			 e = 0;
			long			 t;

			if (res == NULL || res->kind != YML_SCALAR)
				continue;
			if (el != NULL && el->kind == YML_SCALAR)
				(void)str_to_double(el->u.s, &e);
			state_set(st, name, step, state_parse_res(res->u.s),
			    msg != NULL && !yml_is_null(msg) &&
			    msg->kind == YML_SCALAR ? msg->u.s : NULL, e);
			/* When the step ran, not when the file was read. */
			if (at != NULL && at->kind == YML_SCALAR &&
			    str_to_long(at->u.s, &t) == 0) {
				ns = state_node_get(st, name, 0);
				state_step_get(ns, step, 0)->at = (time_t)t;
			}
		}
	}
	return 0;
}

int
state_open(struct state **out, const char *path, struct prov_err *err)
{
	struct state		*st = xcalloc(1, sizeof *st);
	struct buf		 b = BUF_INIT;
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	int			 r = -1;

	*out = NULL;
	yml_doc_init(&doc);
	st->path = xstrdup(path);
	if (buf_read_file(&b, path) != 0) {
		if (errno != ENOENT) {
			prov_err_sys(err, "cannot read state '%s'", path);
			goto out;
		}
		*out = st;
		st = NULL;
		r = 0;
		goto out;
	}
	if (yml_load(&doc, st->path, b.buf, b.len, &errs) != 0) {
		prov_err_set(err, PROV_E_STATE, "state '%s' is corrupt: %s "
		    "(move it away to start afresh)", path,
		    errs.n ? errs.v[0].msg : "unreadable");
		goto out;
	}
	if (state_parse(st, doc.root, err) != 0)
		goto out;
	*out = st;
	st = NULL;
	r = 0;
out:
	prov_errs_release(&errs);
	yml_doc_release(&doc);
	buf_release(&b);
	state_free(st);
	return r;
}

void
state_free(struct state *st)
{
	size_t	i, j;

	if (st == NULL)
		return;
	for (i = 0; i < st->n; i++) {
		for (j = 0; j < st->nodes[i].n; j++) {
			free(st->nodes[i].steps[j].name);
			free(st->nodes[i].steps[j].msg);
		}
		free(st->nodes[i].steps);
		free(st->nodes[i].name);
	}
	free(st->nodes);
	free(st->path);
	free(st->run_id);
	free(st->status);
	free(st);
}

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
#include "strmap.h"
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

/*
 * The node named `name`, through the index: apply looks nodes up for every
 * result and every save decision, and a scan would be quadratic at 1,000.
 */
static struct state_node *
state_node_get(struct state *st, const char *name, int create)
{
	struct state_node	*n;
	void			*v = strmap_get(&st->index, name);

	if (v != NULL)
		return &st->nodes[(uintptr_t)v - 1];
	if (!create)
		return NULL;
	ALLOC_GROW(st->nodes, st->n + 1, st->alloc);
	n = &st->nodes[st->n];
	memset(n, 0, sizeof *n);
	n->name = xstrdup(name);
	buf_init(&n->json, 0);
	n->dirty = 1;
	/* The key is the node's own copy: it lives as long as the map. */
	(void)strmap_put(&st->index, n->name, (void *)(uintptr_t)(st->n + 1));
	st->saved = 0;
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
	struct state_node	*n = state_node_get(st, node, 1);
	struct state_step	*s = state_step_get(n, step, 1);

	n->dirty = 1;
	st->saved = 0;
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

/*
 * The file is assembled from pieces so that state_save() can keep each
 * node's piece between saves; state_to_json() and state_save() must give
 * the same bytes (test_state checks it), which are what json.c's writer
 * gave for the whole document:
 *
 *	HEAD "\n  " NODE ",\n  " NODE "\n}}\n"	(no node: HEAD "}}\n")
 */
static void
state_head_json(struct buf *b, const char *run, const char *status)
{
	buf_adds(b, "{\"version\": 1, \"run\": ");
	json_add_string(b, run);
	buf_adds(b, ", \"status\": ");
	json_add_string(b, status);
	buf_adds(b, ", \"nodes\": {");
}

static void
state_node_json(struct buf *b, const struct state_node *n)
{
	struct json_writer	jw;
	size_t			j;

	json_add_string(b, n->name);
	buf_adds(b, ": ");
	json_init(&jw, b);
	json_object_begin(&jw, NULL, 0);
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

static const char *
state_run_text(const struct state *st)
{
	return st->run_id != NULL ? st->run_id : "";
}

static const char *
state_status_text(const struct state *st)
{
	return st->status != NULL ? st->status : "running";
}

void
state_to_json(struct buf *b, const struct state *st)
{
	size_t	i;

	state_head_json(b, state_run_text(st), state_status_text(st));
	for (i = 0; i < st->n; i++) {
		buf_adds(b, i > 0 ? ",\n  " : "\n  ");
		state_node_json(b, &st->nodes[i]);
	}
	buf_adds(b, st->n > 0 ? "\n}}\n" : "}}\n");
}

int
state_save(struct state *st, struct prov_err *err)
{
	const char	*run = state_run_text(st);
	const char	*status = state_status_text(st);
	size_t		 i;

	/*
	 * The file already holds exactly this: writing it again adds no
	 * safety and costs an fsync.
	 */
	if (st->saved && strcmp(run, st->saved_run) == 0 &&
	    strcmp(status, st->saved_status) == 0)
		return 0;
	buf_reset(&st->out);
	state_head_json(&st->out, run, status);
	for (i = 0; i < st->n; i++) {
		struct state_node	*n = &st->nodes[i];

		if (n->dirty) {
			buf_reset(&n->json);
			state_node_json(&n->json, n);
			n->dirty = 0;
		}
		buf_adds(&st->out, i > 0 ? ",\n  " : "\n  ");
		buf_add(&st->out, n->json.buf, n->json.len);
	}
	buf_adds(&st->out, st->n > 0 ? "\n}}\n" : "}}\n");
	if (buf_write_file_atomic(st->path, st->out.buf, st->out.len, 0600) !=
	    0) {
		/* The file keeps an older save: the next one writes. */
		st->saved = 0;
		return prov_err_sys(err, "cannot write state '%s'", st->path);
	}
	free(st->saved_run);
	free(st->saved_status);
	st->saved_run = xstrdup(run);
	st->saved_status = xstrdup(status);
	st->saved = 1;
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
	buf_init(&st->out, 0);
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
		buf_release(&st->nodes[i].json);
	}
	strmap_clear(&st->index);
	free(st->nodes);
	buf_release(&st->out);
	free(st->saved_run);
	free(st->saved_status);
	free(st->path);
	free(st->run_id);
	free(st->status);
	free(st);
}

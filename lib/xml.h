/*
 * xml.h: a strict reader for the XML nvidia-smi writes (`nvidia-smi -q
 * -x`), read by facts and verify.
 *
 * It takes elements, attributes (only id="" is kept), text with the five
 * predefined entities and character references, comments, processing
 * instructions, a DOCTYPE without an internal subset and CDATA.
 * Mismatched or unclosed tags are errors.  It builds a small tree; the
 * caller picks elements by path:
 *
 *	struct xml_node	*root;
 *
 *	if (xml_parse(&root, "nvidia-smi -q -x", text, &err) != 0)
 *		... err: "nvidia-smi -q -x: line 3: mismatched end tag" ...
 *	drv = xml_path(root, "driver_version");
 *	xml_free(root);
 */
#ifndef PROV_XML_H
#define PROV_XML_H

struct prov_err;

struct xml_node {
	char		*name;
	char		*id;		/* the id="" attribute, or NULL */
	char		*text;		/* the element's own text, trimmed */
	struct xml_node	*child, *last, *next;
};

/* Parse text into *out (the root element); -1 with err (PROV_E_PARSE). */
int		 xml_parse(struct xml_node **out, const char *label, const char *text,
    struct prov_err *err);
void		 xml_free(struct xml_node *);
/* The text at "a/b/c" under x (first match at each step), or NULL. */
const char	*xml_path(const struct xml_node *x, const char *path);

#endif

/*
 * frame.c: a node script's output cut into its sections.  See frame.h.
 */
#include "compat.h"

#include "buf.h"
#include "frame.h"
#include "str.h"
#include "strvec.h"

size_t
frame_each(const char *out,
    void (*fn)(void *arg, const char *name, const char *text, long rc),
    void *arg)
{
	struct strvec	 lines = STRVEC_INIT;
	struct buf	 text = BUF_INIT;
	char		*name = NULL;
	long		 rc = -1;
	size_t		 i, nl, n = 0;

	strvec_split_lines(&lines, out);
	nl = lines.n;
	if (nl > 0 && lines.v[nl - 1][0] == '\0')
		nl--;	/* the last newline ends a line, begins none */
	for (i = 0; i <= nl; i++) {
		char	*l = i < nl ? lines.v[i] : NULL;

		if (l != NULL && name != NULL && str_starts(l, FRAME_RC)) {
			if (str_to_long(l + strlen(FRAME_RC), &rc) != 0)
				rc = -1;
			continue;
		}
		if (l != NULL && !str_starts(l, FRAME_SECTION)) {
			if (name != NULL) {
				buf_adds(&text, l);
				buf_addch(&text, '\n');
			}
			continue;
		}
		if (name != NULL) {
			fn(arg, name, text.buf, rc);
			n++;
		}
		free(name);
		name = NULL;
		buf_reset(&text);
		rc = -1;
		if (l != NULL)
			name = xstrdup(str_trim(l + strlen(FRAME_SECTION)));
	}
	buf_release(&text);
	strvec_clear(&lines);
	return n;
}

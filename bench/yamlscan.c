/*
 * yamlscan.c: the floor for `provision check` benchmarks: read a file and
 * pull every libyaml event, doing nothing with them.  No YAML reader can
 * be faster than this, so check's time is quoted as a ratio to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <yaml.h>

int
main(int argc, char **argv)
{
	yaml_parser_t	 p;
	yaml_event_t	 ev;
	FILE		*fp;
	unsigned long	 n = 0;
	int		 done = 0;

	if (argc != 2 || (fp = fopen(argv[1], "rb")) == NULL) {
		fprintf(stderr, "usage: yamlscan FILE\n");
		return 2;
	}
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, fp);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			fprintf(stderr, "yamlscan: %s\n", p.problem);
			return 1;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		n++;
	}
	yaml_parser_delete(&p);
	fclose(fp);
	printf("%lu events\n", n);
	return 0;
}

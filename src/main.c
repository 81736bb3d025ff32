/*
 * main.c: the suql program: options, then a script from -c or stdin.
 */
#include "engine.h"

#include <stdio.h>
#include <string.h>

static int print_row(void *ctx, sqlite3_stmt *st)
{
	(void)ctx;
	int n = sqlite3_column_count(st);
	for (int i = 0; i < n; i++) {
		const unsigned char *t = sqlite3_column_text(st, i);
		printf("%s%s", i ? "|" : "", t ? (const char *)t : "");
	}
	putchar('\n');
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = ":memory:", *cmd = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			cmd = argv[++i];
		else if (strcmp(argv[i], "--bail") == 0)
			;
		else
			path = argv[i];
	}
	SuqlErr err = {0};
	Engine *e = engine_open(path, NULL, &err);
	if (!e) {
		fprintf(stderr, "error: %s\n", err.msg);
		return 2;
	}
	SBuf in = SBUF_INIT;
	if (cmd) {
		sb_puts(&in, cmd);
	} else {
		char buf[4096];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
			sb_putn(&in, buf, n);
	}
	EngineSink sink = {0};
	sink.row = print_row;
	int status = 0;
	size_t off = 0;
	while (off < in.len) {
		size_t used = 0;
		if (engine_exec(e, in.s + off, in.len - off, &used, &sink, &err) != SUQL_OK) {
			fprintf(stderr, "error: %s\n", err.msg);
			status = 1;
			if (!used)
				break;
		}
		off += used ? used : in.len - off;
	}
	sb_free(&in);
	err_clear(&err);
	engine_close(e);
	return status;
}

/*
 * fuzz_plain.c: a libFuzzer target over the fast path of plain SQL (engine_plain.c; built
 * by scripts/fuzz.sh). Each input runs, statement by statement, on two fresh in-memory
 * engines, one with fast_path on and one with it off: every statement must take as many
 * bytes, end with the same status and the same message at the same place, and give the
 * same columns and rows. engine_complete, which looks at the bytes first, must agree with
 * the lexer (parse_statement) on whether the text is one complete statement. Inputs that
 * name files (ATTACH, VACUUM INTO) or ask for values that differ from run to run (random,
 * now, changes) are left out. Any difference aborts.
 */
#include "base/util.h"
#include "engine/engine.h"
#include "sql/lex.h"

#include <sqlite3.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put_columns(void *ctx, const Row *st)
{
	SBuf *b = ctx;
	for (int i = 0; i < row_count(st); i++)
		sb_printf(b, "%s|", row_name(st, i));
	sb_putc(b, '\n');
}

static int put_row(void *ctx, const Row *st)
{
	SBuf *b = ctx;
	for (int i = 0; i < row_count(st); i++) {
		size_t n;
		const char *t = row_text(st, i, &n);
		sb_printf(b, "%d:", (int)row_kind(st, i));
		if (t)
			sb_putn(b, t, n);
		sb_putc(b, '|');
	}
	sb_putc(b, '\n');
	return b->len > (1u << 20);   /* enough to compare */
}

static int left_out(const char *s, size_t n)
{
	static const char *const words[] = {"attach", "vacuum", "random", "now", "changes",
	                                    "load_extension"};
	char *low = xstrndup(s, n);
	for (size_t i = 0; i < n; i++)
		if (low[i] >= 'A' && low[i] <= 'Z')
			low[i] = (char)(low[i] + 32);
	int out = memchr(s, 0, n) != NULL;
	for (size_t i = 0; i < sizeof words / sizeof *words && !out; i++)
		out = strstr(low, words[i]) != NULL;
	free(low);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *src = (const char *)data;
	if (size > 4096 || left_out(src, size))
		return 0;
	/* one complete statement by the quick look is one by the lexer too */
	if (engine_complete(src, size)) {
		int complete = 0, empty = 0;
		size_t pos = 0, end = 0;
		do {
			end = lex_statement_end(src, size, pos, &complete, &empty);
			pos = end;
		} while (complete && end < size && end > 0);
		if (!complete) {
			fprintf(stderr, "engine_complete says complete, the lexer does not:\n%.*s\n",
			        (int)size, src);
			abort();
		}
	}
	SuqlErr err = {0};
	Engine *fast = engine_open(":memory:", NULL, &err);
	Engine *full = engine_open(":memory:", NULL, &err);
	if (!fast || !full)
		abort();
	engine_set(full, "fast_path", "off", &err);
	err_clear(&err);
	size_t pos = 0;
	for (int n = 0; pos < size && n < 64; n++) {
		SBuf a = SBUF_INIT, b = SBUF_INIT;
		EngineSink sa = {0}, sb = {0};
		sa.ctx = &a, sa.columns = put_columns, sa.row = put_row;
		sb.ctx = &b, sb.columns = put_columns, sb.row = put_row;
		SuqlErr ea = {0}, eb = {0};
		size_t ua = 0, ub = 0;
		SuqlStatus xa = engine_exec(fast, src + pos, size - pos, &ua, &sa, &ea);
		SuqlStatus xb = engine_exec(full, src + pos, size - pos, &ub, &sb, &eb);
		int same = xa == xb && ua == ub && a.len == b.len && memcmp(sb_str(&a), sb_str(&b), a.len) == 0 &&
		           (ea.msg == NULL) == (eb.msg == NULL) && (!ea.msg || strcmp(ea.msg, eb.msg) == 0) &&
		           ea.placed == eb.placed && ea.off == eb.off;
		if (!same) {
			fprintf(stderr, "the fast path and the full path differ on:\n%.*s\n"
			        "fast: status %d, %zu bytes, %s\n%s\nfull: status %d, %zu bytes, %s\n%s\n",
			        (int)(size - pos), src + pos, xa, ua, ea.msg ? ea.msg : "", sb_str(&a), xb,
			        ub, eb.msg ? eb.msg : "", sb_str(&b));
			abort();
		}
		sb_free(&a);
		sb_free(&b);
		err_clear(&ea);
		err_clear(&eb);
		if (ua == 0)
			break;
		pos += ua;
	}
	engine_close(fast);
	engine_close(full);
	return 0;
}

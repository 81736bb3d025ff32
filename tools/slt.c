/*
 * slt.c: a sqllogictest runner (build/slt) that checks suql's statement path against
 * SQLite itself. Every record of each file runs twice: through suql (engine_exec: parse,
 * translate, SQLite) on one connection, and through plain SQLite on a second connection.
 * Both results are compared with the record's expected result, formatted by the rules of
 * the format (see $SUQL_SHARED/data/sqllogictest/about.wiki and SOURCE.txt): I as 32-bit
 * %d, R as %.3f, T with (empty) and '@' for unprintable bytes, NULL; nosort, rowsort,
 * valuesort; above hash-threshold, "N values hashing to MD5" (OpenSSL's MD5).
 *
 * A record that stock SQLite passes must pass through suql; the two paths must also give
 * the same rows for every query. Records stock SQLite fails are listed with the reason.
 * Output: one "ok FILE" / "not ok FILE" line per file, "# ..." lines with details.
 *
 *   slt [-v] FILE...      -v: also list each record suql fails
 *   slt --script FILE     print the SQL of the records SQLite runs (skipif/onlyif and
 *                         halt honoured) as a plain script, one statement per record
 */
#include "base/util.h"
#include "engine/engine.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Result {
	char **v;          /* rendered values, row-major */
	size_t n, cap;
	int ncol;
	int error;         /* the statement failed */
	char *msg;
} Result;

static void res_push(Result *r, const char *s)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	r->v[r->n++] = xstrdup(s);
}

static void res_free(Result *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i]);
	free(r->v);
	free(r->msg);
	memset(r, 0, sizeof *r);
}

/* Render one row by the record's type string. */
typedef struct RowCtx {
	Result *res;
	const char *types;
} RowCtx;

static int render_row(void *ctx, const Row *st)
{
	RowCtx *c = ctx;
	int n = row_count(st);
	c->res->ncol = n;
	char buf[64];
	for (int i = 0; i < n; i++) {
		char t = c->types[i] ? c->types[i] : 'T';
		if (row_kind(st, i) == ROW_NULL) {
			res_push(c->res, "NULL");
			continue;
		}
		if (t == 'I') {
			sqlite3_snprintf(sizeof buf, buf, "%d", (int)row_integer(st, i));
			res_push(c->res, buf);
		} else if (t == 'R') {
			sqlite3_snprintf(sizeof buf, buf, "%.3f", row_real(st, i));
			res_push(c->res, buf);
		} else {
			size_t len;
			const char *s = row_text(st, i, &len);
			if (!s || !*s) {
				res_push(c->res, "(empty)");
				continue;
			}
			char *d = xstrdup(s);
			for (char *p = d; *p; p++)
				if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7E)
					*p = '@';
			res_push(c->res, d);
			free(d);
		}
	}
	return 0;
}

static void columns_cb(void *ctx, const Row *st)
{
	RowCtx *c = ctx;
	c->res->ncol = row_count(st);
}

/* Plain SQLite: a statement record runs every statement in it (sqlite3_exec, as the
   reference runner does); a query prepares its first statement and steps it. */
static void run_plain(sqlite3 *db, const char *sql, const char *types, int query, Result *r)
{
	if (!query) {
		char *m = NULL;
		if (sqlite3_exec(db, sql, NULL, NULL, &m) != SQLITE_OK) {
			r->error = 1;
			r->msg = xstrdup(m ? m : sqlite3_errmsg(db));
		}
		sqlite3_free(m);
		return;
	}
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		r->error = 1;
		r->msg = xstrdup(sqlite3_errmsg(db));
		return;
	}
	if (!st)
		return;
	RowCtx c = {r, types};
	r->ncol = sqlite3_column_count(st);
	int rc;
	Row row;
	store_row_sqlite(&row, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		render_row(&c, &row);
	if (rc != SQLITE_DONE) {
		r->error = 1;
		r->msg = xstrdup(sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
}

static void run_suql(Engine *e, const char *sql, const char *types, int query, Result *r)
{
	RowCtx c = {r, types};
	EngineSink sink = {0};
	sink.ctx = &c;
	sink.row = render_row;
	sink.columns = columns_cb;
	SuqlErr err = {0};
	size_t used = 0, pos = 0, len = strlen(sql);
	while (pos < len) {
		if (engine_exec(e, sql + pos, len - pos, &used, &sink, &err) != SUQL_OK) {
			r->error = 1;
			r->msg = xstrdup(err.msg ? err.msg : "error");
			break;
		}
		if (query || !used)
			break;
		pos += used;
	}
	err_clear(&err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ncmp_cols;
static int cmp_row(const void *a, const void *b)
{
	char *const *x = a, *const *y = b;
	for (int i = 0; i < ncmp_cols; i++) {
		int c = strcmp(x[i], y[i]);
		if (c)
			return c;
	}
	return 0;
}

/* Sort as the record asks, then render the result lines (values or a hash line). */
static void finish(Result *r, const char *sort, int hash, SBuf *out)
{
	if (r->n > 0 && r->ncol > 0 && strcmp(sort, "rowsort") == 0 && r->n % (size_t)r->ncol == 0) {
		/* rows are runs of ncol value pointers: sort the runs */
		ncmp_cols = r->ncol;
		qsort(r->v, r->n / (size_t)r->ncol, (size_t)r->ncol * sizeof *r->v, cmp_row);
	} else if (r->n > 0 && strcmp(sort, "valuesort") == 0) {
		qsort(r->v, r->n, sizeof *r->v, cmp_str);
	}
	if (hash) {
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		EVP_DigestInit_ex(ctx, EVP_md5(), NULL);
		for (size_t i = 0; i < r->n; i++) {
			EVP_DigestUpdate(ctx, r->v[i], strlen(r->v[i]));
			EVP_DigestUpdate(ctx, "\n", 1);
		}
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned int mdlen = 0;
		EVP_DigestFinal_ex(ctx, md, &mdlen);
		EVP_MD_CTX_free(ctx);
		sb_printf(out, "%zu values hashing to ", r->n);
		for (unsigned i = 0; i < mdlen; i++)
			sb_printf(out, "%02x", md[i]);
		sb_putc(out, '\n');
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		sb_puts(out, r->v[i]);
		sb_putc(out, '\n');
	}
}

static int is_hash_line(const char *s)
{
	unsigned long n;
	char hex[40];
	int used = 0;
	if (sscanf(s, "%lu values hashing to %32[0-9a-f]%n", &n, hex, &used) != 2)
		return 0;
	return strlen(hex) == 32 && strcmp(s + used, "\n") == 0;
}

typedef struct Label {
	char *name, *hash;
} Label;

typedef struct FileStats {
	int records, skipped, stock_fail, suql_fail, regressions, differ;
} FileStats;

static int verbose;
static int script_mode;   /* --script: print the records' SQL instead of running them */

static int run_file(const char *path)
{
	size_t len;
	char *text = util_read_file(path, &len);
	const char *name = strstr(path, "/test/") ? strstr(path, "/test/") + 6 : path;
	if (!text) {
		printf("not ok %s\n# cannot read it\n", name);
		return 1;
	}
	SuqlErr err = {0};
	Engine *e = NULL;
	sqlite3 *plain = NULL;
	if (!script_mode) {   /* --script only prints: no databases */
		e = engine_open(":memory:", NULL, &err);
		/* the parser and the printer are what is checked here: plain statements would
		   otherwise go to SQLite as written (tests/suites/46-fast-path.sh checks that) */
		if (e)
			engine_set(e, "fast_path", "off", &err);
		sqlite3_open(":memory:", &plain);
	}
	if (!script_mode && (!e || !plain)) {
		printf("not ok %s\n# cannot open databases: %s\n", name, err.msg ? err.msg : "");
		return 1;
	}
	FileStats fs = {0};
	SBuf notes = SBUF_INIT;
	int threshold = 0;
	Label *labels = NULL;
	int nlabels = 0;
	char *p = text;
	int lineno = 0;
	/* split into lines in place */
	char **lines = NULL;
	size_t nlines = 0, caplines = 0;
	while (*p) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		size_t l = strlen(p);
		if (l && p[l - 1] == '\r')
			p[l - 1] = '\0';
		if (nlines == caplines) {
			caplines = caplines ? caplines * 2 : 1024;
			lines = xrealloc(lines, caplines * sizeof *lines);
		}
		lines[nlines++] = p;
		if (!nl)
			break;
		p = nl + 1;
	}
	size_t i = 0;
	int halted = 0;
	char **head = NULL;
	int caphead = 0;
	while (i < nlines && !halted) {
		/* skip blank lines and comments between records */
		if (lines[i][0] == '\0' || lines[i][0] == '#') {
			i++;
			continue;
		}
		size_t start = i;
		int skip = 0;
		/* collect the record's lines (comments dropped) */
		int nhead = 0;
		while (i < nlines && lines[i][0] != '\0') {
			if (lines[i][0] != '#') {
				if (nhead == caphead) {
					caphead = caphead ? caphead * 2 : 256;
					head = xrealloc(head, (size_t)caphead * sizeof *head);
				}
				head[nhead++] = lines[i];
			}
			i++;
		}
		lineno = (int)start + 1;
		int h = 0;
		while (h < nhead && (strncmp(head[h], "skipif ", 7) == 0 ||
		                     strncmp(head[h], "onlyif ", 7) == 0)) {
			const char *db = head[h] + 7;
			while (*db == ' ')
				db++;
			int is_sqlite = strncmp(db, "sqlite", 6) == 0 && (db[6] == '\0' || db[6] == ' ');
			if (head[h][0] == 's' ? is_sqlite : !is_sqlite)
				skip = 1;
			h++;
		}
		if (h >= nhead)
			continue;
		const char *cmd = head[h];
		if (strcmp(cmd, "halt") == 0) {
			if (!skip)
				halted = 1;
			continue;
		}
		if (strncmp(cmd, "hash-threshold", 14) == 0) {
			threshold = atoi(cmd + 14);
			continue;
		}
		int is_query = strncmp(cmd, "query", 5) == 0;
		int is_stmt = strncmp(cmd, "statement", 9) == 0;
		if (!is_query && !is_stmt) {
			sb_printf(&notes, "# %s:%d: unknown record '%s'\n", name, lineno, cmd);
			continue;
		}
		fs.records++;
		if (skip) {
			fs.skipped++;
			continue;
		}
		SBuf sql = SBUF_INIT, want = SBUF_INIT;
		int k = h + 1;
		for (; k < nhead && strcmp(head[k], "----") != 0; k++) {
			if (sql.len)
				sb_putc(&sql, '\n');
			sb_puts(&sql, head[k]);
		}
		if (script_mode) {
			printf("%s;\n", sb_str(&sql));
			sb_free(&sql);
			continue;
		}
		for (k++; k < nhead; k++) {
			sb_puts(&want, head[k]);
			sb_putc(&want, '\n');
		}
		char types[1024] = "", sort[32] = "nosort", label[128] = "";
		int expect_error = 0;
		if (is_query) {
			sscanf(cmd, "query %1023s %31s %127s", types, sort, label);
		} else {
			expect_error = strstr(cmd, "error") != NULL;
		}
		Result rp = {0}, rs = {0};
		run_plain(plain, sb_str(&sql), types, is_query, &rp);
		run_suql(e, sb_str(&sql), types, is_query, &rs);
		int pass_p, pass_s;
		SBuf gp = SBUF_INIT, gs = SBUF_INIT;
		const char *why_p = NULL;
		if (is_stmt) {
			pass_p = rp.error == expect_error;
			pass_s = rs.error == expect_error;
			why_p = rp.error ? rp.msg : "succeeded but an error was expected";
		} else {
			int ncol = (int)strlen(types);
			/* the expected block is a hash line when the reference runner hashed it
			   (above the hash threshold in force when the file was made) */
			int hash = is_hash_line(sb_str(&want)) ||
			           (threshold > 0 && rp.n > (size_t)threshold && !want.len);
			finish(&rp, sort, hash, &gp);
			finish(&rs, sort, hash, &gs);
			pass_p = !rp.error && rp.ncol == ncol && strcmp(sb_str(&gp), sb_str(&want)) == 0;
			pass_s = !rs.error && rs.ncol == ncol && strcmp(sb_str(&gs), sb_str(&want)) == 0;
			why_p = rp.error ? rp.msg : rp.ncol != ncol ? "wrong number of columns"
			                                             : "different result";
			if (!rp.error && !rs.error && strcmp(sb_str(&gp), sb_str(&gs)) != 0) {
				fs.differ++;
				sb_printf(&notes, "# %s:%d: suql and SQLite give different rows\n", name,
				          lineno);
			}
			if (label[0] && !rs.error) {
				int found = 0;
				for (int l = 0; l < nlabels; l++)
					if (strcmp(labels[l].name, label) == 0) {
						found = 1;
						if (strcmp(labels[l].hash, sb_str(&gs)) != 0 && pass_p) {
							pass_s = 0;
							sb_printf(&notes, "# %s:%d: label %s differs from its first "
							          "result\n", name, lineno, label);
						}
					}
				if (!found) {
					labels = xrealloc(labels, (size_t)(nlabels + 1) * sizeof *labels);
					labels[nlabels].name = xstrdup(label);
					labels[nlabels].hash = xstrdup(sb_str(&gs));
					nlabels++;
				}
			}
		}
		if (is_stmt && rp.error != rs.error)
			fs.differ++;
		if (!pass_p) {
			fs.stock_fail++;
			sb_printf(&notes, "# %s:%d: fails in stock SQLite too (%s)%s\n", name, lineno,
			          why_p ? why_p : "?", pass_s ? "" : "; fails through suql as well");
			if (is_query && !rp.error)
				sb_printf(&notes, "#   expected: %.*s\n#   SQLite:   %.*s\n",
				          (int)strcspn(sb_str(&want), "\n"), sb_str(&want),
				          (int)strcspn(sb_str(&gp), "\n"), sb_str(&gp));
		}
		if (!pass_s) {
			fs.suql_fail++;
			if (pass_p) {
				fs.regressions++;
				sb_printf(&notes, "# %s:%d: REGRESSION: passes in SQLite, fails through "
				          "suql: %s\n#   sql: %.200s\n", name, lineno,
				          rs.error ? rs.msg : "different result", sb_str(&sql));
			} else if (verbose) {
				sb_printf(&notes, "# %s:%d: fails through suql\n", name, lineno);
			}
		}
		res_free(&rp);
		res_free(&rs);
		sb_free(&gp);
		sb_free(&gs);
		sb_free(&sql);
		sb_free(&want);
	}
	int bad = fs.regressions > 0 || fs.differ > 0;
	if (script_mode)
		goto done;
	printf("%s %s\n", bad ? "not ok" : "ok", name);
	printf("# %d records, %d skipped, %d fail in stock SQLite, %d fail through suql, "
	       "%d regressions, %d differences%s\n", fs.records, fs.skipped, fs.stock_fail,
	       fs.suql_fail, fs.regressions, fs.differ, halted ? " (halted)" : "");
	fputs(sb_str(&notes), stdout);
done:
	sb_free(&notes);
	for (int l = 0; l < nlabels; l++) {
		free(labels[l].name);
		free(labels[l].hash);
	}
	free(labels);
	free(head);
	free(lines);
	free(text);
	err_clear(&err);
	engine_close(e);
	sqlite3_close(plain);
	return bad;
}

int main(int argc, char **argv)
{
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0) {
			verbose = 1;
			continue;
		}
		if (strcmp(argv[i], "--script") == 0) {
			script_mode = 1;
			continue;
		}
		failed += run_file(argv[i]);
	}
	return failed ? 1 : 0;
}

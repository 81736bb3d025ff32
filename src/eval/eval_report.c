/*
 * eval_report.c: the JSON report of an evaluation run and its summary table.
 *
 * The report is JSON Lines: a header {"suql_eval": 1, "benchmark": NAME, "backend": LABEL},
 * then one object per finished case (its id, way, prediction, gold, scores and counters),
 * then, when a run ends, {"totals": [...]} with the rows of the summary table. Opening an
 * existing report resumes it: its cases are done and are not run again, and the file is
 * rewritten without its old totals before new cases are appended. A report made with
 * another backend or for another benchmark is refused, so figures of two models never mix.
 *
 * The summary is computed by SQLite: every case line goes into an in-memory table, and one
 * query per kind of gold groups them by way and split (and "all"): micro-averaged
 * precision, recall and F1 over the row sets (true and false positives summed over the
 * cases, as the seeds count their turn accuracy), precision at k likewise, the mean exact
 * match and F1 of answers, the share of chat queries that match the gold SUQL by execution,
 * and the summed calls, tokens, round trips and case time. The renderer writes it, in the
 * output mode asked for.
 */
#include "eval/eval_int.h"

#include "base/util.h"
#include "render/render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct EvalReport {
	FILE *f;            /* the report, appended to; NULL when there is none */
	char *path;
	char *benchmark, *backend;
	sqlite3 *mem;       /* r(id, way, j): every case of the run, resumed ones included */
	sqlite3_stmt *ins, *has;
	double t0;
};

static void mem_add(EvalReport *r, const char *id, const char *way, const char *line)
{
	sqlite3_bind_text(r->ins, 1, id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(r->ins, 2, way, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(r->ins, 3, line, -1, SQLITE_TRANSIENT);
	sqlite3_step(r->ins);
	sqlite3_reset(r->ins);
}

SuqlStatus eval_report_parse(const char *text, size_t len, const char *name,
                             const char *benchmark, const char *backend, json_t **cases,
                             SuqlErr *err)
{
	*cases = json_array();
	int line = 0, header = 0;
	for (size_t at = 0; at < len;) {
		size_t n;
		const char *s = eval_next_line(text, len, &at, &n);
		line++;
		if (!n)
			continue;
		json_t *o = json_loadb(s, n, 0, NULL);
		const char *why = NULL;
		if (!json_is_object(o)) {
			why = "not a JSON object";
		} else if (json_object_get(o, "suql_eval")) {
			const char *b = json_string_value(json_object_get(o, "benchmark"));
			const char *m = json_string_value(json_object_get(o, "backend"));
			if (!b || !m) {
				why = "a header without benchmark and backend";
			} else if (strcmp(b, benchmark) != 0) {
				err_set(err, SUQL_USAGE, "%s is the report of benchmark %s, not %s: give "
				        "another --report", name, b, benchmark);
			} else if (strcmp(m, backend) != 0) {
				err_set(err, SUQL_USAGE, "%s was made with %s, not %s: give another "
				        "--report, or delete it to start again", name, m, backend);
			}
			header = 1;
		} else if (!json_object_get(o, "totals")) {
			if (!header)
				why = "a case before the header";
			else if (!json_is_string(json_object_get(o, "id")) ||
			         !json_is_string(json_object_get(o, "way")))
				why = "a case line without id and way";
			else
				json_array_append(*cases, o);
		}
		json_decref(o);
		if (why)
			err_set(err, SUQL_USAGE, "%s:%d: %s (not a report of suql --eval?)", name, line,
			        why);
		if (err->code) {
			json_decref(*cases);
			*cases = NULL;
			return err->code;
		}
	}
	return SUQL_OK;
}

static SuqlStatus mem_open(EvalReport *r, SuqlErr *err)
{
	if (sqlite3_open(":memory:", &r->mem) != SQLITE_OK ||
	    sqlite3_exec(r->mem, "CREATE TABLE r (id TEXT, way TEXT, j TEXT, UNIQUE (id, way))",
	                 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->mem, "INSERT OR REPLACE INTO r VALUES (?, ?, ?)", -1, &r->ins,
	                       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->mem, "SELECT 1 FROM r WHERE id = ? AND way = ?", -1, &r->has,
	                       NULL) != SQLITE_OK)
		return err_set(err, SUQL_IO, "the summary: %s", sqlite3_errmsg(r->mem));
	return SUQL_OK;
}

static void header_line(EvalReport *r)
{
	json_t *h = json_object();
	json_object_set_new(h, "suql_eval", json_integer(1));
	json_object_set_new(h, "benchmark", json_string(r->benchmark));
	json_object_set_new(h, "backend", json_string(r->backend));
	char *t = json_dumps(h, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fprintf(r->f, "%s\n", t);
	free(t);
	json_decref(h);
}

SuqlStatus eval_report_open(EvalReport **out, const char *path, const char *benchmark,
                            const char *backend, SuqlErr *err)
{
	EvalReport *r = xcalloc(1, sizeof *r);
	*out = r;
	r->benchmark = xstrdup(benchmark);
	r->backend = xstrdup(backend);
	r->t0 = util_now_ms();
	SuqlStatus s = mem_open(r, err);
	if (s != SUQL_OK || !path)
		return s;
	r->path = xstrdup(path);
	json_t *cases = NULL;
	size_t len;
	char *text = util_read_file(path, &len);
	if (text) {
		s = eval_report_parse(text, len, path, benchmark, backend, &cases, err);
		free(text);
		if (s != SUQL_OK)
			return s;
	} else if (errno != ENOENT) {
		return err_set(err, SUQL_USAGE, "cannot read %s: %s", path, strerror(errno));
	}
	/* write the header and the cases kept to a new file, then append to it */
	char *tmp = xprintf("%s.tmp", path);
	r->f = fopen(tmp, "w");
	if (!r->f) {
		s = err_set(err, SUQL_USAGE, "cannot write %s: %s", tmp, strerror(errno));
	} else {
		header_line(r);
		size_t i;
		json_t *o;
		json_array_foreach(cases, i, o) {
			char *t = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
			fprintf(r->f, "%s\n", t);
			mem_add(r, json_string_value(json_object_get(o, "id")),
			        json_string_value(json_object_get(o, "way")), t);
			free(t);
		}
		if (fflush(r->f) != 0 || rename(tmp, path) != 0)
			s = err_set(err, SUQL_USAGE, "cannot write %s: %s", path, strerror(errno));
	}
	free(tmp);
	json_decref(cases);
	return s;
}

int eval_report_has(const EvalReport *r, const char *id, const char *way)
{
	sqlite3_bind_text(r->has, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(r->has, 2, way, -1, SQLITE_STATIC);
	int found = sqlite3_step(r->has) == SQLITE_ROW;
	sqlite3_reset(r->has);
	return found;
}

void eval_report_add(EvalReport *r, json_t *res, const char *line)
{
	mem_add(r, json_string_value(json_object_get(res, "id")),
	        json_string_value(json_object_get(res, "way")), line);
	if (r->f) {
		fprintf(r->f, "%s\n", line);
		fflush(r->f);
	}
}

/* ---- the summary ---- */

/* The summary query for one kind of gold ("rows" or "qa"); exec adds the execution-match
   column. Columns come out as numbers, NULL where a figure is undefined. */
static char *summary_sql(const char *kind, int k, int exec, int times, int json)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b,
	        "WITH c AS (SELECT way, coalesce(json_extract(j, '$.split'), '') AS split, "
	        "json_extract(j, '$.error') IS NOT NULL OR json_extract(j, '$.gold_error') IS NOT "
	        "NULL AS failed, json_extract(j, '$.tp') AS tp, json_extract(j, '$.fp') AS fp, "
	        "json_extract(j, '$.fn') AS fn, json_extract(j, '$.hits_k') AS hk, "
	        "json_extract(j, '$.n_k') AS nk, json_extract(j, '$.em') AS em, "
	        "json_extract(j, '$.f1') AS f1, json_extract(j, '$.exec_match') AS ex, "
	        "json_extract(j, '$.calls') AS calls, json_extract(j, '$.cache_hits') AS hits, "
	        "json_extract(j, '$.tokens_in') AS tin, "
	        "json_extract(j, '$.tokens_out') AS tout, json_extract(j, '$.requests') AS req, "
	        "json_extract(j, '$.ms') AS ms FROM r WHERE json_extract(j, '$.kind') = ");
	sb_put_sqlstr(&b, kind, strlen(kind));
	sb_puts(&b, "), g AS (SELECT *, split AS grp FROM c WHERE split <> '' UNION ALL "
	        "SELECT *, 'all' FROM c), s AS (SELECT way, grp AS split, count(*) AS cases, "
	        "sum(failed) AS errors, ");
	if (strcmp(kind, "rows") == 0)
		sb_printf(&b, "CASE WHEN sum(tp) + sum(fp) > 0 THEN round(100.0 * sum(tp) / (sum(tp) "
		          "+ sum(fp)), 1) END AS P, CASE WHEN sum(tp) + sum(fn) > 0 THEN round(100.0 "
		          "* sum(tp) / (sum(tp) + sum(fn)), 1) END AS R, CASE WHEN sum(tp) > 0 THEN "
		          "round(200.0 * sum(tp) / (2 * sum(tp) + sum(fp) + sum(fn)), 1) "
		          "WHEN sum(fp) + sum(fn) > 0 THEN 0.0 END AS F1, CASE WHEN sum(nk) > 0 THEN "
		          "round(100.0 * sum(hk) / sum(nk), 1) END AS \"P@%d\", ", k);
	else
		sb_puts(&b, "round(100.0 * avg(em), 1) AS EM, round(100.0 * avg(f1), 1) AS F1, ");
	if (exec)
		sb_puts(&b, "round(100.0 * avg(ex), 1) AS exec, ");
	sb_puts(&b, "sum(calls) AS calls, sum(hits) AS cached, sum(tin) AS \"tok in\", "
	        "sum(tout) AS \"tok out\", "
	        "sum(req) AS trips");
	if (times)
		sb_puts(&b, ", round(sum(ms) / 1000.0, 1) AS secs");
	sb_puts(&b, " FROM g GROUP BY way, grp ORDER BY CASE way WHEN 'suql' THEN 0 WHEN 'chat' "
	        "THEN 1 ELSE 2 END, grp = 'all', grp) ");
	if (json)
		sb_puts(&b, "SELECT json_group_array(json_object('kind', ");
	if (json) {
		sb_put_sqlstr(&b, kind, strlen(kind));
		sb_puts(&b, ", 'way', way, 'split', split, 'cases', cases, 'errors', errors, ");
		if (strcmp(kind, "rows") == 0)
			sb_printf(&b, "'P', P, 'R', R, 'F1', F1, 'P@%d', \"P@%d\", ", k, k);
		else
			sb_puts(&b, "'EM', EM, 'F1', F1, ");
		if (exec)
			sb_puts(&b, "'exec', exec, ");
		sb_puts(&b, "'calls', calls, 'cache_hits', cached, 'tokens_in', \"tok in\", "
		        "'tokens_out', \"tok out\", 'round_trips', trips");
		if (times)
			sb_puts(&b, ", 'seconds', secs");
		sb_puts(&b, ")) FROM s");
	} else {
		sb_puts(&b, "SELECT * FROM s");
	}
	return sb_steal(&b);
}

static int count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return n;
}

static void print_table(EvalReport *r, const EvalConfig *cfg, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->mem, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "error: the summary: %s\n", sqlite3_errmsg(r->mem));
		return;
	}
	RenderOpts o = {0};
	o.mode = cfg->mode;
	o.headers = cfg->headers;
	o.nullvalue = "-";
	o.unicode = isatty(fileno(stdout));
	o.visible = o.unicode;
	Render *rd = render_new(&o, stdout);
	Row row;
	store_row_sqlite(&row, st);
	render_columns(rd, &row);
	while (sqlite3_step(st) == SQLITE_ROW)
		render_row(rd, &row);
	render_finish(rd);
	render_free(rd);
	sqlite3_finalize(st);
}

/* The first few failures of cases, on stderr, for whoever writes the benchmark. */
static void show_errors(EvalReport *r)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT id, way, coalesce(json_extract(j, '$.gold_error'), "
	                  "json_extract(j, '$.error')) FROM r WHERE json_extract(j, '$.error') IS "
	                  "NOT NULL OR json_extract(j, '$.gold_error') IS NOT NULL ORDER BY rowid";
	if (sqlite3_prepare_v2(r->mem, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	int n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n++ < 5) {
			const char *m = (const char *)sqlite3_column_text(st, 2);
			fprintf(stderr, "note: case %s (%s) failed: %.*s\n", sqlite3_column_text(st, 0),
			        sqlite3_column_text(st, 1), (int)strcspn(m ? m : "", "\n"), m ? m : "");
		}
	}
	if (n > 5)
		fprintf(stderr, "note: and %d more (see the report)\n", n - 5);
	sqlite3_finalize(st);
}

void eval_report_finish(EvalReport *r, const EvalConfig *cfg, int ncases, int k,
                        const int want[EVAL_NWAYS], int times, int chat_skipped,
                        int not_run)
{
	static const char *const kinds[] = {"rows", "qa"};
	sqlite3_stmt *st;
	int exec = count(r->mem, "SELECT count(*) FROM r WHERE json_extract(j, '$.exec_match') "
	                         "IS NOT NULL") > 0;
	int text = cfg->mode == RENDER_TABLE || cfg->mode == RENDER_BOX;
	if (text) {
		SBuf ways = SBUF_INIT;
		for (int w = 0; w < EVAL_NWAYS; w++)
			if (want[w])
				sb_printf(&ways, "%s%s", ways.len ? ", " : "", eval_way_name((EvalWay)w));
		printf("%s: %d case%s, way%s %s; model: %s\n", r->benchmark, ncases,
		       ncases == 1 ? "" : "s", strchr(sb_str(&ways), ',') ? "s" : "", sb_str(&ways),
		       r->backend);
		sb_free(&ways);
	}
	json_t *totals = json_array();
	for (int i = 0; i < 2; i++) {
		char *q = xprintf("SELECT count(*) FROM r WHERE json_extract(j, '$.kind') = '%s'",
		                  kinds[i]);
		int n = count(r->mem, q);
		free(q);
		if (!n)
			continue;
		char *sql = summary_sql(kinds[i], k, exec, times, 0);
		print_table(r, cfg, sql);
		free(sql);
		sql = summary_sql(kinds[i], k, exec, times, 1);
		if (sqlite3_prepare_v2(r->mem, sql, -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW) {
				json_t *a = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
				json_array_extend(totals, a);
				json_decref(a);
			}
			sqlite3_finalize(st);
		}
		free(sql);
	}
	if (text) {
		if (chat_skipped)
			printf("chat: not run; it needs a language model (the offline backend cannot "
			       "write SUQL)\n");
		if (not_run > 0)
			printf("not run: %d case%s (the run stopped; run the same command again to "
			       "resume)\n", not_run, not_run == 1 ? "" : "s");
		if (r->path)
			printf("report: %s\n", r->path);
	}
	fflush(stdout);
	show_errors(r);
	if (r->f) {
		json_t *t = json_object();
		json_object_set_new(t, "totals", totals);
		json_object_set_new(t, "seconds", json_real((util_now_ms() - r->t0) / 1000.0));
		char *line = json_dumps(t, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		fprintf(r->f, "%s\n", line);
		fflush(r->f);
		free(line);
		json_decref(t);
	} else {
		json_decref(totals);
	}
}

void eval_report_close(EvalReport *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	sqlite3_finalize(r->ins);
	sqlite3_finalize(r->has);
	sqlite3_close(r->mem);
	free(r->path);
	free(r->benchmark);
	free(r->backend);
	free(r);
}

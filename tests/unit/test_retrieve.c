/*
 * Unit tests for the retrieval index (retrieve.c, retrieve_rank.c): building, staying
 * current through INSERT/UPDATE/DELETE from any connection, rebuilding, ranking one or
 * several questions, passages within a budget, and awkward table names.
 */
#include "base/util.h"
#include "retrieve/retrieve.h"
#include "store/catalog.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, 0, 0, &msg) != SQLITE_OK)
		printf("# SQL failed: %s: %s\n", sql, msg);
	sqlite3_free(msg);
}

static long long count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return n;
}

/* Rowids ranked for one question on r.reviews, matched rows only, as "3,1". */
static char *ranked(sqlite3 *db, const char *table, const char *q)
{
	RetQuestion qs[1] = {{"reviews", q}};
	RetScore *s;
	size_t n;
	SuqlErr err = {0};
	SBuf b = SBUF_INIT;
	sb_putn(&b, "", 0);
	if (ret_score(db, table, qs, 1, NULL, 0, RET_MATCHED_ONLY, 0, &s, &n, &err) != SUQL_OK) {
		sb_printf(&b, "error: %s", err.msg);
		err_clear(&err);
		return sb_steal(&b);
	}
	for (size_t i = 0; i < n; i++)
		sb_printf(&b, "%s%lld", i ? "," : "", (long long)s[i].rowid);
	free(s);
	return sb_steal(&b);
}

static void setup(sqlite3 *db, const char *table)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, "CREATE TABLE ");
	sb_put_ident(&b, table, strlen(table));
	sb_puts(&b, "(id INTEGER PRIMARY KEY, name TEXT, reviews TEXT);");
	exec(db, b.s);
	sb_free(&b);
	SuqlErr err = {0};
	Store *st = store_sqlite_wrap(db);
	catalog_set(st, table, "reviews", "FREE_TEXT[]", &err);
	store_close(st);
	err_clear(&err);
	const char *rows[] = {
		"1, 'Luigi', '[\"Great pasta and a cozy room.\", \"Not romantic at all, very loud.\"]'",
		"2, 'Sakura', '[\"Fresh sushi.\", \"A romantic spot, candles and quiet corners, perfect "
		"for a first date.\"]'",
		"3, 'Burger Barn', '[\"Our kids loved the burgers.\", \"Tons of free parking.\"]'",
		"4, 'Casa', '[\"Tacos!\", \"We queued for 40 minutes.\"]'",
		"5, 'Empty', NULL",
	};
	for (int i = 0; i < 5; i++) {
		SBuf q = SBUF_INIT;
		sb_puts(&q, "INSERT INTO ");
		sb_put_ident(&q, table, strlen(table));
		sb_printf(&q, " VALUES (%s)", rows[i]);
		exec(db, q.s);
		sb_free(&q);
	}
}

static void test_basics(sqlite3 *db)
{
	SuqlErr err = {0};
	RetInfo info;
	setup(db, "r");
	CHECK(ret_ensure(db, "r", "reviews", &info, &err) == SUQL_OK && info.built == 1,
	      "ensure builds the index on first use");
	CHECK(info.rows == 4 && info.passages == 8, "ensure: 4 rows with text, 8 passages");
	CHECK(ret_ensure(db, "r", "reviews", &info, &err) == SUQL_OK && info.built == 0 &&
	      info.refreshed == 0 && info.passages == 8, "ensure again does nothing");
	CHECK(ret_has_index(db, "R", "REVIEWS"), "has_index is case-insensitive");
	char *s = ranked(db, "r", "is it romantic, for a first date?");
	CHECK_STR(s, "2,1", "romantic: the romantic review first, the negated one matches too");
	free(s);
	s = ranked(db, "r", "good for kids");
	CHECK_STR(s, "3", "kids: stemmed match (kids ~ kid)");
	free(s);
	s = ranked(db, "r", "the of and");
	CHECK_STR(s, "", "a question without content words matches nothing");
	free(s);

	exec(db, "INSERT INTO r VALUES (6, 'Candle', '[\"Intimate candlelit room, very romantic.\"]')");
	s = ranked(db, "r", "romantic");
	CHECK(strstr(s, "6") != NULL, "a row added by INSERT is found by the next query");
	free(s);
	exec(db, "UPDATE r SET reviews = '[\"Loud sports bar.\"]' WHERE id = 2");
	s = ranked(db, "r", "romantic");
	CHECK(strstr(s, "2") == NULL, "UPDATE: the old text no longer matches");
	free(s);
	s = ranked(db, "r", "sports bar");
	CHECK_STR(s, "2", "UPDATE: the new text matches");
	free(s);
	exec(db, "DELETE FROM r WHERE id = 3");
	s = ranked(db, "r", "kids burgers");
	CHECK_STR(s, "", "DELETE: the row's passages are gone");
	free(s);
	exec(db, "UPDATE r SET id = 30 WHERE id = 4");
	s = ranked(db, "r", "queued");
	CHECK_STR(s, "30", "a changed rowid follows the row");
	free(s);
	exec(db, "UPDATE r SET name = 'Luigi''s' WHERE id = 1");
	CHECK(count(db, "SELECT count(*) FROM suql_index_dirty") == 0,
	      "an UPDATE of another column records nothing");
	CHECK(count(db, "SELECT npassages FROM suql_index") ==
	      count(db, "SELECT count(*) FROM suql_psg_1"), "the registry's count stays right");

	/* rebuilding gives the same ranking and scores */
	RetQuestion qs[2] = {{"reviews", "romantic date"}, {"reviews", "loud"}};
	RetScore *a, *b;
	size_t na, nb;
	ret_score(db, "r", qs, 2, NULL, 0, 0, 0, &a, &na, &err);
	long long maxpid = count(db, "SELECT max(pid) FROM suql_psg_1");
	CHECK(ret_rebuild(db, "r", NULL, NULL, &err) == SUQL_OK, "rebuild");
	CHECK(count(db, "SELECT min(pid) FROM suql_psg_1") > maxpid, "rebuild: pids are never reused");
	ret_score(db, "r", qs, 2, NULL, 0, 0, 0, &b, &nb, &err);
	int same = na == nb && na == 5;
	for (size_t i = 0; same && i < na; i++)
		same = a[i].rowid == b[i].rowid && a[i].score == b[i].score && a[i].matched == b[i].matched;
	CHECK(same, "rebuild: the same rows, order and scores (unmatched rows included)");
	CHECK(na == 5 && a[na - 1].score == 0 && a[0].score > 0, "unmatched rows come last, score 0");
	free(a);
	free(b);
	err_clear(&err);
}

static void test_questions(sqlite3 *db)
{
	SuqlErr err = {0};
	setup(db, "m");
	exec(db, "INSERT INTO m VALUES (6, 'Both', '[\"Romantic dinner.\", \"Kids menu too.\"]')");
	RetQuestion qs[2] = {{"reviews", "romantic"}, {"reviews", "kids"}};
	RetScore *s;
	size_t n;
	CHECK(ret_score(db, "m", qs, 2, NULL, 0, RET_MATCHED_ONLY, 0, &s, &n, &err) == SUQL_OK,
	      "two questions");
	CHECK(n >= 3 && s[0].rowid == 6 && s[0].matched == 2 && s[1].matched == 1,
	      "two questions: the row matching both comes first");
	free(s);
	sqlite3_int64 cand[3] = {5, 3, 1};
	CHECK(ret_score(db, "m", qs, 2, cand, 3, 0, 0, &s, &n, &err) == SUQL_OK && n == 3,
	      "candidates: all of them returned");
	CHECK(n == 3 && (s[0].rowid == 1 || s[0].rowid == 3) && s[2].rowid == 5 && s[2].score == 0,
	      "candidates: matched first, the unmatched one last");
	free(s);
	CHECK(ret_score(db, "m", qs, 2, cand, 3, RET_MATCHED_ONLY, 1, &s, &n, &err) == SUQL_OK &&
	      n == 1, "limit");
	free(s);
	/* a word naming the table's rows is not evidence: "restaurant" asked of restaurants */
	exec(db, "CREATE TABLE restaurants(id INTEGER PRIMARY KEY, reviews TEXT)");
	exec(db, "INSERT INTO restaurants VALUES (1, '[\"Best restaurant in town.\"]'), "
	     "(2, '[\"A quiet, romantic evening by the fire, we loved every minute of it.\"]')");
	RetQuestion r1[1] = {{"reviews", "is this restaurant romantic?"}}, r2[1] = {{"reviews", "romantic"}};
	RetScore *x, *y;
	size_t nx, ny;
	ret_score(db, "restaurants", r1, 1, NULL, 0, RET_MATCHED_ONLY, 0, &x, &nx, &err);
	ret_score(db, "restaurants", r2, 1, NULL, 0, RET_MATCHED_ONLY, 0, &y, &ny, &err);
	CHECK(nx == 1 && ny == 1 && x[0].rowid == 2 && x[0].score == y[0].score,
	      "the word naming the table's rows is left out of the question");
	free(x);
	free(y);
	RetQuestion bad[1] = {{"nope", "x"}};
	CHECK(ret_score(db, "m", bad, 1, NULL, 0, 0, 0, &s, &n, &err) == SUQL_ERROR &&
	      strstr(err.msg, "no such column"), "an unknown column is an error");
	err_clear(&err);
}

/* Scoring by seeking to candidates and by scanning every match give the same numbers. */
static void test_modes(sqlite3 *db)
{
	SuqlErr err = {0};
	exec(db, "CREATE TABLE big(id INTEGER PRIMARY KEY, reviews TEXT)");
	SBuf b = SBUF_INIT;
	sb_puts(&b, "INSERT INTO big VALUES ");
	for (int i = 1; i <= 300; i++)
		sb_printf(&b, "%s(%d, '[\"pasta number %d%s\", \"%s\"]')", i > 1 ? "," : "", i, i,
		          i % 3 ? " with pasta sauce" : "", i % 7 ? "service was fine" : "pasta again");
	exec(db, b.s);
	sb_free(&b);
	RetQuestion q[1] = {{"reviews", "pasta sauce"}};
	sqlite3_int64 few[3] = {7, 8, 9};
	sqlite3_int64 many[300];
	for (int i = 0; i < 300; i++)
		many[i] = i + 1;
	RetScore *s1, *s2;
	size_t n1, n2;
	ret_score(db, "big", q, 1, few, 3, 0, 0, &s1, &n1, &err);      /* seeks */
	ret_score(db, "big", q, 1, many, 300, 0, 0, &s2, &n2, &err);   /* scans */
	int same = n1 == 3 && n2 == 300;
	for (size_t i = 0; same && i < n1; i++) {
		size_t j = 0;
		while (j < n2 && s2[j].rowid != s1[i].rowid)
			j++;
		same = j < n2 && s2[j].score == s1[i].score;
	}
	CHECK(same, "seeking and scanning score alike");
	CHECK(n1 == 3 && s1[0].rowid == 7 && s1[0].score > s1[2].score,
	      "row 7 (pasta twice and sauce) before row 9 (no sauce)");
	free(s1);
	free(s2);
	err_clear(&err);
}

/* ret_scan: every matched row once, with ret_score's score, also after rows were re-cut */
static int scan_agrees(sqlite3 *db)
{
	SuqlErr err = {0};
	RetQuestion q[1] = {{"reviews", "pasta sauce"}};
	RetScore *s;
	size_t n;
	if (ret_score(db, "big", q, 1, NULL, 0, RET_MATCHED_ONLY, 0, &s, &n, &err) != SUQL_OK)
		return 0;
	RetScan *sc;
	if (ret_scan_open(db, "big", q, &sc, &err) != SUQL_OK) {
		free(s);
		return 0;
	}
	sqlite3_int64 rid;
	double score;
	size_t seen = 0;
	int same = 1, r;
	while ((r = ret_scan_next(sc, &rid, &score, &err)) == 1) {
		size_t j = 0;
		while (j < n && s[j].rowid != rid)
			j++;
		same &= j < n && s[j].score == score && s[j].matched == 1;
		if (j < n)
			s[j].matched = 0;   /* seen: a second time would not be found */
		seen++;
	}
	ret_scan_close(sc);
	free(s);
	err_clear(&err);
	return r == 0 && same && seen == n && n > 0;
}

static void test_scan(sqlite3 *db)
{
	CHECK(scan_agrees(db), "a scan gives each matched row once, with ret_score's score");
	exec(db, "UPDATE big SET reviews = '[\"pasta\", \"sauce\", \"more pasta sauce\"]' "
	         "WHERE id IN (5, 150)");
	CHECK(scan_agrees(db), "... and after rows were indexed again");
}

static void test_passages(sqlite3 *db)
{
	SuqlErr err = {0};
	exec(db, "CREATE TABLE p(id INTEGER PRIMARY KEY, reviews TEXT)");
	exec(db, "INSERT INTO p VALUES (1, '[\"The salmon was dry.\", \"Parking is easy, a big lot "
	     "behind the building.\", \"Lovely salmon tartare and grilled salmon.\", \"Nice staff.\"]')");
	RetPassage *ps;
	size_t n;
	CHECK(ret_passages(db, "p", "reviews", 1, "do they serve salmon?", 0, &ps, &n, &err) ==
	      SUQL_OK && n == 4, "passages: all four without a budget");
	CHECK(n == 4 && ps[0].ord == 2 && ps[1].ord == 0 && ps[0].score > ps[1].score &&
	      ps[2].score == 0 && ps[2].ord == 1 && ps[3].ord == 3,
	      "passages: most relevant first, then the others in order");
	ret_passages_free(ps, n);
	CHECK(ret_passages(db, "p", "reviews", 1, "salmon", 45, &ps, &n, &err) == SUQL_OK && n == 1 &&
	      ps[0].ord == 2, "passages: a budget of 45 bytes takes the best one");
	ret_passages_free(ps, n);
	CHECK(ret_passages(db, "p", "reviews", 1, "salmon", 20, &ps, &n, &err) == SUQL_OK && n >= 1 &&
	      strlen(ps[0].text) <= 20 && ps[0].ord == 2, "passages: the best one is cut to fit");
	ret_passages_free(ps, n);
	CHECK(ret_passages(db, "p", "reviews", 1, NULL, 0, &ps, &n, &err) == SUQL_OK && n == 4 &&
	      ps[0].ord == 0 && ps[3].ord == 3, "passages: no question, stored order");
	ret_passages_free(ps, n);
	CHECK(ret_passages(db, "p", "reviews", 99, "salmon", 0, &ps, &n, &err) == SUQL_OK && n == 0,
	      "passages: an unknown row has none");
	ret_passages_free(ps, n);

	/* a long text is cut into chunks on sentence boundaries */
	SBuf b = SBUF_INIT;
	sb_puts(&b, "INSERT INTO p VALUES (2, '");
	for (int i = 0; i < 60; i++)
		sb_printf(&b, "Sentence number %d says something about the weather. ", i);
	sb_puts(&b, "')");
	exec(db, b.s);
	sb_free(&b);
	CHECK(ret_passages(db, "p", "reviews", 2, "weather", 0, &ps, &n, &err) == SUQL_OK && n >= 6,
	      "a long text becomes several passages");
	int ok = 1;
	for (size_t i = 0; i < n; i++)
		ok &= strlen(ps[i].text) <= RET_CHUNK && ps[i].text[strlen(ps[i].text) - 1] == '.';
	CHECK(ok, "each chunk fits RET_CHUNK and ends at a sentence end");
	ret_passages_free(ps, n);
	err_clear(&err);
}

static void test_names(sqlite3 *db)
{
	SuqlErr err = {0};
	const char *t = "my \"odd\" table's name";
	setup(db, t);
	char *s = ranked(db, t, "parking");
	CHECK_STR(s, "3", "a table name with spaces and quotes: ranking");
	free(s);
	SBuf b = SBUF_INIT;
	sb_puts(&b, "DELETE FROM ");
	sb_put_ident(&b, t, strlen(t));
	sb_puts(&b, " WHERE id = 3");
	exec(db, b.s);
	sb_free(&b);
	s = ranked(db, t, "parking");
	CHECK_STR(s, "", "a table name with spaces and quotes: triggers work");
	free(s);
	CHECK(count(db, "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'suql\\_%' ESCAPE '\\' "
	            "AND name NOT LIKE 'sqlite_%' AND type = 'table'") == 6,
	      "every table the index adds is named suql_...");

	/* dropped, then created again without triggers: rebuilt on next use */
	exec(db, "DROP TABLE r");
	RetInfo info;
	CHECK(ret_ensure(db, "r", "reviews", &info, &err) == SUQL_ERROR && strstr(err.msg, "no such table"),
	      "a dropped table: error");
	CHECK(!ret_has_index(db, "r", "reviews"), "a dropped table: its index is forgotten");
	exec(db, "CREATE TABLE r(id INTEGER PRIMARY KEY, reviews TEXT)");
	exec(db, "INSERT INTO r VALUES (1, '[\"A quiet garden patio.\"]')");
	CHECK(ret_ensure(db, "r", "reviews", &info, &err) == SUQL_OK && info.built, "rebuilt");
	exec(db, "DROP TABLE r; CREATE TABLE r(id INTEGER PRIMARY KEY, reviews TEXT);");
	exec(db, "INSERT INTO r VALUES (7, '[\"Outdoor seating on the patio.\"]')");
	s = ranked(db, "r", "patio");
	CHECK_STR(s, "7", "a table created again is reindexed (its triggers were gone)");
	free(s);
	CHECK(ret_drop(db, "r", NULL, &err) == SUQL_OK && !ret_has_index(db, "r", "reviews") &&
	      count(db, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'suql_trg_%' AND "
	            "tbl_name = 'r'") == 0, "drop removes the index and its triggers");
	exec(db, "ALTER TABLE m RENAME TO m2");
	CHECK(ret_rename_table(db, "m", "m2", &err) == SUQL_OK && ret_has_index(db, "m2", "reviews"),
	      "rename follows the table");
	exec(db, "INSERT INTO m2 VALUES (50, 'x', '[\"zebra stripes\"]')");
	s = ranked(db, "m2", "zebra");
	CHECK_STR(s, "50", "after a rename the triggers still record changes");
	free(s);
	err_clear(&err);
}

/* A bulk insert into an indexed table: most rows are new, so the index is built again. */
static void test_bulk(sqlite3 *db)
{
	SuqlErr err = {0};
	exec(db, "CREATE TABLE bulk(id INTEGER PRIMARY KEY, reviews TEXT)");
	exec(db, "INSERT INTO bulk VALUES (1, '[\"tiny start\"]')");
	RetInfo info;
	ret_ensure(db, "bulk", "reviews", &info, &err);
	exec(db, "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 3001) "
	     "INSERT INTO bulk SELECT i, json_array('row ' || i || ' mentions walnuts') FROM n");
	CHECK(ret_ensure(db, "bulk", "reviews", &info, &err) == SUQL_OK && info.built == 1 &&
	      info.rows == 3001 && info.passages == 3001, "a bulk insert rebuilds the index");
	exec(db, "UPDATE bulk SET reviews = '[\"pecans\"]' WHERE id = 77");
	CHECK(ret_ensure(db, "bulk", "reviews", &info, &err) == SUQL_OK && info.built == 0 &&
	      info.refreshed == 1, "a small change is refreshed row by row");
	char *s = ranked(db, "bulk", "pecans");
	CHECK_STR(s, "77", "after both, the index answers");
	free(s);
	err_clear(&err);
}

/* Another connection (any program) changes the table; this one sees it. */
static void test_other_connection(void)
{
	char path[] = "/tmp/suql-ret-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	sqlite3 *a, *b;
	sqlite3_open(path, &a);
	sqlite3_open(path, &b);
	SuqlErr err = {0};
	setup(a, "r");
	ret_ensure(a, "r", "reviews", NULL, &err);
	exec(b, "INSERT INTO r VALUES (9, 'New', '[\"Happy hour from 4 to 6, cheap beers.\"]')");
	exec(b, "UPDATE r SET reviews = '[\"Closed for good.\"]' WHERE id = 1");
	char *s = ranked(a, "r", "happy hour");
	CHECK_STR(s, "9", "a row inserted by another connection is found");
	free(s);
	s = ranked(a, "r", "pasta");
	CHECK_STR(s, "", "a row updated by another connection is re-read");
	free(s);
	sqlite3_close(b);
	sqlite3_close(a);
	unlink(path);
	err_clear(&err);
}

static void count_each(void *ctx, const char *table, const char *column, const RetInfo *info)
{
	(void)table;
	(void)column;
	(void)info;
	(*(int *)ctx)++;
}

/* retrieve_doc.c: the passages, tokens, phrases and BM25 a store that keeps its own
   index computes (PostgreSQL's) give every row the double ret_score gives it over the
   SQLite index, for texts with lists, long texts split into passages, diacritics,
   apostrophes, hyphens and numbers. */
typedef struct WPsg {
	long long rid;
	int ntok;
	char *toks;
} WPsg;
typedef struct WAll {
	WPsg *v;
	int n;
	long long rid;
	double ftok;
} WAll;

static void w_each(void *ctx, int ord, int ntok, int ftok, const char *toks)
{
	(void)ord;
	WAll *a = ctx;
	a->v = xrealloc(a->v, ((size_t)a->n + 1) * sizeof *a->v);
	a->v[a->n++] = (WPsg){a->rid, ntok, xstrdup(toks)};
	a->ftok += ftok;
}

static void test_words(sqlite3 *db)
{
	exec(db, "CREATE TABLE wt(id INTEGER PRIMARY KEY, reviews TEXT)");
	exec(db, "INSERT INTO wt VALUES "
	         "(1, 'Happy hour from four to six: half-price drinks. Happy hour!'), "
	         "(2, '[\"We don''t do happy hours.\", \"The caf\u00e9 is quiet; a quiet corner.\"]'), "
	         "(3, 'A well-known garden bar, open 24/7, with a garden of roses.'), "
	         "(4, 'Slow service. ' || replace(hex(zeroblob(60)), '00', 'The room was long and the wait was longer than we liked. ')), "
	         "(5, NULL), (6, ''), "
	         "(7, 'Quiet, quiet, quiet: the quietest cafe in town, and its coffee is good.')");
	RetWords *w = NULL;
	SuqlErr err = {0};
	CHECK(ret_words_open(db, "wt", &w, &err) == SUQL_OK, "words: FTS5's tokenizer opens");
	WAll all = {0};
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "SELECT id, reviews FROM wt WHERE reviews IS NOT NULL", -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		all.rid = sqlite3_column_int64(st, 0);
		ret_words_value(w, (const char *)sqlite3_column_text(st, 1),
		                (size_t)sqlite3_column_bytes(st, 1), w_each, &all, &err);
	}
	sqlite3_finalize(st);
	const char *qs[] = {"does it have a happy hour?", "is it quiet?", "is there a garden?",
	                    "is the service slow and the wait long?", "don't they serve coffee?",
	                    "is it a well-known cafe?"};
	int same = 1, scored = 0;
	for (size_t q = 0; q < sizeof qs / sizeof *qs; q++) {
		char **ph;
		int np = ret_words_question(w, qs[q], &ph);
		double df[64] = {0};
		for (int p = 0; p < np; p++)
			for (int i = 0; i < all.n; i++)
				df[p] += ret_words_tf(all.v[i].toks, ph[p]) > 0;
		RetQuestion rq[1] = {{"reviews", qs[q]}};
		RetScore *sc = NULL;
		size_t n = 0;
		ret_score(db, "wt", rq, 1, NULL, 0, RET_MATCHED_ONLY, 0, &sc, &n, &err);
		for (long long rid = 1; rid <= 7; rid++) {
			double best = 0;
			int hit = 0;
			for (int i = 0; i < all.n; i++) {
				if (all.v[i].rid != rid)
					continue;
				int tf[64] = {0}, any = 0;
				for (int p = 0; p < np; p++)
					any |= (tf[p] = ret_words_tf(all.v[i].toks, ph[p])) > 0;
				if (!any)
					continue;
				double s1 = ret_words_bm25(np, df, (double)all.n, all.ftok, tf, all.v[i].ntok);
				if (!hit || s1 > best)
					best = s1;
				hit = 1;
			}
			const RetScore *f = NULL;
			for (size_t k = 0; k < n; k++)
				if (sc[k].rowid == rid)
					f = &sc[k];
			if ((f != NULL) != hit || (f && f->score != best)) {
				same = 0;
				printf("# %s: row %lld: index %g, words %g\n", qs[q], rid, f ? f->score : -1,
				       hit ? best : -1);
			}
			scored += hit;
		}
		free(sc);
		for (int p = 0; p < np; p++)
			free(ph[p]);
		free(ph);
	}
	CHECK(same && scored > 6, "words: every row scores the index's double, for every question");
	for (int i = 0; i < all.n; i++)
		free(all.v[i].toks);
	free(all.v);
	ret_words_close(w);
	err_clear(&err);
}

int main(void)
{
	sqlite3 *db;
	sqlite3_open(":memory:", &db);
	test_basics(db);
	test_questions(db);
	test_modes(db);
	test_scan(db);
	test_passages(db);
	test_names(db);
	test_bulk(db);
	test_words(db);
	int n = 0;
	SuqlErr err = {0};
	CHECK(ret_rebuild(db, NULL, count_each, &n, &err) == SUQL_OK && n >= 4,
	      "rebuild of everything visits every index");
	CHECK(ret_rebuild(db, "nope", NULL, NULL, &err) == SUQL_ERROR, "rebuild: unknown table");
	err_clear(&err);
	sqlite3_close(db);
	test_other_connection();
	return unit_done();
}

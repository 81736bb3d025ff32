/*
 * retbench.c: retrieval latency, for bench/data.sh (build/retbench). It ranks a table's
 * rows for one or more questions with ret_score and reports how long the top-K took: the
 * first call (which counts the questions' terms and checks the index) and the median of
 * the calls after it. With --candidates N it ranks N rows spread over the table instead of
 * all of them, as the executor does after its structured filters. With --check it ranks once
 * more scoring every matching passage (RET_SCAN_ALL), prints whether the rows and scores are
 * the same and how many rankings the impact lists settled, and exits 1 when they differ.
 * With --scan every ranking scores every matching passage (the reference for the lists).
 *
 *   retbench DB TABLE [--limit K] [--repeat N] [--candidates N] [--check] [--scan]
 *            COLUMN:QUESTION ...
 */
#include "base/util.h"
#include "retrieve/retrieve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fputs("usage: retbench DB TABLE [--limit K] [--repeat N] [--candidates N] [--check] "
		      "[--scan] COLUMN:QUESTION ...\n", stderr);
		return 2;
	}
	const char *path = argv[1], *table = argv[2];
	int limit = 20, repeat = 5, ncand = 0, nq = 0, check = 0, flags = RET_MATCHED_ONLY;
	RetQuestion q[8];
	char *cols[8];
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
			limit = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
			repeat = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--check") == 0) {
			check = 1;
		} else if (strcmp(argv[i], "--scan") == 0) {
			flags |= RET_SCAN_ALL;
		} else if (strcmp(argv[i], "--candidates") == 0 && i + 1 < argc) {
			ncand = atoi(argv[++i]);
		} else if (nq < 8 && strchr(argv[i], ':')) {
			const char *c = strchr(argv[i], ':');
			cols[nq] = xstrndup(argv[i], (size_t)(c - argv[i]));
			q[nq].column = cols[nq];
			q[nq].text = c + 1;
			nq++;
		} else {
			fprintf(stderr, "retbench: unexpected %s\n", argv[i]);
			return 2;
		}
	}
	sqlite3 *db;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		fprintf(stderr, "retbench: cannot open %s\n", path);
		return 1;
	}
	/* as the engine's connection does (engine_new), so the figures are the ones it sees */
	sqlite3_exec(db, "PRAGMA mmap_size = 268435456", NULL, NULL, NULL);
	SuqlErr err = {0};
	sqlite3_int64 *cand = NULL;
	if (ncand > 0) {
		/* every k-th rowid, so the candidates spread over the table */
		SBuf sql = SBUF_INIT;
		sb_puts(&sql, "SELECT rowid FROM ");
		sb_put_ident(&sql, table, strlen(table));
		sqlite3_stmt *st;
		sqlite3_prepare_v2(db, sql.s, -1, &st, NULL);
		sb_free(&sql);
		sqlite3_int64 *all = NULL;
		size_t n = 0, cap = 0;
		while (sqlite3_step(st) == SQLITE_ROW) {
			if (n == cap)
				all = xrealloc(all, (cap = cap ? cap * 2 : 1024) * sizeof *all);
			all[n++] = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
		if ((size_t)ncand > n)
			ncand = (int)n;
		cand = xmalloc((size_t)(ncand ? ncand : 1) * sizeof *cand);
		for (int i = 0; i < ncand; i++)
			cand[i] = all[(size_t)i * n / (size_t)ncand];
		free(all);
	}
	double *ms = xmalloc((size_t)(repeat + 1) * sizeof *ms);
	size_t got = 0;
	int rc = 0;
	RetScore *last = NULL;
	for (int r = 0; r <= repeat && !rc; r++) {
		RetScore *s;
		double t0 = util_now_ms();
		if (ret_score(db, table, q, nq, cand, (size_t)ncand, flags, (size_t)limit, &s, &got,
		              &err) != SUQL_OK) {
			fprintf(stderr, "retbench: %s\n", err.msg);
			rc = 1;
			break;
		}
		ms[r] = util_now_ms() - t0;
		free(last);
		last = s;
	}
	if (!rc) {
		double first = ms[0];
		qsort(ms + 1, (size_t)repeat, sizeof *ms, cmp_double);
		printf("%d question%s, top-%d of %s: first %.1f ms, then median %.1f ms (%zu rows)\n", nq,
		       nq == 1 ? "" : "s", limit, ncand ? "candidates" : "all rows", first,
		       repeat ? ms[1 + repeat / 2] : first, got);
	}
	if (!rc && check) {
		long long settled, scanned;
		ret_topk_counts(&settled, &scanned);
		RetScore *all;
		size_t n;
		if (ret_score(db, table, q, nq, cand, (size_t)ncand, RET_MATCHED_ONLY | RET_SCAN_ALL,
		              (size_t)limit, &all, &n, &err) != SUQL_OK) {
			fprintf(stderr, "retbench: %s\n", err.msg);
			rc = 1;
		} else {
			size_t same = 0;
			while (same < n && same < got && all[same].rowid == last[same].rowid &&
			       all[same].score == last[same].score)
				same++;
			printf("check: %s (%zu of %zu rows equal, in order, with equal scores); settled by the "
			       "impact lists %lld of %lld rankings\n", same == n && n == got ? "same" : "DIFFERENT",
			       same, n, settled, settled + scanned);
			for (size_t i = 0; same < n && i < n && i < (size_t)limit; i++)
				printf("  %zu: scan %lld %.17g  lists %lld %.17g\n", i + 1, (long long)all[i].rowid,
				       all[i].score, i < got ? (long long)last[i].rowid : -1LL,
				       i < got ? last[i].score : 0.0);
			rc = same == n && n == got ? 0 : 1;
			free(all);
		}
	}
	free(last);
	for (int i = 0; i < nq; i++)
		free(cols[i]);
	free(ms);
	free(cand);
	err_clear(&err);
	sqlite3_close(db);
	return rc;
}

/*
 * llm_rate.c: learned pass rates, kept with the cache. A question asked of the texts of
 * one column passes for some share of them; the engine's walks learn that share as they
 * judge candidates (engine/plan_cost.c says which candidates count) and keep it here, so
 * that the next statement asking the same question of the same column sizes its waves and
 * orders its conjuncts from what was seen rather than from the question's words.
 *
 * A rate is a row of the table llm_rate in the cache file (llm_cache.c): its key the
 * SHA-256 of the text the engine names it by (the database, the table and column, and the
 * question's signature: its wording, what it compares with; so another wording is another
 * question, and the same question of the same column is the same row, whatever the model),
 * the candidates that passed and those decided. Only verdicts the model gave are counted:
 * an unreadable reply is never a verdict (the engine counts none of them) and nothing here
 * turns one into a pass or a failure. With the cache off (--no-cache, or a file that cannot
 * be used), and in a bulk job's runs, nothing is kept or read; :cache clear forgets the
 * rates with the results.
 */
#include "llm/llm_int.h"

#include <stdlib.h>
#include <string.h>

/* The cache file with the rate table (made when create asks and it is not there yet:
   made by the first rate kept, so reading none adds nothing to the file), or NULL when the
   cache is
   off or the table cannot be made, and while a bulk job's statement is collected or
   answered from its batch: it runs again for each batch, and must ask the same questions
   in the same order each time (a rate learned from its first batch would reorder them). */
static sqlite3 *rate_db(Llm *llm, int create)
{
	if (!llm || llm->s.no_cache || (llm->bulk && (llm->bulk->collecting || llm->bulk->replies)))
		return NULL;
	llm_cache_ensure(llm);
	if (!llm->cache)
		return NULL;
	sqlite3 *db = llm_cache_db(llm->cache);
	if (create && sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS llm_rate("
	                 " key TEXT PRIMARY KEY,"          /* SHA-256 of the engine's name */
	                 " passed INTEGER NOT NULL,"
	                 " decided INTEGER NOT NULL,"
	                 " updated INTEGER NOT NULL DEFAULT (strftime('%s','now'))"
	                 ") WITHOUT ROWID", NULL, NULL, NULL) != SQLITE_OK)
		return NULL;
	return db;
}

static void rate_key(const char *what, char key[65])
{
	SuqlErr err = {0};
	if (llm_sha256_load(&err) != SUQL_OK) {
		err_clear(&err);
		key[0] = '\0';
		return;
	}
	llm_sha256_hex(what, strlen(what), key);
}

int llm_rate_get(Llm *llm, const char *what, long long *passed, long long *decided)
{
	*passed = *decided = 0;
	sqlite3 *db = rate_db(llm, 0);
	char key[65];
	if (!db || (rate_key(what, key), !key[0]))
		return 0;
	sqlite3_stmt *st = NULL;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT passed, decided FROM llm_rate WHERE key = ?", -1, &st,
	                       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			*passed = sqlite3_column_int64(st, 0);
			*decided = sqlite3_column_int64(st, 1);
			found = *decided > 0;
		}
	}
	sqlite3_finalize(st);
	return found;
}

void llm_rate_add(Llm *llm, const char *what, long long passed, long long decided)
{
	if (decided <= 0 || passed < 0 || passed > decided)
		return;
	sqlite3 *db = rate_db(llm, 1);
	char key[65];
	if (!db || (rate_key(what, key), !key[0]))
		return;
	/* a rate that cannot be written only costs the next statement its better guess */
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "INSERT INTO llm_rate(key, passed, decided) VALUES (?, ?, ?) "
	                       "ON CONFLICT(key) DO UPDATE SET passed = passed + excluded.passed, "
	                       "decided = decided + excluded.decided, "
	                       "updated = strftime('%s','now')", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, passed);
		sqlite3_bind_int64(st, 3, decided);
		sqlite3_step(st);
	}
	sqlite3_finalize(st);
}

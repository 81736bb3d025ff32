/*
 * llm_cache.c: remembering LLM results.
 *
 * Two layers, both keyed by the lower-case hex SHA-256 (OpenSSL EVP) of the backend, the
 * endpoint's origin (llm_endpoint.c), the model and the exact single-candidate request
 * (llm.c builds the key text). A key made before the origin was part of it is never
 * computed again: such entries are not found, nothing reads them, and :cache clear (or
 * removing the file) drops them:
 * - the memo: the results of the current statement, in memory, kept even with the cache
 *   off, so a statement never asks the same thing twice; llm_stats_begin clears it;
 * - the cache file: SQLite at $XDG_CACHE_HOME/suql/cache.db (else ~/.cache/suql/cache.db),
 *   in WAL mode with a busy timeout so several suql processes can share it. Results found
 *   during a run are queued and written in one transaction when the run ends.
 * Stored values are JSON texts of results; they never contain the API key.
 *
 * OpenSSL's libcrypto is loaded by the first run of calls (base/dynlib.h: libcrypto.so.3
 * from the package libssl3, or $SUQL_LIBCRYPTO), so that plain SQL never maps it.
 */
#include "base/dynlib.h"
#include "base/util.h"
#include "llm/llm_int.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The soname loaded below must be the one of the headers compiled against. */
#if !defined(OPENSSL_VERSION_MAJOR) || OPENSSL_VERSION_MAJOR != 3
#error "suql loads libcrypto.so.3: build it against OpenSSL 3's headers (libssl-dev)"
#endif

typedef struct CryptoTable {
	DYNLIB_FIELD(EVP_Digest)
	DYNLIB_FIELD(EVP_sha256)
} CryptoTable;

static const DynSym crypto_syms[] = {
	DYNLIB_SYM(CryptoTable, EVP_Digest) DYNLIB_SYM(CryptoTable, EVP_sha256) {NULL, 0}};
static CryptoTable crypto;
static DynLib crypto_lib = {"libcrypto.so.3", "libssl3", "SUQL_LIBCRYPTO", crypto_syms,
                            &crypto, 0};

SuqlStatus llm_sha256_load(SuqlErr *err)
{
	return dynlib_load(&crypto_lib, err);
}

void llm_sha256_hex(const char *data, size_t n, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	if (!crypto_lib.loaded || !crypto.EVP_Digest(data, n, md, &len, crypto.EVP_sha256(), NULL) ||
	    len != 32) {
		fputs("suql: SHA-256 is not available from OpenSSL\n", stderr);
		exit(SUQL_EXIT_USAGE);
	}
	static const char hex[] = "0123456789abcdef";
	for (unsigned i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

/* ---- the memo: a chained hash table of key -> value ---- */

typedef struct MemoEnt {
	struct MemoEnt *next;
	char *key, *value;
} MemoEnt;

struct LlmMemo {
	MemoEnt **b;
	size_t nb, n;
};

LlmMemo *llm_memo_new(void)
{
	LlmMemo *m = xcalloc(1, sizeof *m);
	m->nb = 256;
	m->b = xcalloc(m->nb, sizeof *m->b);
	return m;
}

static size_t memo_slot(const LlmMemo *m, const char *key)
{
	/* keys are hex digests: their first 8 digits are as good as any hash */
	size_t h = strtoul((char[9]){key[0], key[1], key[2], key[3], key[4], key[5], key[6],
	                             key[7], 0}, NULL, 16);
	return h & (m->nb - 1);
}

void llm_memo_clear(LlmMemo *m)
{
	if (m->n == 0)
		return;   /* the common case: a statement that asked nothing */
	for (size_t i = 0; i < m->nb; i++) {
		MemoEnt *e = m->b[i];
		while (e) {
			MemoEnt *nx = e->next;
			free(e->key);
			free(e->value);
			free(e);
			e = nx;
		}
		m->b[i] = NULL;
	}
	m->n = 0;
}

void llm_memo_free(LlmMemo *m)
{
	if (!m)
		return;
	llm_memo_clear(m);
	free(m->b);
	free(m);
}

const char *llm_memo_get(const LlmMemo *m, const char *key)
{
	for (MemoEnt *e = m->b[memo_slot(m, key)]; e; e = e->next)
		if (strcmp(e->key, key) == 0)
			return e->value;
	return NULL;
}

void llm_memo_put(LlmMemo *m, const char *key, const char *value)
{
	size_t h = memo_slot(m, key);
	for (MemoEnt *e = m->b[h]; e; e = e->next)
		if (strcmp(e->key, key) == 0) {
			free(e->value);
			e->value = xstrdup(value);
			return;
		}
	if (m->n >= m->nb * 2) {   /* grow */
		size_t onb = m->nb;
		MemoEnt **ob = m->b;
		m->nb *= 4;
		m->b = xcalloc(m->nb, sizeof *m->b);
		for (size_t i = 0; i < onb; i++)
			for (MemoEnt *e = ob[i], *nx; e; e = nx) {
				nx = e->next;
				size_t s = memo_slot(m, e->key);
				e->next = m->b[s];
				m->b[s] = e;
			}
		free(ob);
		h = memo_slot(m, key);
	}
	MemoEnt *e = xmalloc(sizeof *e);
	e->key = xstrdup(key);
	e->value = xstrdup(value);
	e->next = m->b[h];
	m->b[h] = e;
	m->n++;
}

/* ---- the cache file ---- */

typedef struct Pending {
	char *key, *kind, *value;
} Pending;

struct LlmCache {
	sqlite3 *db;
	sqlite3_stmt *get;   /* SELECT value ... WHERE key = ?, prepared once: asked per unit */
	char *path;
	Pending *q;
	int nq, capq;
	char *failure;       /* llm_cache_failure */
};

char *llm_cache_default_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg)
		return xprintf("%s/suql/cache.db", xdg);
	const char *home = getenv("HOME");
	return xprintf("%s/.cache/suql/cache.db", home && *home ? home : ".");
}

LlmCache *llm_cache_open(const char *path, SuqlErr *err)
{
	if (!util_make_parent_dirs(path)) {
		err_set(err, SUQL_IO, "cannot create the directory of the LLM cache %s: %s "
		        "(use --no-cache, or set XDG_CACHE_HOME)", path, strerror(errno));
		return NULL;
	}
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	const char *why = NULL;
	int detail = 0;   /* SQLite's message says more about why */
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(db, 5000);
		rc = sqlite3_exec(db,
			"PRAGMA journal_mode=WAL;"
			"PRAGMA synchronous=NORMAL;"
			"CREATE TABLE IF NOT EXISTS llm_cache("
			" key TEXT PRIMARY KEY,"      /* SHA-256 of backend, endpoint, model, request */
			" kind TEXT NOT NULL,"
			" value TEXT NOT NULL,"       /* the result, JSON */
			" created INTEGER NOT NULL DEFAULT (strftime('%s','now'))"
			") WITHOUT ROWID;", NULL, NULL, NULL);
	}
	if (rc == SQLITE_OK && sqlite3_db_readonly(db, "main") == 1) {
		rc = SQLITE_READONLY;
		why = "the file is read-only";
	}
	sqlite3_stmt *get = NULL, *put = NULL;
	if (rc == SQLITE_OK &&
	    (sqlite3_prepare_v2(db, "SELECT value FROM llm_cache WHERE key = ?", -1, &get,
	                        NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO llm_cache(key, kind, value) VALUES "
	                        "(?, ?, ?)", -1, &put, NULL) != SQLITE_OK)) {
		rc = SQLITE_ERROR;
		why = "it holds an llm_cache table that is not suql's";
		detail = 1;
	}
	sqlite3_finalize(put);
	if (rc != SQLITE_OK) {
		err_set(err, SUQL_IO, "the LLM cache %s cannot be used: %s%s%s", path,
		        why ? why : db ? sqlite3_errmsg(db) : sqlite3_errstr(rc), detail ? ": " : "",
		        detail ? sqlite3_errmsg(db) : "");
		sqlite3_finalize(get);
		sqlite3_close(db);
		return NULL;
	}
	LlmCache *c = xcalloc(1, sizeof *c);
	c->db = db;
	c->get = get;
	c->path = xstrdup(path);
	return c;
}

const char *llm_cache_failure(const LlmCache *c)
{
	return c ? c->failure : NULL;
}

/* The file stopped working (what: reading, writing): the client drops it (llm.c). */
static void failed(LlmCache *c, const char *what)
{
	if (!c->failure)
		c->failure = xprintf("%s %s failed: %s", what, c->path, sqlite3_errmsg(c->db));
}

void llm_cache_close(LlmCache *c)
{
	if (!c)
		return;
	llm_cache_flush(c);
	sqlite3_finalize(c->get);
	sqlite3_close(c->db);
	free(c->path);
	free(c->q);
	free(c->failure);
	free(c);
}

sqlite3 *llm_cache_db(LlmCache *c)
{
	return c->db;
}

const char *llm_cache_path(const LlmCache *c)
{
	return c->path;
}

char *llm_cache_get(LlmCache *c, const char *key)
{
	char *out = NULL;
	if (!c->get)
		return NULL;
	sqlite3_bind_text(c->get, 1, key, -1, SQLITE_STATIC);
	/* a cache that cannot be read is a miss; one that is damaged is given up */
	int rc = sqlite3_step(c->get);
	if (rc == SQLITE_ROW && sqlite3_column_text(c->get, 0))
		out = xstrdup((const char *)sqlite3_column_text(c->get, 0));
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE && rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
		failed(c, "reading");
	sqlite3_reset(c->get);
	sqlite3_clear_bindings(c->get);
	return out;
}

void llm_cache_put(LlmCache *c, const char *key, const char *kind, const char *value)
{
	if (c->nq == c->capq)
		c->q = xrealloc(c->q, (size_t)(c->capq = c->capq ? 2 * c->capq : 16) * sizeof *c->q);
	c->q[c->nq].key = xstrdup(key);
	c->q[c->nq].kind = xstrdup(kind);
	c->q[c->nq].value = xstrdup(value);
	c->nq++;
}

/* Forget the queued results. */
static void queue_drop(LlmCache *c)
{
	for (int i = 0; i < c->nq; i++) {
		free(c->q[i].key);
		free(c->q[i].kind);
		free(c->q[i].value);
	}
	c->nq = 0;
}

void llm_cache_flush(LlmCache *c)
{
	if (!c || !c->nq)
		return;
	sqlite3_stmt *st = NULL;
	/* A cache that cannot be written only costs later requests: results are still
	   returned, so failures here are not errors of the statement; but the file is given up
	   (llm_cache_failure), so that the session says so once and :cache shows it off. A
	   file another process holds (busy past the timeout) only loses this batch. */
	int rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_prepare_v2(c->db, "INSERT OR REPLACE INTO llm_cache(key, kind, value) "
		                        "VALUES (?, ?, ?)", -1, &st, NULL);
		for (int i = 0; i < c->nq && rc == SQLITE_OK; i++) {
			sqlite3_bind_text(st, 1, c->q[i].key, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, c->q[i].kind, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 3, c->q[i].value, -1, SQLITE_STATIC);
			rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(c->db);
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			char *m = xstrdup(sqlite3_errmsg(c->db));
			sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
			if (!c->failure)
				c->failure = xprintf("writing %s failed: %s", c->path, m);
			free(m);
		}
	} else if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) {
		failed(c, "writing");
	}
	queue_drop(c);
}

static long long file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

void llm_cache_report(LlmCache *c, SBuf *out)
{
	llm_cache_flush(c);
	long long entries = 0;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(c->db, "SELECT count(*) FROM llm_cache", -1, &st, NULL) ==
	        SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		entries = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	char *wal = xprintf("%s-wal", c->path);
	long long bytes = file_size(c->path) + file_size(wal);
	free(wal);
	sb_printf(out, "entries      %lld\n", entries);
	if (bytes >= 10 << 20)
		sb_printf(out, "size         %.1f MiB on disk\n", (double)bytes / 1048576.0);
	else
		sb_printf(out, "size         %.1f KiB on disk\n", (double)bytes / 1024.0);
	if (entries) {
		st = NULL;
		if (sqlite3_prepare_v2(c->db, "SELECT kind, count(*) FROM llm_cache GROUP BY kind "
		                       "ORDER BY kind", -1, &st, NULL) == SQLITE_OK) {
			sb_puts(out, "by kind     ");
			while (sqlite3_step(st) == SQLITE_ROW)
				sb_printf(out, " %s %lld", sqlite3_column_text(st, 0),
				          sqlite3_column_int64(st, 1));
			sb_putc(out, '\n');
		}
		sqlite3_finalize(st);
	}
}

SuqlStatus llm_cache_wipe(LlmCache *c, SuqlErr *err)
{
	queue_drop(c);
	if (sqlite3_exec(c->db, "DELETE FROM llm_cache", NULL, NULL, NULL) != SQLITE_OK)
		return err_set(err, SUQL_IO, "cannot clear the LLM cache %s: %s", c->path,
		               sqlite3_errmsg(c->db));
	/* the pass rates learned (llm_rate.c), when any were kept */
	sqlite3_exec(c->db, "DELETE FROM llm_rate", NULL, NULL, NULL);
	/* give the space back: checkpoint the WAL, then rebuild the file */
	sqlite3_exec(c->db, "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;", NULL, NULL, NULL);
	return SUQL_OK;
}

/*
 * store_pg.c: the PostgreSQL backend of the storage seam (store.h), through libpq. A
 * Store here is one connection, opened from a URI (postgresql://, postgres://) or a
 * keyword/value conninfo; libpq fills in what the text leaves out from the PG*
 * environment variables and ~/.pgpass. Statements are sent with PQexecParams, every
 * parameter as text (an array parameter is its text form, '{a,b}', bound as $1: never
 * pasted into the SQL); ?N in the seam's SQL is written $N before sending. A cursor holds
 * the whole result of its statement (PGresult): suql's own statements read few rows, and
 * the executor bounds what it asks for. The schema comes from the system catalogs of the
 * schemas on the search_path; suql keeps its own tables in the schema "suql" (catalog,
 * table_props, enum_map), which the listings hide.
 *
 * libpq is loaded when a PostgreSQL target is first opened (base/dynlib.h: libpq.so.5 from
 * the package libpq5, or $SUQL_LIBPQ), so that a session on SQLite never maps it; every
 * call goes through the table pq.
 */
#include "base/dynlib.h"
#include "base/util.h"
#include "store/store.h"

#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#define PQ_FUNCS(X) X(PQcancel) X(PQclear) X(PQconnectdb) X(PQdb) X(PQerrorMessage) \
	X(PQexec) X(PQexecParams) X(PQfinish) X(PQfname) X(PQfreeCancel) X(PQftype) \
	X(PQgetCancel) X(PQgetResult) X(PQgetisnull) X(PQgetvalue) X(PQhost) X(PQlibVersion) \
	X(PQnfields) X(PQntuples) X(PQport) X(PQputCopyData) X(PQputCopyEnd) \
	X(PQresultErrorField) X(PQresultStatus) X(PQserverVersion) X(PQsetClientEncoding) \
	X(PQsetNoticeProcessor) \
	X(PQstatus) X(PQtransactionStatus) X(PQuser)

typedef struct PqTable {
	PQ_FUNCS(DYNLIB_FIELD)
} PqTable;

#define PQ_SYM(f) DYNLIB_SYM(PqTable, f)
static const DynSym pq_syms[] = {PQ_FUNCS(PQ_SYM) {NULL, 0}};
static PqTable pq;
static DynLib pq_lib = {"libpq.so.5", "libpq5", "SUQL_LIBPQ", pq_syms, &pq, 0};

typedef struct PgStore {
	Store base;
	PGconn *conn;
	PGcancel *cancel;     /* made at open: PQcancel is safe in a signal handler */
	char *version;
	long err_off;         /* the last error's place in its statement (bytes), -1: none */
} PgStore;

typedef struct PgCursor {
	StoreCursor base;
	PGresult *res;
	int row;              /* the current row, -1 before the first */
} PgCursor;

static const StoreOps pg_ops;

static PGconn *conn_of(Store *s)
{
	return ((PgStore *)s)->conn;
}

int store_pg_target(const char *path)
{
	return path && (strncmp(path, "postgresql://", 13) == 0 ||
	                strncmp(path, "postgres://", 11) == 0 || strncmp(path, "pg:", 3) == 0);
}

/* The server's message (its primary text, and the hint when there is one), or libpq's;
   the place in the statement, when the server gave one, is kept for store_pg_error_offset
   (Postgres counts characters from 1; kept as a byte offset). */
static SuqlStatus pg_err(Store *s, const PGresult *r, const char *sql, SuqlErr *err)
{
	PgStore *q = (PgStore *)s;
	q->err_off = -1;
	const char *prim = r ? pq.PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *hint = r ? pq.PQresultErrorField(r, PG_DIAG_MESSAGE_HINT) : NULL;
	const char *pos = r ? pq.PQresultErrorField(r, PG_DIAG_STATEMENT_POSITION) : NULL;
	const char *code = r ? pq.PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	SuqlStatus st = code && strcmp(code, "57014") == 0 ? SUQL_INTERRUPT : SUQL_ERROR;
	if (pos && sql) {
		long chars = atol(pos) - 1, i = 0;
		const unsigned char *p = (const unsigned char *)sql;
		for (; p[i] && chars > 0; i++)
			if ((p[i + 1] & 0xC0) != 0x80)
				chars--;
		q->err_off = i;
	}
	if (prim)
		return hint ? err_set(err, st, "%s (%s)", prim, hint) : err_set(err, st, "%s", prim);
	const char *m = pq.PQerrorMessage(q->conn);
	size_t n = strlen(m);
	while (n && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	return err_set(err, st, "%.*s", (int)n, n ? m : "PostgreSQL failed");
}

long store_pg_error_offset(Store *s)
{
	return s && s->ops == &pg_ops ? ((PgStore *)s)->err_off : -1;
}

/* ?N outside quotes becomes $N (the seam writes parameters as SQLite does); *most is the
   highest N (or $N) written: Postgres wants exactly as many parameters as the text uses. */
static char *dollars(const char *sql, int *most)
{
	SBuf b = SBUF_INIT;
	*most = 0;
	for (const char *p = sql; *p; p++) {
		if (*p == '\'' || *p == '"') {
			char q = *p;
			sb_putc(&b, *p++);
			while (*p && *p != q)
				sb_putc(&b, *p++);
			if (!*p)
				break;
			sb_putc(&b, *p);
		} else if ((*p == '?' || *p == '$') && p[1] >= '1' && p[1] <= '9') {
			int n = atoi(p + 1);
			if (n > *most)
				*most = n;
			sb_putc(&b, '$');
		} else {
			sb_putc(&b, *p);
		}
	}
	return sb_steal(&b);
}

static PGresult *exec_params(Store *s, const char *sql, const char *const *params, int nparams)
{
	if (!params)
		return pq.PQexec(conn_of(s), sql);
	int most;
	char *q = dollars(sql, &most);
	PGresult *r = pq.PQexecParams(conn_of(s), q, nparams < most ? nparams : most, NULL, params,
	                           NULL, NULL, 0);
	free(q);
	return r;
}

static int ok(const PGresult *r)
{
	ExecStatusType t = pq.PQresultStatus(r);
	return t == PGRES_COMMAND_OK || t == PGRES_TUPLES_OK || t == PGRES_EMPTY_QUERY;
}

static void pg_close(Store *s)
{
	PgStore *q = (PgStore *)s;
	if (q->cancel)
		pq.PQfreeCancel(q->cancel);
	pq.PQfinish(q->conn);
	free(q->version);
	free(q);
}

static SuqlStatus pg_run(Store *s, const char *sql, const char *const *params, int nparams,
                         SuqlErr *err)
{
	PGresult *r = exec_params(s, sql, params, nparams);
	SuqlStatus st = ok(r) ? SUQL_OK : pg_err(s, r, sql, err);
	pq.PQclear(r);
	return st;
}

static SuqlStatus pg_query(Store *s, const char *sql, const char *const *params, int nparams,
                           StoreCursor **out, SuqlErr *err)
{
	*out = NULL;
	PGresult *r = exec_params(s, sql, params ? params : (const char *const[]){NULL},
	                          params ? nparams : 0);
	if (!ok(r)) {
		SuqlStatus st = pg_err(s, r, sql, err);
		pq.PQclear(r);
		return st;
	}
	PgCursor *c = xcalloc(1, sizeof *c);
	c->base.ops = &pg_ops;
	c->res = r;
	c->row = -1;
	*out = &c->base;
	return SUQL_OK;
}

static PgCursor *cur(StoreCursor *c)
{
	return (PgCursor *)c;
}

static int pg_next(StoreCursor *c)
{
	PgCursor *p = cur(c);
	if (p->row + 1 >= pq.PQntuples(p->res))
		return 0;
	p->row++;
	return 1;
}

static const char *pg_text(StoreCursor *c, int col)
{
	PgCursor *p = cur(c);
	if (p->row < 0 || col < 0 || col >= pq.PQnfields(p->res) ||
	    pq.PQgetisnull(p->res, p->row, col))
		return NULL;
	return pq.PQgetvalue(p->res, p->row, col);
}

static long long pg_integer(StoreCursor *c, int col)
{
	const char *t = pg_text(c, col);
	if (!t)
		return 0;
	if (strcmp(t, "t") == 0)
		return 1;
	return strtoll(t, NULL, 10);
}

static size_t pg_bytes(StoreCursor *c, int col)
{
	const char *t = pg_text(c, col);
	return t ? strlen(t) : 0;
}

static void pg_done(StoreCursor *c)
{
	pq.PQclear(cur(c)->res);
	free(c);
}

static int pg_ncols(StoreCursor *c)
{
	return pq.PQnfields(cur(c)->res);
}

static const char *pg_colname(StoreCursor *c, int col)
{
	return pq.PQfname(cur(c)->res, col);
}

/* Type OIDs of pg_type.h (stable across releases) that read as numbers. */
static StoreKind pg_kind(StoreCursor *c, int col)
{
	PgCursor *p = cur(c);
	if (p->row >= 0 && pq.PQgetisnull(p->res, p->row, col))
		return STORE_NULL;
	switch (pq.PQftype(p->res, col)) {
	case 20: case 21: case 23: case 26:          /* int8 int2 int4 oid */
		return STORE_INTEGER;
	case 700: case 701: case 1700:               /* float4 float8 numeric */
		return STORE_REAL;
	default:
		return STORE_TEXT;
	}
}

static int pg_has_table(Store *s, const char *name)
{
	const char *args[] = {name};
	PGresult *r = exec_params(s, "SELECT to_regclass(quote_ident(?1)) IS NOT NULL OR "
	                             "(position('.' in ?1) > 0 AND to_regclass(?1) IS NOT NULL)",
	                          args, 1);
	int found = pq.PQresultStatus(r) == PGRES_TUPLES_OK && pq.PQntuples(r) == 1 &&
	            strcmp(pq.PQgetvalue(r, 0, 0), "t") == 0;
	pq.PQclear(r);
	return found;
}

/* r holds rows (their number in *rows), or the error is in err and r is cleared. */
static SuqlStatus tuples(Store *s, PGresult *r, int *rows, SuqlErr *err)
{
	*rows = 0;
	if (pq.PQresultStatus(r) == PGRES_TUPLES_OK) {
		*rows = pq.PQntuples(r);
		return SUQL_OK;
	}
	pg_err(s, r, NULL, err);
	pq.PQclear(r);
	return SUQL_ERROR;
}

/* The tables and views of the schemas on the search_path, but suql's own tables (in the
   schema suql). Not the whole schema: for a role named suql the default search_path
   ("$user", public) puts that schema first, so the user's own CREATE TABLE lands there. */
static SuqlStatus pg_tables(Store *s, StoreTable **out, int *n, SuqlErr *err)
{
	*out = NULL;
	*n = 0;
	PGresult *r = pq.PQexec(conn_of(s),
		"SELECT c.relname, c.relkind IN ('v', 'm'), "
		"CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid, true) END "
		"FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace "
		"WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND ns.nspname = ANY(current_schemas(false)) "
		"AND NOT (ns.nspname = 'suql' AND c.relname IN ('catalog', 'table_props', 'ret_index', 'ret_psg', 'ret_term', "
		"'enum_map')) AND pg_table_is_visible(c.oid) ORDER BY 1");
	int rows;
	if (tuples(s, r, &rows, err) != SUQL_OK)
		return SUQL_ERROR;
	*out = xcalloc(rows ? (size_t)rows : 1, sizeof **out);
	for (int i = 0; i < rows; i++) {
		StoreTable *t = &(*out)[i];
		t->name = xstrdup(pq.PQgetvalue(r, i, 0));
		t->view = strcmp(pq.PQgetvalue(r, i, 1), "t") == 0;
		t->sql = pq.PQgetisnull(r, i, 2) ? NULL : xstrdup(pq.PQgetvalue(r, i, 2));
	}
	*n = rows;
	pq.PQclear(r);
	return SUQL_OK;
}

static SuqlStatus pg_columns(Store *s, const char *table, StoreColumn **out, int *n,
                             SuqlErr *err)
{
	*out = NULL;
	*n = 0;
	const char *args[] = {table};
	PGresult *r = exec_params(s,
		"SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
		"pg_get_expr(d.adbin, d.adrelid), coalesce(array_position(i.indkey::int2[], a.attnum) + 1 - "
		"array_lower(i.indkey::int2[], 1), 0) "
		"FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND "
		"d.adnum = a.attnum LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary "
		"WHERE a.attrelid = coalesce(to_regclass(quote_ident(?1)), to_regclass(?1)) "
		"AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum", args, 1);
	int rows;
	if (tuples(s, r, &rows, err) != SUQL_OK)
		return SUQL_ERROR;
	*out = xcalloc(rows ? (size_t)rows : 1, sizeof **out);
	for (int i = 0; i < rows; i++) {
		StoreColumn *c = &(*out)[i];
		c->name = xstrdup(pq.PQgetvalue(r, i, 0));
		c->type = xstrdup(pq.PQgetvalue(r, i, 1));
		c->notnull = strcmp(pq.PQgetvalue(r, i, 2), "t") == 0;
		c->dflt = pq.PQgetisnull(r, i, 3) ? NULL : xstrdup(pq.PQgetvalue(r, i, 3));
		c->pk = atoi(pq.PQgetvalue(r, i, 4));
	}
	*n = rows;
	pq.PQclear(r);
	if (rows == 0)
		return err_set(err, SUQL_ERROR, "no such table: %s", table);
	return SUQL_OK;
}

static void pg_interrupt(Store *s)
{
	PgStore *q = (PgStore *)s;
	char buf[256];
	if (q->cancel)
		pq.PQcancel(q->cancel, buf, (int)sizeof buf);
}

/* A lock another session holds: wait that long (lock_timeout), then fail. */
static void pg_busy_timeout(Store *s, double seconds)
{
	char sql[64];
	snprintf(sql, sizeof sql, "SET lock_timeout = %ld", (long)(seconds * 1000));
	pq.PQclear(pq.PQexec(conn_of(s), sql));
}

/* PostgreSQL's own limit on a value (1 GB) holds; suql does not lower it. */
static int pg_value_limit(Store *s, int bytes)
{
	(void)s, (void)bytes;
	return 0;
}

static sqlite3 *pg_sqlite(Store *s)
{
	(void)s;
	return NULL;
}

static const char *pg_version(Store *s)
{
	return ((PgStore *)s)->version;
}

/* A list is an array here; values in SQLite's (binary) order. */
static SuqlStatus pg_top_values(Store *s, const char *table, const char *column, int list,
                                StoreCursor **out, SuqlErr *err)
{
	SBuf t = SBUF_INIT, col = SBUF_INIT;
	sb_put_ident(&t, table, strlen(table));
	sb_put_ident(&col, column, strlen(column));
	char *q;
	if (list)
		q = xprintf("SELECT v, count(*) AS n, count(*) OVER () FROM (SELECT unnest(%s)::text "
		            "AS v FROM (SELECT %s FROM %s LIMIT 20000) AS s) AS u WHERE v IS NOT NULL "
		            "GROUP BY v ORDER BY n DESC, v COLLATE \"C\" LIMIT 12", col.s, col.s, t.s);
	else
		q = xprintf("SELECT v, count(*) AS n, count(*) OVER () FROM (SELECT %s::text AS v "
		            "FROM %s LIMIT 20000) AS s WHERE v IS NOT NULL GROUP BY v ORDER BY n DESC, "
		            "v COLLATE \"C\" LIMIT 12", col.s, t.s);
	sb_free(&t);
	sb_free(&col);
	SuqlStatus st = store_query(s, q, NULL, 0, out, err);
	free(q);
	return st;
}

static const StoreOps pg_ops = {
	"PostgreSQL", pg_close, pg_run, pg_query, pg_next, pg_text, pg_integer, pg_done,
	pg_has_table, pg_tables, pg_columns, pg_interrupt, pg_busy_timeout, pg_value_limit,
	pg_sqlite, pg_ncols, pg_colname, pg_kind, pg_version, pg_bytes, "suql.", "ctid::text",
	pg_top_values,
};

/* Notices ("schema suql already exists, skipping") are not printed over the output. */
static void quiet(void *arg, const char *message)
{
	(void)arg, (void)message;
}

/* libpq's last message on conn, without its trailing newline (its length in *n). */
static const char *conn_message(PGconn *conn, int *n)
{
	const char *m = pq.PQerrorMessage(conn);
	size_t len = strlen(m);
	while (len && (m[len - 1] == '\n' || m[len - 1] == ' '))
		len--;
	*n = (int)len;
	return m;
}

Store *store_pg_open(const char *target, SuqlErr *err)
{
	if (dynlib_load(&pq_lib, err) != SUQL_OK)
		return NULL;
	const char *conninfo = strncmp(target, "pg:", 3) == 0 ? target + 3 : target;
	PGconn *conn = pq.PQconnectdb(conninfo);
	if (pq.PQstatus(conn) != CONNECTION_OK) {
		int n;
		const char *m = conn_message(conn, &n);
		/* the conninfo is not repeated: it may hold a password */
		err_set(err, SUQL_IO, "cannot connect to PostgreSQL: %.*s; check the host, port, "
		        "user and database (PGHOST, PGPORT, PGUSER, PGDATABASE, ~/.pgpass)", n, m);
		pq.PQfinish(conn);
		return NULL;
	}
	/* suql speaks UTF-8 (prompts are JSON, the terminal shows UTF-8): the server converts
	   its texts to it, whatever the database's encoding */
	if (pq.PQsetClientEncoding(conn, "UTF8") != 0) {
		int n;
		const char *m = conn_message(conn, &n);
		err_set(err, SUQL_IO, "PostgreSQL would not send text as UTF-8: %.*s", n, m);
		pq.PQfinish(conn);
		return NULL;
	}
	PgStore *q = xcalloc(1, sizeof *q);
	q->base.ops = &pg_ops;
	q->conn = conn;
	q->cancel = pq.PQgetCancel(conn);
	int v = pq.PQserverVersion(conn);
	char buf[32];
	snprintf(buf, sizeof buf, "%d.%d", v / 10000, v % 10000);
	q->version = xstrdup(buf);
	pq.PQsetNoticeProcessor(conn, quiet, NULL);
	return &q->base;
}

char *store_pg_describe(Store *s)
{
	PGconn *c = conn_of(s);
	const char *host = pq.PQhost(c);
	return xprintf("PostgreSQL database %s as %s on %s%s, port %s", pq.PQdb(c), pq.PQuser(c),
	               host && *host == '/' ? "the socket in " : "", host ? host : "localhost",
	               pq.PQport(c));
}

int store_pg_libversion(SuqlErr *err)
{
	return dynlib_load(&pq_lib, err) == SUQL_OK ? pq.PQlibVersion() : 0;
}

SuqlStatus store_pg_copy(Store *s, const char *sql, const char *data, size_t len, SuqlErr *err)
{
	if (!s || s->ops != &pg_ops)
		return err_set(err, SUQL_ERROR, "COPY needs a PostgreSQL database");
	PGconn *c = conn_of(s);
	PGresult *r = pq.PQexec(c, sql);
	if (pq.PQresultStatus(r) != PGRES_COPY_IN) {
		SuqlStatus st = pg_err(s, r, sql, err);
		pq.PQclear(r);
		return st;
	}
	pq.PQclear(r);
	int ok_data = 1;
	for (size_t off = 0; off < len && ok_data;) {   /* in pieces libpq takes as an int */
		size_t n = len - off > (1u << 20) ? (1u << 20) : len - off;
		ok_data = pq.PQputCopyData(c, data + off, (int)n) == 1;
		off += n;
	}
	if (pq.PQputCopyEnd(c, ok_data ? NULL : "suql could not send the rows") != 1)
		ok_data = 0;
	SuqlStatus st = SUQL_OK;
	while ((r = pq.PQgetResult(c)) != NULL) {
		if (st == SUQL_OK && pq.PQresultStatus(r) != PGRES_COMMAND_OK)
			st = pg_err(s, r, NULL, err);
		pq.PQclear(r);
	}
	if (st == SUQL_OK && !ok_data)
		st = pg_err(s, NULL, NULL, err);
	return st;
}

int store_pg_in_transaction(Store *s)
{
	if (!s || s->ops != &pg_ops)
		return 0;
	PGTransactionStatusType t = pq.PQtransactionStatus(conn_of(s));
	return t == PQTRANS_INTRANS || t == PQTRANS_INERROR;
}

int store_pg_in_failed_transaction(Store *s)
{
	if (!s || s->ops != &pg_ops)
		return 0;
	return pq.PQtransactionStatus(conn_of(s)) == PQTRANS_INERROR;
}

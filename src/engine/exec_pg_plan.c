/*
 * exec_pg_plan.c: the statements of the SQLite planner and walk printed for PostgreSQL
 * (PRINT_PG), at the bottom of the engine's groups beside exec.c, whose exec_print_select
 * prints through it. A statement with free text on PostgreSQL is run by exec_pg_run.c
 * with the SQLite backend's own planner and walk (plan.c, plan_unit.c, exec_walk.c,
 * exec_final.c's evaluation ahead), so
 * the units, waves, batches and calls are theirs; only the statements they run go to
 * Postgres, printed through exec_pg_plan_hook:
 *
 *  - an occurrence (the suql_* call bind_occ_mutate put in its place) becomes a look-up
 *    of its value in a JSON object bound as a parameter, each text it was evaluated for
 *    a key of its result: ($1::jsonb ->> <the argument's text>)::boolean, cast as a
 *    typed answer is (map_param says why an object). This is the memo read by
 *    SQLite's functions, moved into the statement: keyed by the text, it works wherever
 *    the occurrence stands (WHERE, ORDER BY, GROUP BY, a CTE) and a text not evaluated
 *    reads NULL, as a planned miss does in SQLite. The values are parameters of
 *    PQexecParams, never text in the SQL;
 *  - a semantic join's suql_match(l, r, id) becomes a test of the pair of texts against
 *    the pairs matched, and those whose verdict is unknown, bound as arrays of their left
 *    and right texts ((l, r) IN (SELECT * FROM unnest($1::text[], $2::text[])), hashed
 *    once), any other pair no match, as SQLite's suql_match reads the memo once the join
 *    ran;
 *  - the rows a lazy walk passed are kept to in the final statement by their identity
 *    (bind_scope.c finds it: a key of integers, t.id = ANY($n::bigint[]), else the
 *    ctid, t.ctid = ANY($n::tid[])), as SQLite keeps to their rowids;
 *  - a row's identity in a walk is its key, else its ctid as a number (block * 65536 +
 *    offset), an unnest() element's its ordinality (the item is printed WITH ORDINALITY, its number
 *    named suql_ord), and its texts come with the candidates (Postgres is not asked again
 *    per candidate).
 */
#include "engine/op_int.h"
#include "engine/sql_int.h"
#include "llm/spec.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PP_J*: a semantic join's pairs with a verdict of yes (PP_JYES_*) or unknown (PP_JUNK_*),
   their left (_L) or right (_R) texts */
typedef enum PpKind {
	PP_MAP, PP_KEEP, PP_JYES_L, PP_JYES_R, PP_JUNK_L, PP_JUNK_R
} PpKind;

struct PgParam {
	int kind;             /* PpKind */
	int x;                /* PP_MAP: the signature; PP_KEEP: the block;
	                         PP_J*: the join */
};

/* The parameters of a statement printed for Postgres: each a pair of arrays (the texts a
   signature was evaluated for, and their results) or the rows a walk kept (keys or ctids). */
typedef struct PgBind {
	struct PgParam *p;
	int n;
} PgBind;

/* Per Exec: the parameters of the statement printed last, and the printing state. */
typedef struct PgState {
	PgBind b;
	int final;            /* printing the final statement: walked blocks keep to their rows */
	const Expr *inside;   /* the WHERE being printed by the keep rule itself */
	int running;          /* printing a statement the planner or the walk runs now (not the
	                         final statement, nor the plan's display of it) */
	int nodata;           /* printing without parameters: free text as typed NULLs (the
	                         WITH NO DATA of CREATE TABLE ... AS) */
} PgState;

/* The statement's PostgreSQL state (Exec.backend: the backend's own). */
static PgState *state(Exec *ex)
{
	if (!ex->backend)
		ex->backend = xcalloc(1, sizeof(PgState));
	return ex->backend;
}

int exec_pg_plan_nparams(Exec *ex)
{
	return state(ex)->b.n;
}

void exec_pg_plan_unbind(Exec *ex)
{
	state(ex)->b.n = 0;
}

/* Whether what is printed now is a statement the planner or the walk runs at once
   (exec_print_select), not the final statement or the plan's display of it: a semantic
   join not asked yet reads as a match there, as SQLite counts it. */
static void exec_pg_plan_running(Exec *ex, int on)
{
	state(ex)->running = on;
}

void exec_pg_plan_nodata(Exec *ex, int on)
{
	state(ex)->nodata = on;
}

void exec_pg_plan_free(Exec *ex)
{
	PgState *ps = ex->backend;
	if (!ps)
		return;
	free(ps->b.p);
	free(ps);
	ex->backend = NULL;
}

/* Relaxed as SQLite's printing is while counting (exec_relax_hook), and free text read
   from the bound values (exec_pg_plan_hook). */
static int pg_hook(void *ctx, Printer *pr, const Expr *e)
{
	Exec *ex = ctx;
	if (ex->relaxing && exec_relax_hook(ctx, pr, e))
		return 1;
	return exec_pg_plan_hook(ctx, pr, e);
}

char *exec_pg_plan_print_select(Exec *ex, Select *s)
{
	PrintHooks ph = {ex, pg_hook, exec_pg_plan_from};
	exec_pg_plan_unbind(ex);
	Printer *pr = print_new(PRINT_PG, &ph, ex->ast->src, ex->ast->src_off);
	exec_pg_plan_running(ex, 1);
	print_select(pr, s);
	exec_pg_plan_running(ex, 0);
	char *t = print_steal(pr);
	print_free(pr);
	return t;
}

static int param(Exec *ex, int kind, int x)
{
	PgBind *pb = &state(ex)->b;
	for (int i = 0; i < pb->n; i++)
		if (pb->p[i].kind == kind && pb->p[i].x == x)
			return i + 1;
	pb->p = xrealloc(pb->p, ((size_t)pb->n + 1) * sizeof *pb->p);
	pb->p[pb->n].kind = kind;
	pb->p[pb->n].x = x;
	return ++pb->n;
}

/* The Postgres type a typed answer converts to (SQLite's CAST AS INTEGER is 64-bit). */
static const char *pg_type(PgType pg)
{
	switch (pg) {
	case PGT_DATE: return "date";
	case PGT_TIMESTAMP: return "timestamp";
	case PGT_TIME: return "time";
	case PGT_INT: return "bigint";
	case PGT_REAL: return "double precision";
	case PGT_NUMERIC: return "numeric";
	case PGT_BOOL: return "boolean";
	default: return NULL;
	}
}

/* A free-text argument's text: a list (text[]) as a JSON array, as SQLite keeps it, so
   that the model sees the same passages from both backends; anything else as text. */
static void exec_pg_plan_print_text(Printer *pr, const Expr *arg)
{
	if (arg->kind == EX_LITERAL && (arg->lit == LIT_STRING || arg->lit == LIT_NULL)) {
		/* a literal is no list, and Postgres cannot take to_json() of an untyped one */
		print_raw(pr, "(");
		print_expr(pr, arg);
		print_raw(pr, ")::text");
		return;
	}
	print_raw(pr, "CASE WHEN json_typeof(to_json(");
	print_expr(pr, arg);
	print_raw(pr, ")) = 'array' THEN to_json(");
	print_expr(pr, arg);
	print_raw(pr, ")::text ELSE (");
	print_expr(pr, arg);
	print_raw(pr, ")::text END");
}

static void pr_lookup(Exec *ex, Printer *pr, const Occ *o)
{
	const Sig *s = &ex->sigs[o->sig];
	const char *type = s->kind == FT_ANSWER ? pg_type(s->pg) : NULL;
	char buf[160];
	if (state(ex)->nodata) {   /* the value's type, no value */
		snprintf(buf, sizeof buf, "CAST(CAST(NULL AS %s) AS %s)",
		         s->kind == FT_VERIFY ? "boolean" : "text",
		         type ? type : s->kind == FT_VERIFY ? "boolean" : "text");
		print_raw(pr, buf);
		return;
	}
	int m = param(ex, PP_MAP, o->sig);
	if (type)
		print_raw(pr, "CAST(");
	snprintf(buf, sizeof buf, "($%d::jsonb ->> ", m);
	print_raw(pr, buf);
	exec_pg_plan_print_text(pr, o->arg);
	print_raw(pr, s->kind == FT_VERIFY ? ")::boolean" : ")");
	if (type) {
		print_raw(pr, " AS ");
		print_raw(pr, type);
		print_raw(pr, ")");
	}
}

/* The occurrence whose call e is (a literal question), or NULL. */
static const Occ *occ_of(const Exec *ex, const Expr *e)
{
	for (int i = 0; e && i < ex->nocc; i++)
		if (e == ex->occ[i].call && ex->occ[i].sig >= 0)
			return &ex->occ[i];
	return NULL;
}

/* The Postgres type SQLite's ->> gives field f of an extract() spec: its numbers and
   booleans typed, dates and text as text (NULL). */
static const char *field_type(const Exec *ex, const Occ *o, const Expr *key)
{
	if (key->kind != EX_LITERAL || key->lit != LIT_STRING)
		return NULL;
	char *name = ast_name_value(ex->a, key->name);
	Spec sp = {0};
	const char *type = NULL;
	if (name && spec_parse(ex->sigs[o->sig].question, &sp, NULL) == SUQL_OK)
		for (int i = 0; i < sp.n && !type; i++)
			if (str_ieq(sp.f[i].name, name[0] == '$' && name[1] == '.' ? name + 2 : name))
				type = sp.f[i].type == SPEC_INT ? "bigint" : sp.f[i].type == SPEC_REAL
				       ? "double precision" : sp.f[i].type == SPEC_BOOL ? "boolean" : "";
	spec_free(&sp);
	return type && *type ? type : NULL;
}

/* extract(t, 'spec') -> 'key' and ->> 'key': the object is JSON text in the memo (kept as
   the text SQLite returns when it is a whole value); under -> and ->> it is read as json,
   and a field of a number or boolean type comes out typed, as SQLite's ->> gives it. */
static int pr_extract_field(Exec *ex, Printer *pr, const Expr *e)
{
	if (e->kind != EX_BINARY || (e->op != OP_PTR && e->op != OP_PTR2))
		return 0;
	const Occ *o = occ_of(ex, e->left);
	if (!o || ex->sigs[o->sig].kind != FT_EXTRACT)
		return 0;
	const char *type = e->op == OP_PTR2 ? field_type(ex, o, e->right) : NULL;
	print_raw(pr, type ? "CAST((CAST(" : "(CAST(");
	pr_lookup(ex, pr, o);
	print_raw(pr, e->op == OP_PTR2 ? " AS json) ->> " : " AS json) -> ");
	print_expr(pr, e->right);
	print_raw(pr, ")");
	if (type) {
		print_raw(pr, " AS ");
		print_raw(pr, type);
		print_raw(pr, ")");
	}
	return 1;
}

/* The aggregate whose call suql_agg(id, text) e is (bind_occ_mutate made it), or NULL. */
static const AggOcc *agg_of(const Exec *ex, const Expr *e)
{
	if (e->kind != EX_FUNC || !ast_name_is(e->name, "suql_agg") || !e->list ||
	    e->list->n != 2 || e->list->items[0]->kind != EX_LITERAL)
		return NULL;
	long id = strtol(e->list->items[0]->name.s, NULL, 10);
	const AggState *as = ex->opstate[OP_AGG];   /* the aggregates' (exec_agg.c) */
	return as && id >= 0 && id < as->n ? &as->a[id] : NULL;
}

/* A group's key as suql_agg's step builds it in SQLite: the texts that are not NULL,
   joined by \x1e, in the order SQLite reads the rows: by each table's integer primary key
   (SQLite's rowid), else its ctid (the order of rows inserted in order, mostly: an insert
   may fill an earlier page's free space). */
static void pr_agg_key(Exec *ex, Printer *pr, const AggOcc *ag, const Expr *call)
{
	print_raw(pr, "string_agg(");
	exec_pg_plan_print_text(pr, call->list->items[1]);
	print_raw(pr, ", chr(30)");
	const Block *b = ag->block >= 0 ? &ex->blocks[ag->block] : NULL;
	SBuf q = SBUF_INIT;
	for (int i = 0; b && i < b->nitems; i++) {
		if (b->items[i].kind != IT_TABLE)
			continue;
		const ScopeItem *it = &b->items[i];
		sb_puts(&q, q.len ? ", " : " ORDER BY ");
		sb_put_ident(&q, it->name, strlen(it->name));
		sb_putc(&q, '.');
		if (it->rowkey)
			sb_put_ident(&q, it->rowkey, strlen(it->rowkey));
		else
			sb_puts(&q, "ctid");   /* unquoted: a system column */
	}
	print_raw(pr, sb_str(&q));
	sb_free(&q);
	print_raw(pr, ")");
}

/* answer_agg() and summary_agg(): the group's answer looked up by its key in the arrays
   of the groups answered (exec_agg.c keys its memo by the same text). */
static int pr_agg(Exec *ex, Printer *pr, const Expr *e)
{
	const AggOcc *ag = agg_of(ex, e);
	if (!ag)
		return 0;
	char buf[96];
	if (state(ex)->nodata) {
		print_raw(pr, "CAST(NULL AS text)");
		return 1;
	}
	snprintf(buf, sizeof buf, "($%d::jsonb ->> ", param(ex, PP_MAP, ag->sig));
	print_raw(pr, buf);
	pr_agg_key(ex, pr, ag, e);
	print_raw(pr, ")");
	return 1;
}

/* (l, r) IN the pairs of two arrays bound as parameters: an uncorrelated subquery, which
   Postgres hashes once (a look-up per row, not a pass over the pairs). */
static void pr_pairs_in(Exec *ex, Printer *pr, const Expr *l, const Expr *r, int kl, int kr,
                        int id)
{
	char buf[128];
	print_raw(pr, "(");
	exec_pg_plan_print_text(pr, l);
	print_raw(pr, ", ");
	exec_pg_plan_print_text(pr, r);
	int pl = param(ex, kl, id), pq = param(ex, kr, id);
	snprintf(buf, sizeof buf, ") IN (SELECT * FROM unnest($%d::text[], $%d::text[]))", pl,
	         pq);
	print_raw(pr, buf);
}

/* suql_match(l, r, id): NULL when a side is NULL; once the join asked its pairs, true for
   a pair the model matched, NULL for one whose verdict could not be read, false for every
   other (asked and not matched, or not asked), as SQLite's suql_match reads the memo once
   the join ran: the pairs' texts are bound as arrays, never SQL. In a statement run before
   that (the planner's counts), every pair of values is a match, as SQLite counts it. */
static int pr_match(Exec *ex, Printer *pr, const Expr *e)
{
	if (e->kind != EX_FUNC || !ast_name_is(e->name, "suql_match") || !e->list ||
	    e->list->n != 3 || e->list->items[2]->kind != EX_LITERAL)
		return 0;
	long id = strtol(e->list->items[2]->name.s, NULL, 10);
	const JoinState *js = ex->opstate[OP_JOIN];   /* the semantic join's (exec_join.c) */
	if (!js || id < 0 || id >= js->n)
		return 0;
	const Expr *l = e->list->items[0], *r = e->list->items[1];
	print_raw(pr, "CASE WHEN (");
	print_expr(pr, l);
	print_raw(pr, ") IS NULL OR (");
	print_expr(pr, r);
	print_raw(pr, ") IS NULL THEN NULL ");
	if (state(ex)->nodata) {
		print_raw(pr, "ELSE CAST(NULL AS boolean) END");
		return 1;
	}
	if (!js->j[id].ran && state(ex)->running) {
		print_raw(pr, "ELSE true END");
		return 1;
	}
	print_raw(pr, "WHEN ");
	pr_pairs_in(ex, pr, l, r, PP_JYES_L, PP_JYES_R, (int)id);
	print_raw(pr, " THEN true WHEN ");
	pr_pairs_in(ex, pr, l, r, PP_JUNK_L, PP_JUNK_R, (int)id);
	print_raw(pr, " THEN NULL ELSE false END");
	return 1;
}

int exec_pg_plan_hook(void *ctx, Printer *pr, const Expr *e)
{
	Exec *ex = ctx;
	PgState *ps = state(ex);
	if (pr_extract_field(ex, pr, e) || pr_agg(ex, pr, e) || pr_match(ex, pr, e))
		return 1;
	if (e->kind == EX_FUNC && e->list && e->list->n == 1) {
		Expr *x = e->list->items[0];
		if (ast_name_is(e->name, "suql_pg_text")) {
			exec_pg_plan_print_text(pr, x);
			return 1;
		}
		const AggOcc *ag = agg_of(ex, x);
		if (ast_name_is(e->name, "suql_pg_aggkey") && ag) {
			pr_agg_key(ex, pr, ag, x);
			return 1;
		}
		if (ast_name_is(e->name, "suql_pg_rowid")) {
			print_raw(pr, "((");
			print_expr(pr, x);
			print_raw(pr, "::text::point)[0]::bigint * 65536 + (");
			print_expr(pr, x);
			print_raw(pr, "::text::point)[1]::bigint)");
			return 1;
		}
	}
	for (int i = 0; i < ex->nocc; i++)
		if (e == ex->occ[i].call && ex->occ[i].sig >= 0) {
			pr_lookup(ex, pr, &ex->occ[i]);
			return 1;
		}
	if (!ps->final || e == ps->inside || ps->nodata)
		return 0;
	for (int i = 0; i < ex->nblocks; i++) {
		const Block *b = &ex->blocks[i];
		if (!b->kept.on || !b->core || b->core->where != e || !b->executed)
			continue;
		const Expr *saved = ps->inside;
		ps->inside = e;
		print_raw(pr, "(");
		print_expr(pr, e);
		ps->inside = saved;
		SBuf q = SBUF_INIT;
		const char *key = b->items[0].rowkey;
		sb_puts(&q, ") AND ");
		sb_put_ident(&q, b->items[0].name, strlen(b->items[0].name));
		sb_putc(&q, '.');
		if (key)
			sb_put_ident(&q, key, strlen(key));
		sb_printf(&q, "%s = ANY($%d::%s[])", key ? "" : "ctid", param(ex, PP_KEEP, i),
		          key ? "bigint" : "tid");
		print_raw(pr, sb_str(&q));
		sb_free(&q);
		return 1;
	}
	return 0;
}

int exec_pg_plan_from(void *ctx, Printer *pr, const FromItem *f)
{
	(void)ctx;
	if (f->kind != FROM_UNNEST || !f->args || f->args->n != 1)
		return 0;
	print_name(pr, f->name);
	print_raw(pr, "(");
	print_expr(pr, f->args->items[0]);
	print_raw(pr, ") WITH ORDINALITY AS ");
	AstName t = f->alias.s ? f->alias : f->name;
	print_name(pr, t);
	print_raw(pr, "(");
	print_name(pr, f->alias_cols && f->alias_cols->n ? f->alias_cols->items[0] : t);
	print_raw(pr, ", suql_ord)");
	return 1;
}

Expr *exec_pg_plan_text(Exec *ex, Expr *arg)
{
	return ast_func(ex->a, "suql_pg_text", 1, &arg);
}

Expr *exec_pg_plan_aggkey(Exec *ex, Expr *call)
{
	return ast_func(ex->a, "suql_pg_aggkey", 1, &call);
}

int exec_pg_plan_is_agg(const Exec *ex, const Expr *e)
{
	return agg_of(ex, e) != NULL;
}

Expr *exec_pg_plan_rowid(Exec *ex, const ScopeItem *it)
{
	if (it->rowkey)
		return ast_column(ex->a, it->name, it->rowkey);
	Expr *c = ast_column(ex->a, it->name, "ctid");
	return ast_func(ex->a, "suql_pg_rowid", 1, &c);
}

void exec_pg_plan_ctid(long long id, char out[48])
{
	snprintf(out, 48, "(%lld,%lld)", id / 65536, id % 65536);
}

/* A table's identity column: its key, else "ctid" (NULL: not a table) */
static const char *exec_pg_plan_identity(const ScopeItem *it)
{
	return it->kind != IT_TABLE ? NULL : it->rowkey ? it->rowkey : "ctid";
}

void exec_pg_plan_show_identity(const Exec *ex, SBuf *out)
{
	int n = 0;
	for (int i = 0; i < ex->nblocks; i++)
		for (int k = 0; k < ex->blocks[i].nitems; k++) {
			const ScopeItem *it = &ex->blocks[i].items[k];
			if (it->kind != IT_TABLE || !it->table || !it->rowid)
				continue;
			int seen = 0;   /* each table once */
			for (int j = 0; j <= i && !seen; j++)
				for (int m = 0; m < ex->blocks[j].nitems && !seen; m++) {
					const ScopeItem *o = &ex->blocks[j].items[m];
					if (o == it)
						break;
					seen = o->kind == IT_TABLE && o->table && o->rowid &&
					       str_ieq(o->table, it->table);
				}
			if (seen)
				continue;
			sb_puts(out, n++ ? ", " : "row identity: ");
			sb_puts(out, it->table);
			sb_putc(out, '.');
			if (it->rowkey) {
				sb_puts(out, it->rowkey);
				sb_printf(out, " (%s)", it->rowwhy ? it->rowwhy : "key");
			} else {
				sb_printf(out, "ctid (no key of integers%s%s)", it->rowbad ? "; " : "",
				          it->rowbad ? it->rowbad : "");
			}
		}
	if (n)
		sb_putc(out, '\n');
}

OrderList *exec_pg_plan_order(Exec *ex, Block *b, OrderList *ord)
{
	if (!b->identity)
		return ord;
	OrderList *o = arena_alloc(ex->a, sizeof *o);
	o->cap = (ord ? ord->n : 0) + b->nitems;
	o->items = arena_alloc(ex->a, (size_t)o->cap * sizeof *o->items);
	for (int i = 0; ord && i < ord->n; i++)
		o->items[o->n++] = ord->items[i];
	for (int i = 0; i < b->nitems; i++) {
		OrderTerm *t = arena_alloc(ex->a, sizeof *t);
		t->expr = ast_column(ex->a, b->items[i].name, b->items[i].kind == IT_UNNEST ?
		                     "suql_ord" : exec_pg_plan_identity(&b->items[i]));
		o->items[o->n++] = t;
	}
	return o;
}

/* ---- the parameters' values ---- */

static void put_elem(SBuf *b, const char *v)
{
	if (!v) {
		sb_puts(b, "NULL");
		return;
	}
	sb_putc(b, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_putc(b, '\\');
		sb_putc(b, *p);
	}
	sb_putc(b, '"');
}

/* A join's pairs asked, from the memo (its signatures are one per left value, the right
   value the memo's text): the left or right texts of those with a verdict of yes, or of
   those whose verdict is unknown, in the memo's order (the two arrays of a kind align). */
static void join_param(Exec *ex, const struct PgParam *pp, SBuf *b)
{
	size_t pos = 0;
	int sig, first = 1;
	const char *text;
	const MemoVal *mv;
	int yes = pp->kind == PP_JYES_L || pp->kind == PP_JYES_R;
	int left = pp->kind == PP_JYES_L || pp->kind == PP_JUNK_L;
	while (memo_next(ex->memo, &pos, &sig, &text, &mv)) {
		const Sig *s = &ex->sigs[sig];
		if (s->join != pp->x + 1 || !s->subject || !text ||
		    mv->verdict != (yes ? VERDICT_YES : VERDICT_NULL))
			continue;
		if (!first)
			sb_putc(b, ',');
		first = 0;
		put_elem(b, left ? s->subject : text);
	}
}

/* A signature's values as one JSON object, each text the memo evaluated a key of its
   value: a verdict true or false, an answer its text, null when the model gave none.
   Postgres looks a key up in a jsonb object by binary search, so the final statement
   reads a row's value in log time whatever the number of texts (an array searched with
   array_position took time linear in them, for every row). The texts are set without a
   check of their encoding (the _nocheck calls); json_dumps then refuses one that is not
   UTF-8. */
static char *map_param(Exec *ex, int sigi)
{
	json_t *o = json_object();
	size_t pos = 0;
	int sig;
	const char *text;
	const MemoVal *mv;
	const Sig *s = &ex->sigs[sigi];
	while (memo_next(ex->memo, &pos, &sig, &text, &mv)) {
		if (sig != sigi)
			continue;
		json_t *v = s->kind == FT_VERIFY
		                ? (mv->verdict == VERDICT_YES ? json_true()
		                   : mv->verdict == VERDICT_NO ? json_false() : json_null())
		                : mv->value ? json_stringn_nocheck(mv->value, strlen(mv->value))
		                            : json_null();
		json_object_setn_new_nocheck(o, text, strlen(text), v ? v : json_null());
	}
	/* NULL: a text that is not UTF-8 (the connection asks for UTF-8, but a database
	   in SQL_ASCII sends its bytes as they are): the caller says so, no value is read */
	char *out = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return out;
}

/* One parameter: a signature's values (map_param), or as a Postgres array literal the
   keys or ctids a walk kept, or a join's pairs asked. NULL: a text that is not UTF-8. */
static char *param_value(Exec *ex, const struct PgParam *pp)
{
	SBuf b = SBUF_INIT;
	sb_putc(&b, '{');
	int first = 1;
	if (pp->kind >= PP_JYES_L) {
		join_param(ex, pp, &b);
	} else if (pp->kind == PP_KEEP) {
		const Block *bl = &ex->blocks[pp->x];
		for (long i = 0; i < bl->kept.n; i++) {
			char t[48];
			long long id = bl->kept.ids[i];
			if (bl->items[0].rowkey)   /* a key: the number itself */
				snprintf(t, sizeof t, "%lld", id);
			else
				exec_pg_plan_ctid(id, t);
			if (!first)
				sb_putc(&b, ',');
			first = 0;
			put_elem(&b, t);
		}
	} else {
		sb_free(&b);
		return map_param(ex, pp->x);
	}
	sb_putc(&b, '}');
	return sb_steal(&b);
}

char **exec_pg_plan_params(Exec *ex, int *n, SuqlErr *err)
{
	PgBind *pb = &state(ex)->b;
	char **v = xcalloc((size_t)pb->n + 1, sizeof *v);
	*n = pb->n;
	for (int i = 0; i < pb->n; i++)
		if (!(v[i] = param_value(ex, &pb->p[i]))) {
			exec_pg_plan_params_free(v, i);
			err_set(err, SUQL_ERROR, "a text the server returned is not valid UTF-8, so "
			        "the values suql evaluated for it cannot be bound (is the database's "
			        "encoding SQL_ASCII?)");
			return NULL;
		}
	return v;
}

void exec_pg_plan_params_free(char **v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

SuqlStatus exec_pg_plan_query(Exec *ex, const char *sql, StoreCursor **c, SuqlErr *err)
{
	int n;
	char **v = exec_pg_plan_params(ex, &n, err);
	if (!v)
		return SUQL_ERROR;
	SuqlStatus s = store_query(ex->e->store, sql, (const char *const *)v, n, c, err);
	exec_pg_plan_params_free(v, n);
	return s;
}

SuqlStatus exec_pg_plan_try(Exec *ex, const char *sql, StoreCursor **c)
{
	Store *st = ex->e->store;
	*c = NULL;
	if (store_savepoint(st, "suql_try", NULL) != SUQL_OK)
		return SUQL_ERROR;
	SuqlStatus s = exec_pg_plan_query(ex, sql, c, NULL);
	if (s != SUQL_OK)
		store_rollback_to(st, "suql_try");
	else
		store_release(st, "suql_try", NULL);
	return s;
}

/* ---- the final statement ---- */

Printer *exec_pg_plan_print_final(Exec *ex, const Select *sel)
{
	PgState *ps = state(ex);
	ps->b.n = 0;
	ps->final = 1;
	ps->inside = NULL;
	PrintHooks hk = {ex, exec_pg_plan_hook, exec_pg_plan_from};
	Printer *pr = print_new(PRINT_PG, &hk, ex->ast->src, ex->ast->src_off);
	/* a block kept to the rows its walk passed, under a LIMIT without ORDER BY: SQLite
	   reads them by rowid and stops at the LIMIT, so its rows are the first passed in
	   rowid order, not the first in the server's heap (an updated row moves to its end) */
	Select **ordered = xcalloc((size_t)ex->nblocks + 1, sizeof *ordered);
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (!b->kept.on || !b->executed || !b->sel || b->sel->order || !b->sel->limit ||
		    b->sel->ncore != 1 || b->aggregate || b->core->distinct == DISTINCT_DISTINCT)
			continue;
		OrderList *ord = arena_alloc(ex->a, sizeof *ord);
		ord->cap = 1;
		ord->items = arena_alloc(ex->a, sizeof *ord->items);
		OrderTerm *t = arena_alloc(ex->a, sizeof *t);
		t->expr = exec_pg_plan_rowid(ex, &b->items[0]);
		ord->items[ord->n++] = t;
		b->sel->order = ord;
		ordered[i] = b->sel;
	}
	if (sel)
		print_select(pr, sel);
	else
		print_stmt(pr, ex->ast->stmt);
	for (int i = 0; i < ex->nblocks; i++)
		if (ordered[i])
			ordered[i]->order = NULL;
	free(ordered);
	ps->final = 0;
	return pr;
}

SuqlStatus exec_pg_plan_final_query(Exec *ex, const Select *sel, StoreCursor **c,
                                    SuqlErr *err)
{
	Printer *pr = exec_pg_plan_print_final(ex, sel);
	SuqlStatus s = exec_pg_plan_query(ex, print_text(pr), c, err);
	print_free(pr);
	return s;
}

int exec_pg_plan_count(Exec *ex, long long *n)
{
	Printer *pr = exec_pg_plan_print_final(ex, NULL);
	char *sql = xprintf("SELECT count(*) FROM (%s) AS suql_n", print_text(pr));
	print_free(pr);
	StoreCursor *c;
	*n = -1;
	if (exec_pg_plan_try(ex, sql, &c) == SUQL_OK) {
		if (store_next(c) > 0 && store_text(c, 0))
			*n = store_integer(c, 0);
		store_done(c);
	}
	free(sql);
	return *n < 0 ? -1 : 0;
}

/* ---- the server's errors, placed in the user's text ---- */

SuqlStatus exec_pg_plan_place(Exec *ex, const Printer *pr, SuqlStatus s, SuqlErr *err)
{
	return exec_pg_plan_place_shifted(ex, pr, s, 0, err);
}

SuqlStatus exec_pg_plan_place_shifted(Exec *ex, const Printer *pr, SuqlStatus s, long shift,
                                      SuqlErr *err)
{
	long off = store_pg_error_offset(ex->e->store);
	if (off >= 0)
		off -= shift;
	if (s != SUQL_ERROR || off < 0 || (size_t)off > print_len(pr))
		return s;
	/* the server's place in the printed text, mapped back to the user's */
	size_t at = print_map(pr, (size_t)off);
	char *msg = xstrdup(err->msg ? err->msg : "failed");
	err_clear(err);
	if (at < ex->len)
		s = err_at(err, SUQL_ERROR, ex->sql, ex->len, at, 1, NULL, "%s", msg);
	else
		s = err_set(err, SUQL_ERROR, "%s", msg);
	free(msg);
	return s;
}

/*
 * bind_occ.c: the binder's free-text occurrences (see bind.c): verify atoms, typed and
 * plain answers, summaries (the filter walk's recognition, its row's bind entry), and
 * extract()'s (exec_extract.c), each with its signature and where its text comes from (a
 * list or one text; a rowid table's column the retrieval index can rank), and, once bound,
 * their replacement by the calls of suql's SQL functions (statement form with the
 * occurrence's number, or the self-contained form for SQL that is stored); the questions
 * an operator's construct reads are checked here (bind_occ_question_problem).
 */
#include "engine/bind_int.h"
#include "engine/op_int.h"
#include "engine/sql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- occurrences ---- */

static Occ *new_occ(Exec *ex)
{
	if (ex->nocc == ex->capocc) {
		ex->capocc = ex->capocc ? ex->capocc * 2 : 8;
		ex->occ = xrealloc(ex->occ, (size_t)ex->capocc * sizeof *ex->occ);
	}
	Occ *o = &ex->occ[ex->nocc];
	memset(o, 0, sizeof *o);
	o->id = ex->nocc++;
	o->sig = o->tsig = -1;
	o->parent_occ = -1;
	o->arg_item = -1;
	o->result_col = -1;
	return o;
}

/* Where the argument's text comes from: list or not, and a rowid table column. */
static void bind_arg(Exec *ex, int b, Occ *o, Sig *s)
{
	Expr *a = o->arg;
	s->list = 0;
	if (a->kind != EX_COLUMN)
		return;
	int blk;
	int i = bind_resolve(ex, b, a, &blk);
	if (i < 0) {
		s->list = -1;
		return;
	}
	ScopeItem *it = &ex->blocks[blk].items[i];
	const char *name = ast_name_value(ex->a, a->name);
	if (it->kind == IT_UNNEST) {
		s->list = 0;
		return;
	}
	if (it->kind == IT_TABLE) {
		const CatColumn *cc = bind_scope_catalog(ex, it->table, name);
		s->list = cc && cc->is_array;
		if (blk == b && it->rowid) {
			o->arg_item = i;
			o->arg_table = xstrdup(it->table);
			int k = bind_item_col(ex, &ex->blocks[blk], it, name);
			o->arg_col = xstrdup(k >= 0 ? it->cols[k] : name);
			/* PostgreSQL has no retrieval index of suql's: a FREE_TEXT column is ranked
			   in memory there (exec_rank.c) */
			o->arg_indexed = (cc && cc->free_text) ||
			                 (ex->e->dialect->retrieval && ret_has_index(ex->e->db, it->table, name));
		}
		return;
	}
	if (it->kind == IT_CTE || it->kind == IT_SUBQUERY) {
		/* follow the column through the CTE or subquery to a table's column */
		int inner = it->block;
		Expr *cur = a;
		for (int depth = 0; inner >= 0 && depth < 16; depth++) {
			Block *ib = &ex->blocks[inner];
			SelectCore *c = ib->core;
			const char *cn = ast_name_value(ex->a, cur->name);
			Expr *next = NULL;
			int star = 0;
			for (int k = 0; c && c->cols && k < c->cols->n; k++) {
				ResultCol *rc = c->cols->items[k];
				if (rc->expr->kind == EX_STAR)
					star = 1;
				else if ((rc->alias.s && ast_name_is(rc->alias, cn)) ||
				         (!rc->alias.s && rc->expr->kind == EX_COLUMN &&
				          ast_name_is(rc->expr->name, cn)))
					next = rc->expr;
			}
			Expr probe = {0};
			if (!next && star) {
				probe.kind = EX_COLUMN;
				probe.name = cur->name;
				next = &probe;
			}
			if (!next || next->kind != EX_COLUMN)
				break;
			int ib2;
			int j = bind_resolve(ex, inner, next, &ib2);
			if (j < 0 || ib2 != inner)
				break;
			ScopeItem *jt = &ex->blocks[ib2].items[j];
			if (jt->kind == IT_TABLE) {
				const CatColumn *cc = bind_scope_catalog(ex, jt->table,
				                                    ast_name_value(ex->a, next->name));
				s->list = cc && cc->is_array;
				return;
			}
			if (jt->kind != IT_CTE && jt->kind != IT_SUBQUERY)
				break;
			inner = jt->block;
			cur = next;
		}
		s->list = -1;
	}
}

/* ---- questions ---- */

const char *bind_occ_question_problem(int type, const char *s, size_t n, char *buf, size_t bufsz)
{
	switch (type) {
	case SQLITE_NULL: return "is NULL";
	case SQLITE_BLOB: return "is a blob, not text";
	case SQLITE_INTEGER:
	case SQLITE_FLOAT: return "is a number, not text";
	default: break;
	}
	if (n > EXEC_QUESTION_MAX) {
		snprintf(buf, bufsz, "is %zu bytes long; a question may be at most %d bytes", n,
		         EXEC_QUESTION_MAX);
		return buf;
	}
	if (memchr(s, 0, n))
		return "holds a NUL byte";
	size_t i = 0;
	while (i < n && strchr(" \t\r\n\f\v", s[i]))
		i++;
	return i == n ? "is empty" : NULL;
}

SuqlStatus bind_occ_question_error(Exec *ex, const Occ *o, FtKind kind, const char *problem,
                               SuqlErr *err)
{
	const char *fn = kind == FT_SUMMARY ? "summary()" : "answer()";
	const char *hint = strstr(problem, "bytes long")
	                   ? "a question goes into every prompt of its calls: shorten it"
	                   : "a question is a text, such as answer(reviews, 'is it quiet?')";
	if (!o || o->qspan.len == 0 || o->qspan.off + o->qspan.len > ex->len)
		return err_set(err, SUQL_ERROR, "the question of %s %s\nhint: %s", fn, problem, hint);
	return err_at(err, SUQL_ERROR, ex->sql, ex->len, o->qspan.off, o->qspan.len, hint,
	              "the question of %s %s", fn, problem);
}

static int constant_cb(void *ctx, Expr *e)
{
	(void)ctx;
	switch (e->kind) {
	case EX_LITERAL: case EX_UNARY: case EX_BINARY: case EX_LIKE: case EX_BETWEEN:
	case EX_ISNULL: case EX_CAST: case EX_CASE: case EX_COLLATE:
		return e->select ? AST_STOP : AST_CONTINUE;
	case EX_IN:
		return e->select || e->in_table ? AST_STOP : AST_CONTINUE;
	default:
		return AST_STOP;   /* columns, parameters, functions, subqueries, SUQL forms */
	}
}

/* The question q of a new occurrence: its text when it is a constant (a literal, or an
   expression of literals that SQLite evaluates now), NULL when it comes with each row
   (checked then, udf.c). A constant that is no question is an error (bd->st). */
static char *bind_question(Bind *bd, int b, Occ *o, FtKind kind, Expr *q)
{
	Exec *ex = bd->ex;
	char buf[96];
	const char *problem = NULL;
	char *text = NULL;
	if (q->kind == EX_LITERAL) {
		int type = q->lit == LIT_STRING ? SQLITE_TEXT : q->lit == LIT_NULL ? SQLITE_NULL
		           : q->lit == LIT_BLOB ? SQLITE_BLOB : q->lit == LIT_INTEGER ||
		             q->lit == LIT_FLOAT || q->lit == LIT_TRUE || q->lit == LIT_FALSE
		           ? SQLITE_INTEGER : SQLITE_TEXT;
		text = type == SQLITE_TEXT ? bind_literal(ex, b, q) : NULL;
		if (type == SQLITE_TEXT && !text)   /* CURRENT_DATE and the like */
			return NULL;
		problem = bind_occ_question_problem(type, text, text ? strlen(text) : 0, buf, sizeof buf);
	} else if ((text = bind_literal(ex, b, q)) != NULL) {   /* "a string" */
		problem = bind_occ_question_problem(SQLITE_TEXT, text, strlen(text), buf, sizeof buf);
	} else {
		AstVisitor v = {0};
		v.expr = constant_cb;
		if (ast_visit_expr(q, &v) == AST_STOP)
			return NULL;
		Printer *pr = print_new(PRINT_SQL, NULL, NULL, 0);
		print_raw(pr, "SELECT typeof(v), v FROM (SELECT (");
		print_expr(pr, q);
		print_raw(pr, ") AS v)");
		sqlite3_stmt *st;
		exec_bound(ex, 1);
		if (sqlite3_prepare_v2(ex->e->db, print_text(pr), -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW) {
			int type = sqlite3_column_type(st, 1);
			const char *t = type == SQLITE_TEXT ? (const char *)sqlite3_column_text(st, 1) : "";
			size_t n = type == SQLITE_TEXT ? (size_t)sqlite3_column_bytes(st, 1) : 0;
			problem = bind_occ_question_problem(type, t, n, buf, sizeof buf);
			if (!problem)
				text = arena_strndup(ex->a, t, n);
		}
		sqlite3_finalize(st);
		exec_bound(ex, 0);
		print_free(pr);
	}
	if (problem) {
		if (bd->st == SUQL_OK && bd->err)
			bd->st = bind_occ_question_error(ex, o, kind, problem, bd->err);
		return NULL;
	}
	return text;
}

int bind_occ_make(Bind *bd, int b, Expr **slot, FtKind kind, Expr *ans, const char *op,
                    Expr **exp, int nexp, PgType pg, OccPos pos, int skel, int in_agg, int pocc,
                    int rcol)
{
	Exec *ex = bd->ex;
	Occ *o = new_occ(ex);
	int id = o->id;
	o->kind = kind;
	o->slot = slot;
	o->orig = ast_expr_copy(ex->a, *slot);
	o->arg = ans->left;
	o->call = ans;   /* the answer/summary node, until bind_occ_mutate */
	o->block = b;
	o->pos = pos;
	o->result_col = rcol;
	o->in_agg = in_agg;
	o->parent_occ = pocc;
	if (ans->right)
		o->qspan = ans->right->span;
	Sig s = {0};
	s.kind = kind;
	s.pg = pg;
	if (op) {
		s.op = xstrdup(op);
		s.nexpected = nexp;
		s.expected = xmalloc(((size_t)nexp + 1) * sizeof *s.expected);
		for (int i = 0; i < nexp; i++)
			s.expected[i] = xstrdup(bind_literal(ex, b, exp[i]));
	}
	for (int i = 0; ans->extra && i < ans->extra->list->n; i++) {
		const Expr *x = ans->extra->list->items[i];   /* a literal, or -1 (the parser's rule) */
		const char *v = bind_literal(ex, b, x->kind == EX_UNARY ? x->left : x);
		char *t = v && x->kind == EX_UNARY && x->op == OP_NEG ? xprintf("-%s", v) : NULL;
		exec_strv_push(&s.options, &s.noptions, t ? t : v ? v : "");
		free(t);
	}
	if (b >= 0)
		bind_arg(ex, b, o, &s);
	else
		s.list = -1;
	char *q = kind == FT_SUMMARY ? NULL : kind == FT_EXTRACT ? bind_literal(ex, b, ans->right)
	          : bind_question(bd, b, &ex->occ[id], kind, ans->right);
	o = &ex->occ[id];
	s.quotes = kind == FT_EXTRACT && ex->set.extract_quotes;
	/* an atom is walked per candidate with one question; one that comes with each row is
	   a free-text leaf, evaluated per row */
	o->atom = kind == FT_VERIFY && skel && pos == POS_WHERE && q;
	if (kind == FT_SUMMARY || q) {
		s.question = q ? xstrdup(q) : NULL;
		o->sig = memo_sig_intern(ex, &s);
	} else {
		o->tsig = memo_sig_intern(ex, &s);   /* the question comes with each row */
	}
	if (b >= 0) {
		ex->blocks[b].nocc++;
		if (pos == POS_WHERE)
			ex->blocks[b].nocc_where++;
	}
	/* the argument and question may hold more (nested occurrences, subqueries) */
	bind_walk(bd, b, &ans->left, pos, 0, in_agg, id, rcol);
	if (ans->right && kind != FT_EXTRACT)
		bind_walk(bd, b, &ans->right, pos, 0, in_agg, id, rcol);
	return id;
}

/* answer(t, q) without the answers allowed: a constrained answer compared with a literal
   stays a comparison of its value, exact since the value is one of them */
static int is_plain_answer(const Expr *e)
{
	return e && e->kind == EX_ANSWER && !e->extra;
}

/* A verify atom: answer(t, q) = / <> / IN / NOT IN literals. */
static int try_verify(Bind *bd, int b, Expr **slot, OccPos pos, int skel, int in_agg, int pocc,
                      int rcol)
{
	Exec *ex = bd->ex;
	Expr *e = *slot;
	if (e->kind == EX_BINARY && (e->op == OP_EQ || e->op == OP_NE)) {
		Expr *ans = NULL, *lit = NULL;
		if (is_plain_answer(e->left) && bind_literal(ex, b, e->right))
			ans = e->left, lit = e->right;
		else if (is_plain_answer(e->right) && bind_literal(ex, b, e->left))
			ans = e->right, lit = e->left;
		if (!ans)
			return 0;
		bind_occ_make(bd, b, slot, FT_VERIFY, ans, e->op == OP_EQ ? "=" : "<>", &lit, 1,
		         PGT_NONE, pos, skel, in_agg, pocc, rcol);
		return 1;
	}
	if (e->kind == EX_IN && is_plain_answer(e->left) && e->list && !e->select &&
	    !e->in_table && e->list->n > 0) {
		for (int i = 0; i < e->list->n; i++)
			if (!bind_literal(ex, b, e->list->items[i]))
				return 0;
		bind_occ_make(bd, b, slot, FT_VERIFY, e->left, e->not_ ? "NOT IN" : "IN",
		         e->list->items, e->list->n, PGT_NONE, pos, skel, in_agg, pocc, rcol);
		return 1;
	}
	return 0;
}

/* The filter walk's recognition (its row's bind entry, exec_walk_op.c): a verify atom, a
   typed answer (a constrained one is answered as text, converted by SQL around it), a
   plain answer(), a summary(). */
int bind_occ_bind(Bind *bd, int b, Expr **slot, const OpFunc *f, const OpAt *at)
{
	(void)f;
	Expr *e = *slot;
	if (try_verify(bd, b, slot, at->pos, at->skel, at->in_agg, at->pocc, at->rcol))
		return OP_BIND_TOOK;
	if ((e->kind == EX_PGCAST || e->kind == EX_CAST) && e->left && e->left->kind == EX_ANSWER &&
	    !e->left->extra && e->type && e->type->pg) {
		bind_occ_make(bd, b, slot, FT_ANSWER, e->left, NULL, NULL, 0, e->type->pg, at->pos, 0,
		              at->in_agg, at->pocc, at->rcol);
		return OP_BIND_TOOK;
	}
	if (e->kind == EX_ANSWER || e->kind == EX_SUMMARY) {
		bind_occ_make(bd, b, slot, e->kind == EX_ANSWER ? FT_ANSWER : FT_SUMMARY, e, NULL, NULL,
		              0, PGT_NONE, at->pos, 0, at->in_agg, at->pocc, at->rcol);
		return OP_BIND_TOOK;
	}
	return OP_BIND_NONE;
}

/* ---- replacing occurrences by function calls ---- */

static Expr *question_expr(Exec *ex, int b, Expr *q)
{
	char *t = bind_literal(ex, b, q);
	return t && q->kind == EX_COLUMN ? ast_string(ex->a, t) : q;
}

void bind_occ_mutate(Exec *ex)
{
	Arena *a = ex->a;
	/* inner occurrences first: an outer call takes its argument as it is by then */
	for (int i = ex->nocc - 1; i >= 0; i--) {
		Occ *o = &ex->occ[i];
		Expr *ans = o->call;
		o->arg = ans->left;
		const Sig *s = &ex->sigs[o->sig >= 0 ? o->sig : o->tsig];
		Expr *call;
		ExprList *args = NULL;
		if (!ex->standalone) {
			ast_list_push(a, &args, ast_integer(a, o->id));
			ast_list_push(a, &args, o->arg);
			if (o->kind != FT_SUMMARY && o->kind != FT_EXTRACT)
				ast_list_push(a, &args, question_expr(ex, o->block, ans->right));
			if (o->kind == FT_ANSWER)
				ast_list_push(a, &args, ast_string(a, ast_pg_name((PgType)s->pg)));
		} else {
			ast_list_push(a, &args, o->arg);
			if (o->kind != FT_SUMMARY)
				ast_list_push(a, &args, question_expr(ex, o->block, ans->right));
			if (s->noptions > 0) {   /* suql_choice(t, q, json_array(...)) */
				Expr *arr = ast_expr_new(a, EX_FUNC);
				arr->name = ast_name_make(a, "json_array");
				for (int k = 0; k < s->noptions; k++)
					ast_list_push(a, &arr->list, ast_string(a, s->options[k]));
				ast_list_push(a, &args, arr);
			}
			if (o->kind == FT_EXTRACT)   /* suql_extract(t, spec, quotes) */
				ast_list_push(a, &args, ast_integer(a, s->quotes));
			if (o->kind == FT_VERIFY) {
				ast_list_push(a, &args, ast_string(a, s->op));
				for (int k = 0; k < s->nexpected; k++)
					ast_list_push(a, &args, ast_string(a, s->expected[k]));
			} else if (o->kind == FT_ANSWER && s->pg) {
				ast_list_push(a, &args, ast_string(a, ast_pg_name((PgType)s->pg)));
			}
		}
		const char *fn = o->kind == FT_VERIFY ? (ex->standalone ? "suql_verify" : "suql_atom")
		                 : o->kind == FT_ANSWER ? (ex->standalone && s->noptions ? "suql_choice"
		                                                                        : "suql_answer")
		                 : o->kind == FT_EXTRACT ? "suql_extract" : "suql_summary";
		call = ast_expr_new(a, EX_FUNC);
		call->name = ast_name_make(a, fn);
		call->list = args;
		call->span = (*o->slot)->span;
		if (o->kind == FT_ANSWER && (s->pg == PGT_TIMESTAMP || s->pg == PGT_TIME)) {
			Expr *w = ast_func(a, s->pg == PGT_TIME ? "time" : "datetime", 1, &call);
			w->span = call->span;
			call = w;
		}
		*o->slot = call;
		o->call = call;
	}
	/* then the operators' own constructs (matches(), answer_agg(), ...), which take their
	   arguments as they are by now */
	op_mutate(ex);
}

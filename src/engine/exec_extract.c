/*
 * exec_extract.c: extract(text, 'spec'), the operator that reads named fields out of a
 * text (doc/extract.md): its row of the operator table, with what makes it one. The
 * binder offers it a call of extract() with two arguments (extract_bind): the spec must be
 * a literal that parses (llm/spec.h), and the call becomes an occurrence of kind
 * FT_EXTRACT whose question is the spec's canonical text, so that the walk, the planner and
 * the final step evaluate it as they do answer() (ahead, projection last, on demand), its
 * calls of kind LLM_EXTRACT (exec_llm.c; llm/llm_extract.c words them) counted in their
 * own slot of the cost. Its SQL function suql_extract looks the object up in the memo.
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/op_int.h"
#include "engine/udf_int.h"
#include "llm/spec.h"

#include <stdlib.h>
#include <string.h>

/* extract(t, 'spec'): the spec must be a literal that parses; the occurrence's node is an
   EX_SUMMARY-shaped one (left the text, right the canonical spec as a string) */
static int extract_bind(Bind *bd, int b, Expr **slot, const OpFunc *f, const OpAt *at)
{
	(void)f;
	Exec *ex = bd->ex;
	Expr *e = *slot;
	if (e->over || e->star || e->distinct)
		return OP_BIND_NONE;
	Expr *q = e->list->items[1];
	char *text = bind_literal(ex, b, q);
	Spec sp = {0};
	SuqlErr perr = {0};
	const char *problem = !text ? "must be a literal text, such as 'noise text, wait_minutes int'"
	                      : NULL;
	if (!problem && spec_parse(text, &sp, &perr) != SUQL_OK)
		problem = perr.msg;
	if (problem) {
		if (bd->st == SUQL_OK && bd->err) {
			if (text) {   /* the parser's message, placed at the spec */
				const char *nl = strstr(problem, "\nhint: ");
				char *what = nl ? xstrndup(problem, (size_t)(nl - problem)) : xstrdup(problem);
				bd->st = err_at(bd->err, SUQL_ERROR, ex->sql, ex->len, q->span.off, q->span.len,
				                nl ? nl + 7 : NULL, "%s", what);
				free(what);
			} else {
				bd->st = err_at(bd->err, SUQL_ERROR, ex->sql, ex->len, q->span.off, q->span.len,
				                "a spec lists fields: 'name type: what it means, ...'",
				                "the spec of extract() %s", problem);
			}
		}
		err_clear(&perr);
		return OP_BIND_TOOK;
	}
	char *canon = spec_canonical(&sp);
	spec_free(&sp);
	Expr *node = ast_expr_new(ex->a, EX_SUMMARY);
	node->left = e->list->items[0];
	node->right = ast_string(ex->a, canon);
	node->right->span = q->span;
	node->span = e->span;
	free(canon);
	bind_occ_make(bd, b, slot, FT_EXTRACT, node, NULL, NULL, 0, PGT_NONE, at->pos, 0,
	              at->in_agg, at->pocc, at->rcol);
	return OP_BIND_TOOK;
}

/* suql_extract(id, t) in a statement; suql_extract(t, spec, quotes) self-contained (a view) */
static void fn_extract(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	Exec *ex = udf_current(c);
	if (!ex)
		return;
	if (argc == 2) {
		const Occ *o = udf_occ(c, ex, argv[0]);
		if (o)
			udf_evaluate(c, ex, o->sig, o->mode == OCC_PLANNED, argv[1]);
		return;
	}
	const char *t = (const char *)sqlite3_value_text(argv[1]);
	Spec sp;
	SuqlErr err = {0};
	if (spec_parse(t ? t : "", &sp, &err) != SUQL_OK) {
		exec_fail(ex, SUQL_ERROR, &err);
		sqlite3_result_error(c, err.msg, -1);
		err_clear(&err);
		return;
	}
	Sig s = {0};
	s.kind = FT_EXTRACT;
	s.list = -1;
	s.question = spec_canonical(&sp);
	s.quotes = sqlite3_value_int(argv[2]) != 0;
	spec_free(&sp);
	udf_evaluate(c, ex, memo_sig_intern(ex, &s), 0, argv[0]);
}

static void extract_functions(Engine *e)
{
	sqlite3_create_function(e->db, "suql_extract", 2, SQLITE_UTF8, e, fn_extract, NULL, NULL);
	sqlite3_create_function(e->db, "suql_extract", 3, SQLITE_UTF8, e, fn_extract, NULL, NULL);
}

static int extract_applies(const Exec *ex)
{
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].kind == FT_EXTRACT)
			return 1;
	return 0;
}

static const OpFunc extract_funcs[] = {{"extract", 2, 2}, {NULL, 0, 0}};

const EngineOp exec_extract_row = {
	.name = "extract",
	.slot = OP_EXTRACT,
	.funcs = extract_funcs,
	.bind = extract_bind,
	.functions = extract_functions,
	.applies = extract_applies,
};

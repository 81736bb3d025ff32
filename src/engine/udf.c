/*
 * udf.c: the SQL functions through which SQLite evaluates free text. Every free-text
 * construct of a statement is printed as one of them (bind.c); each looks its result up in
 * the statement's memo and only on a miss asks the model itself, one row, one call (or, for
 * an atom the optimizer walked, answers NULL: see doc/executor.md).
 *
 *   suql_atom(id, t, q)            verify atom number id of the statement: 1, 0 or NULL
 *   suql_answer(id, t, q, type)    answer() number id (type: 'text', 'date', 'int', ...)
 *   suql_summary(id, t)            summary() number id
 *
 * and self-contained forms, for SQL kept in the database (views) and for SQL the printer
 * writes without the engine:
 *
 *   suql_verify(t, q, op, e1 [, e2 ...])   answer(t, q) op (e1, ...) as one verification
 *   suql_answer(t, q [, type])              answer(t, q), typed
 *   suql_summary(t)                         summary(t)
 *   suql_choice(t, q, json_array(a, ...))   answer(t, q, ARRAY[a, ...]), constrained
 *
 * t NULL, or a text with no passages, gives NULL without a call. They are the filter walk's
 * (its row registers them, udf_register); the other operators' functions are in their own
 * files (suql_match: exec_join.c, suql_extract: exec_extract.c, suql_agg: exec_agg.c,
 * suql_bm25: bm25.c), which look their values up through udf_evaluate as these do.
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/udf_int.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The type argument of suql_answer: the binder writes ast_pg_name(pg), and the function
   reads the word back here ("text" and unknown words: no conversion). */
static PgType type_of(const char *t)
{
	for (int pg = PGT_DATE; t && pg <= PGT_BOOL; pg++)
		if (pg != PGT_TEXT && str_ieq(t, ast_pg_name((PgType)pg)))
			return (PgType)pg;
	return PGT_NONE;
}

Exec *udf_current(sqlite3_context *c)
{
	Engine *e = sqlite3_user_data(c);
	if (!e->cur)
		sqlite3_result_error(c, "suql's free-text functions run only inside statements "
		                     "that suql runs", -1);
	return e->cur;
}

static void result_of(sqlite3_context *c, Exec *ex, const Sig *s, MemoVal *mv)
{
	if (s->kind == FT_VERIFY) {
		if (mv->verdict == VERDICT_NULL)
			sqlite3_result_null(c);
		else
			sqlite3_result_int(c, mv->verdict);
		return;
	}
	if (!mv->value) {
		if (mv->warning && !mv->warned) {
			mv->warned = 1;
			exec_warn(ex, mv->warning);
		}
		sqlite3_result_null(c);
		return;
	}
	switch (s->pg) {
	case PGT_INT:
	case PGT_BOOL:
		sqlite3_result_int64(c, strtoll(mv->value, NULL, 10));
		break;
	case PGT_REAL:
	case PGT_NUMERIC:
		sqlite3_result_double(c, strtod(mv->value, NULL));
		break;
	default:
		sqlite3_result_text(c, mv->value, -1, SQLITE_TRANSIENT);
		break;
	}
}

void udf_evaluate(sqlite3_context *c, Exec *ex, int sig, int planned, sqlite3_value *t)
{
	if (sqlite3_value_type(t) == SQLITE_NULL || ex->counting) {
		sqlite3_result_null(c);
		return;
	}
	const char *v = (const char *)sqlite3_value_text(t);
	size_t n = (size_t)sqlite3_value_bytes(t);
	if (!v)
		v = "";
	MemoVal *mv = memo_get(ex->memo, sig, v, n);
	if (!mv && (planned || ex->memo_only)) {
		sqlite3_result_null(c);
		return;
	}
	if (!mv) {
		SuqlErr err = {0};
		SuqlStatus st = exec_llm_one(ex, sig, v, n, &mv, &err);
		if (st != SUQL_OK || !mv) {
			exec_fail(ex, st != SUQL_OK ? st : SUQL_ERROR, &err);
			sqlite3_result_error(c, err.msg ? err.msg : "no answer", -1);
			err_clear(&err);
			return;
		}
		err_clear(&err);
	}
	result_of(c, ex, &ex->sigs[sig], mv);
}

/* A question given at run time: -1 (the statement fails, the error in c) when it is none
   (NULL, empty, too long: bind_occ_question_problem), else 0. */
static int question_check(sqlite3_context *c, Exec *ex, const Occ *o, FtKind kind,
                          sqlite3_value *q)
{
	char buf[96];
	int type = q ? sqlite3_value_type(q) : SQLITE_NULL;
	const char *t = type == SQLITE_TEXT ? (const char *)sqlite3_value_text(q) : "";
	size_t n = type == SQLITE_TEXT ? (size_t)sqlite3_value_bytes(q) : 0;
	const char *problem = bind_occ_question_problem(type, t, n, buf, sizeof buf);
	if (!problem)
		return 0;
	SuqlErr err = {0};
	bind_occ_question_error(ex, o, kind, problem, &err);
	exec_fail(ex, SUQL_ERROR, &err);
	sqlite3_result_error(c, err.msg, -1);
	err_clear(&err);
	return -1;
}

/* The signature of occurrence id for a question given at run time (not a literal); -1 when
   the question is none (the error is set in c). */
static int runtime_sig(sqlite3_context *c, Exec *ex, const Occ *o, sqlite3_value *q)
{
	if (o->sig >= 0)
		return o->sig;
	const Sig *t = &ex->sigs[o->tsig];
	if (question_check(c, ex, o, t->kind, q) < 0)
		return -1;
	Sig s = {0};
	s.kind = t->kind;
	s.pg = t->pg;
	s.list = t->list;
	s.question = xstrdup((const char *)sqlite3_value_text(q));
	s.op = t->op ? xstrdup(t->op) : NULL;
	s.nexpected = t->nexpected;
	s.expected = t->nexpected ? xmalloc((size_t)t->nexpected * sizeof *s.expected) : NULL;
	for (int i = 0; i < t->nexpected; i++)
		s.expected[i] = xstrdup(t->expected[i]);
	for (int i = 0; i < t->noptions; i++)
		exec_strv_push(&s.options, &s.noptions, t->options[i]);
	return memo_sig_intern(ex, &s);
}

const Occ *udf_occ(sqlite3_context *c, Exec *ex, sqlite3_value *id)
{
	int i = sqlite3_value_int(id);
	if (i < 0 || i >= ex->nocc) {
		sqlite3_result_error(c, "a free-text function refers to no expression of this "
		                     "statement", -1);
		return NULL;
	}
	return &ex->occ[i];
}

static void fn_atom(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	Exec *ex = udf_current(c);
	if (!ex)
		return;
	const Occ *o = udf_occ(c, ex, argv[0]);
	if (!o)
		return;
	if (ex->counting) {   /* counting rows: nothing is asked, the question not read */
		sqlite3_result_null(c);
		return;
	}
	int sig = runtime_sig(c, ex, o, argc > 2 ? argv[2] : NULL);
	if (sig < 0)
		return;
	udf_evaluate(c, ex, sig, ex->occ[sqlite3_value_int(argv[0])].mode == OCC_PLANNED, argv[1]);
}

/* Intern a self-contained signature; -1 when the question is none (the error in c). */
static int loose_sig(sqlite3_context *c, Exec *ex, FtKind k, sqlite3_value *q, const char *type,
                     const char *op, sqlite3_value **exp, int nexp, char **opts, int nopts)
{
	Sig s = {0};
	s.options = opts;   /* taken over */
	s.noptions = nopts;
	if (k != FT_SUMMARY && !ex->counting && question_check(c, ex, NULL, k, q) < 0) {
		memo_sig_free(&s);
		return -1;
	}
	s.kind = k;
	s.list = -1;
	s.pg = type_of(type);
	if (q)
		s.question = xstrdup(sqlite3_value_type(q) == SQLITE_NULL
		                     ? "" : (const char *)sqlite3_value_text(q));
	if (op) {
		s.op = xstrdup(op);
		s.nexpected = nexp;
		s.expected = xmalloc(((size_t)nexp + 1) * sizeof *s.expected);
		for (int i = 0; i < nexp; i++) {
			const unsigned char *t = sqlite3_value_text(exp[i]);
			s.expected[i] = xstrdup(t ? (const char *)t : "");
		}
	}
	return memo_sig_intern(ex, &s);
}

static void fn_answer(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	Exec *ex = udf_current(c);
	if (!ex)
		return;
	if (argc == 4) {   /* suql_answer(id, t, q, type) */
		const Occ *o = udf_occ(c, ex, argv[0]);
		if (!o)
			return;
		if (ex->counting) {
			sqlite3_result_null(c);
			return;
		}
		int sig = runtime_sig(c, ex, o, argv[2]);
		if (sig >= 0)
			udf_evaluate(c, ex, sig, o->mode == OCC_PLANNED, argv[1]);
		return;
	}
	if (argc != 2 && argc != 3) {
		sqlite3_result_error(c, "suql_answer takes (text, question [, type])", -1);
		return;
	}
	const char *type = argc == 3 ? (const char *)sqlite3_value_text(argv[2]) : NULL;
	int sig = loose_sig(c, ex, FT_ANSWER, argv[1], type, NULL, NULL, 0, NULL, 0);
	if (sig >= 0)
		udf_evaluate(c, ex, sig, 0, argv[0]);
}

/* suql_choice(t, q, json_array(a, b, ...)): answer(t, q, ARRAY[a, b, ...]) self-contained */
static void fn_choice(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	Exec *ex = udf_current(c);
	if (!ex)
		return;
	(void)argc;
	const char *js = (const char *)sqlite3_value_text(argv[2]);
	json_t *arr = js ? json_loads(js, 0, NULL) : NULL;
	char **opts = NULL;
	int nopts = 0;
	for (size_t i = 0; json_is_array(arr) && i < json_array_size(arr); i++) {
		json_t *v = json_array_get(arr, i);
		char *t = json_is_string(v) ? xstrdup(json_string_value(v))
		                           : json_dumps(v, JSON_ENCODE_ANY);
		exec_strv_push(&opts, &nopts, t ? t : "");
		free(t);
	}
	json_decref(arr);
	if (nopts == 0) {
		sqlite3_result_error(c, "suql_choice takes (text, question, json_array(answers))", -1);
		return;
	}
	int sig = loose_sig(c, ex, FT_ANSWER, argv[1], NULL, NULL, NULL, 0, opts, nopts);
	if (sig >= 0)
		udf_evaluate(c, ex, sig, 0, argv[0]);
}

static void fn_summary(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	Exec *ex = udf_current(c);
	if (!ex)
		return;
	if (argc == 2) {   /* suql_summary(id, t) */
		const Occ *o = udf_occ(c, ex, argv[0]);
		if (!o)
			return;
		udf_evaluate(c, ex, o->sig, o->mode == OCC_PLANNED, argv[1]);
		return;
	}
	int sig = loose_sig(c, ex, FT_SUMMARY, NULL, NULL, NULL, NULL, 0, NULL, 0);
	udf_evaluate(c, ex, sig, 0, argv[0]);
}

static void fn_verify(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	Exec *ex = udf_current(c);
	if (!ex)
		return;
	if (argc < 4) {
		sqlite3_result_error(c, "suql_verify takes (text, question, op, value, ...)", -1);
		return;
	}
	const char *op = (const char *)sqlite3_value_text(argv[2]);
	int sig = loose_sig(c, ex, FT_VERIFY, argv[1], NULL, op ? op : "=", argv + 3, argc - 3,
	                    NULL, 0);
	if (sig >= 0)
		udf_evaluate(c, ex, sig, 0, argv[0]);
}

void udf_register(Engine *e)
{
	int f = SQLITE_UTF8;
	sqlite3_create_function(e->db, "suql_atom", 3, f, e, fn_atom, NULL, NULL);
	sqlite3_create_function(e->db, "suql_answer", -1, f, e, fn_answer, NULL, NULL);
	sqlite3_create_function(e->db, "suql_summary", 1, f, e, fn_summary, NULL, NULL);
	sqlite3_create_function(e->db, "suql_summary", 2, f, e, fn_summary, NULL, NULL);
	sqlite3_create_function(e->db, "suql_verify", -1, f, e, fn_verify, NULL, NULL);
	sqlite3_create_function(e->db, "suql_choice", 3, f, e, fn_choice, NULL, NULL);
}

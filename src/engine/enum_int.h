/*
 * enum_int.h: ENUM '=' (enum.c): a comparison of an ENUM column with a literal that is not
 * one of its values is classified by the model into the values the literal means, kept in
 * suql_enum_map, and rewritten into an IN list. It is a row of the operator table
 * (enum_row, op_int.h): the binder finds the comparisons through its bind entry; the
 * pipeline looks them up (prepare), classifies what is missing (pending, settle) and
 * rewrites them (rewrite) through its other entries, and the planner counts the calls
 * (cost) and keeps a comparison not rewritten yet where it is (holds).
 *
 * Ownership: an EnumCmp's strings and arrays are owned by it; its Expr pointers
 * point into the statement's arena.
 */
#ifndef SUQL_ENUM_INT_H
#define SUQL_ENUM_INT_H

#include "engine/engine_int.h"

/* ---- ENUM comparisons ---- */

typedef struct EnumLit {
	char *text;           /* the literal */
	int permitted;        /* one of the permitted values as it is */
	int known;            /* mapping known (from the map or classified), or unknown below */
	int classified_now;
	int unknown;          /* the model's reply could not be read: the comparison is NULL */
	char *reply;          /* unknown: what the model replied */
	char *other_model;    /* a stored mapping made by another model (classified again) */
	int unmarked;         /* a stored mapping without this user's mark (classified again) */
	char **vals;          /* the permitted values it means */
	int nvals;
} EnumLit;

typedef enum EnumForm { EF_EQ, EF_NE, EF_IN, EF_NOTIN, EF_ANY, EF_NOTALL, EF_CONTAINS,
                       EF_OVERLAP } EnumForm;

typedef struct EnumCmp {
	Expr **slot;
	Expr *orig;           /* copy for display */
	Expr *col;            /* the column expression */
	EnumForm form;
	char *table, *column;
	int list;             /* ENUM[] */
	EnumLit *lits;
	int nlits;
	Expr **others;        /* IN-list items that are not literals (kept) */
	int nothers;
	int block;
	int pending;          /* some literal still needs classifying */
	int rewritten;
	char **options;       /* permitted values */
	int noptions;
} EnumCmp;

/* :enum and :enum forget (engine_enum_list, engine_enum_forget). */
SuqlStatus enum_list(Engine *e, SBuf *out, SuqlErr *err);
SuqlStatus enum_forget(Engine *e, const char *table, const char *column, const char *literal,
                       long *n, SuqlErr *err);

#endif

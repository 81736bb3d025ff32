/*
 * enum.c: the overloaded '=' of ENUM columns (seed 000 §5.2). A comparison of an ENUM or
 * ENUM[] column with literals (=, <>, IN, NOT IN, = ANY, <> ALL, @>, <@) whose literal is
 * not one of the permitted values asks the model which permitted values the literal means
 * (LLM_CLASSIFY: zero, one or several), and the comparison becomes an IN-list over them:
 *
 *   price = 'pricey'             ->  price IN ('expensive', 'luxury')
 *   'coffee' = ANY (cuisines)    ->  'coffee & tea' = ANY (cuisines) OR 'cafe' = ANY (cuisines)
 *
 * The permitted values of a closed enum are its declared ones; an open enum (ENUM or
 * ENUM[] without a list) permits the values stored in the column. Each mapping is stored in
 * the database, in suql_enum_map(tbl, col, literal, vals, options, model) (suql.enum_map in
 * PostgreSQL), so a literal is classified once per column and model, and the mapping is
 * used as it is from then on (options records a hash of the permitted values it was
 * classified against; :enum forget, or deleting the map's rows, has literals classified
 * again). Both modes do this: it is what the query means. The backend's Dialect lists a
 * column's values and reads and writes the map (dialect_sqlite.c, dialect_pg.c).
 *
 * Only what a model said is stored: a mapping records the model that made it
 * (llm_model_id) and serves only that model (another model, or the offline backend,
 * classifies again and the plan says so); an empty mapping means the model said that no
 * value fits, and is shown as a warning. A classification whose reply could not be read
 * is stored nowhere: the comparison is NULL for this statement (rows that depend on it are
 * not returned), with a warning.
 */
#include "engine/bind_int.h"
#include "engine/enum_int.h"
#include "engine/op_int.h"
#include "engine/sql_int.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The statement's ENUM comparisons: ENUM's state (Exec.opstate[OP_ENUM]). */
typedef struct EnumState {
	EnumCmp *c;
	int n, cap;
} EnumState;

/* The state, or an empty one when none was made (read, never written). */
static EnumState *es(const Exec *ex)
{
	static EnumState none;
	EnumState *s = ex->opstate[OP_ENUM];
	return s ? s : &none;
}

/* What a comparison holds. */
static void enum_free(EnumCmp *c)
{
	for (int k = 0; k < c->nlits; k++) {
		free(c->lits[k].text);
		free(c->lits[k].reply);
		free(c->lits[k].other_model);
		for (int m = 0; m < c->lits[k].nvals; m++)
			free(c->lits[k].vals[m]);
		free(c->lits[k].vals);
	}
	free(c->lits);
	for (int k = 0; k < c->noptions; k++)
		free(c->options[k]);
	free(c->options);
	free(c->others);
	free(c->table);
	free(c->column);
}

static EnumCmp *new_cmp(Exec *ex)
{
	if (!ex->opstate[OP_ENUM])
		ex->opstate[OP_ENUM] = xcalloc(1, sizeof(EnumState));
	if (es(ex)->n == es(ex)->cap) {
		es(ex)->cap = es(ex)->cap ? es(ex)->cap * 2 : 4;
		es(ex)->c = xrealloc(es(ex)->c, (size_t)es(ex)->cap * sizeof *es(ex)->c);
	}
	EnumCmp *c = &es(ex)->c[es(ex)->n++];
	memset(c, 0, sizeof *c);
	return c;
}

static void add_lit(EnumCmp *c, const char *t)
{
	c->lits = xrealloc(c->lits, ((size_t)c->nlits + 1) * sizeof *c->lits);
	memset(&c->lits[c->nlits], 0, sizeof *c->lits);
	c->lits[c->nlits++].text = xstrdup(t);
}

/* The ENUM column a column expression names: its catalog entry, or NULL. */
static const CatColumn *enum_column(Exec *ex, int b, const Expr *col, char **table)
{
	if (col->kind != EX_COLUMN)
		return NULL;
	int blk;
	int i = bind_resolve(ex, b, col, &blk);
	if (i < 0)
		return NULL;
	ScopeItem *it = &ex->blocks[blk].items[i];
	if (it->kind != IT_TABLE)
		return NULL;
	const CatColumn *cc = bind_scope_catalog(ex, it->table, ast_name_value(ex->a, col->name));
	if (!cc || !cc->is_enum)
		return NULL;
	*table = it->table;
	return cc;
}

static const char *str_lit(Exec *ex, const Expr *e)
{
	if (e->kind == EX_LITERAL && e->lit == LIT_STRING)
		return ast_name_value(ex->a, e->name);
	return NULL;
}

static void enum_answer_options(Exec *ex, int b, Expr *e)
{
	if (e->kind != EX_BINARY || (e->op != OP_EQ && e->op != OP_NE))
		return;
	Expr *col = e->left, *ans = e->right;
	if (col->kind == EX_ANSWER) {
		col = e->right;
		ans = e->left;
	}
	char *table;
	const CatColumn *cc = ans->kind == EX_ANSWER && !ans->extra ? enum_column(ex, b, col, &table)
	                                                            : NULL;
	if (!cc || cc->is_array || !cc->enum_values || cc->nenum < 1)
		return;
	Expr *arr = ast_expr_new(ex->a, EX_ARRAY);
	for (int i = 0; i < cc->nenum; i++)
		ast_list_push(ex->a, &arr->list, ast_string(ex->a, cc->enum_values[i]));
	ans->extra = arr;
}

static void enum_detect(Exec *ex, int b, Expr **slot)
{
	Expr *e = *slot;
	Expr *col = NULL;
	EnumForm form;
	const Expr *const *lits = NULL;
	int nl = 0;
	const Expr *one = NULL;
	if (e->kind == EX_BINARY && (e->op == OP_EQ || e->op == OP_NE)) {
		if (e->left->kind == EX_COLUMN && str_lit(ex, e->right))
			col = e->left, one = e->right;
		else if (e->right->kind == EX_COLUMN && str_lit(ex, e->left))
			col = e->right, one = e->left;
		form = e->op == OP_EQ ? EF_EQ : EF_NE;
		lits = &one;
		nl = 1;
	} else if (e->kind == EX_IN && e->left->kind == EX_COLUMN && e->list && !e->select &&
	           !e->in_table) {
		col = e->left;
		form = e->not_ ? EF_NOTIN : EF_IN;
		lits = (const Expr *const *)e->list->items;
		nl = e->list->n;
	} else if (e->kind == EX_QUANT && !e->select && e->right && e->right->kind == EX_COLUMN &&
	           str_lit(ex, e->left) &&
	           ((e->op == OP_EQ && e->quant != Q_ALL) || (e->op == OP_NE && e->quant == Q_ALL))) {
		col = e->right;
		form = e->op == OP_EQ ? EF_ANY : EF_NOTALL;
		one = e->left;
		lits = &one;
		nl = 1;
	} else if (e->kind == EX_CONTAINS) {
		/* col @> ARRAY[...], ARRAY[...] <@ col; col && ARRAY[...] either way round */
		Expr *c2 = e->op == OP_CONTAINED ? e->right : e->left;
		Expr *arr = e->op == OP_CONTAINED ? e->left : e->right;
		if (e->op == OP_OVERLAP && c2->kind == EX_ARRAY) {
			Expr *t = c2;
			c2 = arr;
			arr = t;
		}
		if (c2->kind == EX_COLUMN && arr->kind == EX_ARRAY && arr->list && arr->list->n) {
			col = c2;
			form = e->op == OP_OVERLAP ? EF_OVERLAP : EF_CONTAINS;
			lits = (const Expr *const *)arr->list->items;
			nl = arr->list->n;
		}
	}
	if (!col)
		return;
	char *table = NULL;
	const CatColumn *cc = enum_column(ex, b, col, &table);
	if (!cc)
		return;
	int list_form = form == EF_ANY || form == EF_NOTALL || form == EF_CONTAINS ||
	                form == EF_OVERLAP;
	if (list_form != cc->is_array)
		return;   /* a list compared as one value, or the reverse: plain SQL */
	if (form == EF_CONTAINS || form == EF_OVERLAP)
		for (int i = 0; i < nl; i++)
			if (!str_lit(ex, lits[i]))
				return;
	int any = 0;
	for (int i = 0; i < nl; i++)
		any |= str_lit(ex, lits[i]) != NULL;
	if (!any)
		return;
	EnumCmp *c = new_cmp(ex);
	c->slot = slot;
	c->orig = ast_expr_copy(ex->a, e);
	c->col = col;
	c->form = form;
	c->table = xstrdup(table);
	c->column = xstrdup(cc->column);
	c->list = cc->is_array;
	c->block = b;
	for (int i = 0; i < nl; i++) {
		const char *t = str_lit(ex, lits[i]);
		if (t) {
			add_lit(c, t);
		} else {
			c->others = xrealloc(c->others, ((size_t)c->nothers + 1) * sizeof *c->others);
			c->others[c->nothers++] = (Expr *)lits[i];
		}
	}
	if (cc->enum_values) {
		c->noptions = cc->nenum;
		c->options = xmalloc(((size_t)cc->nenum + 1) * sizeof *c->options);
		for (int i = 0; i < cc->nenum; i++)
			c->options[i] = xstrdup(cc->enum_values[i]);
	}
}

/* ---- the permitted values and the map ---- */

static void load_open_options(Exec *ex, EnumCmp *c)
{
	for (EnumCmp *o = es(ex)->c; o < c; o++) {   /* the same column seen before */
		if (o->options && str_ieq(o->table, c->table) && str_ieq(o->column, c->column)) {
			for (int i = 0; i < o->noptions; i++)
				exec_strv_push(&c->options, &c->noptions, o->options[i]);
			return;
		}
	}
	char *q = ex->e->dialect->enum_values(c->table, c->column, c->list);
	StoreCursor *cur;
	if (store_query(ex->e->store, q, NULL, 0, &cur, NULL) == SUQL_OK) {
		while (store_next(cur) > 0)
			exec_strv_push(&c->options, &c->noptions, store_text(cur, 0));
		store_done(cur);
	}
	free(q);
}

static char *options_sig(const EnumCmp *c)
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < c->noptions; i++) {
		for (const char *p = c->options[i]; *p; p++) {
			h ^= (unsigned char)*p;
			h *= 1099511628211ULL;
		}
		h ^= 0x1f;
		h *= 1099511628211ULL;
	}
	return xprintf("%d:%016llx", c->noptions, (unsigned long long)h);
}

static void set_vals_json(EnumLit *l, const char *json)
{
	l->nvals = 0;
	l->vals = NULL;
	json_t *v = json ? json_loads(json, 0, NULL) : NULL;
	size_t i;
	json_t *el;
	json_array_foreach(v, i, el) {
		if (json_is_string(el))
			exec_strv_push(&l->vals, &l->nvals, json_string_value(el));
	}
	json_decref(v);
}

/* Is t one of the values stored in an open enum's column? (stops at the first one) */
static int stored_value(Exec *ex, const EnumCmp *c, const char *t)
{
	char *q = ex->e->dialect->enum_has(c->table, c->column, c->list);
	const char *args[] = {t};
	StoreCursor *cur;
	int found = 0;
	if (store_query(ex->e->store, q, args, 1, &cur, NULL) == SUQL_OK) {
		found = store_next(cur) > 0;
		store_done(cur);
	}
	free(q);
	return found;
}

/* The permitted values of every comparison that still has a literal to classify. */
static void need_options(Exec *ex)
{
	for (int i = 0; i < es(ex)->n; i++) {
		EnumCmp *c = &es(ex)->c[i];
		if (c->pending && !c->options)
			load_open_options(ex, c);
	}
}

static SuqlStatus enum_lookup(Exec *ex, SuqlErr *err)
{
	if (es(ex)->n == 0)
		return SUQL_OK;
	/* a literal is classified once per column and model: what the map holds for this
	   model is used as it is (after new values appear in an open enum, :enum forget asks
	   again); a mapping of another model only says that one exists */
	const Dialect *d = ex->e->dialect;
	/* a user's table that only has suql's name holds no mappings of suql's */
	char *foreign = d->map_foreign(ex->e);
	void *map = foreign ? NULL : d->map_open(ex);
	for (int i = 0; i < es(ex)->n; i++) {
		EnumCmp *c = &es(ex)->c[i];
		c->pending = 0;
		for (int k = 0; k < c->nlits; k++) {
			EnumLit *l = &c->lits[k];
			if (c->options) {
				for (int j = 0; j < c->noptions && !l->permitted; j++)
					l->permitted = strcmp(c->options[j], l->text) == 0;
			} else {
				l->permitted = stored_value(ex, c, l->text);
			}
			if (l->permitted) {
				l->known = 1;
				continue;
			}
			EnumMapRow row = {0};
			if (map && d->map_read(map, ex, c->table, c->column, l->text, &row)) {
				if (row.unmarked) {
					l->unmarked = 1;
				} else if (row.known) {
					set_vals_json(l, row.vals);
					l->known = 1;
				} else {
					l->other_model = row.other_model;
					row.other_model = NULL;
				}
			}
			free(row.vals);
			free(row.other_model);
			if (!l->known)
				c->pending = 1;
		}
	}
	if (map)
		d->map_close(map);
	for (int i = 0; foreign && i < es(ex)->n; i++)
		if (es(ex)->c[i].pending) {
			err_set(err, SUQL_ERROR, "cannot classify the ENUM literals of this statement: %s",
			        foreign);
			free(foreign);
			return SUQL_ERROR;
		}
	free(foreign);
	/* comparisons whose literals are all permitted need nothing */
	int k = 0;
	for (int i = 0; i < es(ex)->n; i++) {
		EnumCmp *c = &es(ex)->c[i];
		int all = 1;
		for (int j = 0; j < c->nlits; j++)
			all &= c->lits[j].permitted;
		if (all) {
			enum_free(c);
			continue;
		}
		es(ex)->c[k++] = *c;
	}
	es(ex)->n = k;
	return SUQL_OK;
}

static int enum_pending(const Exec *ex)
{
	int n = 0;
	for (int i = 0; i < es(ex)->n; i++) {
		const EnumCmp *c = &es(ex)->c[i];
		for (int k = 0; k < c->nlits; k++) {
			if (c->lits[k].known)
				continue;
			/* the same literal for the same column earlier counts once */
			int dup = 0;
			for (int j = 0; j <= i && !dup; j++)
				for (int m = 0; m < es(ex)->c[j].nlits && !dup; m++) {
					if (j == i && m >= k)
						break;
					dup = !es(ex)->c[j].lits[m].known &&
					      str_ieq(es(ex)->c[j].table, c->table) &&
					      str_ieq(es(ex)->c[j].column, c->column) &&
					      strcmp(es(ex)->c[j].lits[m].text, c->lits[k].text) == 0;
				}
			n += !dup;
		}
	}
	return n;
}

/* A mapping that could not be stored (a read-only or locked database, a full disk) serves
   this statement only, and the statement says so. */
static void store_map(Exec *ex, const EnumCmp *c, const EnumLit *l)
{
	SBuf b = SBUF_INIT;
	sb_putc(&b, '[');
	for (int i = 0; i < l->nvals; i++) {
		if (i)
			sb_putc(&b, ',');
		sb_put_json(&b, l->vals[i], strlen(l->vals[i]));
	}
	sb_putc(&b, ']');
	char *sig = options_sig(c);
	char *m = ex->e->dialect->map_write(ex, c->table, c->column, l->text, sb_str(&b), sig);
	if (m)
		exec_warn(ex, m);
	free(m);
	free(sig);
	sb_free(&b);
}

static SuqlStatus enum_classify(Exec *ex, SuqlErr *err)
{
	need_options(ex);
	/* one call per distinct (column, literal) still unknown */
	typedef struct Ask {
		int cmp, lit;
	} Ask;
	Ask *ask = NULL;
	int nask = 0;
	for (int i = 0; i < es(ex)->n; i++) {
		EnumCmp *c = &es(ex)->c[i];
		for (int k = 0; k < c->nlits; k++) {
			if (c->lits[k].known)
				continue;
			int dup = 0;
			for (int j = 0; j < nask && !dup; j++) {
				EnumCmp *o = &es(ex)->c[ask[j].cmp];
				dup = str_ieq(o->table, c->table) && str_ieq(o->column, c->column) &&
				      strcmp(o->lits[ask[j].lit].text, c->lits[k].text) == 0;
			}
			if (!dup) {
				ask = xrealloc(ask, ((size_t)nask + 1) * sizeof *ask);
				ask[nask].cmp = i;
				ask[nask++].lit = k;
			}
		}
	}
	if (nask == 0)
		return SUQL_OK;
	LlmCall *calls = xcalloc((size_t)nask, sizeof *calls);
	LlmCall **cp = xmalloc((size_t)nask * sizeof *cp);
	for (int j = 0; j < nask; j++) {
		EnumCmp *c = &es(ex)->c[ask[j].cmp];
		calls[j].kind = LLM_CLASSIFY;
		calls[j].shape = LLM_SHAPE_LIST;
		calls[j].subject = c->lits[ask[j].lit].text;
		calls[j].options = (const char *const *)c->options;
		calls[j].noptions = c->noptions;
		cp[j] = &calls[j];
	}
	SuqlStatus st = SUQL_OK;
	/* a column with no permitted value at all classifies nothing */
	int any = 0;
	for (int j = 0; j < nask; j++)
		any |= calls[j].noptions > 0;
	if (any) {
		int k = 0;
		for (int j = 0; j < nask; j++)
			if (calls[j].noptions > 0)
				cp[k++] = &calls[j];
		st = llm_run(ex->e->llm, cp, k, NULL, NULL, err);
	}
	for (int j = 0; j < nask && st == SUQL_OK; j++) {
		EnumCmp *c = &es(ex)->c[ask[j].cmp];
		EnumLit src = {0};
		src.text = c->lits[ask[j].lit].text;
		src.unknown = calls[j].unreadable;
		for (int m = 0; m < calls[j].nlabels; m++)
			exec_strv_push(&src.vals, &src.nvals, calls[j].labels[m]);
		if (!src.unknown)
			store_map(ex, c, &src);   /* an unread reply is stored nowhere */
		else
			ex->unread++;
		/* every comparison with this literal on this column learns it */
		for (int i = 0; i < es(ex)->n; i++) {
			EnumCmp *o = &es(ex)->c[i];
			if (!str_ieq(o->table, c->table) || !str_ieq(o->column, c->column))
				continue;
			for (int m = 0; m < o->nlits; m++) {
				EnumLit *l = &o->lits[m];
				if (l->known || strcmp(l->text, src.text) != 0)
					continue;
				l->known = 1;
				l->classified_now = 1;
				l->unknown = src.unknown;
				if (src.unknown)
					l->reply = xstrdup(calls[j].text ? calls[j].text : "");
				for (int v = 0; v < src.nvals; v++)
					exec_strv_push(&l->vals, &l->nvals, src.vals[v]);
			}
		}
		for (int v = 0; v < src.nvals; v++)
			free(src.vals[v]);
		free(src.vals);
	}
	for (int j = 0; j < nask; j++)
		llm_call_clear(&calls[j]);
	free(calls);
	free(cp);
	free(ask);
	for (int i = 0; i < es(ex)->n; i++) {
		es(ex)->c[i].pending = 0;
		for (int k = 0; k < es(ex)->c[i].nlits; k++)
			es(ex)->c[i].pending |= !es(ex)->c[i].lits[k].known;
	}
	return st;
}

/* ---- the rewrite ---- */

static void add_val(char ***v, int *n, const char *s)
{
	for (int i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return;
	exec_strv_push(v, n, s);
}

/* A constant truth value: 1 or 0 in SQLite, a boolean in PostgreSQL. */
static Expr *truth(Exec *ex, int v)
{
	return ex->e->dialect->truth(ex, v);
}

static Expr *null_or(Exec *ex, Arena *a, Expr *col, int v)
{
	/* CASE WHEN col IS NULL THEN NULL ELSE v END: false (or true) but NULL stays NULL */
	Expr *isn = ast_expr_new(a, EX_ISNULL);
	isn->left = col;
	Expr *c = ast_expr_new(a, EX_CASE);
	ast_list_push(a, &c->list, isn);
	ast_list_push(a, &c->list, ast_null(a));
	c->extra = truth(ex, v);
	return c;
}

static Expr *truth(Exec *ex, int v);

static Expr *any_of(Exec *ex, Expr *col, char **v, int n)
{
	Arena *a = ex->a;
	Expr *r = NULL;
	for (int i = 0; i < n; i++) {
		Expr *q = ast_expr_new(a, EX_QUANT);
		q->op = OP_EQ;
		q->quant = Q_ANY;
		q->left = ast_string(a, v[i]);
		q->right = col;
		r = r ? ast_binary(a, OP_OR, r, q) : q;
	}
	return r ? r : truth(ex, 0);
}

/* r OR NULL: true where r is, NULL elsewhere (a literal whose meaning is unknown) */
static Expr *or_unknown(Arena *a, Expr *r)
{
	return r ? ast_binary(a, OP_OR, r, ast_null(a)) : ast_null(a);
}

static Expr *rewrite_one(Exec *ex, EnumCmp *c)
{
	Arena *a = ex->a;
	char **v = NULL;
	int n = 0, unknown = 0;
	if (c->form == EF_CONTAINS || c->form == EF_OVERLAP) {
		/* @>: every literal's meaning is in the list; &&: some literal's is */
		int op = c->form == EF_CONTAINS ? OP_AND : OP_OR;
		Expr *r = NULL;
		for (int k = 0; k < c->nlits; k++) {
			EnumLit *l = &c->lits[k];
			Expr *part = l->permitted ? any_of(ex, c->col, &l->text, 1)
			             : l->unknown ? ast_null(a) : any_of(ex, c->col, l->vals, l->nvals);
			r = r ? ast_binary(a, op, r, part) : part;
		}
		return r;
	}
	for (int k = 0; k < c->nlits; k++) {
		EnumLit *l = &c->lits[k];
		unknown |= l->unknown;
		if (l->permitted)
			add_val(&v, &n, l->text);
		for (int m = 0; !l->permitted && m < l->nvals; m++)
			add_val(&v, &n, l->vals[m]);
	}
	Expr *r;
	switch (c->form) {
	case EF_ANY:
		r = n ? any_of(ex, c->col, v, n) : NULL;
		r = unknown ? or_unknown(a, r) : r ? r : truth(ex, 0);
		break;
	case EF_NOTALL:
		r = n ? any_of(ex, c->col, v, n) : NULL;
		r = unknown ? ast_unary(a, OP_NOT, or_unknown(a, r))
		    : r ? ast_unary(a, OP_NOT, r) : truth(ex, 1);
		break;
	default: {
		int neg = c->form == EF_NE || c->form == EF_NOTIN;
		if (n == 0 && c->nothers == 0 && !unknown) {
			r = null_or(ex, a, c->col, neg);
			break;
		}
		r = ast_expr_new(a, EX_IN);
		r->left = c->col;
		r->not_ = neg;
		for (int i = 0; i < n; i++)
			ast_list_push(a, &r->list, ast_string(a, v[i]));
		for (int i = 0; i < c->nothers; i++)
			ast_list_push(a, &r->list, c->others[i]);
		if (unknown)   /* IN (..., NULL): never false where the literal might match */
			ast_list_push(a, &r->list, ast_null(a));
		break;
	}
	}
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return r;
}

/* The warnings a comparison's literals call for: none of the values fits, or the
   model's reply could not be read. */
static void warn_lits(Exec *ex, EnumCmp *c)
{
	for (int k = 0; k < c->nlits; k++) {
		EnumLit *l = &c->lits[k];
		char *m = NULL;
		SBuf q = SBUF_INIT;
		sb_put_sqlstr(&q, l->text, strlen(l->text));
		if (l->unknown) {
			SBuf r = SBUF_INIT;
			for (const char *p = l->reply ? l->reply : ""; *p && r.len < 57; p++)
				sb_putc(&r, *p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p);
			if (l->reply && strlen(l->reply) > r.len)
				sb_puts(&r, "...");
			m = xprintf("%s on %s.%s: could not read the model's classification of %s, even "
			            "when asked again (it said '%s'): the comparison is unknown, its rows "
			            "are not returned, and nothing was stored", c->column, c->table,
			            c->column, sb_str(&q), sb_str(&r));
			sb_free(&r);
		} else if (l->known && !l->permitted && l->nvals == 0) {
			m = xprintf("%s matches none of %s's values, as %s classified it (:enum forget "
			            "%s.%s asks again)", sb_str(&q), c->column, llm_model_id(ex->e->llm),
			            c->table, c->column);
		}
		if (m)
			exec_warn(ex, m);
		free(m);
		sb_free(&q);
	}
}

static void enum_rewrite(Exec *ex, int only_known)
{
	for (int i = 0; i < es(ex)->n; i++) {
		EnumCmp *c = &es(ex)->c[i];
		if (c->rewritten || (only_known && c->pending))
			continue;
		Expr *r = rewrite_one(ex, c);
		r->span = (*c->slot)->span;
		*c->slot = r;
		c->rewritten = 1;
		warn_lits(ex, c);
	}
}

static void enum_show(Exec *ex, SBuf *out)
{
	for (int i = 0; i < es(ex)->n; i++) {
		EnumCmp *c = &es(ex)->c[i];
		char *s = exec_print_expr(ex, c->orig);
		sb_printf(out, "enum: %s\n", s);
		free(s);
		for (int k = 0; k < c->nlits; k++) {
			EnumLit *l = &c->lits[k];
			SBuf q = SBUF_INIT;
			sb_put_sqlstr(&q, l->text, strlen(l->text));
			if (l->permitted) {
				sb_printf(out, "  %s is a permitted value\n", sb_str(&q));
			} else if (!l->known) {
				sb_printf(out, "  %s -> not a permitted value: to be classified by %s (1 call)",
				          sb_str(&q), llm_model_id(ex->e->llm));
				if (l->other_model)
					sb_printf(out, "; the stored mapping was made by %s", l->other_model);
				sb_putc(out, '\n');
			} else if (l->unknown) {
				sb_printf(out, "  %s -> unknown: the model's reply could not be read (not "
				          "stored)\n", sb_str(&q));
			} else {
				sb_printf(out, "  %s -> {", sb_str(&q));
				for (int m = 0; m < l->nvals; m++) {
					if (m)
						sb_puts(out, ", ");
					sb_put_sqlstr(out, l->vals[m], strlen(l->vals[m]));
				}
				sb_puts(out, "} (");
				if (!l->classified_now)
					sb_printf(out, "from %s, made by %s", ex->e->dialect->enum_map,
					          llm_model_id(ex->e->llm));
				else if (l->other_model)
					sb_printf(out, "classified now by %s; the stored mapping was made by %s",
					          llm_model_id(ex->e->llm), l->other_model);
				else if (l->unmarked)
					sb_printf(out, "classified now by %s; the stored mapping has no record "
					          "that suql made it here, and is not used", llm_model_id(ex->e->llm));
				else
					sb_puts(out, "classified now");
				sb_puts(out, l->nvals ? ")\n" : "; none of the values fits)\n");
			}
			sb_free(&q);
		}
		if (c->rewritten) {
			char *r = exec_print_expr(ex, *c->slot);
			sb_printf(out, "  becomes %s\n", r);
			free(r);
		}
	}
}

/* ---- :enum ---- */

/* ---- its row of the operator table (op.c) ---- */

static int enum_applies(const Exec *ex)
{
	return es(ex)->n > 0;
}

/* The binder offers it every expression: an ENUM column compared with literals becomes a
   comparison to classify, an ENUM column compared with answer() constrains the answer to
   the column's values; the binder goes on either way. */
static int enum_bind(Bind *bd, int b, Expr **slot, const OpFunc *f, const OpAt *at)
{
	(void)f;
	(void)at;
	if (b >= 0) {
		enum_detect(bd->ex, b, slot);
		enum_answer_options(bd->ex, b, *slot);
	}
	return OP_BIND_NONE;
}

static long enum_pending_calls(const Exec *ex)
{
	return enum_pending(ex);
}

/* The planner's cost: a call per literal still to classify. */
static void enum_cost(Exec *ex)
{
	int n = enum_pending(ex);
	ex->est.worst[3] += n;
	ex->est.expect[3] += n;
}

/* ENUM's floor: a call per literal to classify, or classified by this statement (the
   same literal of the same column once): the mapping is the model's answer, and nothing
   else gives it. */
static long long enum_floor(Exec *ex)
{
	long long n = enum_pending(ex);
	for (int i = 0; i < es(ex)->n; i++) {
		const EnumCmp *c = &es(ex)->c[i];
		for (int k = 0; k < c->nlits; k++)
			n += c->lits[k].classified_now != 0;
	}
	return n;
}

/* A comparison not rewritten yet: the planner keeps it where it is, and its value is not
   known before its literal is classified. */
static int enum_holds(const Exec *ex, const Expr *e)
{
	for (int i = 0; i < es(ex)->n; i++)
		if (!es(ex)->c[i].rewritten && *es(ex)->c[i].slot == e)
			return OP_HOLD_PENDING;
	return OP_HOLD_NONE;
}

static void enum_op_free(Exec *ex)
{
	for (int i = 0; i < es(ex)->n; i++)
		enum_free(&es(ex)->c[i]);
	free(es(ex)->c);
	free(ex->opstate[OP_ENUM]);
	ex->opstate[OP_ENUM] = NULL;
}

const EngineOp enum_row = {
	.name = "ENUM",
	.slot = OP_ENUM,
	.construct = OP_REWRITTEN,
	.forms = 1,
	.bind = enum_bind,
	.applies = enum_applies,
	.prepare = enum_lookup,
	.pending = enum_pending_calls,
	.settle = enum_classify,
	.rewrite = enum_rewrite,
	.holds = enum_holds,
	.cost = enum_cost,
	.floor = enum_floor,
	.show = enum_show,
	.free = enum_op_free,
};


SuqlStatus enum_list(Engine *e, SBuf *out, SuqlErr *err)
{
	const Dialect *d = e->dialect;
	if (!store_has_table(e->store, d->enum_map)) {
		sb_puts(out, "no ENUM mappings stored\n");
		return SUQL_OK;
	}
	char *foreign = d->map_foreign(e);
	if (foreign) {
		err_set(err, SUQL_ERROR, "%s", foreign);
		free(foreign);
		return SUQL_ERROR;
	}
	const char *q = "SELECT tbl, col, literal, vals, model FROM %s ORDER BY tbl, col, "
	                "literal, model";
	char *sql = xprintf(q, d->enum_map);
	StoreCursor *cur = NULL;
	SuqlErr qe = {0};
	SuqlStatus s = store_query(e->store, sql, NULL, 0, &cur, &qe);
	free(sql);
	if (s != SUQL_OK) {
		err_set(err, SUQL_ERROR, "cannot read %s: %s", d->enum_map, qe.msg ? qe.msg : "");
		err_clear(&qe);
		return SUQL_ERROR;
	}
	long n = 0;
	while (store_next(cur) > 0) {
		const char *f[5];
		for (int i = 0; i < 5; i++) {
			f[i] = store_text(cur, i);
			if (!f[i])
				f[i] = "";
		}
		EnumLit l = {0};
		set_vals_json(&l, f[3]);
		sb_printf(out, "%s.%s  ", f[0], f[1]);
		sb_put_sqlstr(out, f[2], strlen(f[2]));
		sb_puts(out, " -> {");
		for (int i = 0; i < l.nvals; i++) {
			sb_puts(out, i ? ", " : "");
			sb_put_sqlstr(out, l.vals[i], strlen(l.vals[i]));
			free(l.vals[i]);
		}
		free(l.vals);
		sb_printf(out, "}%s  (by %s)\n", l.nvals ? "" : " none fits", f[4]);
		n++;
	}
	store_done(cur);
	if (n == 0)
		sb_puts(out, "no ENUM mappings stored\n");
	return SUQL_OK;
}

SuqlStatus enum_forget(Engine *e, const char *table, const char *column,
                              const char *literal, long *n, SuqlErr *err)
{
	*n = 0;
	return e->dialect->map_forget(e, table, column, literal, n, err);
}

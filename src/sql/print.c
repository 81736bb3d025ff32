/*
 * print.c: the printer object (output, position map, hooks) and expressions, in either
 * mode (see print.h). Parentheses are put back from precedence: a child is parenthesised
 * when it binds less tightly than its place needs, so the printed text parses to the same
 * tree. SELECT is in print_select.c, statements in print_stmt.c, the SUQL forms and their
 * translations in print_sql.c.
 */
#include "sql/lex.h"
#include "sql/print_int.h"

#include <stdlib.h>
#include <string.h>

Printer *print_new(PrintMode mode, const PrintHooks *hooks, const char *src, size_t src_off)
{
	Printer *pr = xcalloc(1, sizeof *pr);
	pr->mode = mode;
	if (hooks)
		pr->hooks = *hooks;
	pr->src = src;
	pr->src_off = src_off;
	return pr;
}

void print_free(Printer *pr)
{
	if (!pr)
		return;
	sb_free(&pr->out);
	free(pr->map);
	free(pr->scope);
	free(pr);
}

const char *print_text(const Printer *pr) { return sb_str(&pr->out); }
size_t print_len(const Printer *pr) { return pr->out.len; }

char *print_steal(Printer *pr)
{
	if (!pr->out.s)
		return xstrdup("");
	return sb_steal(&pr->out);
}

void pr_map(Printer *pr, size_t src_off, size_t len)
{
	if (pr->mode == PRINT_SUQL || (!len && !src_off))   /* SQL and PG are run */
		return;
	if (pr->nmap == pr->capmap) {
		pr->capmap = pr->capmap ? pr->capmap * 2 : 64;
		pr->map = xrealloc(pr->map, pr->capmap * sizeof *pr->map);
	}
	pr->map[pr->nmap++] = (MapEnt){pr->out.len, src_off, len};
}

size_t print_map(const Printer *pr, size_t out_off)
{
	size_t lo = 0, hi = pr->nmap, best = (size_t)-1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pr->map[mid].out <= out_off) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (best == (size_t)-1)
		return pr->nmap ? pr->map[0].src : 0;
	/* prefer the innermost entry that starts at the same place */
	const MapEnt *m = &pr->map[best];
	size_t d = out_off - m->out;
	return m->src + (d < m->len ? d : 0);
}

void print_rawn(Printer *pr, const char *s, size_t n) { sb_putn(&pr->out, s, n); }
void print_raw(Printer *pr, const char *s) { sb_puts(&pr->out, s); }

void print_name(Printer *pr, AstName n)
{
	if (!n.s)
		return;
	if (n.off)
		pr_map(pr, n.off, n.n);
	sb_putn(&pr->out, n.s, n.n);
}

void pr_qualname(Printer *pr, AstName schema, AstName name)
{
	if (schema.s) {
		print_name(pr, schema);
		print_raw(pr, ".");
	}
	print_name(pr, name);
}

void pr_indexed(Printer *pr, IndexedKind kind, AstName index)
{
	if (kind == INDEXED_BY) {
		print_raw(pr, " INDEXED BY ");
		print_name(pr, index);
	} else if (kind == NOT_INDEXED) {
		print_raw(pr, " NOT INDEXED");
	}
}

/* ---- expressions ---- */
static const char *binop_text(int op)
{
	switch (op) {
	case OP_OR: return " OR ";
	case OP_AND: return " AND ";
	case OP_EQ: return " = ";
	case OP_NE: return " != ";
	case OP_IS: return " IS ";
	case OP_ISNOT: return " IS NOT ";
	case OP_ISDISTINCT: return " IS DISTINCT FROM ";
	case OP_ISNOTDISTINCT: return " IS NOT DISTINCT FROM ";
	case OP_LT: return " < ";
	case OP_LE: return " <= ";
	case OP_GT: return " > ";
	case OP_GE: return " >= ";
	case OP_BITAND: return " & ";
	case OP_BITOR: return " | ";
	case OP_LSHIFT: return " << ";
	case OP_RSHIFT: return " >> ";
	case OP_ADD: return " + ";
	case OP_SUB: return " - ";
	case OP_MUL: return " * ";
	case OP_DIV: return " / ";
	case OP_REM: return " % ";
	case OP_CONCAT: return " || ";
	case OP_PTR: return " -> ";
	case OP_PTR2: return " ->> ";
	default: return " ? ";
	}
}

void pr_list(Printer *pr, const ExprList *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n; i++) {
		if (i)
			print_raw(pr, ", ");
		pr_expr_prec(pr, l->items[i], PREC_NONE);
	}
}

void pr_order(Printer *pr, const OrderList *l)
{
	for (int i = 0; i < l->n; i++) {
		const OrderTerm *t = l->items[i];
		if (i)
			print_raw(pr, ", ");
		pr_expr_prec(pr, t->expr, PREC_NONE);
		if (t->dir == SORT_ASC)
			print_raw(pr, " ASC");
		else if (t->dir == SORT_DESC)
			print_raw(pr, " DESC");
		if (t->nulls == NULLS_FIRST)
			print_raw(pr, " NULLS FIRST");
		else if (t->nulls == NULLS_LAST)
			print_raw(pr, " NULLS LAST");
	}
}

static void pr_bound(Printer *pr, BoundKind k, const Expr *e)
{
	switch (k) {
	case BOUND_UNBOUNDED_PRECEDING: print_raw(pr, "UNBOUNDED PRECEDING"); break;
	case BOUND_UNBOUNDED_FOLLOWING: print_raw(pr, "UNBOUNDED FOLLOWING"); break;
	case BOUND_CURRENT_ROW: print_raw(pr, "CURRENT ROW"); break;
	case BOUND_PRECEDING: pr_expr_prec(pr, e, PREC_NONE); print_raw(pr, " PRECEDING"); break;
	case BOUND_FOLLOWING: pr_expr_prec(pr, e, PREC_NONE); print_raw(pr, " FOLLOWING"); break;
	default: break;
	}
}

void pr_window_body(Printer *pr, const Window *w)
{
	int sp = 0;
	print_raw(pr, "(");
	if (w->base.s) {
		print_name(pr, w->base);
		sp = 1;
	}
	if (w->partition) {
		print_raw(pr, sp ? " PARTITION BY " : "PARTITION BY ");
		pr_list(pr, w->partition);
		sp = 1;
	}
	if (w->order) {
		print_raw(pr, sp ? " ORDER BY " : "ORDER BY ");
		pr_order(pr, w->order);
		sp = 1;
	}
	if (w->frame) {
		if (sp)
			print_raw(pr, " ");
		print_raw(pr, w->frame == FRAME_ROWS ? "ROWS " : w->frame == FRAME_RANGE ? "RANGE "
		                                                                        : "GROUPS ");
		if (w->between) {
			print_raw(pr, "BETWEEN ");
			pr_bound(pr, w->start_kind, w->start);
			print_raw(pr, " AND ");
			pr_bound(pr, w->end_kind, w->end);
		} else {
			pr_bound(pr, w->start_kind, w->start);
		}
		static const char *const EXCL[] = {"", " EXCLUDE NO OTHERS", " EXCLUDE CURRENT ROW",
		                                   " EXCLUDE GROUP", " EXCLUDE TIES"};
		print_raw(pr, EXCL[w->exclude]);
	}
	print_raw(pr, ")");
}

void pr_paren_select(Printer *pr, const Select *s)
{
	print_raw(pr, "(");
	print_select(pr, s);
	print_raw(pr, ")");
}

static int out_prec(const Printer *pr, const Expr *e)
{
	if (ast_is_suql_expr(e))
		return pr_suql_prec(pr, e);
	return ast_prec(e);
}

static void pr_node(Printer *pr, const Expr *e)
{
	switch (e->kind) {
	case EX_LITERAL:
		switch (e->lit) {
		case LIT_NULL: print_raw(pr, "NULL"); break;
		case LIT_TRUE: print_raw(pr, "TRUE"); break;
		case LIT_FALSE: print_raw(pr, "FALSE"); break;
		case LIT_CURRENT_TIME: print_raw(pr, "CURRENT_TIME"); break;
		case LIT_CURRENT_DATE: print_raw(pr, "CURRENT_DATE"); break;
		case LIT_CURRENT_TIMESTAMP: print_raw(pr, "CURRENT_TIMESTAMP"); break;
		default: print_name(pr, e->name); break;
		}
		break;
	case EX_PARAM:
		print_name(pr, e->name);
		break;
	case EX_COLUMN:
		if (pr_unnest_column(pr, e))
			break;
		if (e->schema.s) {
			print_name(pr, e->schema);
			print_raw(pr, ".");
		}
		if (e->table.s) {
			print_name(pr, e->table);
			print_raw(pr, ".");
		}
		print_name(pr, e->name);
		break;
	case EX_STAR:
		if (e->table.s) {
			print_name(pr, e->table);
			print_raw(pr, ".");
		}
		print_raw(pr, "*");
		break;
	case EX_UNARY:
		if (e->op == OP_NOT) {
			print_raw(pr, "NOT ");
			pr_expr_prec(pr, e->left, PREC_NOT);
			break;
		}
		print_raw(pr, e->op == OP_NEG ? "-" : e->op == OP_POS ? "+" : "~");
		/* never print "--" (a comment start): "- -x" */
		if (e->op == OP_NEG && e->left->kind == EX_UNARY && e->left->op == OP_NEG)
			print_raw(pr, " ");
		pr_expr_prec(pr, e->left, PREC_UNARY);
		break;
	case EX_BINARY: {
		if (pr->mode == PRINT_SQL && pr_interval_sql(pr, e))
			break;
		int prec = ast_binop_prec(e->op);
		pr_expr_prec(pr, e->left, prec);
		print_raw(pr, binop_text(e->op));
		pr_expr_prec(pr, e->right, prec + 1);
		break;
	}
	case EX_LIKE: {
		pr_expr_prec(pr, e->left, PREC_EQ);
		if (e->not_)
			print_raw(pr, " NOT");
		static const char *const NAMES[] = {" LIKE ", " GLOB ", " REGEXP ", " MATCH ", " ILIKE "};
		int i = e->op - OP_LIKE;
		if (e->op == OP_ILIKE && pr->mode == PRINT_SQL)
			i = 0;
		print_raw(pr, NAMES[i]);
		pr_expr_prec(pr, e->right, PREC_EQ + 1);
		if (e->extra) {
			print_raw(pr, " ESCAPE ");
			pr_expr_prec(pr, e->extra, PREC_EQ + 1);
		}
		break;
	}
	case EX_BETWEEN:
		pr_expr_prec(pr, e->left, PREC_EQ);
		print_raw(pr, e->not_ ? " NOT BETWEEN " : " BETWEEN ");
		pr_expr_prec(pr, e->right, PREC_EQ);
		print_raw(pr, " AND ");
		pr_expr_prec(pr, e->extra, PREC_EQ + 1);
		break;
	case EX_IN:
		pr_expr_prec(pr, e->left, PREC_EQ);
		print_raw(pr, e->not_ ? " NOT IN " : " IN ");
		if (e->in_table) {
			pr_qualname(pr, e->schema, e->name);
			if (e->list) {
				print_raw(pr, "(");
				pr_list(pr, e->list);
				print_raw(pr, ")");
			}
		} else if (e->select) {
			pr_paren_select(pr, e->select);
		} else {
			print_raw(pr, "(");
			pr_list(pr, e->list);
			print_raw(pr, ")");
		}
		break;
	case EX_ISNULL:
		pr_expr_prec(pr, e->left, PREC_EQ);
		print_raw(pr, e->not_ ? " NOTNULL" : " ISNULL");
		break;
	case EX_EXISTS:
		print_raw(pr, "EXISTS ");
		pr_paren_select(pr, e->select);
		break;
	case EX_SUBQUERY:
		pr_paren_select(pr, e->select);
		break;
	case EX_CAST:
		if (pr->mode == PRINT_SQL && e->left->kind == EX_ANSWER && !e->left->extra &&
		    e->type->pg) {
			pr_typed_answer(pr, e->left, e->type->pg);
			break;
		}
		print_raw(pr, "CAST(");
		pr_expr_prec(pr, e->left, PREC_NONE);
		print_raw(pr, " AS ");
		print_rawn(pr, e->type->text, e->type->n);
		print_raw(pr, ")");
		break;
	case EX_CASE:
		print_raw(pr, "CASE");
		if (e->left) {
			print_raw(pr, " ");
			pr_expr_prec(pr, e->left, PREC_NONE);
		}
		for (int i = 0; e->list && i + 1 < e->list->n; i += 2) {
			print_raw(pr, " WHEN ");
			pr_expr_prec(pr, e->list->items[i], PREC_NONE);
			print_raw(pr, " THEN ");
			pr_expr_prec(pr, e->list->items[i + 1], PREC_NONE);
		}
		if (e->extra) {
			print_raw(pr, " ELSE ");
			pr_expr_prec(pr, e->extra, PREC_NONE);
		}
		print_raw(pr, " END");
		break;
	case EX_FUNC:
		print_name(pr, e->name);
		print_raw(pr, "(");
		if (e->distinct)
			print_raw(pr, "DISTINCT ");
		if (e->star)
			print_raw(pr, "*");
		pr_list(pr, e->list);
		if (e->order) {
			print_raw(pr, " ORDER BY ");
			pr_order(pr, e->order);
		}
		print_raw(pr, ")");
		if (e->extra) {
			print_raw(pr, " FILTER (WHERE ");
			pr_expr_prec(pr, e->extra, PREC_NONE);
			print_raw(pr, ")");
		}
		if (e->over) {
			print_raw(pr, " OVER ");
			if (e->over->is_ref)
				print_name(pr, e->over->name);
			else
				pr_window_body(pr, e->over);
		}
		break;
	case EX_COLLATE:
		pr_expr_prec(pr, e->left, PREC_COLLATE);
		print_raw(pr, " COLLATE ");
		print_name(pr, e->name);
		break;
	case EX_RAISE: {
		static const char *const R[] = {"IGNORE", "ROLLBACK", "ABORT", "FAIL"};
		print_raw(pr, "RAISE(");
		print_raw(pr, R[e->op - RAISE_IGNORE]);
		if (e->right) {
			print_raw(pr, ", ");
			pr_expr_prec(pr, e->right, PREC_NONE);
		}
		print_raw(pr, ")");
		break;
	}
	case EX_ROW:
		print_raw(pr, "(");
		pr_list(pr, e->list);
		print_raw(pr, ")");
		break;
	default:
		pr_suql_form(pr, e);
		break;
	}
}

static void pr_default_prec(Printer *pr, const Expr *e, int minprec)
{
	int paren = out_prec(pr, e) < minprec;
	if (paren)
		print_raw(pr, "(");
	pr_map(pr, e->span.off, e->span.len);
	pr_node(pr, e);
	if (paren)
		print_raw(pr, ")");
}

/* Nonzero when s[0..n) needs no parentheses anywhere: a (qualified) name or a call
   name(...) whose parentheses close at the end. */
static int primary_text(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (lex_idchar((unsigned char)s[i]) || s[i] == '.' || s[i] == '"'))
		i++;
	if (i == n)
		return 1;
	if (i == 0 || s[i] != '(' || s[n - 1] != ')')
		return 0;
	int depth = 0;
	char q = 0;
	for (; i < n; i++) {
		char c = s[i];
		if (q) {
			if (c == q)
				q = 0;
		} else if (c == '\'' || c == '"') {
			q = c;
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && --depth == 0 && i != n - 1) {
			return 0;
		}
	}
	return depth == 0 && !q;
}

void pr_expr_prec(Printer *pr, const Expr *e, int minprec)
{
	if (!e)
		return;
	if (pr->hooks.expr) {
		size_t mark = pr->out.len, mmark = pr->nmap;
		if (pr->hooks.expr(pr->hooks.ctx, pr, e)) {
			if (minprec > PREC_NONE && pr->out.len > mark &&
			    !primary_text(pr->out.s + mark, pr->out.len - mark)) {
				/* put the hook's output in parentheses */
				size_t l = pr->out.len - mark;
				sb_putc(&pr->out, ' ');
				memmove(pr->out.s + mark + 1, pr->out.s + mark, l);
				pr->out.s[mark] = '(';
				sb_putc(&pr->out, ')');
				for (size_t i = mmark; i < pr->nmap; i++)
					pr->map[i].out++;
			}
			return;
		}
		sb_truncate(&pr->out, mark);
		pr->nmap = mmark;
	}
	pr_default_prec(pr, e, minprec);
}

void print_expr(Printer *pr, const Expr *e)
{
	pr_expr_prec(pr, e, PREC_NONE);
}


/*
 * engine_record.c: showing the record of the last statement (record_int.h): the per-row
 * section (one line per candidate a walk examined, in the order examined), :why (the
 * evidence behind one row: each free-text value, the question, the reply as read, the
 * passages shown, the request and whether the cache answered; a verdict's confidence
 * where the endpoint gave log-probabilities), the same as one JSON
 * object for --json -v, and the check that a phrase a chat answer quotes is in a passage
 * the model was shown. Nothing here calls the model: it reads what the statement kept.
 */
#include "engine/exec_int.h"
#include "engine/record_int.h"
#include "base/vis.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Append s on one line, control characters as blanks, cut to at most cols characters
   (with "..." when cut; cols <= 0: not cut). */
static void clip(SBuf *out, const char *s, long cols)
{
	size_t n = strlen(s);
	long total = 0;
	for (size_t i = 0; i < n; total++) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		i += k ? k : 1;
	}
	long keep = cols > 0 && total > cols ? (cols > 3 ? cols - 3 : 0) : total;
	size_t i = 0;
	for (long shown = 0; i < n && shown < keep; shown++) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		if (k == 0)
			k = 1;
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || cp == 0x85 || cp == 0x2028 ||
		    cp == 0x2029)
			sb_putc(out, ' ');   /* no line of a passage starts a line of the prompt */
		else if (cp < 0)
			sb_puts(out, "\xEF\xBF\xBD");   /* not UTF-8: U+FFFD, as the prompts send it */
		else
			sb_putn(out, s + i, k);
		i += k;
	}
	if (keep < total)
		sb_puts(out, "...");
}

static const char *verdict_word(int v)
{
	switch (v) {
	case VERDICT_YES: return "yes";
	case VERDICT_NO: return "no";
	case VERDICT_NULL: return "unknown";
	default: return "not needed";
	}
}

static void put_ids(SBuf *out, const Record *r, long long at, int nid)
{
	for (int i = 0; i < nid; i++) {
		if (i)
			sb_putc(out, ',');
		if (r->ids[at + i] == NULL_ID)
			sb_puts(out, "NULL");
		else
			sb_printf(out, "%lld", (long long)r->ids[at + i]);
	}
}

/* A verdict's confidence (llm.logprobs), after the verdict: " (confidence 0.93)", or for
   one below llm.min_confidence, taken as unknown, " (the reply said yes at confidence 0.41,
   below llm.min_confidence 0.6)"; brief: " (0.93)", " (yes 0.41)". Nothing when the
   endpoint gave none. */
static void put_conf(SBuf *out, const Record *r, int ask, int brief)
{
	const RecAsk *a = ask > 0 ? &r->asks[ask - 1] : NULL;
	if (!a || !a->has_conf)
		return;
	if (!a->low) {
		sb_printf(out, brief ? " (%.2f)" : " (confidence %.2f)", a->conf);
		return;
	}
	sb_puts(out, brief ? " (" : " (the reply said ");
	clip(out, a->reply ? a->reply : "", 8);
	sb_printf(out, brief ? " %.2f)" : " at confidence %.2f, below llm.min_confidence %g)",
	          a->conf, a->min_conf);
}

/* "request 3", "cache", "no text" */
static void put_source(SBuf *out, const Record *r, int ask, int verdict)
{
	if (ask > 0) {
		const RecAsk *a = &r->asks[ask - 1];
		if (a->cached)
			sb_puts(out, "cache");
		else if (a->request)
			sb_printf(out, "request %d", a->request);
		else
			sb_puts(out, "no request");
		return;
	}
	sb_puts(out, verdict == VERDICT_UNASKED ? "-" : verdict == VERDICT_NULL ? "no text"
	                                                                         : "not kept");
}

/* ---- the per-row section ---- */

static void show_unit(const Record *r, int u, long width, SBuf *out)
{
	const RecUnit *ru = &r->units[u];
	sb_printf(out, "block %d, conjunct %d: %lld candidate%s, %lld examined, in the order "
	          "examined\n", ru->block, ru->unit, ru->rows, ru->rows == 1 ? "" : "s",
	          ru->examined);
	for (int k = 0; k < ru->natoms; k++)
		sb_printf(out, "  q%d = %s\n", k + 1,
		          ru->atom_what[k] >= 0 ? r->what[ru->atom_what[k]].text : "?");
	long long cached = 0;
	for (long long i = 0; i < r->ncands; i++) {
		const RecCand *c = &r->cands[i];
		if (c->unit != u)
			continue;
		SBuf l = SBUF_INIT;
		sb_printf(&l, "  %lld. key ", c->pos + 1);
		put_ids(&l, r, c->ids, c->nid);
		if (c->label) {
			sb_putc(&l, ' ');
			clip(&l, c->label, 24);
		}
		int first = 0, wave = 0;
		for (int k = 0; k < ru->natoms; k++) {
			int ask = r->cask[c->atoms + k];
			if (ask > 0 && !first) {
				first = ask;
				wave = r->asks[ask - 1].wave;
				cached += r->asks[ask - 1].cached;
			}
		}
		if (wave)
			sb_printf(&l, " | wave %d", wave);
		sb_puts(&l, " | ");
		put_source(&l, r, first, ru->natoms ? r->cverdict[c->atoms] : VERDICT_UNASKED);
		for (int k = 0; k < ru->natoms; k++) {
			sb_printf(&l, " | q%d %s", k + 1, verdict_word(r->cverdict[c->atoms + k]));
			if (r->cverdict[c->atoms + k] != VERDICT_UNASKED)
				put_conf(&l, r, r->cask[c->atoms + k], 1);
		}
		sb_printf(&l, " | %s", c->in_result > 0 ? "in the result"
		          : c->in_result == 0 ? "not in the result"
		          : c->state == CAND_PASSED ? "passed" : "not passed");
		if (first && r->asks[first - 1].npsg > 0) {
			sb_puts(&l, " | \"");
			long room = width > 0 ? width - (long)l.len - 1 : 0;
			clip(&l, r->asks[first - 1].psg[0], width > 0 ? (room < 12 ? 12 : room) : 0);
			sb_putc(&l, '"');
		}
		sb_putc(&l, '\n');
		sb_puts(out, sb_str(&l));
		sb_free(&l);
	}
	long long rest = ru->rows - ru->examined;
	sb_printf(out, "  not examined: %lld candidate%s", rest, rest == 1 ? "" : "s");
	if (rest > 0)
		sb_puts(out, ru->lazy ? " (the LIMIT was reached)" : " (not needed)");
	if (ru->from_rows >= ru->rows)
		sb_printf(out, "; %lld row%s of FROM removed by the structured filter",
		          ru->from_rows - ru->rows, ru->from_rows - ru->rows == 1 ? "" : "s");
	if (cached)
		sb_printf(out, "; %lld of the examined answered from the cache", cached);
	if (ru->kept < ru->examined)
		sb_printf(out, "; %lld examined not kept (the record keeps %d)",
		          ru->examined - ru->kept, REC_MAX_CANDS);
	sb_putc(out, '\n');
}

void engine_record_rows(const Engine *e, int width, SBuf *out)
{
	const Record *r = e->record;
	if (!r || !r->freetext)
		return;
	if (r->nunits == 0) {
		sb_puts(out, "no candidates were walked (no free text in a WHERE the optimizer "
		        "walked)\n");
		return;
	}
	for (int u = 0; u < r->nunits; u++)
		show_unit(r, u, width, out);
}

/* ---- why a value is NULL ---- */

/* Characters of a reply quoted in a reason. */
#define REC_QUOTE 300

/* Why the value an ask gave (or the absence of one) is NULL, in one sentence: 1 and the
   reason in out, or 0 when it is not NULL. The reasons: the row's text was NULL (nothing
   was asked); the offline backend found no word of the question (its note); the reply
   could not be read, even asked again (quoted; for a typed answer, the type it is not);
   the typed conversion failed (the warning: the reply and the type); the model answered
   that the text does not say, or that none of the allowed answers applies. (A verdict
   below llm.min_confidence says so on its own line.) */
static int null_reason(const RecWhat *w, const RecAsk *a, int verdict, SBuf *out)
{
	int verify = !w || w->kind == FT_VERIFY;
	if (verify ? verdict != VERDICT_NULL : a && a->value)
		return 0;
	if (!a) {
		if (verdict == VERDICT_UNASKED && verify)
			return 0;
		sb_puts(out, "the row's text is NULL (or empty): nothing was asked");
		return 1;
	}
	const char *typed = w && w->pg != PGT_NONE && w->pg != PGT_TEXT
	                    ? ast_pg_name((PgType)w->pg) : NULL;
	if (a->unreadable) {
		sb_puts(out, typed ? "the model's reply is not " : w && w->noptions > 0 ? "the "
		        "model's reply is none of the allowed answers" : "the model's reply could not "
		        "be read");
		if (typed)
			sb_printf(out, "a%s %s (the statement asks for one)", typed[0] == 'i' ? "n" :
			          "", typed);
		sb_puts(out, ", even when asked again: it said \"");
		clip(out, a->reply ? a->reply : "", REC_QUOTE);
		sb_puts(out, "\"");
		return 1;
	}
	if (verify && a->low)
		return 0;   /* the verdict's line says it: below llm.min_confidence (put_conf) */
	if (a->warning) {
		sb_puts(out, "the typed conversion failed: ");
		clip(out, a->warning, REC_QUOTE);
		if (typed)
			sb_printf(out, " (the statement asks for a%s %s)", typed[0] == 'i' ? "n" : "", typed);
		return 1;
	}
	if (a->note) {
		clip(out, a->note, REC_QUOTE);
		return 1;
	}
	if (a->offline) {
		sb_puts(out, "the offline backend found no answer in the text");
		return 1;
	}
	sb_puts(out, w && w->noptions > 0 ? "the model answered that none of the allowed answers "
	        "applies (its reply: \"" : "the model answered that the text does not say (its "
	        "reply: \"");
	clip(out, a->reply ? a->reply : "", REC_QUOTE);
	sb_puts(out, "\")");
	return 1;
}

/* ---- :why ---- */

static void show_ask(const Record *r, int what, int ask, int verdict, SBuf *out)
{
	const RecWhat *w = what >= 0 ? &r->what[what] : NULL;
	sb_printf(out, "%s: ", w ? w->text : "?");
	const RecAsk *a = ask > 0 ? &r->asks[ask - 1] : NULL;
	if (w && w->kind == FT_VERIFY) {
		sb_puts(out, verdict_word(verdict));
		if (verdict != VERDICT_UNASKED)
			put_conf(out, r, ask, 0);
	} else if (a && a->value)
		clip(out, a->value, 0);
	else
		sb_puts(out, "NULL");
	sb_putc(out, '\n');
	SBuf why = SBUF_INIT;
	int null = null_reason(w, a, verdict, &why);
	if (null)
		sb_printf(out, "  why NULL: %s\n", sb_str(&why));
	sb_free(&why);
	if (!a) {
		if (!null)
			sb_printf(out, "  %s\n", verdict == VERDICT_UNASKED ? "not asked: not needed to "
			          "decide the row" : "not kept in the record");
		return;
	}
	if (w && w->question)
		sb_printf(out, "  question: %s\n", w->question);
	sb_puts(out, "  reply: ");
	if (a->unreadable)
		sb_puts(out, "(could not be read) ");
	clip(out, a->reply ? a->reply : "", 0);
	sb_putc(out, '\n');
	if (a->cached)
		sb_puts(out, "  cost: none, from the cache\n");
	else
		sb_printf(out, "  cost: request %d%s, a call of %d candidate%s (%d tokens in, %d "
		          "out, for the whole call)\n", a->request, a->wave ? "" : " (on demand)",
		          a->ncall, a->ncall == 1 ? "" : "s", a->tokens_in, a->tokens_out);
	if (a->wave)
		sb_printf(out, "  wave: %d\n", a->wave);
	if (a->evidence) {
		sb_puts(out, "  decided by: ");
		clip(out, a->evidence, 0);
		sb_putc(out, '\n');
	}
	sb_printf(out, "  passages shown (%d)%s:\n", a->npsg,
	          a->evidence ? ", the sentence that decided between >> and <<" : "");
	for (int k = 0; k < a->npsg; k++) {
		sb_printf(out, "    %d. ", k + 1);
		const char *at = a->evidence ? strstr(a->psg[k], a->evidence) : NULL;
		if (at) {   /* highlighted where it stands */
			char *head = xstrndup(a->psg[k], (size_t)(at - a->psg[k]));
			clip(out, head, 0);
			sb_puts(out, ">>");
			clip(out, a->evidence, 0);
			sb_puts(out, "<<");
			clip(out, at + strlen(a->evidence), 0);
			free(head);
		} else {
			clip(out, a->psg[k], 0);
		}
		sb_putc(out, '\n');
	}
}

static const RecCand *find_cand(const Record *r, const char *arg, long long key)
{
	for (long long i = 0; i < r->ncands; i++) {
		const RecCand *c = &r->cands[i];
		if (key != NULL_ID ? c->nid > 0 && r->ids[c->ids] == key
		                   : c->label && strncasecmp(c->label, arg, strlen(arg)) == 0)
			return c;
	}
	return NULL;
}

static long long find_row(const Record *r, const char *arg, long long key)
{
	for (long long i = 0; i < r->nrows; i++) {
		if (key != NULL_ID && r->nid > 0 && r->ids[r->rows[i].ids] == key)
			return i;
		if (key == NULL_ID) {   /* by label: the candidate's key */
			const RecCand *c = find_cand(r, arg, NULL_ID);
			if (c && c->nid == r->nid && memcmp(r->ids + c->ids, r->ids + r->rows[i].ids,
			                                    (size_t)r->nid * sizeof *r->ids) == 0)
				return i;
		}
	}
	return -1;
}

/* The label of a result row: that of the examined candidate with its key. */
static const char *row_label(const Record *r, const RecRow *row)
{
	for (long long c = 0; c < r->ncands; c++)
		if (r->cands[c].nid == r->nid && r->cands[c].label &&
		    memcmp(r->ids + r->cands[c].ids, r->ids + row->ids,
		           (size_t)r->nid * sizeof *r->ids) == 0)
			return r->cands[c].label;
	return NULL;
}

static void show_row(const Record *r, long long i, SBuf *out)
{
	const RecRow *row = &r->rows[i];
	sb_printf(out, "row %lld of the result, key ", i + 1);
	for (int k = 0; k < r->nid; k++)
		sb_printf(out, "%s%s %lld", k ? ", " : "", r->id_names[k],
		          (long long)r->ids[row->ids + k]);
	const char *label = row_label(r, row);
	if (label)
		sb_printf(out, " (%s)", label);
	sb_putc(out, '\n');
	if (r->nrvals == 0)
		sb_puts(out, "no free text in the statement's own SELECT: the row comes from SQL "
		        "alone\n");
	for (int j = 0; j < r->nrvals; j++)
		show_ask(r, r->rwhat[j], r->rask[row->vals + j], r->rverdict[row->vals + j], out);
}

static void show_cand(const Record *r, const RecCand *c, SBuf *out)
{
	const RecUnit *ru = &r->units[c->unit];
	sb_printf(out, "candidate %lld of block %d, conjunct %d, key ", c->pos + 1, ru->block,
	          ru->unit);
	put_ids(out, r, c->ids, c->nid);
	if (c->label)
		sb_printf(out, " (%s)", c->label);
	sb_printf(out, ": %s\n", c->in_result > 0 ? "in the result" : c->state == CAND_PASSED
	          ? "passed, not in the result" : c->state == CAND_FAILED ? "failed"
	          : c->state == CAND_NULL ? "unknown, not in the result" : "not decided");
	for (int k = 0; k < ru->natoms; k++)
		show_ask(r, ru->atom_what[k], r->cask[c->atoms + k], r->cverdict[c->atoms + k], out);
}

SuqlStatus engine_record_why(const Engine *e, const char *arg, SBuf *out, SuqlErr *err)
{
	const Record *r = e->record;
	if (!r || !r->freetext)
		return err_set(err, SUQL_USAGE, "the last statement had no free text: nothing to "
		               "explain (:why works after a statement with answer(), summary() or an "
		               "ENUM comparison)");
	while (*arg == ' ')
		arg++;
	if (!*arg)
		return err_set(err, SUQL_USAGE, "usage: :why N (a row of the last result), :why "
		               "key=K, :why LABEL (the start of a row's label), or :why group N (a "
		               "group of answer_agg() or summary_agg())");
	if (strncasecmp(arg, "group", 5) == 0 && (arg[5] == 0 || arg[5] == ' ')) {
		const char *g = arg + 5;
		while (*g == ' ')
			g++;
		if (r->ngroups == 0)
			return err_set(err, SUQL_USAGE, "the last statement answered no group of "
			               "answer_agg() or summary_agg()");
		if (!*g) {   /* the list: the first line of each */
			for (int i = 0; i < r->ngroups; i++) {
				const char *nl = strchr(r->groups[i], '\n');
				sb_printf(out, "%.*s\n", nl ? (int)(nl - r->groups[i]) : (int)strlen(r->groups[i]),
				          r->groups[i]);
			}
			return SUQL_OK;
		}
		char *gend;
		long n = strtol(g, &gend, 10);
		if (gend == g || *gend || n < 1 || n > r->ngroups)
			return err_set(err, SUQL_USAGE, "the last statement answered %d group%s: :why "
			               "group N takes N from 1 to %d", r->ngroups, r->ngroups == 1 ? "" : "s",
			               r->ngroups);
		sb_puts(out, r->groups[n - 1]);
		return SUQL_OK;
	}
	char *end;
	long long key = NULL_ID, pos = -1;
	if (strncasecmp(arg, "key=", 4) == 0) {
		key = strtoll(arg + 4, &end, 10);
		if (end == arg + 4 || *end)
			return err_set(err, SUQL_USAGE, "key=K takes a whole number, not '%s'", arg + 4);
	} else {
		pos = strtoll(arg, &end, 10);
		if (end == arg || *end)
			pos = -1;
	}
	if (pos >= 0) {
		if (!r->traced)
			return err_set(err, SUQL_USAGE, "the rows of the last result cannot be traced "
			               "back: %s; try :why key=K or :why LABEL",
			               r->why_untraced ? r->why_untraced : "it returned none");
		if (pos < 1 || pos > r->nrows)
			return err_set(err, SUQL_USAGE, "the last result has %lld row%s%s: no row %lld",
			               r->nrows, r->nrows == 1 ? "" : "s",
			               r->rows_total > r->nrows ? " kept in the record" : "", pos);
		show_row(r, pos - 1, out);
		return SUQL_OK;
	}
	long long i = r->traced ? find_row(r, arg, key) : -1;
	if (i >= 0) {
		show_row(r, i, out);
		return SUQL_OK;
	}
	const RecCand *c = find_cand(r, arg, key);
	if (c) {
		show_cand(r, c, out);
		return SUQL_OK;
	}
	return err_set(err, SUQL_USAGE, "no row of the last result and no examined candidate "
	               "has %s '%s'", key != NULL_ID ? "the key" : "a label starting with",
	               key != NULL_ID ? arg + 4 : arg);
}

/* ---- JSON ---- */

static json_t *ask_json(const Record *r, int what, int ask, int verdict)
{
	json_t *o = json_object();
	const RecWhat *w = what >= 0 ? &r->what[what] : NULL;
	json_object_set_new(o, "what", json_string(w ? w->text : "?"));
	const RecAsk *a = ask > 0 ? &r->asks[ask - 1] : NULL;
	if (!w || w->kind == FT_VERIFY)
		json_object_set_new(o, "verdict", json_string(verdict_word(verdict)));
	else
		json_object_set_new(o, "value", a && a->value ? json_string(a->value) : json_null());
	SBuf why = SBUF_INIT;
	if (null_reason(w, a, verdict, &why))   /* a NULL says why */
		json_object_set_new(o, "why_null", json_string(sb_str(&why)));
	sb_free(&why);
	if (!a)
		return o;
	json_object_set_new(o, "reply", a->reply ? json_string(a->reply) : json_null());
	json_object_set_new(o, "evidence", a->evidence ? json_string(a->evidence) : json_null());
	if (a->has_conf) {   /* only where the endpoint gave one: no key otherwise */
		json_object_set_new(o, "confidence", json_real(a->conf));
		if (a->low)
			json_object_set_new(o, "below_min_confidence", json_true());
	}
	json_object_set_new(o, "cached", json_boolean(a->cached));
	json_object_set_new(o, "request", a->request ? json_integer(a->request) : json_null());
	json_object_set_new(o, "wave", a->wave ? json_integer(a->wave) : json_null());
	json_object_set_new(o, "call_candidates", json_integer(a->ncall));
	json_t *p = json_array();
	for (int k = 0; k < a->npsg; k++)
		json_array_append_new(p, json_string(a->psg[k]));
	json_object_set_new(o, "passages", p);
	return o;
}

static json_t *ids_json(const Record *r, long long at, int nid)
{
	json_t *k = json_array();
	for (int i = 0; i < nid; i++)
		json_array_append_new(k, r->ids[at + i] == NULL_ID ? json_null()
		                                                   : json_integer(r->ids[at + i]));
	return k;
}

void engine_record_json(const Engine *e, SBuf *out)
{
	const Record *r = e->record;
	if (!r || !r->freetext)
		return;
	json_t *o = json_object();
	json_object_set_new(o, "statement", json_string(r->sql ? r->sql : ""));
	json_t *cands = json_array();
	for (long long i = 0; i < r->ncands; i++) {
		const RecCand *c = &r->cands[i];
		const RecUnit *ru = &r->units[c->unit];
		json_t *j = json_object();
		json_object_set_new(j, "block", json_integer(ru->block));
		json_object_set_new(j, "conjunct", json_integer(ru->unit));
		json_object_set_new(j, "position", json_integer(c->pos + 1));
		json_object_set_new(j, "key", ids_json(r, c->ids, c->nid));
		json_object_set_new(j, "label", c->label ? json_string(c->label) : json_null());
		json_object_set_new(j, "in_result", c->in_result < 0 ? json_null()
		                                                     : json_boolean(c->in_result));
		json_t *v = json_array();
		for (int k = 0; k < ru->natoms; k++)
			json_array_append_new(v, ask_json(r, ru->atom_what[k], r->cask[c->atoms + k],
			                                  r->cverdict[c->atoms + k]));
		json_object_set_new(j, "predicates", v);
		json_array_append_new(cands, j);
	}
	json_object_set_new(o, "candidates", cands);
	json_t *nx = json_array();
	for (int u = 0; u < r->nunits; u++) {
		const RecUnit *ru = &r->units[u];
		json_t *j = json_object();
		json_object_set_new(j, "block", json_integer(ru->block));
		json_object_set_new(j, "conjunct", json_integer(ru->unit));
		json_object_set_new(j, "candidates", json_integer(ru->rows));
		json_object_set_new(j, "examined", json_integer(ru->examined));
		json_object_set_new(j, "not_examined", json_integer(ru->rows - ru->examined));
		json_object_set_new(j, "why", json_string(ru->rows == ru->examined ? "" : ru->lazy
		                                          ? "the LIMIT was reached" : "not needed"));
		json_object_set_new(j, "structured_filter",
		                    json_integer(ru->from_rows >= ru->rows ? ru->from_rows - ru->rows
		                                                           : 0));
		json_array_append_new(nx, j);
	}
	json_object_set_new(o, "conjuncts", nx);
	if (r->traced) {
		json_t *rows = json_array();
		for (long long i = 0; i < r->nrows; i++) {
			json_t *j = json_object();
			json_object_set_new(j, "row", json_integer(i + 1));
			json_object_set_new(j, "key", ids_json(r, r->rows[i].ids, r->nid));
			json_t *v = json_array();
			for (int k = 0; k < r->nrvals; k++)
				json_array_append_new(v, ask_json(r, r->rwhat[k], r->rask[r->rows[i].vals + k],
				                                  r->rverdict[r->rows[i].vals + k]));
			json_object_set_new(j, "values", v);
			json_array_append_new(rows, j);
		}
		json_object_set_new(o, "rows", rows);
	} else {
		json_object_set_new(o, "rows", json_null());
		json_object_set_new(o, "rows_untraced", json_string(r->why_untraced ? r->why_untraced
		                                                                    : ""));
	}
	json_t *top = json_object();
	json_object_set_new(top, "record", o);
	char *s = json_dumps(top, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (s)
		sb_puts(out, s);
	free(s);
	json_decref(top);
}

int engine_record_shown(const Engine *e, const char *text, size_t n)
{
	const Record *r = e->record;
	if (!r || n == 0)
		return 0;
	char *t = xstrndup(text, n);
	int found = 0;
	for (int i = 0; i < r->nasks && !found; i++)
		for (int k = 0; k < r->asks[i].npsg && !found; k++)
			found = strstr(r->asks[i].psg[k], t) != NULL;
	free(t);
	return found;
}

void engine_record_evidence(const Engine *e, int max_rows, SBuf *out)
{
	const Record *r = e->record;
	if (!r || !r->traced)
		return;
	for (long long i = 0; i < r->nrows && i < max_rows; i++) {
		const RecRow *row = &r->rows[i];
		int head = 0;
		for (int j = 0; j < r->nrvals; j++) {
			int ask = r->rask[row->vals + j];
			const RecWhat *w = r->rwhat[j] >= 0 ? &r->what[r->rwhat[j]] : NULL;
			if (ask <= 0 || !w || r->asks[ask - 1].npsg == 0 ||
			    (w->kind == FT_VERIFY && r->rverdict[row->vals + j] != VERDICT_YES))
				continue;   /* only what put the row in the result, or gave its values */
			const RecAsk *a = &r->asks[ask - 1];
			if (!head++) {
				const char *label = row_label(r, row);
				sb_printf(out, "Row %lld%s%s%s:\n", i + 1, label ? " (" : "", label ? label : "",
				          label ? ")" : "");
			}
			sb_printf(out, "- %s: ", w->text);
			for (int k = 0; k < a->npsg && k < 2; k++) {
				sb_puts(out, k ? " / " : "");
				clip(out, a->psg[k], 300);
			}
			sb_putc(out, '\n');
		}
	}
}

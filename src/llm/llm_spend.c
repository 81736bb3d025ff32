/*
 * llm_spend.c: the session's spend. The statement's counters say what one statement cost;
 * this says what the session has spent so far, statements, chat turns and :llm test alike,
 * since every request the client sends is counted here as it is counted there (llm.c's
 * EACH_COUNTS): one row per model asked and endpoint, each with its requests, tokens (the
 * cached and reasoning parts too) and dollars. Dollars are added up as replies are counted,
 * each at the price its model had then (llm_price.c), so a price changed later does not
 * rewrite what was spent before; tokens counted while their model had no price are kept
 * apart and said to be unpriced. Requests cancelled in flight (Ctrl-C, a cap, an error that
 * stopped the wave) left suql and a provider may bill them: what is known of them (how
 * many, their input estimated from their size, the most output they asked for) is kept as
 * "may be billed", never added to what was spent.
 *
 * A row is named by the model and the endpoint's origin (scheme, host, port and path,
 * without credentials, query or fragment), so one model asked at two endpoints is two rows.
 *
 * Ownership: the rows and their strings belong to the Llm (llm_spend_free).
 */
#include "base/vis.h"
#include "llm/llm_int.h"

#include <stdlib.h>
#include <string.h>

const char *llm_spend_model(const Llm *llm, const LlmCall *c)
{
	if (llm_is_offline(llm))
		return LLM_OFFLINE_ID;
	if (c->kind == LLM_EMBED)
		return llm->s.embed_model ? llm->s.embed_model : "";
	return llmp_model(llm, c);
}

LlmCounts *llm_spend_counts(Llm *llm, const LlmCall *c)
{
	int off = llm_is_offline(llm);
	const char *model = llm_spend_model(llm, c);
	const char *org = off || !llm_origin(llm) ? "" : llm_origin(llm);
	for (int i = 0; i < llm->nspend; i++) {
		LlmSpend *r = &llm->spend[i];
		if (r->offline == off && strcmp(r->model, model) == 0 && strcmp(r->origin, org) == 0)
			return &r->n;
	}
	llm->spend = xrealloc(llm->spend, (size_t)(llm->nspend + 1) * sizeof *llm->spend);
	LlmSpend *r = &llm->spend[llm->nspend++];
	memset(r, 0, sizeof *r);
	r->model = xstrdup(model);
	r->origin = xstrdup(org);
	r->offline = off;
	return &r->n;
}

void llm_spend_free(Llm *llm)
{
	for (int i = 0; i < llm->nspend; i++) {
		free(llm->spend[i].model);
		free(llm->spend[i].origin);
	}
	free(llm->spend);
	llm->spend = NULL;
	llm->nspend = 0;
}

int llm_spend_rows(const Llm *llm, const LlmSpend **rows)
{
	*rows = llm->spend;
	return llm->nspend;
}

void llm_money(SBuf *out, double usd)
{
	sb_printf(out, usd >= 1 ? "$%.2f" : usd >= 0.01 ? "$%.3f" : "$%.5f", usd);
}

/* ---- the report ---- */

#define S(n) ((n) == 1 ? "" : "s")

/* Whether a row has anything to say. */
static int used(const LlmCounts *n)
{
	return n->requests || n->in_flight_cancelled || n->tokens_in || n->tokens_out;
}

/* Whether another row names the same model (the rows then name their endpoints too). */
static int model_twice(const Llm *llm, int i)
{
	for (int j = 0; j < llm->nspend; j++)
		if (j != i && strcmp(llm->spend[j].model, llm->spend[i].model) == 0)
			return 1;
	return 0;
}

static void add_counts(LlmCounts *t, const LlmCounts *n)
{
	t->requests += n->requests;
	t->tokens_in += n->tokens_in;
	t->tokens_out += n->tokens_out;
	t->tokens_cached += n->tokens_cached;
	t->tokens_reasoning += n->tokens_reasoning;
	t->est_in += n->est_in;
	t->est_out += n->est_out;
	t->usd += n->usd;
	t->unpriced += n->unpriced;
	t->in_flight_cancelled += n->in_flight_cancelled;
	t->cancelled_in += n->cancelled_in;
	t->cancelled_out += n->cancelled_out;
	t->cancelled_usd += n->cancelled_usd;
	t->cancelled_unpriced += n->cancelled_unpriced;
}

/* "8078 tokens in (1200 of them from the endpoint's prompt cache), 346 out (120 of them
   reasoning)" */
static void say_tokens(SBuf *out, const LlmCounts *n)
{
	sb_printf(out, "%ld token%s in", n->tokens_in, S(n->tokens_in));
	if (n->tokens_cached)
		sb_printf(out, " (%ld of them from the endpoint's prompt cache)", n->tokens_cached);
	sb_printf(out, ", %ld out", n->tokens_out);
	if (n->tokens_reasoning)
		sb_printf(out, " (%ld of them reasoning)", n->tokens_reasoning);
	if (n->est_in || n->est_out)
		sb_printf(out, " (%ld in, %ld out of them estimated at %d bytes a token: replies "
		          "without usage)", n->est_in, n->est_out, TEXT_BYTES_PER_TOKEN);
}

static void say_dollars(SBuf *out, const LlmCounts *n)
{
	if (n->unpriced && n->unpriced == n->tokens_in + n->tokens_out) {
		sb_puts(out, ": no price (:set llm.price_in and llm.price_out, dollars a million "
		        "tokens)");
		return;
	}
	sb_puts(out, ": ");
	llm_money(out, n->usd);
	if (n->unpriced)
		sb_printf(out, ", and %ld token%s that had no price when counted", n->unpriced,
		          S(n->unpriced));
}

static void say_maybe(SBuf *out, const LlmCounts *n, const char *indent)
{
	if (!n->in_flight_cancelled)
		return;
	sb_printf(out, "%smay be billed: %ld request%s cancelled in flight (sent, reply not "
	          "awaited): about %ld tokens in (their size), at most %ld out (what they asked "
	          "for)", indent, n->in_flight_cancelled, S(n->in_flight_cancelled), n->cancelled_in,
	          n->cancelled_out);
	if (n->cancelled_unpriced < n->in_flight_cancelled) {
		sb_puts(out, ": up to about ");
		llm_money(out, n->cancelled_usd);
		if (n->cancelled_unpriced)
			sb_printf(out, " for the %ld with a price",
			          n->in_flight_cancelled - n->cancelled_unpriced);
	}
	sb_putc(out, '\n');
}

static void text_report(const Llm *llm, SBuf *out)
{
	LlmCounts t;
	memset(&t, 0, sizeof t);
	int online = 0;
	for (int i = 0; i < llm->nspend; i++) {
		add_counts(&t, &llm->spend[i].n);
		online += !llm->spend[i].offline && used(&llm->spend[i].n);
	}
	if (!online && !t.in_flight_cancelled) {
		sb_puts(out, "nothing spent this session: no request has gone to a model");
		if (t.requests)
			sb_printf(out, " (the offline backend answered %ld call%s, at no cost)",
			          t.requests, S(t.requests));
		sb_putc(out, '\n');
		return;
	}
	sb_puts(out, "this session's spend (each reply priced as it was counted):\n");
	for (int i = 0; i < llm->nspend; i++) {
		const LlmSpend *r = &llm->spend[i];
		if (!used(&r->n))
			continue;
		if (r->offline) {
			sb_printf(out, "  %s: %ld call%s answered here, nothing sent, $0\n", LLM_OFFLINE_ID,
			          r->n.requests, S(r->n.requests));
			continue;
		}
		sb_printf(out, "  %s", *r->model ? r->model : "(no model)");
		if (model_twice(llm, i))
			sb_printf(out, " at %s", r->origin);
		sb_printf(out, ": %ld request%s, ", r->n.requests, S(r->n.requests));
		say_tokens(out, &r->n);
		say_dollars(out, &r->n);
		LlmPrice p;
		if (!r->n.unpriced && llm_price_of(llm, r->model, &p) && p.from)
			sb_printf(out, " (now $%g in, $%g cached in, $%g out a million tokens: %s)", p.in,
			          p.cached_in, p.out, p.from);
		sb_putc(out, '\n');
		say_maybe(out, &r->n, "    ");
	}
	sb_printf(out, "total: %ld request%s, ", t.requests, S(t.requests));
	say_tokens(out, &t);
	say_dollars(out, &t);
	if (t.in_flight_cancelled) {
		sb_printf(out, "; and %ld request%s cancelled in flight that may be billed",
		          t.in_flight_cancelled, S(t.in_flight_cancelled));
		if (t.cancelled_unpriced < t.in_flight_cancelled) {
			sb_puts(out, " (up to about ");
			llm_money(out, t.cancelled_usd);
			sb_putc(out, ')');
		}
	}
	sb_putc(out, '\n');
}

/* ---- as JSON ---- */

static json_t *usd_or_null(double usd, int priced)
{
	return priced ? json_real(usd) : json_null();
}

static json_t *json_counts(const LlmCounts *n)
{
	json_t *o = json_object();
	json_object_set_new(o, "requests", json_integer(n->requests));
	json_object_set_new(o, "tokens_in", json_integer(n->tokens_in));
	json_object_set_new(o, "tokens_cached", json_integer(n->tokens_cached));
	json_object_set_new(o, "tokens_out", json_integer(n->tokens_out));
	json_object_set_new(o, "tokens_reasoning", json_integer(n->tokens_reasoning));
	json_object_set_new(o, "tokens_estimated", json_pack("{s:I, s:I}", "in",
	                    (json_int_t)n->est_in, "out", (json_int_t)n->est_out));
	json_object_set_new(o, "usd", usd_or_null(n->usd, !n->unpriced));
	json_object_set_new(o, "usd_priced", json_real(n->usd));
	json_object_set_new(o, "unpriced_tokens", json_integer(n->unpriced));
	json_t *m = json_object();
	json_object_set_new(m, "requests", json_integer(n->in_flight_cancelled));
	json_object_set_new(m, "tokens_in_about", json_integer(n->cancelled_in));
	json_object_set_new(m, "tokens_out_at_most", json_integer(n->cancelled_out));
	json_object_set_new(m, "usd_at_most", usd_or_null(n->cancelled_usd,
	                    n->in_flight_cancelled && !n->cancelled_unpriced));
	json_object_set_new(o, "may_be_billed", m);
	return o;
}

static void json_report(const Llm *llm, SBuf *out)
{
	json_t *rows = json_array();
	LlmCounts t;
	memset(&t, 0, sizeof t);
	for (int i = 0; i < llm->nspend; i++) {
		const LlmSpend *r = &llm->spend[i];
		if (!used(&r->n))
			continue;
		add_counts(&t, &r->n);
		json_t *o = json_counts(&r->n);
		char *model = vis_utf8_repair(r->model);
		json_object_set_new(o, "model", json_string(model));
		free(model);
		json_object_set_new(o, "endpoint", r->offline ? json_null() : json_string(r->origin));
		json_object_set_new(o, "offline", json_boolean(r->offline));
		LlmPrice p;
		if (llm_price_of(llm, r->model, &p))
			json_object_set_new(o, "price", json_pack("{s:f, s:f, s:f, s:s}", "in", p.in,
			                    "cached_in", p.cached_in, "out", p.out, "from", p.from));
		else
			json_object_set_new(o, "price", json_null());
		json_array_append_new(rows, o);
	}
	json_t *top = json_pack("{s:{s:o, s:o}}", "cost", "models", rows, "total", json_counts(&t));
	char *s = json_dumps(top, JSON_COMPACT | JSON_REAL_PRECISION(12));
	json_decref(top);
	sb_puts(out, s);
	sb_putc(out, '\n');
	free(s);
}

void llm_spend_report(const Llm *llm, int json, SBuf *out)
{
	if (json)
		json_report(llm, out);
	else
		text_report(llm, out);
}

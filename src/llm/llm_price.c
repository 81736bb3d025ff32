/*
 * llm_price.c: what tokens cost. A model's price in dollars per million tokens (input,
 * cached input, output) comes, for the chat model, from llm.price_in and llm.price_out when
 * both are set (with llm.price_cached_in, else the input price, for cached input), else from
 * the built-in list of public list prices below (dated LLM_PRICE_LIST_DATE; either setting
 * alone overrides its half of the list's price), else there is none and costs are shown in
 * tokens only. Another model the client asks (the proxy of a cascade, the embedding model)
 * takes the list's price for its name, and the chat model's when the list does not know
 * it. The offline backend costs nothing.
 *
 * The list is matched by the longest entry the model's name starts with, so that a dated
 * version (gpt-4o-mini-2024-07-18) finds its family and gpt-5-mini is never taken for
 * gpt-5: the entry must end where a part of the name ends (at a '-', '.', ':', '@', '_' or
 * the end), '.' and '-' are the same letter (claude-sonnet-4.5 is claude-sonnet-4-5), case
 * does not count, and a provider's prefix up to the last '/' (openai/gpt-5) is skipped.
 *
 * A reasoning model writes hidden tokens that are billed as output: the list says which
 * families do, and llm.reasoning_tokens (auto: LLM_REASONING_DEFAULT for those, 0 for the
 * others) is the allowance a request gets for them in the plan's worst case.
 *
 * llm_set_cap_usd is the statement's budget in dollars, checked before each request from
 * what the statement's replies cost so far (llm_may_send), as the request budget is.
 */
#include "llm/llm_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

typedef struct Price {
	const char *model;     /* the start of the model's name */
	double in, cached, out;   /* dollars per million tokens; cached < 0: as in */
	int reasoning;         /* a reasoning family: hidden tokens billed as output */
} Price;

#define R 1   /* a reasoning family */

/* Public list prices of the providers' standard tier (OpenAI's standard processing,
   Anthropic's prompts up to 200K tokens with cache reads as the cached price, Google's paid
   tier for prompts up to 200K tokens), as of LLM_PRICE_LIST_DATE. A cache write is priced
   as input. Set llm.price_in, llm.price_out and llm.price_cached_in for any other model,
   for a provider's other tiers, or when these change. The order does not matter: the
   longest matching entry wins. */
static const Price builtin[] = {
	/* OpenAI */
	{"gpt-5", 1.25, 0.125, 10.00, R},
	{"gpt-5-mini", 0.25, 0.025, 2.00, R},
	{"gpt-5-nano", 0.05, 0.005, 0.40, R},
	{"gpt-5-pro", 15.00, -1, 120.00, R},
	{"gpt-5-chat", 1.25, 0.125, 10.00, 0},
	{"gpt-5.1", 1.25, 0.125, 10.00, R},
	{"gpt-4.1", 2.00, 0.50, 8.00, 0},
	{"gpt-4.1-mini", 0.40, 0.10, 1.60, 0},
	{"gpt-4.1-nano", 0.10, 0.025, 0.40, 0},
	{"gpt-4o", 2.50, 1.25, 10.00, 0},
	{"gpt-4o-mini", 0.15, 0.075, 0.60, 0},
	{"gpt-4.5", 75.00, 37.50, 150.00, 0},
	{"gpt-4-turbo", 10.00, -1, 30.00, 0},
	{"gpt-4", 30.00, -1, 60.00, 0},
	{"gpt-3.5-turbo", 0.50, -1, 1.50, 0},
	{"o1", 15.00, 7.50, 60.00, R},
	{"o1-mini", 1.10, 0.55, 4.40, R},
	{"o1-pro", 150.00, -1, 600.00, R},
	{"o3", 2.00, 0.50, 8.00, R},
	{"o3-mini", 1.10, 0.55, 4.40, R},
	{"o3-pro", 20.00, -1, 80.00, R},
	{"o4-mini", 1.10, 0.275, 4.40, R},
	{"text-embedding-3-small", 0.02, -1, 0, 0},
	{"text-embedding-3-large", 0.13, -1, 0, 0},
	{"text-embedding-ada-002", 0.10, -1, 0, 0},
	/* Anthropic (extended thinking is asked for, not the default: no allowance) */
	{"claude-opus-4-5", 5.00, 0.50, 25.00, 0},
	{"claude-opus-4-1", 15.00, 1.50, 75.00, 0},
	{"claude-opus-4", 15.00, 1.50, 75.00, 0},
	{"claude-sonnet-4-5", 3.00, 0.30, 15.00, 0},
	{"claude-sonnet-4", 3.00, 0.30, 15.00, 0},
	{"claude-haiku-4-5", 1.00, 0.10, 5.00, 0},
	{"claude-3-7-sonnet", 3.00, 0.30, 15.00, 0},
	{"claude-3-5-sonnet", 3.00, 0.30, 15.00, 0},
	{"claude-3-5-haiku", 0.80, 0.08, 4.00, 0},
	{"claude-3-opus", 15.00, 1.50, 75.00, 0},
	{"claude-3-haiku", 0.25, 0.03, 1.25, 0},
	/* Google (2.5 Pro and Flash think by default; Flash-Lite does not) */
	{"gemini-3-pro", 2.00, 0.20, 12.00, R},
	{"gemini-2.5-pro", 1.25, 0.125, 10.00, R},
	{"gemini-2.5-flash", 0.30, 0.03, 2.50, R},
	{"gemini-2.5-flash-lite", 0.10, 0.01, 0.40, 0},
	{"gemini-2.0-flash", 0.10, 0.025, 0.40, 0},
	{"gemini-2.0-flash-lite", 0.075, -1, 0.30, 0},
	{"gemini-1.5-flash", 0.075, -1, 0.30, 0},
};

#undef R

#define LIST_FROM "the built-in price list of " LLM_PRICE_LIST_DATE

/* ---- the list ---- */

static int part_end(char c)
{
	return c == '\0' || c == '-' || c == '.' || c == ':' || c == '@' || c == '_';
}

static int same_letter(char a, char b)
{
	a = (char)tolower((unsigned char)a);
	b = (char)tolower((unsigned char)b);
	return (a == '.' ? '-' : a) == (b == '.' ? '-' : b);
}

/* The length of entry when name starts with it and a part of the name ends there; else 0. */
static size_t starts_with(const char *name, const char *entry)
{
	size_t i = 0;
	for (; entry[i]; i++)
		if (!name[i] || !same_letter(name[i], entry[i]))
			return 0;
	return part_end(name[i]) ? i : 0;
}

static const Price *list_find(const char *model)
{
	if (!model || !*model)
		return NULL;
	const char *slash = strrchr(model, '/');
	const char *name = slash ? slash + 1 : model;
	const Price *best = NULL;
	size_t len = 0;
	for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++) {
		size_t n = starts_with(name, builtin[i].model);
		if (n > len) {
			len = n;
			best = &builtin[i];
		}
	}
	return best;
}

static void from_list(const Price *e, LlmPrice *p)
{
	p->in = e->in;
	p->out = e->out;
	p->cached_in = e->cached >= 0 ? e->cached : e->in;
	p->from = LIST_FROM;
	p->entry = e->model;
	p->reasoning = e->reasoning;
}

int llm_price_list(const char *model, LlmPrice *p)
{
	memset(p, 0, sizeof *p);
	const Price *e = list_find(model);
	if (!e)
		return 0;
	from_list(e, p);
	return 1;
}

/* ---- a model's price ---- */

int llm_price_of(const Llm *llm, const char *model, LlmPrice *p)
{
	memset(p, 0, sizeof *p);
	if (!llm || llm_is_offline(llm)) {
		p->from = "the offline backend";
		return 1;
	}
	const char *chat = llm->s.model;
	if (model && *model && !(chat && strcmp(model, chat) == 0)) {
		/* another model: the list's price, else the chat model's */
		if (llm_price_list(model, p))
			return 1;
		return llm_price_of(llm, NULL, p);
	}
	const LlmSettings *s = &llm->s;
	const Price *e = list_find(chat);
	if (s->price_in >= 0 && s->price_out >= 0) {
		p->in = s->price_in;
		p->out = s->price_out;
		p->cached_in = s->price_cached_in >= 0 ? s->price_cached_in : p->in;
		p->from = "llm.price_in and llm.price_out";
		p->entry = e ? e->model : NULL;
		p->reasoning = e ? e->reasoning : 0;
		return 1;
	}
	if (!e)
		return 0;
	from_list(e, p);
	if (s->price_in >= 0)   /* the user's input price: cached input no dearer than it */
		p->in = p->cached_in = s->price_in;
	if (s->price_out >= 0)
		p->out = s->price_out;
	if (s->price_cached_in >= 0)
		p->cached_in = s->price_cached_in;
	return 1;
}

double llm_price_tokens(const LlmPrice *p, double in, double cached, double out)
{
	if (cached > in)
		cached = in;
	if (cached < 0)
		cached = 0;
	return ((in - cached) * p->in + cached * p->cached_in + out * p->out) / 1e6;
}

int llm_price(const Llm *llm, double *in, double *out, const char **from)
{
	LlmPrice p;
	int ok = llm_price_of(llm, NULL, &p);
	*in = p.in;
	*out = p.out;
	*from = p.from;
	return ok;
}

double llm_cost(const Llm *llm, double tokens_in, double tokens_out)
{
	LlmPrice p;
	if (!llm_price_of(llm, NULL, &p))
		return -1;
	return llm_price_tokens(&p, tokens_in, 0, tokens_out);
}

double llm_counts_usd(const LlmCounts *c)
{
	return c->unpriced > 0 ? -1 : c->usd;
}

double llm_call_usd(const Llm *llm, const LlmCall *c)
{
	LlmPrice p;
	if (!llm_price_of(llm, llm_spend_model(llm, c), &p))
		return -1;
	return llm_price_tokens(&p, c->tokens_in, c->tokens_cached, c->tokens_out);
}

int llm_reasoning_tokens(const Llm *llm)
{
	if (!llm || llm_is_offline(llm))
		return 0;
	if (llm->s.reasoning_tokens >= 0)
		return llm->s.reasoning_tokens;
	const Price *e = list_find(llm->s.model);
	return e && e->reasoning ? LLM_REASONING_DEFAULT : 0;
}

/* ---- the dollar cap ---- */

void llm_set_cap_usd(Llm *llm, double usd)
{
	llm->cap_usd = usd > 0 ? usd : 0;
}

int llm_under_cap_usd(const Llm *llm)
{
	if (llm->cap_usd <= 0)
		return 1;
	double c = llm_counts_usd(&llm->stmt.total);
	return c < 0 || c < llm->cap_usd;
}

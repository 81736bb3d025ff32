/*
 * llm_price.c: what tokens cost. The price of the chat model in dollars per million tokens,
 * input and output, comes from llm.price_in and llm.price_out when set, else from a small
 * built-in table of well-known models (matched by the start of the model's name, so a dated
 * version such as gpt-4o-mini-2024-07-18 finds gpt-4o-mini), else there is none and costs
 * are shown in tokens only. The offline backend costs nothing. llm_set_cap_usd is the
 * statement's budget in dollars, checked before each request from the tokens counted so
 * far (llm_may_send), as the request budget is.
 */
#include "llm/llm_int.h"

#include <string.h>
#include <strings.h>

typedef struct Price {
	const char *model;   /* the start of the model's name */
	double in, out;      /* dollars per million tokens */
} Price;

/* Public list prices of the providers' standard tier; longer names first where one name
   starts another (gpt-4o-mini before gpt-4o). Set llm.price_in and llm.price_out for any
   other model, for a provider's other prices, or when these change. */
static const Price builtin[] = {
	{"gpt-4o-mini", 0.15, 0.60},
	{"gpt-4o", 2.50, 10.00},
	{"gpt-4.1-nano", 0.10, 0.40},
	{"gpt-4.1-mini", 0.40, 1.60},
	{"gpt-4.1", 2.00, 8.00},
	{"gpt-3.5-turbo", 0.50, 1.50},
	{"o4-mini", 1.10, 4.40},
	{"o3-mini", 1.10, 4.40},
	{"claude-3-5-haiku", 0.80, 4.00},
	{"claude-3-5-sonnet", 3.00, 15.00},
	{"gemini-1.5-flash", 0.075, 0.30},
	{"gemini-2.0-flash", 0.10, 0.40},
};

int llm_price(const Llm *llm, double *in, double *out, const char **from)
{
	*in = *out = 0;
	*from = NULL;
	if (!llm || llm_is_offline(llm)) {
		*from = "the offline backend";
		return 1;
	}
	if (llm->s.price_in >= 0 && llm->s.price_out >= 0) {
		*in = llm->s.price_in;
		*out = llm->s.price_out;
		*from = "llm.price_in and llm.price_out";
		return 1;
	}
	const char *m = llm->s.model;
	for (size_t i = 0; m && i < sizeof builtin / sizeof *builtin; i++)
		if (strncasecmp(m, builtin[i].model, strlen(builtin[i].model)) == 0) {
			*in = llm->s.price_in >= 0 ? llm->s.price_in : builtin[i].in;
			*out = llm->s.price_out >= 0 ? llm->s.price_out : builtin[i].out;
			*from = "the built-in price list";
			return 1;
		}
	return 0;
}

double llm_cost(const Llm *llm, double tokens_in, double tokens_out)
{
	double pin, pout;
	const char *from;
	if (!llm_price(llm, &pin, &pout, &from))
		return -1;
	return (tokens_in * pin + tokens_out * pout) / 1e6;
}

void llm_set_cap_usd(Llm *llm, double usd)
{
	llm->cap_usd = usd > 0 ? usd : 0;
}

int llm_under_cap_usd(const Llm *llm)
{
	if (llm->cap_usd <= 0)
		return 1;
	double c = llm_cost(llm, (double)llm->stmt.total.tokens_in,
	                    (double)llm->stmt.total.tokens_out);
	return c < 0 || c < llm->cap_usd;
}

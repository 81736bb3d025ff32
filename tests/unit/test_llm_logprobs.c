/* The confidence of verdicts from a reply's log-probabilities (src/llm/llm_logprobs.c):
   each case is a reply, its logprobs block as JSON, the verdicts read from it, and the
   confidences that must come out (to 3 decimals), or "none" when the block gives none. */
#include "base/util.h"
#include "llm/llm_int.h"
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run one case: got is "none" or the confidences, "0.930,0.600". */
static void run(const char *name, const char *content, const char *block, const int *v, int n,
                const char *want)
{
	json_error_t je;
	json_t *lp = block ? json_loads(block, JSON_DECODE_ANY, &je) : NULL;
	if (block && !lp) {
		printf("not ok %s: the case's block is not JSON: %s\n", name, je.text);
		unit_failed++;
		return;
	}
	double conf[8];
	int k = llm_logprobs_verdicts(lp, content, v, n, conf);
	SBuf got = SBUF_INIT;
	if (k == 0) {
		sb_puts(&got, "none");
		for (int i = 0; i < n; i++)
			if (conf[i] != -1) {
				sb_puts(&got, " (but a confidence was written)");
				break;
			}
	}
	for (int i = 0; i < k; i++)
		sb_printf(&got, "%s%.3f", i ? "," : "", conf[i]);
	CHECK_STR(sb_str(&got), want, name);
	sb_free(&got);
	json_decref(lp);
}

/* A token entry with its logprob and, when alts is not NULL, top_logprobs from a JSON list. */
static char *tok(const char *t, double p, const char *alts)
{
	json_t *o = json_pack("{s:s, s:f}", "token", t, "logprob", log(p));
	if (alts)
		json_object_set_new(o, "top_logprobs", json_loads(alts, 0, NULL));
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static char *alt2(const char *a, double pa, const char *b, double pb)
{
	return xprintf("[{\"token\": \"%s\", \"logprob\": %.17g}, {\"token\": \"%s\", "
	               "\"logprob\": %.17g}]", a, log(pa), b, log(pb));
}

int main(void)
{
	int yes[3] = {1, 1, 1}, no[1] = {0}, yny[3] = {1, 0, 1};
	char *a, *b, *c, *d, *e, *blk;

	/* a single verdict, one token, no alternatives: its own probability */
	a = tok("Yes", 0.93, NULL);
	blk = xprintf("{\"content\": [%s]}", a);
	run("logprobs: one token, no alternatives", "Yes", blk, yes, 1, "0.930");
	free(blk);
	free(a);

	/* normalised against the alternatives that begin a verdict word: 0.6 / (0.6 + 0.3) */
	char *al = alt2("Yes", 0.6, "No", 0.3);
	a = tok("Yes", 0.6, al);
	blk = xprintf("{\"content\": [%s]}", a);
	run("logprobs: normalised against the opposite", "Yes", blk, yes, 1, "0.667");
	free(blk);
	free(a);
	free(al);

	/* other alternatives count for neither; the chosen token missing from top_logprobs
	   still counts; lower-case and blank-led spellings count for their side */
	al = xprintf("[{\"token\": \" yes\", \"logprob\": %.17g}, {\"token\": \"Maybe\", "
	             "\"logprob\": %.17g}, {\"token\": \"NO\", \"logprob\": %.17g}]", log(0.2),
	             log(0.3), log(0.1));
	a = tok("no", 0.5, al);
	blk = xprintf("{\"content\": [%s]}", a);
	run("logprobs: a no among other words", "no", blk, no, 1, "0.750");   /* .6/(.6+.2) */
	free(blk);
	free(a);
	free(al);

	/* a reply of several tokens: quotes and a final point around the word */
	a = tok("\"", 1.0, NULL);
	b = tok("yes", 0.8, "[{\"token\": \"yes\", \"logprob\": -0.2231435513}, "
	        "{\"token\": \"no\", \"logprob\": -1.6094379124}]");
	c = tok("\".", 1.0, NULL);
	blk = xprintf("{\"content\": [%s, %s, %s]}", a, b, c);
	run("logprobs: the word among quotes", "\"yes\".", blk, yes, 1, "0.800");
	free(blk);
	free(a);
	free(b);
	free(c);

	/* a word spelled by two tokens: the second's probability multiplies */
	a = tok("Ye", 0.9, NULL);
	b = tok("s", 0.5, NULL);
	blk = xprintf("{\"content\": [%s, %s]}", a, b);
	run("logprobs: a word of two tokens", "Yes", blk, yes, 1, "0.450");
	free(blk);
	free(a);
	free(b);

	/* a token that holds what comes before the word: alternatives are compared after the
	   same leading characters */
	a = tok("{\"answer\":\"", 1.0, NULL);
	b = tok("\"yes", 0.7, "[{\"token\": \"\\\"yes\", \"logprob\": -0.356674944}, "
	        "{\"token\": \"\\\"no\", \"logprob\": -1.2039728043}, "
	        "{\"token\": \"no\", \"logprob\": -0.1}]");
	c = tok("\"}", 1.0, NULL);
	blk = xprintf("{\"content\": [%s, %s, %s]}", a, b, c);
	run("logprobs: alternatives after the same leading characters", "{\"answer\":\"\"yes\"}",
	    blk, yes, 1, "0.700");
	free(blk);
	free(a);
	free(b);
	free(c);

	/* a batch: one verdict word per candidate, in order */
	a = tok("{\"answers\":[\"", 1.0, NULL);
	b = tok("yes", 0.9, NULL);
	c = tok("\",\"", 1.0, NULL);
	d = tok("no", 0.6, NULL);
	e = tok("\",\"", 1.0, NULL);
	char *f = tok("yes", 0.99, NULL);
	char *g = tok("\"]}", 1.0, NULL);
	blk = xprintf("{\"content\": [%s, %s, %s, %s, %s, %s, %s]}", a, b, c, d, e, f, g);
	const char *batch = "{\"answers\":[\"yes\",\"no\",\"yes\"]}";
	run("logprobs: a batch's list", batch, blk, yny, 3, "0.900,0.600,0.990");
	/* the verdicts read must be those the words say */
	run("logprobs: verdicts that are not the words", batch, blk, yes, 3, "none");
	/* and as many */
	run("logprobs: fewer verdicts than words", batch, blk, yny, 2, "none");
	/* the tokens must spell the reply */
	run("logprobs: tokens that spell another reply", "{\"answers\":[\"yes\",\"no\",\"yes\"]} ",
	    blk, yny, 3, "none");
	free(blk);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	free(f);
	free(g);

	/* one token beginning two words cannot say which it decided */
	a = tok("[\"", 1.0, NULL);
	b = tok("yes\",\"no", 0.9, NULL);
	c = tok("\"]", 1.0, NULL);
	blk = xprintf("{\"content\": [%s, %s, %s]}", a, b, c);
	int yn[2] = {1, 0};
	run("logprobs: one token for two words", "[\"yes\",\"no\"]", blk, yn, 2, "none");
	free(blk);
	free(a);
	free(b);
	free(c);

	/* bytes, when given, spell the token (a character split between tokens) */
	run("logprobs: bytes spell the token", "Yes \xc3\xa9",
	    "{\"content\": [{\"token\": \"Yes\", \"logprob\": -0.05}, {\"token\": \" \\\\xc3\", "
	    "\"bytes\": [32, 195], \"logprob\": 0}, {\"token\": \"\\\\xa9\", \"bytes\": [169], "
	    "\"logprob\": 0}]}", yes, 1, "0.951");

	/* missing and malformed blocks give none, never a default */
	run("logprobs: no block", "Yes", NULL, yes, 1, "none");
	run("logprobs: a null block", "Yes", "null", yes, 1, "none");
	run("logprobs: a block that is not an object", "Yes", "[1, 2]", yes, 1, "none");
	run("logprobs: no content list", "Yes", "{\"refusal\": null}", yes, 1, "none");
	run("logprobs: an empty content list", "Yes", "{\"content\": []}", yes, 1, "none");
	run("logprobs: content that is not a list", "Yes", "{\"content\": \"Yes\"}", yes, 1, "none");
	run("logprobs: a token without text", "Yes", "{\"content\": [{\"logprob\": -0.1}]}", yes, 1,
	    "none");
	run("logprobs: a token that is not an object", "Yes", "{\"content\": [\"Yes\"]}", yes, 1,
	    "none");
	run("logprobs: a logprob that is a string", "Yes",
	    "{\"content\": [{\"token\": \"Yes\", \"logprob\": \"-0.1\"}]}", yes, 1, "none");
	run("logprobs: a logprob written -Infinity", "Yes",
	    "{\"content\": [{\"token\": \"Yes\", \"logprob\": \"-Infinity\"}]}", yes, 1, "none");
	run("logprobs: a positive logprob", "Yes",
	    "{\"content\": [{\"token\": \"Yes\", \"logprob\": 2.5}]}", yes, 1, "none");
	run("logprobs: no logprob", "Yes", "{\"content\": [{\"token\": \"Yes\"}]}", yes, 1, "none");
	run("logprobs: bytes out of range", "Yes",
	    "{\"content\": [{\"token\": \"Yes\", \"bytes\": [89, 300, 115], \"logprob\": -0.1}]}",
	    yes, 1, "none");
	run("logprobs: top_logprobs that is not a list", "Yes",
	    "{\"content\": [{\"token\": \"Yes\", \"logprob\": -0.1, \"top_logprobs\": 3}]}", yes, 1,
	    "none");
	run("logprobs: a malformed alternative", "Yes",
	    "{\"content\": [{\"token\": \"Yes\", \"logprob\": -0.1, \"top_logprobs\": "
	    "[{\"token\": \"No\"}]}]}", yes, 1, "none");
	run("logprobs: null top_logprobs is none given", "Yes",
	    "{\"content\": [{\"token\": \"Yes\", \"logprob\": 0, \"top_logprobs\": null}]}", yes, 1,
	    "1.000");
	/* a huge negative logprob is finite: the probability is 0, and said */
	run("logprobs: a probability of 0", "No",
	    "{\"content\": [{\"token\": \"No\", \"logprob\": -1e300}]}", no, 1, "0.000");
	/* a reply with no verdict word (the verdict was read from elsewhere) */
	run("logprobs: no verdict word", "Yeah",
	    "{\"content\": [{\"token\": \"Yeah\", \"logprob\": -0.1}]}", yes, 1, "none");
	/* a verdict word inside another word is not one: "Yesterday" */
	run("logprobs: a word that merely starts like one", "Yesterday, yes",
	    "{\"content\": [{\"token\": \"Yesterday\", \"logprob\": -0.1}, {\"token\": \",\", "
	    "\"logprob\": 0}, {\"token\": \" yes\", \"logprob\": -0.2}]}", yes, 1, "0.819");
	return unit_done();
}

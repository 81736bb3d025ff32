/*
 * agent.c: one turn of chat mode. The steps, each a request to the language model with its
 * own prompt file:
 *   parse    (chat_parse)    one request that both routes and parses: given the schema, the
 *                            few-shot guide (chat_guide) and the dialogue so far, the model
 *                            either answers directly (greetings, thanks, general questions)
 *                            or writes one SUQL query for the turn (doc/chat.md says why
 *                            this is one request and not two);
 *   repair   (chat_repair)   once, when the query does not parse, is not one SELECT, or
 *                            SQLite refuses it (no such column/table), or the reply could
 *                            not be read: the model sees what it wrote and the exact error
 *                            and writes a corrected query;
 *   relax    (chat_relax)    once, when the query found nothing (chat.relax): a less strict
 *                            query, shown to the user as such;
 *   respond  (chat_respond)  the answer from the rows, bounded JSON, starting with what was
 *            (chat_empty)    searched for; with no rows, a separate instruction that says
 *                            plainly that nothing was found and names no row. The reply
 *                            streams to the user as it comes.
 * So a turn that needs the database makes two sequential requests of its own (parse,
 * respond), plus the calls its query makes; one that does not, one.
 * Queries run read-only through the host's run (the session's runner), so they are shown
 * like typed SUQL (parsed query always, plan and counters as :explain and :stats say) and
 * their rows also reach the agent. A turn that fails for the query's sake is kept in the
 * dialogue with its error; one that fails for the model's sake (unreachable, 401) is not.
 */
#include "base/vis.h"
#include "chat/agent_int.h"

#include <stdlib.h>
#include <string.h>

/* Characters of a reply quoted in an error. */
#define AGENT_QUOTE 300

static Llm *llm_of(const Agent *a)
{
	return a->host->llm(a->host->ctx);
}

static void show_note(const Agent *a, const char *label, const char *text)
{
	a->host->note(a->host->ctx, label, text);
}

static void show_reply(const Agent *a, const char *text)
{
	a->host->reply(a->host->ctx, text, strlen(text));
	a->host->reply_end(a->host->ctx);
}

/* The model's reply as an error quotes it: its first AGENT_QUOTE characters (whole UTF-8
   characters; how many more there were), in double quotes, with every control character
   made visible (vis.h: a line break is ^J, an escape ^[), so that no word of it acts on
   the terminal or breaks the error's line. Heap string. */
static char *agent_quote(const char *reply)
{
	const char *s = reply ? reply : "";
	size_t n = strlen(s), at = 0;
	long chars = 0, total = 0;
	for (size_t i = 0; i < n;) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		i += k ? k : 1;
		if (++total <= AGENT_QUOTE) {
			chars = total;
			at = i;
		}
	}
	SBuf b = SBUF_INIT;
	sb_putc(&b, '"');
	vis_put(&b, s, at, 0);
	sb_putc(&b, '"');
	if (total > chars)
		sb_printf(&b, " (cut: %ld characters more)", total - chars);
	return sb_steal(&b);
}

/* Whether a parse or repair reply says either a direct answer or a query. */
static int parse_readable(const char *text)
{
	char *direct, *query;
	AgentVerdict v = agent_read_parse(text, &direct, &query);
	free(direct);
	free(query);
	return v != AGENT_UNREAD;
}


/* One request; *reply is the model's text (heap). With cite set, the text is shown as it
   comes, through the citation filter to the host's reply (the caller ends it with
   agent_cite_end and reply_end). */
static SuqlStatus ask(Agent *a, const char *step, LlmKind kind, LlmShape shape,
                      const AgentMsgs *m, AgentCite *cite, char **reply, SuqlErr *err)
{
	*reply = NULL;
	if (suql_interrupted)
		return err_set(err, SUQL_INTERRUPT, "interrupted");
	LlmCall c;
	memset(&c, 0, sizeof c);
	c.kind = kind;
	c.shape = shape;
	c.msgs = m->v;
	c.nmsgs = m->n;
	/* a parse, repair or relax reply that holds nothing the turn can use is never cached */
	if (kind == LLM_PARSE)
		c.readable = shape == LLM_SHAPE_JSON ? parse_readable : agent_reply_has_query;
	if (cite) {
		c.on_text = agent_cite_on_text;
		c.text_ctx = cite;
	}
	LlmCall *cp = &c;
	SuqlStatus s = llm_run(llm_of(a), &cp, 1, NULL, NULL, err);
	sb_printf(&a->steps, "%s%s", a->steps.len ? ", " : "", step);
	if (s == SUQL_OK && c.status == LLM_DONE) {
		a->calls++;
		a->cached += c.cached != 0;
		a->tokens_in += c.tokens_in;
		a->tokens_out += c.tokens_out;
		if (c.tokens_in || c.tokens_out) {   /* a reply from the cache cost nothing */
			double usd = llm_call_usd(llm_of(a), &c);
			if (usd < 0)
				a->unpriced = 1;
			else
				a->usd += usd;
		}
		*reply = xstrdup(c.text ? c.text : "");
	} else if (s == SUQL_OK) {
		s = err_set(err, c.status == LLM_CANCELLED ? SUQL_INTERRUPT : SUQL_LLM, "%s",
		            c.error ? c.error : "the model did not answer");
	}
	llm_call_clear(&c);
	return s;
}

/* Run a checked query read-only, showing it like typed SUQL and keeping its rows. */
static SuqlStatus run_query(Agent *a, const char *sql, AgentRows *rows, SuqlErr *err)
{
	agent_rows_init(rows, a->result_bytes, AGENT_CELL_MAX);
	EngineSink tap = agent_rows_sink(rows);
	/* a query the model wrote runs unattended: bounded in time, rows and value size */
	RunLimits lim = {a->timeout, a->max_rows, (int)a->max_value, "chat.timeout",
	                 "chat.max_rows", "chat.max_value"};
	SuqlStatus s = a->host->run(a->host->ctx, sql, &lim, &tap, err);
	if (s == SUQL_INCOMPLETE)
		s = SUQL_ERROR;
	return s;
}

/* Check a query the model wrote and run it. On success the turn holds the query and its
   rows. SUQL_ERROR: the query is at fault (err says how). Other statuses: the model, the
   budget, Ctrl-C. */
static SuqlStatus attempt(Agent *a, AgentTurn *t, const char *query, SuqlErr *err)
{
	char *sql = NULL;
	int limited = 0;
	SuqlStatus s = agent_prepare(query, a->limit, &sql, &limited, err);
	if (s != SUQL_OK)
		return SUQL_ERROR;
	AgentRows rows;
	s = run_query(a, sql, &rows, err);
	if (s != SUQL_OK) {
		agent_rows_free(&rows);
		free(sql);
		return s;
	}
	free(t->suql);
	agent_rows_free(&t->rows);
	t->suql = sql;
	t->rows = rows;
	t->limited = limited ? a->limit : 0;
	return SUQL_OK;
}

/* Act on what a parse or repair reply says (agent_read_parse): a direct answer is the
   turn's reply; a query is checked and run. SUQL_ERROR when there is no query to run or it
   failed; *query then holds what the model wrote (the whole reply when it held no query),
   for the repair prompt and :history. */
static SuqlStatus follow(Agent *a, AgentTurn *t, AgentVerdict v, char **direct, char **query,
                         const char *reply, SuqlErr *err)
{
	if (v == AGENT_DIRECT) {
		t->database = 0;
		t->reply = *direct;
		*direct = NULL;
		show_reply(a, t->reply);
		return SUQL_OK;
	}
	t->database = 1;
	if (v == AGENT_UNREAD) {
		free(*query);
		*query = xstrdup(reply);
		char *q = agent_quote(reply);
		err_set(err, SUQL_ERROR, "the reply holds neither a query nor an answer (write "
		        "{\"database\": true, \"suql\": \"SELECT ...\"}, or {\"database\": false, "
		        "\"reply\": \"...\"} when the message needs no database); the model wrote: %s",
		        q);
		free(q);
		return SUQL_ERROR;
	}
	return attempt(a, t, *query, err);
}

/* The relax step: one less strict query, run when it differs from the one that found
   nothing and from those already tried (tried lists them for the prompt). *again is set
   when the relaxed query ran and found nothing too, so that another try may follow.
   Failures here are shown and otherwise ignored: the turn goes on with no rows. */
static SuqlStatus relax(Agent *a, AgentTurn *t, AgentKv *kv, SBuf *tried,
                        int *again, SuqlErr *err)
{
	AgentMsgs m = {0};
	char *reply = NULL, *note = NULL;
	*again = 0;
	if (tried->len)
		note = xprintf("Less strict queries tried already, which found nothing either:\n%s"
		               "Write one that differs from these too.", tried->s);
	agent_kv(kv, "query", t->suql);
	agent_kv(kv, "tried", note ? note : "");
	SuqlStatus s = agent_prompt(a, "chat_relax", kv, &m, err);
	if (s == SUQL_OK)
		s = ask(a, "relax", LLM_PARSE, LLM_SHAPE_TEXT, &m, NULL, &reply, err);
	agent_kv(kv, "tried", "");
	free(note);
	agent_msgs_free(&m);
	if (s != SUQL_OK) {
		free(reply);
		return s;
	}
	char *q = agent_extract_query(reply), *sql = NULL;
	free(reply);
	int limited = 0;
	SuqlErr e = {0};
	if (q && agent_prepare(q, a->limit, &sql, &limited, &e) == SUQL_OK &&
	    strcmp(sql, t->suql) != 0 && !(t->also_tried && strcmp(sql, t->also_tried) == 0)) {
		show_note(a, "relaxed", "nothing matched, so I relaxed the search:");
		AgentRows rows;
		s = run_query(a, sql, &rows, &e);
		if (s == SUQL_OK && rows.count > 0) {
			t->relaxed_from = t->suql;
			t->suql = sql;
			sql = NULL;
			agent_rows_free(&t->rows);
			t->rows = rows;
			t->limited = limited ? a->limit : 0;
		} else {
			if (s == SUQL_OK) {
				sb_printf(tried, "%s\n", sql);
				free(t->also_tried);
				t->also_tried = sql;   /* kept to tell the model: this found nothing too */
				sql = NULL;
				*again = 1;
			} else if (s == SUQL_ERROR) {
				char *msg = xprintf("the relaxed query failed (%s); keeping the first "
				                    "result", e.msg ? e.msg : "error");
				show_note(a, "note", msg);
				free(msg);
			}
			agent_rows_free(&rows);
		}
		if (s != SUQL_ERROR && s != SUQL_OK) {
			err_set(err, s, "%s", e.msg ? e.msg : "failed");
		} else {
			s = SUQL_OK;
		}
	} else {
		if (q && e.msg) {
			char *msg = xprintf("the less strict query the model wrote cannot run (%s)",
			                    e.msg);
			show_note(a, "note", msg);
			free(msg);
		}
		s = SUQL_OK;
	}
	err_clear(&e);
	free(q);
	free(sql);
	return s;
}

/* The respond step (rows) or the empty step (none). */
static SuqlStatus respond(Agent *a, AgentTurn *t, AgentKv *kv, SuqlErr *err)
{
	AgentMsgs m = {0};
	char count[32], *rows = NULL, *reply = NULL, *evidence = NULL;
	SBuf note = SBUF_INIT;
	SuqlStatus s;
	snprintf(count, sizeof count, "%ld row%s", t->rows.count, t->rows.count == 1 ? "" : "s");
	agent_kv(kv, "query", t->suql);
	agent_kv(kv, "count", count);
	if (t->rows.count > 0) {
		size_t kept = json_array_size(t->rows.rows);
		if (t->relaxed_from)
			sb_printf(&note, "Nothing matched the first query (%s), so these rows come "
			          "from the less strict query above; tell the user that the search was "
			          "relaxed and how.\n", t->relaxed_from);
		if (t->limited && t->rows.count >= t->limited)
			sb_printf(&note, "The query stopped at %d rows (the default limit); there may "
			          "be more matches.\n", t->limited);
		if (t->rows.omitted)
			sb_printf(&note, "Only the first %zu of the %ld rows are shown here, to keep "
			          "this short.\n", kept, t->rows.count);
		rows = agent_rows_json(&t->rows);
		agent_kv(kv, "rows", rows);
		agent_kv(kv, "note", note.len ? note.s : "");
		evidence = a->host->evidence ? a->host->evidence(a->host->ctx) : NULL;
		agent_kv(kv, "evidence", evidence ? evidence : "(none)");
		s = agent_prompt(a, "chat_respond", kv, &m, err);
	} else {
		if (t->also_tried)
			sb_printf(&note, "A less strict query found nothing either: %s\n",
			          t->also_tried);
		agent_kv(kv, "rows", "");
		agent_kv(kv, "note", note.len ? note.s : "");
		s = agent_prompt(a, "chat_empty", kv, &m, err);
	}
	/* quotations in the answer must come from what was shown: rows or passages */
	AgentCite cite;
	agent_cite_begin(&cite, a->host, rows, 1);
	if (s == SUQL_OK)
		s = ask(a, "respond", LLM_RESPOND, LLM_SHAPE_TEXT, &m, &cite, &reply, err);
	agent_cite_end(&cite);
	int streamed = a->host->reply_end(a->host->ctx);
	if (s == SUQL_OK) {
		if (!streamed) {   /* it came whole (the cache): the same filter, then shown */
			sb_free(&cite.out);
			agent_cite_begin(&cite, a->host, rows, 0);
			agent_cite_put(&cite, reply, strlen(reply));
			agent_cite_end(&cite);
		}
		t->reply = str_trim_dup(sb_str(&cite.out));
		if (!*t->reply) {
			free(t->reply);
			t->reply = xstrdup("(the model gave an empty reply)");
			streamed = 0;
		}
		if (!streamed)
			show_reply(a, t->reply);
		if (cite.dropped) {
			char *n = xprintf("%ld quotation%s left out of the reply: not found in what the "
			                  "model was shown", cite.dropped, cite.dropped == 1 ? "" : "s");
			show_note(a, "note", n);
			free(n);
		}
	}
	sb_free(&cite.out);
	free(evidence);
	agent_msgs_free(&m);
	free(reply);
	free(rows);
	sb_free(&note);
	return s;
}

/* The short-answer step (chat_short), for question-answering benchmarks: the words that
   answer the question, taken from what the turn found. */
SuqlStatus agent_short_answer(Agent *a, const char *question, const char *rows,
                              const char *detail, char **span, SuqlErr *err)
{
	AgentMsgs m = {0};
	AgentKv kv = {{0}, 0};
	char *reply = NULL;
	*span = NULL;
	agent_kv(&kv, "utterance", question);
	agent_kv(&kv, "rows", rows && *rows ? rows : "(none)");
	agent_kv(&kv, "reply", detail && *detail ? detail : "(none)");
	SuqlStatus s = agent_prompt(a, "chat_short", &kv, &m, err);
	if (s == SUQL_OK)
		s = ask(a, "short", LLM_RESPOND, LLM_SHAPE_TEXT, &m, NULL, &reply, err);
	agent_msgs_free(&m);
	if (s == SUQL_OK)
		*span = agent_read_short(reply);
	free(reply);
	return s;
}

int agent_last(const Agent *a, AgentOutcome *out)
{
	memset(out, 0, sizeof *out);
	if (!a || a->nturns == 0)
		return 0;
	const AgentTurn *t = &a->turns[a->nturns - 1];
	out->suql = t->suql;
	out->rows = &t->rows;
	out->reply = t->reply;
	out->error = t->error;
	out->relaxed = t->relaxed_from != NULL;
	out->repaired = t->repaired;
	out->limit = a->limit;
	return 1;
}

/* The parse step, then the check and run of its query, with one repair round. A reply
   that could not be read is not a verdict: the repair request asks again, and may get a
   direct answer then; after a query that failed, only a corrected query is taken. */
static SuqlStatus query_step(Agent *a, AgentTurn *t, AgentKv *kv, SuqlErr *err)
{
	AgentMsgs m = {0};
	char *reply = NULL, *query = NULL, *direct = NULL;
	AgentVerdict v = AGENT_UNREAD;
	SuqlStatus s = agent_prompt(a, "chat_parse", kv, &m, err);
	if (s == SUQL_OK)
		s = ask(a, "parse", LLM_PARSE, LLM_SHAPE_JSON, &m, NULL, &reply, err);
	if (s == SUQL_OK) {
		v = agent_read_parse(reply, &direct, &query);
		s = follow(a, t, v, &direct, &query, reply, err);
	}
	if (s == SUQL_ERROR) {
		char *msg = v == AGENT_UNREAD
		            ? xprintf("the reply could not be read: %s\nasking the model again",
		                      err->msg)
		            : xprintf("the query failed: %s\nasking the model to correct it", err->msg);
		show_note(a, "retry", msg);
		free(msg);
		char *emsg = xstrdup(err->msg ? err->msg : "error");
		agent_msgs_add(&m, "assistant", reply);
		agent_kv(kv, "query", query);
		agent_kv(kv, "error", emsg);
		free(reply);
		reply = NULL;
		s = agent_prompt(a, "chat_repair", kv, &m, err);
		if (s == SUQL_OK)
			s = ask(a, "repair", LLM_PARSE, LLM_SHAPE_JSON, &m, NULL, &reply, err);
		AgentVerdict v2 = AGENT_UNREAD;
		if (s == SUQL_OK) {
			free(query);
			query = NULL;
			v2 = agent_read_parse(reply, &direct, &query);
			if (v2 == AGENT_DIRECT && v != AGENT_UNREAD) {
				/* a failed query is corrected, not talked away */
				query = xstrdup(reply);
				char *q = agent_quote(reply);
				s = err_set(err, SUQL_ERROR, "the reply answers without a query; after a "
				            "query that failed, only a corrected query is taken; the model "
				            "wrote: %s", q);
				free(q);
			} else {
				s = follow(a, t, v2, &direct, &query, reply, err);
			}
			t->repaired = s == SUQL_OK && t->database;
		}
		if (s == SUQL_ERROR) {
			char *why = xstrdup(err->msg ? err->msg : "error");
			/* what the second reply was: a query that failed, or words suql cannot use */
			err_set(err, SUQL_ERROR, "no query that runs came out of this turn, so there is "
			        "no answer; %s: %s", v2 == AGENT_QUERY ? "the corrected query failed too" : "the model's second reply could "
			        "not be used either", why);
			/* the dialogue keeps the message line, not the source line and caret */
			t->error = xstrndup(why, strcspn(why, "\n"));
			free(why);
		}
		agent_kv(kv, "error", "");
		free(emsg);
	}
	if (s != SUQL_OK && query && !t->suql) {
		free(t->tried);
		t->tried = query;   /* :history and :save keep what the model wrote */
		query = NULL;
	}
	agent_kv(kv, "query", "");
	agent_msgs_free(&m);
	free(reply);
	free(query);
	free(direct);
	return s;
}

static void show_counters(Agent *a)
{
	if (!a->steps.len)
		return;
	SBuf t = SBUF_INIT;
	sb_printf(&t, "model calls: %s (%d answered, %d from the cache)\ntokens: %ld in, %ld out",
	          a->steps.s, a->calls, a->cached, a->tokens_in, a->tokens_out);
	LlmPrice p;
	if (!a->unpriced && !llm_is_offline(llm_of(a)) && llm_price_of(llm_of(a), NULL, &p)) {
		/* dollars where the model has a price */
		sb_puts(&t, ": ");
		llm_money(&t, a->usd);
	}
	a->host->counters(a->host->ctx, sb_str(&t));
	sb_free(&t);
}

static SuqlStatus run_turn(Agent *a, AgentTurn *t, SuqlErr *err)
{
	Store *db = a->host->store(a->host->ctx);
	char limit[16], limit_note[80], *guide = NULL;
	snprintf(limit, sizeof limit, "%d", a->limit);
	if (a->limit > 0)
		snprintf(limit_note, sizeof limit_note, "suql adds LIMIT %d to a query without one",
		         a->limit);
	else
		snprintf(limit_note, sizeof limit_note, "suql returns every row of a query without "
		         "LIMIT");
	char *dialogue = agent_dialogue(a);
	char *schema = agent_schema(db, a->tables);
	AgentKv kv = {{0}, 0};
	agent_kv(&kv, "utterance", t->user);
	agent_kv(&kv, "dialogue", dialogue);
	agent_kv(&kv, "limit", limit);
	agent_kv(&kv, "limit_note", limit_note);
	agent_kv(&kv, "schema", schema);
	char *examples = a->examples ? xprintf("Examples written for this database:\n\n%s",
	                                       a->examples) : NULL;
	agent_kv(&kv, "examples", examples ? examples : "");
	SuqlStatus s;
	guide = agent_prompt_text(a, "chat_guide", &kv, err);
	if (!guide) {
		s = err->code ? err->code : SUQL_IO;
		goto done;
	}
	agent_kv(&kv, "guide", guide);
	s = query_step(a, t, &kv, err);
	if (s != SUQL_OK || !t->database)
		goto done;
	SBuf tried = SBUF_INIT;
	int again = 1;
	for (int i = 0; i < a->relax && again && t->rows.count == 0 && s == SUQL_OK; i++)
		s = relax(a, t, &kv, &tried, &again, err);
	sb_free(&tried);
	if (s != SUQL_OK)
		goto done;
	t->digest = agent_digest(&t->rows);
	s = respond(a, t, &kv, err);
done:
	show_counters(a);
	free(dialogue);
	free(schema);
	free(guide);
	free(examples);
	return s;
}

SuqlStatus agent_turn(Agent *a, const char *line, SuqlErr *err)
{
	char *text = str_trim_dup(line);
	if (!*text) {
		free(text);
		return SUQL_OK;
	}
	a->calls = a->cached = 0;
	a->tokens_in = a->tokens_out = 0;
	a->usd = 0;
	a->unpriced = 0;
	sb_truncate(&a->steps, 0);
	AgentTurn t;
	memset(&t, 0, sizeof t);
	t.user = text;
	agent_rows_init(&t.rows, a->result_bytes, AGENT_CELL_MAX);
	/* the request log: the turn's requests (parse, repair, relax, respond) and those of
	   the queries it runs carry its line */
	llm_log_chat(llm_of(a), text);
	SuqlStatus s = run_turn(a, &t, err);
	llm_log_chat(llm_of(a), NULL);
	if (s == SUQL_OK || t.error) {
		if (!t.digest && t.suql)
			t.digest = agent_digest(&t.rows);
		if (a->nturns == a->capturns) {
			a->capturns = a->capturns ? 2 * a->capturns : 8;
			a->turns = xrealloc(a->turns, (size_t)a->capturns * sizeof *a->turns);
		}
		a->turns[a->nturns++] = t;
	} else {
		agent_turn_free(&t);
	}
	return s;
}

void agent_turn_free(AgentTurn *t)
{
	free(t->user);
	free(t->suql);
	free(t->relaxed_from);
	free(t->also_tried);
	free(t->tried);
	agent_rows_free(&t->rows);
	free(t->digest);
	free(t->reply);
	free(t->error);
	memset(t, 0, sizeof *t);
}

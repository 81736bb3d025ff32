/*
 * meta_chat.c: chat mode as the REPL sees it: switched on and off (:chat, :sql, --chat),
 * where it is the REPL's line mode (each line that is not a meta-command is a turn of the
 * session's chat agent), and the dialogue listed (:history), forgotten (:reset) and saved as
 * JSONL (:save FILE).
 */
#include "cli/meta.h"

#include <stdio.h>

static void meta_chat_stop(Repl *r);

#define CHAT_PROMPT "chat> "

static SuqlStatus usage(SuqlErr *err, const char *cmd, const char *args)
{
	return err_set(err, SUQL_USAGE, "usage: :%s%s%s", cmd, *args ? " " : "", args);
}

/* ReplLineFn of chat mode: one turn. A model switched off meanwhile ends chat mode, with
   the message that says how to configure one. */
static SuqlStatus chat_line(Repl *r, const char *line, SuqlErr *err)
{
	SuqlStatus st = session_chat_turn(&r->s, line, err);
	if (st == SUQL_USAGE && session_chat_ready(&r->s, NULL) != SUQL_OK)
		meta_chat_stop(r);
	return st;
}

static SuqlStatus meta_chat_start(Repl *r, SuqlErr *err)
{
	SuqlStatus st = session_chat_ready(&r->s, err);
	if (st == SUQL_OK) {
		session_agent(&r->s);
		repl_set_line_mode(r, CHAT_PROMPT, chat_line);
	}
	return st;
}

static void meta_chat_stop(Repl *r)
{
	if (meta_chat_active(r))
		repl_set_line_mode(r, NULL, NULL);
}

int meta_chat_active(const Repl *r)
{
	return r->line_fn == chat_line;
}

SuqlStatus meta_chat(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0], "");
	int was = meta_chat_active(env->r);
	SuqlStatus s = meta_chat_start(env->r, err);
	if (s == SUQL_OK && env->tty && !was)
		fprintf(env->err, "chat mode (%s): ask in plain words; :sql goes back to SUQL, "
		        ":history, :reset, :save FILE\n", llm_label(env->llm));
	return s;
}

SuqlStatus meta_sql(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0], "");
	meta_chat_stop(env->r);
	return SUQL_OK;
}

SuqlStatus meta_history(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0], "");
	agent_history(env->s->agent, env->out);
	return SUQL_OK;
}

SuqlStatus meta_reset(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0], "");
	if (env->s->agent)
		agent_reset(env->s->agent);
	if (env->tty)
		fprintf(env->err, "the conversation is forgotten\n");
	return SUQL_OK;
}

SuqlStatus meta_save(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc != 2)
		return usage(err, argv[0], "FILE");
	const Agent *a = env->s->agent;
	SuqlStatus s = agent_save(a, argv[1], err);
	int n = agent_turns(a);
	if (s == SUQL_OK && env->tty)
		fprintf(env->err, "saved %d turn%s to %s\n", n, n == 1 ? "" : "s", argv[1]);
	return s;
}

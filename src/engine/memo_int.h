/*
 * memo_int.h: the memo of one statement (memo.c): the results of free-text questions,
 * keyed by the signature (what is asked) and the text value, and the interned signatures
 * themselves. Every way a result is obtained (ahead of time by the executor, on demand by
 * the SQL functions) goes through it, so a question about a text is asked once per
 * statement.
 *
 * Ownership: a Memo owns its entries and their strings (memo_free); memo_sig_intern takes
 * ownership of the Sig's strings.
 */
#ifndef SUQL_MEMO_INT_H
#define SUQL_MEMO_INT_H

#include "engine/engine_int.h"

Memo *memo_new(void);
void memo_free(Memo *m);
/* The entry for (sig, value), or NULL. */
MemoVal *memo_get(Memo *m, int sig, const char *v, size_t n);
/* Create (or return) the entry for (sig, value). */
MemoVal *memo_put(Memo *m, int sig, const char *v, size_t n);
size_t memo_count(const Memo *m);
/* From now on, keep the text of every value put (the memo otherwise keeps only hashes):
   the PostgreSQL backend binds the values and their results back into its statements. */
void memo_keep_texts(Memo *m);
/* The kept entries one by one: *pos starts at 0; 0 at the end. */
int memo_next(const Memo *m, size_t *pos, int *sig, const char **text, const MemoVal **v);

/* Intern a signature (taking ownership of s's strings); returns its index. */
int memo_sig_intern(Exec *ex, Sig *s);
void memo_sig_free(Sig *s);
LlmShape memo_sig_shape(const Sig *s);

#endif

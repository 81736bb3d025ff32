/*
 * memo.c: what a statement has asked the model, and what it answered.
 *
 * A signature (Sig) is what is asked, independent of the row: the kind (verify, answer,
 * summary), the question, the comparison and expected values of a verify atom, the type of
 * a typed answer, and whether the argument is a list of passages. Signatures are interned
 * per statement, so two occurrences asking the same thing share one index and their
 * results.
 *
 * The memo maps (signature, text value) to the result. Values are not stored: each is
 * identified by its length and two independent 64-bit hashes (FNV-1a and a multiply-rotate
 * hash over 8-byte words), so millions of rows cost a few dozen bytes each. The SQL
 * functions read it, the optimizer fills it; it lives for one statement.
 */
#include "engine/memo_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct MemoEnt {
	uint64_t h1, h2;
	size_t n;
	int sig;              /* -1: empty slot */
	char *text;           /* the value itself, when the memo keeps them (memo_keep_texts) */
	MemoVal v;
} MemoEnt;

struct Memo {
	MemoEnt *t;
	size_t cap, n;
	int keep;             /* keep each value's text (PostgreSQL binds them back) */
};


static uint64_t rot(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t mixhash(const char *s, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = rot(h ^ (w * 0xC2B2AE3D27D4EB4FULL), 31) * 0x9E3779B185EBCA87ULL;
	}
	uint64_t w = 0;
	for (size_t k = 0; i < n; i++, k++)
		w |= (uint64_t)(unsigned char)s[i] << (8 * k);
	h = rot(h ^ (w * 0xC2B2AE3D27D4EB4FULL), 31) * 0x9E3779B185EBCA87ULL;
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDULL;
	h ^= h >> 33;
	return h;
}

Memo *memo_new(void)
{
	/* the table is made at the first put: most statements are plain SQL and put nothing */
	return xcalloc(1, sizeof(Memo));
}

void memo_free(Memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->n && i < m->cap; i++) {
		if (m->t[i].sig >= 0) {
			free(m->t[i].text);
			free(m->t[i].v.value);
			free(m->t[i].v.warning);
		}
	}
	free(m->t);
	free(m);
}

size_t memo_count(const Memo *m)
{
	return m->n;
}

static size_t slot_of(const Memo *m, int sig, uint64_t h1, uint64_t h2, size_t n)
{
	size_t i = (size_t)((h1 ^ ((uint64_t)(unsigned)sig * 0x9E3779B97F4A7C15ULL)) & (m->cap - 1));
	for (;;) {
		const MemoEnt *e = &m->t[i];
		if (e->sig < 0 || (e->sig == sig && e->h1 == h1 && e->h2 == h2 && e->n == n))
			return i;
		i = (i + 1) & (m->cap - 1);
	}
}

static void grow(Memo *m)
{
	MemoEnt *old = m->t;
	size_t oc = m->cap;
	m->cap = oc ? oc * 2 : 256;
	m->t = xmalloc(m->cap * sizeof *m->t);
	for (size_t i = 0; i < m->cap; i++)
		m->t[i].sig = -1;
	for (size_t i = 0; i < oc; i++)
		if (old[i].sig >= 0)
			m->t[slot_of(m, old[i].sig, old[i].h1, old[i].h2, old[i].n)] = old[i];
	free(old);
}

MemoVal *memo_get(Memo *m, int sig, const char *v, size_t n)
{
	if (m->cap == 0)
		return NULL;
	MemoEnt *e = &m->t[slot_of(m, sig, str_hash64(v, n), mixhash(v, n), n)];
	return e->sig < 0 ? NULL : &e->v;
}

MemoVal *memo_put(Memo *m, int sig, const char *v, size_t n)
{
	if ((m->n + 1) * 4 >= m->cap * 3)
		grow(m);
	uint64_t h1 = str_hash64(v, n), h2 = mixhash(v, n);
	MemoEnt *e = &m->t[slot_of(m, sig, h1, h2, n)];
	if (e->sig < 0) {
		memset(e, 0, sizeof *e);
		e->sig = sig;
		e->h1 = h1;
		e->h2 = h2;
		e->n = n;
		e->v.verdict = VERDICT_NULL;
		if (m->keep)
			e->text = xstrndup(v, n);
		m->n++;
	}
	return &e->v;
}

void memo_keep_texts(Memo *m)
{
	m->keep = 1;
}

int memo_next(const Memo *m, size_t *pos, int *sig, const char **text, const MemoVal **v)
{
	for (; *pos < m->cap; ++*pos) {
		const MemoEnt *e = &m->t[*pos];
		if (e->sig < 0 || !e->text)
			continue;
		*sig = e->sig;
		*text = e->text;
		*v = &e->v;
		++*pos;
		return 1;
	}
	return 0;
}

/* ---- signatures ---- */

void memo_sig_free(Sig *s)
{
	free(s->question);
	free(s->subject);
	free(s->op);
	for (int i = 0; i < s->nexpected; i++)
		free(s->expected[i]);
	free(s->expected);
	for (int i = 0; i < s->noptions; i++)
		free(s->options[i]);
	free(s->options);
	free(s->key);
	free(s->unread_sample);
	memset(s, 0, sizeof *s);
}

LlmShape memo_sig_shape(const Sig *s)
{
	if (s->kind == FT_VERIFY)
		return LLM_SHAPE_YESNO;
	switch (s->pg) {
	case PGT_DATE: return LLM_SHAPE_DATE;
	case PGT_INT: return LLM_SHAPE_INT;
	case PGT_REAL: case PGT_NUMERIC: return LLM_SHAPE_REAL;
	case PGT_BOOL: return LLM_SHAPE_BOOL;
	default: return LLM_SHAPE_TEXT;
	}
}

static char *sig_key(const Sig *s)
{
	SBuf b = SBUF_INIT;
	sb_printf(&b, "%d\x1f%d\x1f%d\x1f%d\x1f", (int)s->kind, s->pg, s->list, s->quotes);
	sb_puts(&b, s->question ? s->question : "");
	sb_putc(&b, '\x1f');
	sb_puts(&b, s->op ? s->op : "");
	for (int i = 0; i < s->nexpected; i++) {
		sb_putc(&b, '\x1f');
		sb_puts(&b, s->expected[i]);
	}
	for (int i = 0; i < s->noptions; i++) {
		sb_putc(&b, '\x1e');
		sb_puts(&b, s->options[i]);
	}
	if (s->judge)
		sb_printf(&b, "\x1ejudge %d", s->judge);
	if (s->join) {
		sb_printf(&b, "\x1ejoin %d\x1f", s->join);
		sb_puts(&b, s->subject ? s->subject : "");
	}
	return sb_steal(&b);
}

int memo_sig_intern(Exec *ex, Sig *s)
{
	s->key = sig_key(s);
	for (int i = 0; i < ex->nsigs; i++) {
		if (strcmp(ex->sigs[i].key, s->key) == 0) {
			memo_sig_free(s);
			return i;
		}
	}
	if (ex->nsigs == ex->capsigs) {
		ex->capsigs = ex->capsigs ? ex->capsigs * 2 : 8;
		ex->sigs = xrealloc(ex->sigs, (size_t)ex->capsigs * sizeof *ex->sigs);
	}
	ex->sigs[ex->nsigs] = *s;
	memset(s, 0, sizeof *s);
	return ex->nsigs++;
}

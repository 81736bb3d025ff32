/*
 * setting.h: settings as rows of a table. Every module that has settings (the session's
 * display, the engine, the chat agent, the LLM client) describes them in one SetTable: per
 * setting its name, kind, range, default, help, and the field it sets (or a setter of its
 * own). The session's registry (session/settings.c) puts the tables together, and :set,
 * :help set, tab completion, --set, the manual page's SETTINGS section and the config
 * file's keys are all made from the rows, so they cannot disagree.
 *
 * The functions here parse a value by the row's kind, store it in the module's object at
 * the row's offset, show it, and word the errors: "NAME EXPECTS, not 'VALUE'" with the
 * row's expects text (or one made from its kind and range).
 *
 * Ownership: tables and rows are static data. A SET_TEXT field is heap memory the setter
 * replaces (and the module frees). Functions returning char * return heap strings.
 */
#ifndef SUQL_SETTING_H
#define SUQL_SETTING_H

#include <stddef.h>

#include "base/suql.h"
#include "base/util.h"

/* A number macro as text, for a row's default: SETTING_STR(ENGINE_DEFAULT_BATCH) is "32", so
   the value and its description come from one definition. */
#define SETTING_STR_(x) #x
#define SETTING_STR(x) SETTING_STR_(x)

typedef enum SetKind {
	SET_BOOL,     /* int: on or off (also yes/no, true/false, 1/0) */
	SET_INT,      /* int: a whole number from min to max */
	SET_LONG,     /* long: likewise */
	SET_SIZE,     /* size_t: likewise */
	SET_REAL,     /* double: a number from min to max (above min with SET_ABOVE_MIN) */
	SET_MS,       /* int milliseconds: a duration written 30, 30s, 1500ms or 2m, from min
	                 (above min with SET_ABOVE_MIN) to max milliseconds */
	SET_CHOICE,   /* int: the position of one of the words of choices ("off on passage");
	                 when the first two words are off and on, the other words for a boolean
	                 (no, yes, 0, 1, ...) say them too */
	SET_TEXT      /* char *: any text, heap (NULL shown as "NULL") */
} SetKind;

/* SetRow.flags */
enum {
	SET_SECRET = 1,      /* a secret (an API key): kept out of the history when set */
	SET_ABOVE_MIN = 2    /* SET_REAL, SET_MS: min itself is not allowed */
};

typedef struct SetRow SetRow;

struct SetRow {
	const char *name;      /* "batch", "chat.limit", "llm.url" */
	SetKind kind;
	size_t off;            /* the field set, in the module's object (with no set function) */
	double min, max;       /* the range of the number kinds */
	const char *choices;   /* SET_CHOICE: the words, blank-separated; others: the words tab
	                          completion offers (NULL: from the kind) */
	const char *values;    /* how a value is written in help: "N", "on|off", "SECONDS" */
	const char *def;       /* the default, as help and the README show it */
	const char *help;      /* one line for :help set and the manual page */
	const char *more;      /* further sentences for the manual page only; NULL */
	const char *expects;   /* the error "NAME EXPECTS, not 'VALUE'", where "{range}" in
	                          EXPECTS stands for "MIN to MAX"; NULL: from the kind */
	const char *file;      /* the key of the config file that sets it; NULL: none */
	int flags;
	/* A setter of its own (parse, store, apply), for rows that are more than a field; the
	   row's kind still says how help and completion describe it. NULL: by the kind. */
	SuqlStatus (*set)(void *obj, const SetRow *row, const char *value, SuqlErr *err);
	/* The value as :set shows it. NULL: by the kind. */
	void (*show)(const void *obj, const SetRow *row, SBuf *out);
};

typedef struct SetTable {
	const char *title;     /* the manual page's subsection: "The free-text executor" */
	const char *intro;     /* the manual: what comes before the rows; NULL */
	const char *prefix;    /* names of this table's own namespace ("chat."): an unknown name
	                          with it is answered with the table's names; NULL */
	const SetRow *rows;
	int nrows;
	/* Called after any row of the table was set (a module that derives state from its
	   settings); NULL. */
	void (*changed)(void *obj);
} SetTable;

/* The row called name (case-insensitive), or NULL. */
const SetRow *setting_find(const SetTable *t, const char *name);

/* Set name to value in obj (a module's object, as its table's offsets describe). An
   unknown name is SUQL_USAGE ("unknown setting 'x'", listing the table's names when x has
   the table's prefix); a bad value is SUQL_USAGE with the row's wording. */
SuqlStatus setting_set(const SetTable *t, void *obj, const char *name, const char *value,
                       SuqlErr *err);
/* The same for a row already found. */
SuqlStatus setting_apply(const SetTable *t, const SetRow *row, void *obj, const char *value,
                         SuqlErr *err);
/* The error for a name no table has; t (may be NULL) is the table whose prefix it has. */
SuqlStatus setting_unknown(const SetTable *t, const char *name, SuqlErr *err);
/* The error for a bad value of row. */
SuqlStatus setting_bad(const SetRow *row, const char *value, SuqlErr *err);

/* SET_CHOICE: the position of value among the row's words (as a set reads it), or -1. */
int setting_choice(const SetRow *row, const char *value);

/* "name = value\n" for one row, for every row of a table. */
void setting_show(const SetRow *row, const void *obj, SBuf *out);
void setting_show_all(const SetTable *t, const void *obj, SBuf *out);

/* The words tab completion offers for row's value, blank-separated ("on off auto"); NULL
   when they are not a short list. Heap string. */
char *setting_words(const SetRow *row);

/* Parsers for setters of their own: 1 and *out set when v is what they read, else 0. */
int setting_parse_long(const char *v, double lo, double hi, long *out);
/* A number from lo (above lo with above_lo) to hi; NaN, infinities and trailing text are
   not. */
int setting_parse_real(const char *v, double lo, double hi, int above_lo, double *out);
/* A duration: "30" and "30s" seconds, "1500ms", "2m" or "2min"; -1 when v is not one (or
   is negative, or longer than a day). */
long setting_parse_ms(const char *v);

#endif

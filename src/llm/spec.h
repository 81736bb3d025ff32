/*
 * spec.h: the field list of extract(text, 'spec'): what a spec is, how it is read, the JSON
 * schema it stands for, and whether a model's object fits it.
 *
 * A spec is fields separated by commas (or semicolons, or line breaks), each
 * `name type[: description]`: a name of letters, digits and underscores (not starting with
 * a digit, at most SPEC_NAME_MAX bytes), a type among text, int (integer), real (float,
 * number), bool (boolean) and date, and an optional description that tells the model what
 * the field means. A comma inside a description ends it only where a new `name type`
 * follows. Names are unique (case-insensitively); at most SPEC_MAX_FIELDS fields.
 *
 * A model's object fits the spec when it has every field (extra keys are dropped) and each
 * value is of its type or null: text a string, int a whole number (a JSON number without a
 * fraction, or a string of one), real a finite number (or a string of one), bool true/false
 * (or "yes"/"no"), date "YYYY-MM-DD" of a day that exists; "unknown", "n/a" and "" stand for
 * null. With quotes, the object's "_quotes" member maps fields to the words of the text that
 * support them; a quote that is not found in the text is dropped (null).
 *
 * Ownership: a Spec owns its fields and their strings (spec_free). Every char * and json_t *
 * returned is the caller's.
 */
#ifndef SUQL_SPEC_H
#define SUQL_SPEC_H

#include "base/suql.h"

#include <jansson.h>

#define SPEC_MAX_FIELDS 32
#define SPEC_NAME_MAX 64
#define SPEC_QUOTES_KEY "_quotes"

typedef enum SpecType { SPEC_TEXT, SPEC_INT, SPEC_REAL, SPEC_BOOL, SPEC_DATE } SpecType;

typedef struct SpecField {
	char *name;
	SpecType type;
	char *desc;     /* NULL: none */
} SpecField;

typedef struct Spec {
	SpecField *f;
	int n;
} Spec;

/* Read spec text s. SUQL_ERROR with err saying what is wrong (its message starts with
   "the spec of extract() ...") and a hint; out is left empty then. */
SuqlStatus spec_parse(const char *s, Spec *out, SuqlErr *err);
void spec_free(Spec *sp);
/* One canonical text of the spec ("noise text: how loud it is, wait int"): what the memo,
   the cache and the model's calls are keyed by, so specs that differ only in spacing or
   case of type words share their results. */
char *spec_canonical(const Spec *sp);
/* The fields as a JSON list of {"name", "type", "description"} (for the prompt). */
json_t *spec_fields_json(const Spec *sp);
/* The JSON schema of one object of the spec (with the "_quotes" member when quotes). */
json_t *spec_schema(const Spec *sp, int quotes);
/* Check a model's object o against the spec. 1: *out is the object as suql returns it
   (compact JSON, the fields in the spec's order, typed; with quotes, "_quotes" holding the
   quotes found in text[0..ntext) passages); 0: it does not fit, *why says how (heap). */
int spec_check(const Spec *sp, json_t *o, int quotes, const char *const *text, int ntext,
               char **out, char **why);

#endif

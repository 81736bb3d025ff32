/*
 * prompt.h: the prompt templates. They are the text files in prompts/, built into the
 * binary, and can be overridden file by file from a directory (--prompts DIR). A template
 * holds {{name}} placeholders that prompt_render fills in.
 *
 * Ownership: prompt_get returns heap text the caller frees, prompt_split heap parts the caller
 * frees; prompt_files is static.
 */
#ifndef SUQL_PROMPT_H
#define SUQL_PROMPT_H

#include "base/suql.h"

typedef struct PromptFile {
	const char *name;   /* "verify" for prompts/verify.txt */
	const char *text;
} PromptFile;

extern const PromptFile prompt_files[];   /* generated; ends with {NULL, NULL} */

/* The template called name: dir/name.txt when dir is set and the file exists, else the
   built-in one. NULL with err set when neither exists or the file cannot be read. */
char *prompt_get(const char *dir, const char *name, SuqlErr *err);

/* Replace each {{key}} of tmpl by the matching value (keys and values alternate in kv,
   nkv pairs). An unknown placeholder is left as it is. Heap string. */
char *prompt_render(const char *tmpl, const char *const *kv, int nkv);

/* One message of a template: its role and its part of the template, not yet filled. */
typedef struct PromptPart {
	const char *role;   /* "system", "user" or "assistant" (static) */
	char *text;         /* heap */
} PromptPart;

#define PROMPT_MAX_PARTS 16

/* Split tmpl into messages at its marker lines ("[system]", "[user]", "[assistant]" alone on
   a line; text before the first marker is the user's) BEFORE any placeholder is filled, so
   that a marker inside a value is only text. Writes up to max parts (heap texts the caller
   frees) and returns their number; parts of blank text are kept (the caller trims after
   filling). */
int prompt_split(const char *tmpl, PromptPart *parts, int max);

#endif

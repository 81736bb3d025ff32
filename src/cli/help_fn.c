/*
 * help_fn.c: the help of SUQL's own functions, one table (fn_help[]) for `:help answer`,
 * `:help functions` and the manual page's list of them (suql --help-man functions). Each
 * row: the names :help knows it by, the forms it is written in, what it does in a few
 * sentences, and an example over the demo database (tests/suites/45-display.sh runs each
 * example there, so none goes stale). The `=` of an ENUM column is a row too.
 */
#include "cli/meta.h"

#include <stdlib.h>
#include <string.h>

typedef struct FnHelp {
	const char *name;       /* as :help takes it: "answer", "=" */
	const char *brief;      /* what :help functions says of it, a few words */
	const char *forms;      /* the ways it is written, a line each */
	const char *what;       /* a few sentences */
	const char *example;    /* a statement over the demo database (build/demo.db), in
	                           lines that fit 80 columns with an indent of four */
} FnHelp;

static const FnHelp fn_help[] = {
	{"answer", "the model's answer to a question about a text",
	 "answer(text, 'question')\n"
	 "answer(text, 'question', ARRAY['value', ...])\n"
	 "answer(text, 'question')::TYPE",
	 "Asks the model the question of each value of a free-text column (or any text) and "
	 "gives its answer: compared with 'Yes' in WHERE it keeps the rows whose text says yes, "
	 "judged in batches, lazily under a LIMIT. With ARRAY[...] the answer is one of the "
	 "values allowed (or NULL); with ::int, ::real, ::date or CAST(... AS INTEGER) a value "
	 "of that type, or NULL when the model gives none.",
	 "SELECT name FROM restaurants\n"
	 "  WHERE answer(reviews, 'is it romantic?') = 'Yes' LIMIT 3;"},
	{"summary", "a summary of a text",
	 "summary(text)",
	 "A summary of each value of a free-text column, asked of the model (the offline "
	 "backend picks the most central sentences); asked only for the rows returned.",
	 "SELECT name, summary(reviews) FROM restaurants\n"
	 "  WHERE location = 'Menlo Park' LIMIT 2;"},
	{"extract", "several typed fields of a text, as a JSON object",
	 "extract(text, 'name type[: description], ...')",
	 "Several typed fields of one text in one call: a JSON object with exactly the fields "
	 "named (types text, int, real, bool, date), each null when the text does not say; "
	 "->> and json_extract() read a field.",
	 "SELECT name, extract(reviews, 'parking text, wait_minutes int')\n"
	 "    ->> 'wait_minutes' AS wait\n"
	 "  FROM restaurants WHERE location = 'Menlo Park';"},
	{"answer_agg", "one answer for each group of rows (an aggregate)",
	 "answer_agg(text, 'question')\n"
	 "answer_agg(text, 'question', ARRAY['value', ...])",
	 "An aggregate: one answer for each group of rows, from the texts of the group read "
	 "together (the passages most relevant to the question first, up to agg_tokens); with "
	 "ARRAY[...] one of the values allowed.",
	 "SELECT location, answer_agg(reviews, 'is parking easy or hard here?',\n"
	 "    ARRAY['easy', 'hard', 'mixed']) AS parking\n"
	 "  FROM restaurants GROUP BY location;"},
	{"summary_agg", "one summary for each group of rows (an aggregate)",
	 "summary_agg(text)\nsummary_agg(text, 'focus')",
	 "An aggregate: one summary for each group of rows, of its texts together; with a "
	 "focus, about that (parking, service, ...).",
	 "SELECT location, summary_agg(reviews, 'parking') AS parking\n"
	 "  FROM restaurants WHERE location = 'Palo Alto' GROUP BY location;"},
	{"matches", "a join on what two values mean",
	 "matches(left, right, 'question')",
	 "True when the question holds for the pair of values: a join on what two columns "
	 "mean. suql asks, for each distinct left value, which right values match, in batched "
	 "requests, rather than judging every pair.",
	 "WITH wish(dish) AS (VALUES ('ramen'), ('tiramisu'))\n"
	 "SELECT wish.dish, r.name FROM wish JOIN restaurants r\n"
	 "  ON matches(wish.dish, r.popular_dishes, 'is this dish on the menu?');"},
	{"bm25", "how relevant a text is to some words (no model)",
	 "bm25(column, 'words')",
	 "How relevant a free-text value is to the words, as the retrieval index ranks it (the "
	 "BM25 of its best passage; 0 when no passage shares a word, NULL for NULL). No model "
	 "is asked: use it to order or narrow candidates, answer() to decide.",
	 "SELECT name, round(bm25(reviews, 'quiet corner table'), 2) AS relevance\n"
	 "  FROM restaurants ORDER BY relevance DESC LIMIT 3;"},
	{"=", "on an ENUM column, a literal classified into the values it means",
	 "enum_column = 'literal'\n'literal' = ANY (enum_list_column)\n"
	 "enum_list_column @> ARRAY['literal', ...]   (also <@, &&, IN)",
	 "On an ENUM column, a literal that is not one of its values is first classified into "
	 "the values it means (one call per column and literal, kept in the database; :enum "
	 "lists them), and the comparison becomes a list of those: 'coffee' finds 'cafe' and "
	 "'coffee & tea'.",
	 "SELECT name, cuisines FROM restaurants\n"
	 "  WHERE 'coffee' = ANY (cuisines) LIMIT 3;"},
	{NULL, NULL, NULL, NULL, NULL},
};

static const FnHelp *find_fn(const char *name)
{
	size_t n = strlen(name);
	if (n > 2 && strcmp(name + n - 2, "()") == 0)
		n -= 2;   /* :help answer() */
	for (const FnHelp *f = fn_help; f->name; f++)
		if (strlen(f->name) == n && str_nieq(name, n, f->name))
			return f;
	return NULL;
}

/* The first line of a row's forms: the name and its arguments ("answer(text, ...)"). */
static void first_form(const FnHelp *f, SBuf *b)
{
	sb_putn(b, f->forms, strcspn(f->forms, "\n"));
}

/* text's lines, each after indent blanks */
static void lines(FILE *out, const char *text, int indent)
{
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		fprintf(out, "%*s%.*s\n", indent, "", (int)n, l);
		l += n + (l[n] == '\n');
	}
}

int meta_help_function(FILE *out, const char *name, int width)
{
	if (width <= 0 || width > 80)
		width = 80;
	if (str_ieq(name, "functions")) {
		fprintf(out, "SUQL's functions (:help NAME describes one, with an example):\n");
		for (const FnHelp *f = fn_help; f->name; f++) {
			SBuf b = SBUF_INIT;
			first_form(f, &b);
			fprintf(out, "  %s\n      ", sb_str(&b));
			render_wrap(out, f->brief, 6, 6, width);
			sb_free(&b);
		}
		return 1;
	}
	const FnHelp *f = find_fn(name);
	if (!f)
		return 0;
	lines(out, f->forms, 0);
	fputs("  ", out);
	render_wrap(out, f->what, 2, 2, width);
	fprintf(out, "Example:\n");
	lines(out, f->example, 4);
	return 1;
}

/* text's lines for roff, each escaped (a line may start with a quote) */
static void roff_lines(SBuf *b, const char *text)
{
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		char *line = xstrndup(l, n);
		render_roff(b, line);
		sb_putc(b, '\n');
		free(line);
		l += n + (l[n] == '\n');
	}
}

void meta_functions_man(SBuf *b)
{
	for (const FnHelp *f = fn_help; f->name; f++) {
		sb_puts(b, ".TP\n.B \"");
		char *tag = strcmp(f->name, "=") == 0 ? xstrdup("= (on ENUM columns)")
		                                      : xprintf("%s()", f->name);
		render_roff(b, tag);
		free(tag);
		sb_puts(b, "\"\n.EX\n");
		roff_lines(b, f->forms);
		sb_puts(b, ".EE\n");
		render_roff_text(b, f->what);
		sb_puts(b, "For example:\n.EX\n");
		roff_lines(b, f->example);
		sb_puts(b, ".EE\n");
	}
}

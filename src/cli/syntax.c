/*
 * syntax.c: :syntax [STATEMENT] (psql's \h): the syntax of the statements suql reads,
 * SQLite's SQL with SUQL's types and free-text functions, in psql's layout (Command,
 * Description, Syntax). :syntax alone lists the statements; :syntax WORDS shows each
 * statement whose name starts with the words (any case), so `:syntax create` shows every
 * CREATE. The texts are the ones doc/frontend.md and the manual page describe.
 */
#include "cli/meta.h"

#include <string.h>
#include <strings.h>

typedef struct Syntax {
	const char *name;    /* "CREATE TABLE" */
	const char *what;    /* one line */
	const char *text;    /* the synopsis, lines ending with \n */
} Syntax;

#define FREE_TEXT_FORMS \
	"and free text is asked anywhere an expression goes:\n" \
	"    answer ( text, 'question' )                       -- 'Yes', 'No' or NULL\n" \
	"    answer ( text, 'question', ARRAY[ value, ... ] )  -- one of the values\n" \
	"    answer ( text, 'question' )::date | ::int | ::real | ::bool\n" \
	"    summary ( text )\n" \
	"    extract ( text, 'name type[: description], ...' ) ->> 'name'\n" \
	"    matches ( left, right, 'question' )               -- a join on meaning\n" \
	"    answer_agg ( text, 'question' [, ARRAY[ value, ... ] ] ), summary_agg ( text [, 'focus' ] )\n" \
	"    bm25 ( column, 'words' )                          -- relevance from the index\n" \
	"    enum_column = 'literal'                           -- the literal is classified\n"

static const Syntax syntaxes[] = {
	{"SELECT", "retrieve rows, with questions to free text in any clause",
	 "[ WITH [ RECURSIVE ] name [ ( column [, ...] ) ] AS ( select ) [, ...] ]\n"
	 "SELECT [ DISTINCT | ALL ] expression [ [ AS ] alias ] [, ...]\n"
	 "    [ FROM from_item [, ...] ]\n"
	 "    [ WHERE condition ]\n"
	 "    [ GROUP BY expression [, ...] [ HAVING condition ] ]\n"
	 "    [ WINDOW name AS ( window_definition ) [, ...] ]\n"
	 "    [ { UNION [ ALL ] | INTERSECT | EXCEPT } select ]\n"
	 "    [ ORDER BY expression [ ASC | DESC ] [ NULLS { FIRST | LAST } ] [, ...] ]\n"
	 "    [ LIMIT count [ OFFSET start ] ]\n"
	 "\n"
	 "where from_item is one of:\n"
	 "    table_name [ [ AS ] alias ]\n"
	 "    ( select ) [ AS ] alias\n"
	 "    from_item [ NATURAL ] [ LEFT | RIGHT | FULL ] [ OUTER | INNER | CROSS ] JOIN from_item\n"
	 "        [ ON condition | USING ( column [, ...] ) ]\n"
	 "    unnest ( array_column ) [ AS ] alias [ ( element ) ]\n"
	 "\n"
	 "SUQL's forms of PostgreSQL: x::type, x = ANY ( array ), x <> ALL ( array ),\n"
	 "a @> b, a <@ b, a && b, ARRAY[ e, ... ], ILIKE, date + INTERVAL '1 month'\n"
	 FREE_TEXT_FORMS},
	{"WITH", "name subqueries for the statement that follows",
	 "WITH [ RECURSIVE ] name [ ( column [, ...] ) ] AS [ [ NOT ] MATERIALIZED ] ( select )\n"
	 "    [, ...]\n"
	 "    { SELECT ... | INSERT ... | UPDATE ... | DELETE ... }\n"
	 "\n"
	 "Free text inside a named subquery is asked as in any SELECT; filters of the outer\n"
	 "statement reach into it where they can.\n"},
	{"VALUES", "compute rows from expressions",
	 "VALUES ( expression [, ...] ) [, ...]\n"
	 "\n"
	 "The columns are column1, column2, ...; a VALUES may stand where a SELECT does (in a\n"
	 "compound, as a subquery, after INSERT).\n"},
	{"INSERT", "add rows to a table",
	 "[ WITH ... ]\n"
	 "{ INSERT | REPLACE | INSERT OR { REPLACE | IGNORE | ABORT | FAIL | ROLLBACK } }\n"
	 "    INTO table_name [ AS alias ] [ ( column [, ...] ) ]\n"
	 "    { VALUES ( expression [, ...] ) [, ...] | select | DEFAULT VALUES }\n"
	 "    [ ON CONFLICT [ ( column [, ...] ) [ WHERE condition ] ]\n"
	 "        DO { NOTHING | UPDATE SET column = expression [, ...] [ WHERE condition ] } ]\n"
	 "    [ RETURNING expression [ [ AS ] alias ] [, ...] ]\n"
	 "\n"
	 "An array column takes ARRAY[ ... ] (stored as a JSON array); the select may ask\n"
	 "free text (answer(), summary(), extract()).\n"},
	{"UPDATE", "change the rows of a table",
	 "[ WITH ... ]\n"
	 "UPDATE [ OR { REPLACE | IGNORE | ABORT | FAIL | ROLLBACK } ] table_name [ AS alias ]\n"
	 "    SET { column = expression | ( column [, ...] ) = ( expression [, ...] ) } [, ...]\n"
	 "    [ FROM from_item [, ...] ]\n"
	 "    [ WHERE condition ]\n"
	 "    [ RETURNING expression [ [ AS ] alias ] [, ...] ]\n"
	 "\n"
	 "condition and the new values may ask free text: answer ( text, 'question' ) = 'Yes'\n"},
	{"DELETE", "remove rows from a table",
	 "[ WITH ... ]\n"
	 "DELETE FROM table_name [ AS alias ]\n"
	 "    [ WHERE condition ]\n"
	 "    [ RETURNING expression [ [ AS ] alias ] [, ...] ]\n"
	 "\n"
	 "condition may ask free text: answer ( text, 'question' ) = 'Yes'\n"},
	{"CREATE TABLE", "define a table, with SUQL's types",
	 "CREATE [ TEMP ] TABLE [ IF NOT EXISTS ] table_name (\n"
	 "    column type [ column_constraint ... ] [, ...]\n"
	 "    [, table_constraint [, ...] ]\n"
	 ") [ WITHOUT ROWID ] [, STRICT ]\n"
	 "CREATE [ TEMP ] TABLE [ IF NOT EXISTS ] table_name AS select\n"
	 "\n"
	 "where type is SQLite's (INTEGER, REAL, TEXT, BLOB, NUMERIC, ...) or SUQL's:\n"
	 "    FREE_TEXT          text the model reads (answer(), summary())\n"
	 "    FREE_TEXT[]        a list of such texts\n"
	 "    ENUM ( 'value', ... )  one of the values; '=' with another literal classifies it\n"
	 "    ENUM               values open-ended; '=' classifies the literal among them\n"
	 "    type[]             a list (TEXT[], INTEGER[], ENUM('a', 'b')[])\n"
	 "\n"
	 "SUQL's types are stored as TEXT (a list as a JSON array) and kept in suql's catalog.\n"},
	{"CREATE VIEW", "name a query",
	 "CREATE [ TEMP ] VIEW [ IF NOT EXISTS ] view_name [ ( column [, ...] ) ] AS select\n"},
	{"CREATE INDEX", "index columns of a table",
	 "CREATE [ UNIQUE ] INDEX [ IF NOT EXISTS ] index_name\n"
	 "    ON table_name ( column_or_expression [ ASC | DESC ] [, ...] ) [ WHERE condition ]\n"
	 "\n"
	 "The retrieval index of free-text columns is :index [TABLE]'s.\n"},
	{"ALTER TABLE", "change a table's name or columns",
	 "ALTER TABLE table_name RENAME TO new_name\n"
	 "ALTER TABLE table_name RENAME [ COLUMN ] column TO new_column\n"
	 "ALTER TABLE table_name ADD [ COLUMN ] column type [ column_constraint ... ]\n"
	 "ALTER TABLE table_name DROP [ COLUMN ] column\n"
	 "\n"
	 "A column added with a SUQL type (FREE_TEXT, ENUM, ...) is kept in the catalog.\n"},
	{"DROP TABLE", "remove a table (and its SUQL types from the catalog)",
	 "DROP TABLE [ IF EXISTS ] table_name\n"
	 "DROP { VIEW | INDEX | TRIGGER } [ IF EXISTS ] name\n"},
	{"EXPLAIN", "show how a statement would run, and what it would cost",
	 "EXPLAIN statement\n"
	 "EXPLAIN QUERY PLAN statement\n"
	 "\n"
	 "With free text, EXPLAIN shows suql's plan (the model calls at most, the tokens and\n"
	 "dollars the cost model expects) and runs nothing; --json gives it as JSON.\n"
	 "Without free text it is the database's own EXPLAIN. :explain on shows the plan\n"
	 "before each statement runs.\n"},
};

enum { NSYNTAX = sizeof syntaxes / sizeof *syntaxes };

/* Whether name starts with the words asked (blanks between them any). */
static int starts(const char *name, const char *asked)
{
	while (*asked) {
		if (*asked == ' ') {
			while (*asked == ' ')
				asked++;
			if (*name != ' ')
				return !*asked && !*name;
			name++;
			continue;
		}
		if (!*name || (*name | 0x20) != (*asked | 0x20))
			return 0;
		name++, asked++;
	}
	return *name == '\0' || *name == ' ';
}

SuqlStatus meta_syntax(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	FILE *out = env->out;
	if (argc == 1) {
		fprintf(out, "Statements (:syntax NAME, or psql's \\h NAME, shows one):\n");
		for (int i = 0; i < NSYNTAX; i++)
			fprintf(out, "  %-14s %s\n", syntaxes[i].name, syntaxes[i].what);
		fprintf(out, "Any other statement SQLite runs (PRAGMA, ATTACH, BEGIN, ...) runs as "
		        "written.\n");
		return SUQL_OK;
	}
	SBuf asked = SBUF_INIT;
	for (int i = 1; i < argc; i++)
		sb_printf(&asked, "%s%s", i > 1 ? " " : "", argv[i]);
	int shown = 0;
	for (int i = 0; i < NSYNTAX; i++) {
		if (!starts(syntaxes[i].name, sb_str(&asked)))
			continue;
		fprintf(out, "%sCommand:     %s\nDescription: %s\nSyntax:\n%s", shown++ ? "\n" : "",
		        syntaxes[i].name, syntaxes[i].what, syntaxes[i].text);
	}
	SuqlStatus st = SUQL_OK;
	if (!shown)
		st = err_set(err, SUQL_USAGE, "no syntax for '%s' (:syntax lists the statements)",
		             sb_str(&asked));
	sb_free(&asked);
	return st;
}

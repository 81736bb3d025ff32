/*
 * import.h: loading CSV, JSON and JSONL files into tables, with SUQL column types.
 *
 * An import reads one file into one table. The table is created when it does not exist
 * (column types declared with ImportOptions.types, the others inferred from the values) or
 * appended to when it does (values must fit its columns). SUQL types (FREE_TEXT[], ENUM,
 * TEXT[] ...) are recorded in the catalog (catalog.h). Everything happens inside one
 * savepoint: a failed import leaves the database, catalog included, exactly as it was.
 *
 * Formats:
 *   csv    RFC 4180: a header row naming the columns, ',' between fields (ImportOptions.delim
 *          for others), fields quoted with '"' when they hold the separator, a quote or a
 *          line break, '""' for a quote inside a quoted field, LF or CRLF line ends.
 *   json   one JSON array of objects; each object is a row, its keys are column names.
 *   jsonl  one JSON object per line (also called NDJSON); blank lines are skipped.
 * The format comes from ImportOptions.format, else from the file name's extension (.csv,
 * .tsv, .json, .jsonl, .ndjson).
 *
 * Type inference, for columns whose type is neither declared nor already in the table:
 *   - a column is a list when at least one value is a JSON array (in CSV, a cell holding a
 *     JSON array like ["a","b"]); its elements decide INTEGER[], REAL[], or for strings
 *     FREE_TEXT[] when they average at least 64 bytes and 8 words, TEXT[] otherwise;
 *   - otherwise INTEGER when every value is an integer (JSON true/false count as 1/0), REAL
 *     when every value is a number, FREE_TEXT when the texts average at least 64 bytes and
 *     8 words, TEXT otherwise (also when the column has no value at all).
 * An empty unquoted CSV cell is NULL; a quoted empty cell ("") is the empty string for text
 * columns and NULL for the others. JSON null and a missing key are NULL.
 *
 * Errors name the file and the position: "reviews.csv:14:9: unterminated quoted field",
 * followed by the offending line and a caret. A file must be UTF-8 (a byte that is not is
 * such an error), unless ImportOptions.encoding names the encoding to convert it from.
 *
 * Ownership: ImportOptions and its strings are borrowed for the duration of a call;
 * import_parse_args fills an ImportOptions with pointers into the argv it was given.
 */
#ifndef SUQL_IMPORT_H
#define SUQL_IMPORT_H

#include "base/progress.h"
#include "base/suql.h"
#include "store/store.h"

typedef enum ImportFormat {
	IMPORT_AUTO = 0,   /* from the file name's extension */
	IMPORT_CSV,
	IMPORT_JSON,
	IMPORT_JSONL
} ImportFormat;

/* What an import did, for the caller's report. */
typedef struct ImportStats {
	long long rows;      /* rows inserted */
	int columns;         /* columns of the file */
	int created;         /* 1 when the table was created, 0 when appended to */
	int indexed;         /* FREE_TEXT columns indexed (ImportOptions.index) */
} ImportStats;

typedef struct ImportOptions {
	ImportFormat format;
	/* Declared SUQL types, "reviews=FREE_TEXT[],price=ENUM('cheap','moderate'),rating=REAL";
	   commas inside parentheses or quotes do not separate; a column name may be written
	   "in double quotes". NULL: none. */
	const char *types;
	/* CSV: the separator inside list cells ("|" makes a|b|c the list ["a","b","c"]); it
	   applies to list columns only (declared or already in the table). NULL: a list cell
	   must hold a JSON array, or is a one-element list. */
	const char *array_sep;
	/* Column names to use instead of the file's (CSV: the header row is still required and
	   skipped), comma-separated: "id,name,reviews". NULL: the file's names. */
	const char *columns;
	char delim;          /* CSV field separator; 0 means ',' (or '\t' for a .tsv file) */
	int index;           /* afterwards, build the retrieval index of every FREE_TEXT column */
	int progress;        /* PROGRESS_AUTO, PROGRESS_ON or PROGRESS_OFF (progress.h) */
	ImportStats *stats;  /* filled in when not NULL */
	/* The file's encoding ("latin1", "cp1252", any name iconv knows), converted to UTF-8
	   before reading. NULL: the file must be UTF-8, and a byte that is not is an error at
	   its file:line:col (nothing is stored). */
	const char *encoding;
} ImportOptions;

#define IMPORT_OPTIONS_INIT {IMPORT_AUTO, NULL, NULL, NULL, 0, 0, PROGRESS_AUTO, NULL, NULL}

/* Import the file at path ("-" reads standard input; give the format then) into table. */
SuqlStatus import_file(Store *st, const char *path, const char *table,
                       const ImportOptions *opt, SuqlErr *err);

/* The same over text already in memory; name is used for the format and in messages. */
SuqlStatus import_buffer(Store *st, const char *name, const char *data, size_t len,
                         const char *table, const ImportOptions *opt, SuqlErr *err);

/* Parse "FILE TABLE [options]" (as given to :import and suql --import) into *file, *table
   and opt (which the caller initialised with IMPORT_OPTIONS_INIT). Options:
     --format csv|json|jsonl   --types SPEC   --array-sep SEP   --columns LIST
     --delimiter C (one character, or \t)     --index   --encoding NAME
   Returns SUQL_USAGE with a message on a bad argument. */
SuqlStatus import_parse_args(int argc, char **argv, const char **file, const char **table,
                             ImportOptions *opt, SuqlErr *err);

/* The format named by a string ("csv", "json", "jsonl"/"ndjson"); IMPORT_AUTO if unknown. */
ImportFormat import_format_named(const char *s);

#endif

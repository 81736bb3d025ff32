/*
 * import_int.h: what the files of the importer share (import.c drives an import,
 * import_csv.c and import_json.c read records, import_value.c checks and converts values,
 * import_meta.c parses arguments and runs the meta-commands). Not for other modules.
 *
 * A reader works over the whole file in memory (mapped, for large files) and hands out one
 * record at a time: CSV fields as text, or a JSON object. It keeps line numbers so that
 * any message can point at the record, the field, or a JSON value inside an object.
 *
 * Ownership: an ImpReader owns its field buffers and its current JSON object (replaced by
 * the next record); imp_reader_free releases them. The input buffer is borrowed.
 */
#ifndef SUQL_IMPORT_INT_H
#define SUQL_IMPORT_INT_H

#include <jansson.h>
#include <sqlite3.h>

#include "base/util.h"
#include "import/import.h"
#include "store/catalog.h"

/* A position in the input: byte offset, line number (from 1) and where that line starts. */
typedef struct ImpPos {
	size_t off;
	long line;
	size_t lstart;
} ImpPos;

typedef struct ImpReader {
	const char *name;      /* for messages */
	const char *buf;
	size_t len;
	ImportFormat fmt;
	char delim;
	size_t pos;            /* next byte to read */
	long line;             /* line of buf[pos] */
	size_t lstart;         /* offset where that line starts */
	long long recno;       /* records read so far (the header excluded) */
	/* CSV: the fields of the current record */
	SBuf *field;
	ImpPos *fpos;
	int *fquoted;
	int nfield, capfield;
	/* JSON and JSONL: the current record and where its text is */
	json_t *obj;
	ImpPos rec;            /* start of the record's text */
	size_t rec_len;
	int array_done;        /* JSON: the closing ']' was read */
} ImpReader;

void imp_reader_init(ImpReader *r, const char *name, const char *buf, size_t len,
                     ImportFormat fmt, char delim);
void imp_reader_rewind(ImpReader *r);
void imp_reader_free(ImpReader *r);

/* Read the next record: 1 when there is one, 0 at the end, -1 on an error (err set). */
int imp_csv_next(ImpReader *r, SuqlErr *err);
int imp_json_next(ImpReader *r, SuqlErr *err);

/* An error at a position of the input: "name:line:col: message" (":col" left out when
   with_col is 0), then the line and a caret under the position when with_col is set. */
SuqlStatus imp_error(SuqlErr *err, const ImpReader *r, ImpPos p, int with_col,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The position of key (at_key) or of its value in the current JSON record, or of the
   record itself when the key cannot be found in its text. */
ImpPos imp_json_key_pos(const ImpReader *r, const char *key, int at_key);
/* The position reached from p by moving forward to offset off. */
ImpPos imp_pos_advance(const ImpReader *r, ImpPos p, size_t off);

/* ---- column types ---- */

typedef enum ImpClass {
	IC_ANY,     /* no type: values stored as they come */
	IC_TEXT,    /* TEXT, FREE_TEXT, ENUM, and other text types */
	IC_INT,
	IC_REAL,    /* REAL, FLOAT, DOUBLE, NUMERIC, DECIMAL */
	IC_BOOL
} ImpClass;

/* Running statistics of a column's values, for inference. */
typedef struct ImpInfer {
	long long values, ints, reals, bools, strings, arrays, objects;
	long long elems, elem_ints, elem_reals, elem_strings, elem_other;
	double text_bytes, text_words, elem_bytes, elem_words;
} ImpInfer;

typedef struct ImpCol {
	char *name;
	CatColumn cat;       /* the type (cat.type NULL until known) */
	int declared;        /* from ImportOptions.types */
	int existing;        /* a column of the existing table */
	int in_file;         /* named by the file (CSV header, or some JSON key): its order, from 1 */
	ImpClass cls;        /* of the value, or of each element for a list */
	ImpInfer inf;
} ImpCol;

/* Set cat.type and cls from a declaration (SUQL or SQL type). */
SuqlStatus imp_col_set_type(ImpCol *c, const char *decl, SuqlErr *err);
/* Record one value for inference: CSV text (quoted says whether the field was quoted) or
   a JSON value. */
void imp_infer_text(ImpCol *c, const char *s, size_t n, int quoted);
void imp_infer_json(ImpCol *c, json_t *v);
/* The type declaration that inference settles on. Static string. */
const char *imp_infer_decide(const ImpCol *c);

/* Check and bind a value for column c at parameter i. 0 on success; -1 with a message in
   *why (heap; the caller positions it) when the value does not fit. */
int imp_bind_text(sqlite3_stmt *st, int i, const ImpCol *c, const char *s, size_t n,
                  int quoted, const char *array_sep, char **why);
int imp_bind_json(sqlite3_stmt *st, int i, const ImpCol *c, json_t *v, char **why);

/* import_buffer, and when named is not NULL, the columns the file named (a CSV header's,
   in its order; the keys some JSON record has, in the table's order), a NULL-ended heap
   array of *nnamed heap names, set only on success. */
SuqlStatus imp_buffer_named(Store *st, const char *name, const char *data, size_t len,
                            const char *table, const ImportOptions *opt, char ***named,
                            int *nnamed, SuqlErr *err);

/* import_pg.c: import into a PostgreSQL store (staged in SQLite, then one COPY in a
   transaction with the catalog rows). */
SuqlStatus imp_pg_buffer(Store *pg, const char *name, const char *data, size_t len,
                         const char *table, const ImportOptions *opt, SuqlErr *err);

#endif

/*
 * render_int.h: what render.c (values, CSV, JSON, line mode, the public API) and
 * render_table.c (aligned tables and boxes) share. Not for other modules.
 *
 * Ownership: a Render owns names, namebuf, cells, data, jsoncol, keys and keyoff; cells point into data by offset.
 */
#ifndef SUQL_RENDER_INT_H
#define SUQL_RENDER_INT_H

#include "render/render.h"

/* One value as it came from SQLite: its type and its bytes (text form for numbers, raw
   bytes for blobs) at data[off .. off+n). */
typedef struct RCell {
	int type;        /* ROW_INTEGER, ROW_REAL, ROW_TEXT, ROW_BLOB, ROW_NULL */
	size_t off, n;
	double d;        /* ROW_REAL: the value, to spot non-finite reals */
} RCell;

struct Render {
	RenderOpts o;
	FILE *out;
	int ncols;
	char **names;     /* each into namebuf */
	SBuf namebuf;
	int capnames;     /* names and keyoff have room for this many columns */
	size_t namew;     /* display width of the widest name (line mode aligns on it) */
	int has_columns;
	long nrows;       /* rows seen */
	long nemitted;    /* rows written so far (streaming) */
	long ntables;     /* table and box: tables written by render_flush */
	int header_done;  /* csv: the header row was written */
	RCell *cells;     /* buffered rows, ncols cells each */
	size_t ncells, capcells;
	SBuf data;
	SBuf line;        /* the row being written (emit_row), kept from row to row */
	int finished;
	unsigned char *jsoncol;   /* per column: holds a JSON array (render_json_column) */
	SBuf keys;        /* json: each column's name as a key, escaped (json_keys) */
	size_t *keyoff;   /* json: column i's key is keys[keyoff[i] .. keyoff[i + 1]) */
	int keyed;        /* json: keys and keyoff are made */
};

#define RENDER_ROW(r, i) (&(r)->cells[(size_t)(i) * (size_t)(r)->ncols])

/* The text a table, box or line cell shows for c, before sanitizing: the value, nullvalue,
   or X'..' for a blob (built in tmp). */
void render_cell_text(const Render *r, const RCell *c, SBuf *tmp, const char **s, size_t *n);

/* Append one line of cell text made safe for a terminal (control characters as ^X, tabs as
   a space, invalid UTF-8 as U+FFFD), cut to at most maxw columns with an ellipsis when it is
   wider (maxw 0: no limit). Returns the columns written. */
size_t render_put_line(SBuf *b, const char *s, size_t n, size_t maxw, int unicode);

/* html (render_markup.c): the header (once; it opens the <table>), a row appended to b,
   and the end of the result (html's </table>; markdown's header when no row came). */
void render_markup_header(Render *r);
void render_markup_row(Render *r, const RCell *row, SBuf *b);
void render_markup_end(Render *r);

/* The buffered rows as one table; last: the row count (of every row) under it, and only
   that when earlier tables held every row. */
void render_table(Render *r, int last);
/* The display columns the buffered rows take as a table or box (expanded auto). */
size_t render_table_width(Render *r);

/* The sqlite3 shell's modes (render_shell.c): list, tabs, quote and insert a row at a time
   (appended to b; list, tabs and quote put the names first, before the first row, with
   headers on); column the buffered rows as one table of its own (its names and rule first);
   the display columns the buffered rows take in column mode (expanded auto). */
void render_shell_row(Render *r, const RCell *row, SBuf *b);
void render_column(Render *r);
size_t render_column_width(Render *r);

/* markdown (render_markup.c): the buffered rows as a padded pipe table, the header and its
   rule before the first of them. */
void render_markdown(Render *r);

#define RENDER_BOLD "\033[1m"
#define RENDER_DIM "\033[2m"
#define RENDER_RESET "\033[0m"

#endif

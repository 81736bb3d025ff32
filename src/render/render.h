/*
 * render.h: how results look. A Render takes the columns and rows of one statement (as
 * Rows, base/row.h, the way the engine's sink hands them over, whatever the backend) and writes them in one of the
 * output modes: an aligned table (ASCII or Unicode lines), a box, CSV, JSON or `name = value`
 * lines. It also writes the labelled sections (parsed SUQL, plan, counters) that the REPL
 * shows around a result. The REPL decides what to show and where; this file only formats.
 *
 * Table, box, column and markdown modes need every row before the first line (to align
 * columns), so they buffer (up to RenderOpts.fetch rows at a time); the other modes write
 * each row as it comes when RenderOpts.stream is set, and buffer otherwise (the REPL buffers
 * when the counters must come before the rows). The sqlite3 shell's modes (column, list,
 * tabs, insert, quote: render_shell.c) write what the sqlite3 shell writes, byte for byte.
 *
 * How values are written, in every mode: NULL as nullvalue (table, box, line), as an empty
 * unquoted field (CSV) or null (JSON); blobs as an SQL blob literal X'00FF' (a string in
 * JSON); reals as SQLite prints them, and in JSON non-finite reals as null.
 *
 * Ownership: a Render is created by render_new and freed by render_free; it copies what it
 * keeps (names, values) and borrows the FILE and the nullvalue string in its options.
 */
#ifndef SUQL_RENDER_H
#define SUQL_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "base/row.h"
#include "base/util.h"

typedef enum RenderMode {
	RENDER_TABLE,   /* aligned; Unicode lines when RenderOpts.unicode, ASCII otherwise */
	RENDER_BOX,     /* aligned, always Unicode lines */
	RENDER_CSV,     /* RFC 4180 fields, LF line ends, header row */
	RENDER_JSON,    /* one array of objects per statement */
	RENDER_LINE,    /* "name = value" per line, a blank line between rows */
	RENDER_MARKDOWN,   /* a pipe table: header row, its --- rule, a line per row, padded */
	RENDER_HTML,       /* a <table>, a <tr> per row (render_markup.c) */
	RENDER_COLUMN,     /* the sqlite3 shell's: aligned, two blanks apart, no lines */
	RENDER_LIST,       /* the sqlite3 shell's: values separated by '|' */
	RENDER_TABS,       /* the sqlite3 shell's: values separated by a tab */
	RENDER_INSERT,     /* the sqlite3 shell's: an INSERT statement per row */
	RENDER_QUOTE       /* the sqlite3 shell's: SQL literals separated by ',' */
} RenderMode;

#define RENDER_MODE_NAMES "table, box, csv, json, line, markdown, html, column, list, tabs, " \
	"insert, quote"
/* The same, blank-separated (the mode setting's words, for completion). */
#define RENDER_MODE_WORDS "table box csv json line markdown html column list tabs insert quote"

/* RenderOpts.expanded: psql's expanded display (\x) for the aligned modes (table, box,
   column). */
enum { RENDER_EXPANDED_OFF, RENDER_EXPANDED_ON, RENDER_EXPANDED_AUTO };

typedef struct RenderOpts {
	RenderMode mode;
	int headers;            /* table, box, csv: write the column names */
	const char *nullvalue;  /* how table, box and line show NULL; NULL means "NULL" */
	int unicode;            /* table: Unicode box-drawing lines instead of ASCII */
	int color;              /* ANSI colour: bold headers and labels, dim NULLs */
	int width;              /* table, box: cut cells with an ellipsis to fit; 0: never cut */
	int stream;             /* csv, json, line: write each row as it comes */
	int visible;            /* csv: control characters shown as ^X (vis.h), for a terminal;
	                           other modes always show them so (json escapes them) */
	int max_width;          /* table, box: a line of a cell shows at most this many
	                           display columns, the rest elided (…, ~ in ASCII); 0: no cap.
	                           csv, json and line write values whole */
	long fetch;             /* rows held at most when not streaming (table and box always
	                           hold theirs): 0 holds them all; see render_full */
	int expanded;           /* RENDER_EXPANDED_*: on, table, box and column write their rows
	                           as line mode does; auto, only a table wider than width */
	const char *table;      /* insert: the table named in each INSERT; NULL: "table" */
} RenderOpts;

/* The default of RenderOpts.max_width (:set max_width). */
#define RENDER_MAX_WIDTH 1000

/* How many bytes of values are held at most, whatever fetch says. */
#define RENDER_FETCH_BYTES (64L << 20)

typedef struct Render Render;

Render *render_new(const RenderOpts *opts, FILE *out);
void render_free(Render *r);
/* Make r ready for another statement's result, as render_new would make it, keeping the
   memory it grew: a script of many small statements writes one result after another. */
void render_reset(Render *r, const RenderOpts *opts, FILE *out);

/* The statement's columns (once) and each row, read through the Row (base/row.h). */
void render_columns(Render *r, const Row *st);
void render_row(Render *r, const Row *st);
/* Write what is buffered and close the result (JSON's ']', the table's bottom line and row
   count). Does nothing for a statement that returned no columns. Call once. */
void render_finish(Render *r);

/* Memory is bounded as psql's FETCH_COUNT bounds it: render_full says that the rows held
   reached RenderOpts.fetch (or RENDER_FETCH_BYTES of values), and render_flush writes them
   now: table and box as a table of their own (columns as wide as those rows need, the row
   count only under the last), the other modes in order. */
int render_full(const Render *r);
void render_flush(Render *r);

int render_has_columns(const Render *r);
long render_rows(const Render *r);

/* Mode names: "table" <-> RENDER_TABLE. render_mode_parse returns 0 for an unknown name. */
const char *render_mode_name(RenderMode m);
int render_mode_parse(const char *name, RenderMode *m);

/* A labelled block: "label:" then each line of text indented by two spaces, each line
   longer than width display columns broken at blanks, its continuation lines indented
   four columns more than the line itself (a hanging indent); width <= 0: not broken.
   (render_flow.c) */
void render_section_wrap(FILE *out, const char *label, const char *text, int color, int width);

/* SQL text (the parsed statement) as a section: as render_section_wrap, but a line is broken
   outside its quoted strings and names where it can, so a question stays on one line. */
void render_section_sql(FILE *out, const char *label, const char *text, int color, int width);
/* A section of one line, "label: text" (the compact display's plan and counters), broken at
   blanks to width (0: never), continuation lines indented by two; control characters and
   newlines in text made visible. */
void render_labelled_line(FILE *out, const char *label, const char *text, int color,
                          int width);
/* A message (an error's or a warning's text, after "error: " written at column at) laid out
   for a terminal width columns wide (0: as it is): prose lines broken at blanks, the first
   line's continued under the message (at 0: as the others), "hint: ..." lines under their
   own text; a statement's excerpt and its
   caret line kept as they are, or cut to a window around the caret ("...") when wider.
   Control characters made visible. */
void render_message(FILE *out, int at, const char *msg, int width);

/* Text that arrives in pieces (a reply streamed by the model), written as it comes under a
   section label: each line indented by two spaces, words wrapped to width display columns
   (0: never), runs of blanks written as one, blanks and newlines at the start and the end
   left out, control characters made visible as render_put_line does. A word is written once
   it is complete, so a UTF-8 character split between pieces is never cut. (render_flow.c)

       RenderFlow *f = render_flow_new(stdout, 77);
       render_flow_put(f, piece, n);   ...   render_flow_end(f);   // ends the last line

   Ownership: render_flow_end writes what is held and frees the RenderFlow. */
typedef struct RenderFlow RenderFlow;
RenderFlow *render_flow_new(FILE *out, int width);
void render_flow_put(RenderFlow *f, const char *s, size_t n);
void render_flow_end(RenderFlow *f);

/* ---- charts (render_chart.c) ----
   A bar chart of a result: a label a row and one value column, or several drawn as a group
   of bars a row (a line each, named by its column). */
typedef struct RenderChart {
	const char *label_name;        /* the label column's name, heading the labels */
	int nseries;                   /* value columns: 1, or several (groups) */
	const char *const *series;     /* their names */
	long nrows;
	const char *const *labels;     /* a label a row (NULL is shown as NULL) */
	const double *values;          /* nrows * nseries, row by row, finite */
	const unsigned char *has;      /* nrows * nseries: 0 where there is no value (a NULL):
	                                  no bar; a row with none is left out */
} RenderChart;

typedef struct RenderChartOpts {
	int width;      /* display columns of the chart (at least RENDER_CHART_MIN_WIDTH) */
	int unicode;    /* bars of eighth blocks (U+2588..U+258F), a box-drawing axis; else
	                   '#' a character and '|' */
	int color;      /* ANSI colour: the header bold, each value column's bars a colour */
} RenderChartOpts;

#define RENDER_CHART_MIN_WIDTH 20

/* The chart as text, appended to out: a header line (the label column's name; with one
   value column its name over the bars), then a line a bar: the label cut with an ellipsis
   to its column (at most two fifths of the width), with groups the value column's name,
   the bar scaled to the largest value (eighths of a character, or whole '#'s rounded) and
   the value after it. Negative values: bars of whole characters to the left of a zero
   axis, their values on the left. Labels and names have their control characters made
   visible. Lines end at their last character. */
void render_chart(SBuf *out, const RenderChart *c, const RenderChartOpts *o);
/* The same chart as an SVG image (an <svg> element, for the html mode): a title, a legend
   for groups, a bar a line; every text escaped for XML (& < > " ' as entities, control
   characters and invalid UTF-8 as U+FFFD), labels cut to 30 characters. */
void render_chart_svg(SBuf *out, const RenderChart *c);

/* A histogram of v[0..n) (finite values): bins about as many as asked (at least 1), of a
   round width (1, 2, 2.5 or 5 times a power of ten; for integers 1, 2 or 5 times one, and
   1 when the values span no more than bins integers) starting at a multiple of it, so a
   bin holds [lo, lo + width). Labels "[0.5, 1)"; for integers "3", or "10-14" (an en dash
   with unicode). Ownership: render_hist_free frees what render_hist made. */
typedef struct RenderHist {
	int nbins;
	double step;
	char **labels;
	double *counts;
} RenderHist;
void render_hist(RenderHist *h, const double *v, long n, int bins, int integers, int unicode);
void render_hist_free(RenderHist *h);

/* Whether the user's locale (LC_CTYPE, as render_init_locale found it) is UTF-8: where it
   is not, charts are drawn in ASCII. */
int render_locale_utf8(void);

/* JSON mode: column col of the result holds a SUQL list (a JSON array in TEXT); it is
   written as that array, not as a string, when it parses as one. Call after
   render_columns. */
void render_json_column(Render *r, int col);

/* Write text to out word by word, breaking lines at blanks before column width (a word
   wider than a line is written whole): the cursor is at column at, continuation lines
   start at column indent. Ends the line. (--help, :help; render_flow.c.) */
void render_wrap(FILE *out, const char *text, int at, int indent, int width);

/* The width of the terminal f writes to ($COLUMNS, else 80, when the terminal does not
   say); 0 when f is not a terminal. */
int render_term_width(FILE *f);

/* Helpers, exported for the unit tests. */

/* Display columns of UTF-8 text as written in table, box and line modes (wcwidth of each
   character; control characters as ^X take two, invalid bytes one). Stops at nothing:
   newlines count like other control characters. */
size_t render_width(const char *s, size_t n);
/* One CSV field: quoted when it holds a comma, quote, CR or LF, or is empty. */
void render_csv_field(SBuf *b, const char *s, size_t n);
/* A JSON string for any bytes: escapes as JSON requires, invalid UTF-8 as U+FFFD. */
void render_json_string(SBuf *b, const char *s, size_t n);
/* Text for a man(7) page, escaped for roff: backslashes, hyphens (as \-), quotes. */
void render_roff(SBuf *b, const char *s);
/* A one-line help text as a sentence: capitalised, escaped, ending with ".\n". */
void render_roff_sentence(SBuf *b, const char *s);
/* Text for a man(7) page: escaped, each sentence on a line of its own, lines of at most 79
   bytes broken at blanks. */
void render_roff_text(SBuf *b, const char *s);
/* Make wcwidth() see UTF-8: the user's LC_CTYPE when it is UTF-8, else C.UTF-8. */
void render_init_locale(void);

#endif

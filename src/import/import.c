/*
 * import.c: one import from start to end (see import.h for what it promises).
 *
 *   1. the columns: the existing table's, the declared ones (--types), the CSV header's;
 *   2. a first pass over the records when the table must be created, to learn the JSON
 *      keys and infer the undeclared types (and to find syntax errors before writing);
 *   3. CREATE TABLE and catalog_set for the SUQL types;
 *   4. a second pass binding every value to one prepared INSERT;
 *   5. optionally, the retrieval index of the FREE_TEXT columns.
 * All of it inside SAVEPOINT suql_import, rolled back on any error. Files are mapped into
 * memory rather than read, so a file of gigabytes costs no heap.
 */
#include "base/vis.h"
#include "import/import_int.h"
#include "retrieve/retrieve.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct Imp {
	Store *st;           /* the database, through the storage seam */
	sqlite3 *db;         /* its SQLite connection: the inserts are SQLite's for now */
	const char *table;
	const ImportOptions *opt;
	ImpReader r;
	ImpCol *cols;
	int ncols, capcols;
	int *slot;           /* the columns by name, ignoring case: open addressing, column + 1 */
	int nslot;           /* a power of two, at least twice ncols; 0 before the first column */
	int exists;
	int *fmap;           /* CSV: column of each header field */
	int nfmap;
	int seen;            /* columns the file has named so far */
	char ***named;       /* when not NULL: the columns the file named, filled in at the end */
	int *nnamed;
	Progress *pg;
} Imp;

ImportFormat import_format_named(const char *s)
{
	if (!s)
		return IMPORT_AUTO;
	if (str_ieq(s, "csv") || str_ieq(s, "tsv"))
		return IMPORT_CSV;
	if (str_ieq(s, "json"))
		return IMPORT_JSON;
	if (str_ieq(s, "jsonl") || str_ieq(s, "ndjson"))
		return IMPORT_JSONL;
	return IMPORT_AUTO;
}

static const char *extension(const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *dot = strrchr(slash ? slash : name, '.');
	return dot ? dot + 1 : "";
}

/* Columns are found by name through a hash of the lower-cased name, so a header of
   40,000 names costs linear time, not quadratic (tests/robust/columns-40k.t). */
static size_t name_hash(const char *s)
{
	size_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (size_t)tolower((unsigned char)*s)) * 16777619u;
	return h;
}

static void slot_put(Imp *im, int k)
{
	size_t mask = (size_t)im->nslot - 1, i = name_hash(im->cols[k].name) & mask;
	while (im->slot[i])
		i = (i + 1) & mask;
	im->slot[i] = k + 1;
}

static int find_col(const Imp *im, const char *name)
{
	if (!im->nslot)
		return -1;
	size_t mask = (size_t)im->nslot - 1, i = name_hash(name) & mask;
	for (; im->slot[i]; i = (i + 1) & mask)
		if (str_ieq(im->cols[im->slot[i] - 1].name, name))
			return im->slot[i] - 1;
	return -1;
}

static int add_col(Imp *im, const char *name)
{
	if (im->ncols == im->capcols) {
		im->capcols = im->capcols ? im->capcols * 2 : 16;
		im->cols = xrealloc(im->cols, (size_t)im->capcols * sizeof *im->cols);
	}
	ImpCol *c = &im->cols[im->ncols];
	memset(c, 0, sizeof *c);
	c->name = xstrdup(name);
	int k = im->ncols++;
	if (2 * im->ncols > im->nslot) {
		free(im->slot);
		im->nslot = im->nslot ? 2 * im->nslot : 64;
		im->slot = xcalloc((size_t)im->nslot, sizeof *im->slot);
		for (int i = 0; i < im->ncols; i++)
			slot_put(im, i);
	} else {
		slot_put(im, k);
	}
	return k;
}

/* "reviews=FREE_TEXT[],price=ENUM('a','b')": split at commas outside () and quotes. */
static SuqlStatus apply_types(Imp *im, SuqlErr *err)
{
	const char *p = im->opt->types;
	while (p && *p) {
		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		SBuf name = SBUF_INIT;
		if (*p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
				if (*p == '"')
					p++;
				sb_putc(&name, *p);
			}
			if (*p == '"')
				p++;
		} else {
			while (*p && *p != '=' && *p != ',')
				sb_putc(&name, *p++);
			while (name.len && name.s[name.len - 1] == ' ')
				sb_truncate(&name, name.len - 1);
		}
		while (*p == ' ')
			p++;
		if (*p != '=' || !name.len) {
			sb_free(&name);
			return err_set(err, SUQL_USAGE, "--types: expected NAME=TYPE in '%s'",
			               im->opt->types);
		}
		const char *d = ++p;
		int depth = 0;
		char q = 0;
		for (; *p; p++) {
			if (q) {
				if (*p == q)
					q = 0;
			} else if (*p == '\'' || *p == '"') {
				q = *p;
			} else if (*p == '(') {
				depth++;
			} else if (*p == ')') {
				depth--;
			} else if (*p == ',' && depth <= 0) {
				break;
			}
		}
		char *decl = xstrndup(d, (size_t)(p - d));
		int k = find_col(im, sb_str(&name));
		SuqlStatus s = SUQL_OK;
		if (k < 0 && im->exists) {
			s = err_set(err, SUQL_USAGE, "--types: table %s has no column %s", im->table, name.s);
		} else {
			if (k < 0)
				k = add_col(im, sb_str(&name));
			SuqlErr e2 = {0};
			if (imp_col_set_type(&im->cols[k], decl, &e2) == SUQL_OK)
				im->cols[k].declared = 1;
			else
				s = err_set(err, SUQL_USAGE, "--types: %s: %s", im->cols[k].name, e2.msg);
			err_clear(&e2);
		}
		free(decl);
		sb_free(&name);
		if (s != SUQL_OK)
			return s;
	}
	return SUQL_OK;
}

static SuqlStatus load_existing(Imp *im, SuqlErr *err)
{
	StoreTable *tabs;
	int ntabs, found = 0, view = 0;
	if (store_tables(im->st, &tabs, &ntabs, err) != SUQL_OK)
		return SUQL_ERROR;
	for (int i = 0; i < ntabs && !found; i++)
		if (str_ieq(tabs[i].name, im->table))
			found = 1, view = tabs[i].view;
	store_tables_free(tabs, ntabs);
	if (view)
		return err_set(err, SUQL_ERROR, "%s is a view; import into a table", im->table);
	if (!found)
		return SUQL_OK;
	im->exists = 1;
	CatColumn *cc;
	int n;
	if (catalog_table(im->st, im->table, &cc, &n, err) != SUQL_OK)
		return SUQL_ERROR;
	for (int i = 0; i < n; i++) {
		int k = add_col(im, cc[i].column);
		im->cols[k].existing = 1;
		imp_col_set_type(&im->cols[k], cc[i].type ? cc[i].type : "", NULL);
	}
	catalog_columns_free(cc, n);
	return SUQL_OK;
}

/* CSV: the header row, or the names of --columns. */
static SuqlStatus read_header(Imp *im, SuqlErr *err)
{
	ImpReader *r = &im->r;
	int k = imp_csv_next(r, err);
	if (k < 0)
		return SUQL_ERROR;
	if (k == 0)
		return err_set(err, SUQL_ERROR, "%s:1: empty file (a CSV file starts with a header row)",
		               r->name);
	char **names = xcalloc((size_t)r->nfield, sizeof *names);
	int nnames = r->nfield;
	SuqlStatus s = SUQL_OK;
	if (im->opt->columns) {
		int i = 0;
		const char *p = im->opt->columns;
		while (*p && i <= nnames) {
			const char *e = strchr(p, ',');
			const char *name = p;
			size_t len = e ? (size_t)(e - p) : strlen(p);
			str_trim(&name, &len);
			if (i < nnames)
				names[i] = xstrndup(name, len);
			i++;
			p = e ? e + 1 : p + strlen(p);
		}
		if (i != nnames)
			s = err_set(err, SUQL_USAGE, "--columns gives %d names, but the header of %s has %d",
			            i, r->name, nnames);
	} else {
		for (int i = 0; i < nnames; i++)
			names[i] = r->field[i].len ? xstrdup(r->field[i].s) : xprintf("column%d", i + 1);
	}
	im->fmap = xcalloc((size_t)nnames, sizeof *im->fmap);
	im->nfmap = nnames;
	int seen0 = im->seen;   /* a column this header named already is a duplicate */
	for (int i = 0; i < nnames && s == SUQL_OK; i++) {
		int c = find_col(im, names[i]);
		if (c >= 0 && im->cols[c].in_file > seen0) {
			s = imp_error(err, r, r->fpos[i], 1, "duplicate column name '%s'", names[i]);
			break;
		}
		if (c < 0 && im->exists) {
			s = imp_error(err, r, r->fpos[i], 1, "table %s has no column '%s'", im->table,
			              names[i]);
			break;
		}
		if (c < 0)
			c = add_col(im, names[i]);
		im->cols[c].in_file = ++im->seen;
		im->fmap[i] = c;
	}
	for (int i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	return s;
}

static SuqlStatus check_width(Imp *im, SuqlErr *err)
{
	ImpReader *r = &im->r;
	if (r->nfield == im->nfmap)
		return SUQL_OK;
	return imp_error(err, r, r->fpos[0], 0, "%d field%s, but the header has %d", r->nfield,
	                 r->nfield == 1 ? "" : "s", im->nfmap);
}

/* Pass 1: learn the JSON keys and infer the undeclared types. */
static SuqlStatus scan(Imp *im, SuqlErr *err)
{
	ImpReader *r = &im->r;
	int k;
	progress_phase(im->pg, "reading", (double)r->len);
	if (r->fmt == IMPORT_CSV) {
		while ((k = imp_csv_next(r, err)) > 0) {
			if (check_width(im, err) != SUQL_OK)
				return SUQL_ERROR;
			for (int i = 0; i < r->nfield; i++) {
				ImpCol *c = &im->cols[im->fmap[i]];
				if (!c->declared && !c->existing)
					imp_infer_text(c, r->field[i].s, r->field[i].len, r->fquoted[i]);
			}
			progress_set(im->pg, (double)r->pos);
		}
	} else {
		while ((k = imp_json_next(r, err)) > 0) {
			const char *key;
			json_t *v;
			json_object_foreach(r->obj, key, v) {
				int c = find_col(im, key);
				if (c < 0)
					c = add_col(im, key);
				if (!im->cols[c].in_file)
					im->cols[c].in_file = ++im->seen;
				if (!im->cols[c].declared)
					imp_infer_json(&im->cols[c], v);
			}
			progress_set(im->pg, (double)r->pos);
		}
	}
	return k < 0 ? SUQL_ERROR : SUQL_OK;
}

typedef struct ColRank { int in_file, i; } ColRank;

static int rank_cmp(const void *a, const void *b)
{
	const ColRank *x = a, *y = b;
	if (x->in_file != y->in_file)
		return x->in_file < y->in_file ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* A new table's columns come in the order the file names them (declared ones included);
   a stable sort, so columns the file does not name keep their order before the others. */
static void order_by_file(Imp *im)
{
	size_t n = (size_t)(im->ncols ? im->ncols : 1);
	int *newpos = xmalloc(n * sizeof *newpos);
	ImpCol *sorted = xmalloc(n * sizeof *sorted);
	ColRank *rank = xmalloc(n * sizeof *rank);
	for (int i = 0; i < im->ncols; i++)
		rank[i] = (ColRank){im->cols[i].in_file, i};
	qsort(rank, (size_t)im->ncols, sizeof *rank, rank_cmp);
	for (int p = 0; p < im->ncols; p++) {
		newpos[rank[p].i] = p;
		sorted[p] = im->cols[rank[p].i];
	}
	if (im->ncols)
		memcpy(im->cols, sorted, (size_t)im->ncols * sizeof *sorted);
	for (int i = 0; i < im->nfmap; i++)
		im->fmap[i] = newpos[im->fmap[i]];
	if (im->nslot) {
		memset(im->slot, 0, (size_t)im->nslot * sizeof *im->slot);
		for (int i = 0; i < im->ncols; i++)
			slot_put(im, i);
	}
	free(rank);
	free(sorted);
	free(newpos);
}

static SuqlStatus create_table(Imp *im, SuqlErr *err)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, "CREATE TABLE ");
	sb_put_ident(&b, im->table, strlen(im->table));
	sb_puts(&b, " (");
	for (int i = 0; i < im->ncols; i++) {
		ImpCol *c = &im->cols[i];
		CatColumn tmp = {0};
		int suql = catalog_parse_type(c->cat.type, &tmp, NULL);
		catalog_column_free(&tmp);
		if (i)
			sb_puts(&b, ", ");
		sb_put_ident(&b, c->name, strlen(c->name));
		sb_printf(&b, " %s", suql ? catalog_storage_type(&c->cat) : c->cat.type);
	}
	sb_puts(&b, ")");
	SuqlStatus s = store_exec(im->st, b.s, err);
	sb_free(&b);
	if (s != SUQL_OK) {   /* e.g. more columns than SQLite allows */
		char *m = err->msg;
		err->msg = NULL;
		err_set(err, s, "%s: cannot create table %s: %s", im->r.name, im->table, m);
		free(m);
	}
	return s;
}

static SuqlStatus record_types(Imp *im, SuqlErr *err)
{
	for (int i = 0; i < im->ncols; i++) {
		ImpCol *c = &im->cols[i];
		if (im->exists && !c->declared)
			continue;
		if ((c->cat.free_text || c->cat.is_enum || c->cat.is_array) &&
		    catalog_set(im->st, im->table, c->name, c->cat.type, err) != SUQL_OK)
			return SUQL_ERROR;
	}
	return SUQL_OK;
}

static sqlite3_stmt *prepare_insert(Imp *im, SuqlErr *err)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, "INSERT INTO ");
	sb_put_ident(&b, im->table, strlen(im->table));
	sb_puts(&b, " (");
	int n = im->r.fmt == IMPORT_CSV ? im->nfmap : im->ncols;
	for (int i = 0; i < n; i++) {
		const char *name = im->cols[im->r.fmt == IMPORT_CSV ? im->fmap[i] : i].name;
		if (i)
			sb_puts(&b, ", ");
		sb_put_ident(&b, name, strlen(name));
	}
	sb_puts(&b, ") VALUES (");
	for (int i = 0; i < n; i++)
		sb_puts(&b, i ? ", ?" : "?");
	sb_puts(&b, ")");
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(im->db, b.s, -1, &st, NULL) != SQLITE_OK)
		err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(im->db));
	sb_free(&b);
	return st;
}

static SuqlStatus step_row(Imp *im, sqlite3_stmt *st, ImpPos at, SuqlErr *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return SUQL_OK;
	return imp_error(err, &im->r, at, 0, "%s", sqlite3_errmsg(im->db));
}

/* Pass 2: insert every record. */
static SuqlStatus load(Imp *im, sqlite3_stmt *st, long long *rows, SuqlErr *err)
{
	ImpReader *r = &im->r;
	const char *sep = im->opt->array_sep;
	int k;
	char *why = NULL;
	progress_phase(im->pg, "importing", (double)r->len);
	while ((k = r->fmt == IMPORT_CSV ? imp_csv_next(r, err) : imp_json_next(r, err)) > 0) {
		if (suql_interrupted)
			return err_set(err, SUQL_INTERRUPT, "interrupted");
		ImpPos at;
		if (r->fmt == IMPORT_CSV) {
			if (check_width(im, err) != SUQL_OK)
				return SUQL_ERROR;
			for (int i = 0; i < r->nfield; i++) {
				if (imp_bind_text(st, i + 1, &im->cols[im->fmap[i]], r->field[i].s,
				                  r->field[i].len, r->fquoted[i], sep, &why) < 0) {
					imp_error(err, r, r->fpos[i], 1, "%s", why);
					free(why);
					return SUQL_ERROR;
				}
			}
			at = r->fpos[0];
		} else {
			sqlite3_clear_bindings(st);
			const char *key;
			json_t *v;
			int j = 0;
			json_object_foreach(r->obj, key, v) {
				int c = j < im->ncols && str_ieq(im->cols[j].name, key) ? j : find_col(im, key);
				j++;
				if (c < 0) {
					ImpPos p = imp_json_key_pos(r, key, 1);
					return imp_error(err, r, p, 1, "table %s has no column '%s'", im->table, key);
				}
				if (!im->cols[c].in_file)
					im->cols[c].in_file = ++im->seen;
				if (imp_bind_json(st, c + 1, &im->cols[c], v, &why) < 0) {
					ImpPos p = imp_json_key_pos(r, key, 0);
					imp_error(err, r, p, 1, "%s", why);
					free(why);
					return SUQL_ERROR;
				}
			}
			at = r->rec;
		}
		if (step_row(im, st, at, err) != SUQL_OK)
			return SUQL_ERROR;
		(*rows)++;
		progress_set(im->pg, (double)r->pos);
	}
	return k < 0 ? SUQL_ERROR : SUQL_OK;
}

static SuqlStatus run(Imp *im, SuqlErr *err)
{
	const ImportOptions *opt = im->opt;
	ImpReader *r = &im->r;
	if (load_existing(im, err) != SUQL_OK || apply_types(im, err) != SUQL_OK)
		return SUQL_ERROR;
	if (r->fmt == IMPORT_CSV) {
		if (read_header(im, err) != SUQL_OK)
			return SUQL_ERROR;
	} else if (opt->columns) {
		return err_set(err, SUQL_USAGE, "--columns applies to CSV files only");
	}
	if (opt->array_sep && r->fmt != IMPORT_CSV)
		return err_set(err, SUQL_USAGE, "--array-sep applies to CSV files only");

	if (!im->exists) {
		if (scan(im, err) != SUQL_OK)
			return SUQL_ERROR;
		if (r->fmt != IMPORT_CSV && r->recno == 0)
			return err_set(err, SUQL_ERROR, "%s:1: no rows (an empty JSON array)", r->name);
		if (im->ncols == 0)
			return err_set(err, SUQL_ERROR, "%s:1: no columns: every record is an empty "
			               "object", r->name);
		for (int i = 0; i < im->ncols; i++) {
			ImpCol *c = &im->cols[i];
			if (c->declared && !c->in_file)
				return err_set(err, SUQL_USAGE, "--types names column %s, which is not in %s",
				               c->name, r->name);
			if (!c->declared && imp_col_set_type(c, imp_infer_decide(c), err) != SUQL_OK)
				return SUQL_ERROR;
		}
		order_by_file(im);
		if (create_table(im, err) != SUQL_OK)
			return SUQL_ERROR;
		imp_reader_rewind(r);
		if (r->fmt == IMPORT_CSV && imp_csv_next(r, err) < 0)
			return SUQL_ERROR;
	}
	if (record_types(im, err) != SUQL_OK)
		return SUQL_ERROR;
	if (opt->array_sep) {
		int lists = 0;
		for (int i = 0; i < im->ncols; i++)
			lists += im->cols[i].cat.is_array;
		if (!lists)
			return err_set(err, SUQL_USAGE, "--array-sep is given, but no column is a list; "
			               "declare one with --types, e.g. --types 'tags=TEXT[]'");
	}
	sqlite3_stmt *st = prepare_insert(im, err);
	if (!st)
		return SUQL_ERROR;
	long long rows = 0;
	SuqlStatus s = load(im, st, &rows, err);
	sqlite3_finalize(st);
	if (s != SUQL_OK)
		return s;
	if (r->fmt == IMPORT_JSON && rows == 0 && !im->exists)
		return err_set(err, SUQL_ERROR, "%s:1: no rows", r->name);
	int indexed = 0;
	if (opt->index) {
		progress_close(im->pg);
		im->pg = NULL;
		for (int i = 0; i < im->ncols; i++) {
			if (!im->cols[i].cat.free_text)
				continue;
			if (ret_ensure(im->db, im->table, im->cols[i].name, NULL, err) != SUQL_OK)
				return SUQL_ERROR;
			indexed++;
		}
	}
	if (im->named) {
		int n = r->fmt == IMPORT_CSV ? im->nfmap : im->ncols, k = 0;
		*im->named = xcalloc((size_t)n + 1, sizeof **im->named);
		for (int i = 0; i < n; i++) {
			const ImpCol *c = &im->cols[r->fmt == IMPORT_CSV ? im->fmap[i] : i];
			if (c->in_file)
				(*im->named)[k++] = xstrdup(c->name);
		}
		*im->nnamed = k;
	}
	if (opt->stats) {
		opt->stats->rows = rows;
		opt->stats->columns = r->fmt == IMPORT_CSV ? im->nfmap : im->ncols;
		opt->stats->created = !im->exists;
		opt->stats->indexed = indexed;
	}
	return SUQL_OK;
}

/* After a failed import outside a transaction: a write error (a full disk, a file-size
   limit) leaves SQLite's pager in its error state with the journal still hot and the file
   grown; the next statement's read plays the journal back (the file shrinks to its size
   before the import). Done here, so that a script that ends now leaves a file the next
   open, even --readonly, reads as it was. */
static void recover(sqlite3 *db)
{
	if (sqlite3_get_autocommit(db))
		sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
}

static int is_utf8_name(const char *enc)
{
	return str_ieq(enc, "utf-8") || str_ieq(enc, "utf8");
}

/* The file converted from opt->encoding to UTF-8 with iconv, then imported. A byte sequence
   the encoding does not have is an error at its place. */
static SuqlStatus import_converted(Store *st, const char *name, const char *data, size_t len,
                                   const char *table, const ImportOptions *opt, char delim,
                                   ImportFormat fmt, SuqlErr *err)
{
	iconv_t cd = iconv_open("UTF-8", opt->encoding);
	if (cd == (iconv_t)-1)
		return err_set(err, SUQL_USAGE, "--encoding: unknown encoding '%s' (latin1, cp1252, "
		               "iso-8859-15, utf-8, ...; `iconv -l` lists them)", opt->encoding);
	size_t cap = len * 4 + 16, outleft = cap, inleft = len;
	char *out = xmalloc(cap), *op = out;
	char *ip = (char *)(uintptr_t)data;
	size_t rc = iconv(cd, &ip, &inleft, &op, &outleft);
	int e = errno;
	iconv_close(cd);
	if (rc == (size_t)-1) {
		free(out);
		ImpReader r;
		imp_reader_init(&r, name, data, len, fmt, delim);
		ImpPos start = {0, 1, 0};
		SuqlStatus s = imp_error(err, &r, imp_pos_advance(&r, start, (size_t)(ip - data)), 1,
		                         "%s in the encoding %s (byte 0x%02X)",
		                         e == EINVAL ? "an incomplete character at the end"
		                                     : "a byte sequence that is not a character",
		                         opt->encoding, ip < data + len ? (unsigned char)*ip : 0);
		imp_reader_free(&r);
		return s;
	}
	ImportOptions o = *opt;
	o.encoding = NULL;
	if (!o.delim)
		o.delim = delim;
	if (!o.format)
		o.format = fmt;
	SuqlStatus s = import_buffer(st, name, out, (size_t)(op - out), table, &o, err);
	free(out);
	return s;
}

SuqlStatus import_buffer(Store *st, const char *name, const char *data, size_t len,
                         const char *table, const ImportOptions *opt, SuqlErr *err)
{
	return imp_buffer_named(st, name, data, len, table, opt, NULL, NULL, err);
}

SuqlStatus imp_buffer_named(Store *st, const char *name, const char *data, size_t len,
                            const char *table, const ImportOptions *opt, char ***named,
                            int *nnamed, SuqlErr *err)
{
	ImportOptions dflt = IMPORT_OPTIONS_INIT;
	if (!opt)
		opt = &dflt;
	ImportFormat fmt = opt->format ? opt->format : import_format_named(extension(name));
	if (fmt == IMPORT_AUTO)
		return err_set(err, SUQL_USAGE, "cannot tell the format of %s from its name; "
		               "give --format csv, json or jsonl", name);
	if (!table || !*table)
		return err_set(err, SUQL_USAGE, "no table name given");
	if (str_nieq(table, 5, "suql_"))
		return err_set(err, SUQL_USAGE, "table names starting with suql_ are reserved for suql");
	size_t i = 0;
	while (i < len && strchr(" \t\r\n", data[i]))
		i++;
	if (i == len || (len == 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0))
		return err_set(err, SUQL_ERROR, "%s:1: empty file", name);
	char delim = opt->delim ? opt->delim : str_ieq(extension(name), "tsv") ? '\t' : ',';
	if (opt->encoding && !is_utf8_name(opt->encoding))
		return import_converted(st, name, data, len, table, opt, delim, fmt, err);
	const char *nul = memchr(data, 0, len);
	if (nul) {
		/* SQLite would keep the bytes, but every function and display stops at a NUL:
		   the value would read as cut short, so the file is refused where it holds one */
		ImpReader r;
		imp_reader_init(&r, name, data, len, fmt, delim);
		ImpPos start = {0, 1, 0};
		SuqlStatus s = imp_error(err, &r, imp_pos_advance(&r, start, (size_t)(nul - data)), 1,
		                         "a NUL byte: suql imports text, and SQLite would cut the "
		                         "value short here (a UTF-16 file must be converted to UTF-8)");
		imp_reader_free(&r);
		return s;
	}

	size_t bad = vis_utf8_bad(data, len);
	if (bad < len) {
		/* stored as they are, such bytes would reach a model replaced, or make a request
		   fail: refused here, where they can be found */
		ImpReader r;
		imp_reader_init(&r, name, data, len, fmt, delim);
		ImpPos start = {0, 1, 0};
		SuqlStatus s = imp_error(err, &r, imp_pos_advance(&r, start, bad), 1,
		                         "byte 0x%02X is not UTF-8: give the file's encoding with "
		                         "--encoding (latin1, cp1252, ...) to convert it, or convert "
		                         "the file to UTF-8", (unsigned char)data[bad]);
		imp_reader_free(&r);
		return s;
	}

	if (!store_sqlite(st))   /* PostgreSQL: staged in SQLite, then COPY (import_pg.c) */
		return imp_pg_buffer(st, name, data, len, table, opt, err);
	Imp im = {0};
	im.st = st;
	im.db = store_sqlite(st);
	im.table = table;
	im.opt = opt;
	im.named = named;
	im.nnamed = nnamed;
	imp_reader_init(&im.r, name, data, len, fmt, delim);
	char *label = xprintf("importing %s", name);
	im.pg = progress_open(stderr, opt->progress, label, (double)len);
	free(label);

	SuqlStatus s = store_savepoint(st, "suql_import", err);
	if (s == SUQL_OK) {
		s = run(&im, err);
		if (s != SUQL_OK) {
			store_rollback_to(st, "suql_import");
			recover(im.db);
		} else if ((s = store_release(st, "suql_import", err)) != SUQL_OK && named) {
			for (int k = 0; k < *nnamed; k++)
				free((*named)[k]);
			free(*named);
			*named = NULL;
		}
	}
	progress_close(im.pg);
	for (int k = 0; k < im.ncols; k++) {
		free(im.cols[k].name);
		catalog_column_free(&im.cols[k].cat);
	}
	free(im.cols);
	free(im.slot);
	free(im.fmap);
	imp_reader_free(&im.r);
	return s;
}

SuqlStatus import_file(Store *st, const char *path, const char *table,
                       const ImportOptions *opt, SuqlErr *err)
{
	if (strcmp(path, "-") == 0) {
		SBuf in = SBUF_INIT;
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
			sb_putn(&in, buf, n);
		SuqlStatus s = import_buffer(st, "<stdin>", sb_str(&in), in.len, table, opt, err);
		sb_free(&in);
		return s;
	}
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno == ENOENT ? err_set(err, SUQL_IO, "no such file: %s", path)
		                       : err_set(err, SUQL_IO, "cannot read %s: %s", path, strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		SuqlStatus s = err_set(err, SUQL_IO, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		return s;
	}
	if (S_ISDIR(sb.st_mode)) {
		close(fd);
		return err_set(err, SUQL_IO, "cannot read %s: it is a directory", path);
	}
	SuqlStatus s;
	if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
		void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return err_set(err, SUQL_IO, "cannot read %s: %s", path, strerror(errno));
		madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL);
		s = import_buffer(st, path, m, (size_t)sb.st_size, table, opt, err);
		munmap(m, (size_t)sb.st_size);
	} else {
		close(fd);
		size_t len = 0;
		char *data = util_read_file(path, &len);
		if (!data)
			return err_set(err, SUQL_IO, "cannot read %s: %s", path, strerror(errno));
		s = import_buffer(st, path, data, len, table, opt, err);
		free(data);
	}
	return s;
}

/*
 * mkfixtures.c: builds the databases of the real datasets (build/mkfixtures), run by
 * scripts/fixtures.sh (`make fixtures`). Both go through the importer, so SUQL types land
 * in the catalog, and both get their retrieval indexes built.
 *
 *   mkfixtures clothing CSV OUT.db    Women's E-Commerce Clothing Reviews (the CSV, unzipped)
 *   mkfixtures hybridqa DIR OUT.db    HybridQA tables (DIR/tables and DIR/passages, JSON files)
 *
 * clothing: reviews(id, clothing_id, age, title, review_text FREE_TEXT, rating, recommended,
 * positive_feedback, division ENUM, department ENUM, class ENUM), one row per review; and
 * products(clothing_id, num_reviews, avg_rating, recommended_share, division, department,
 * class, reviews FREE_TEXT[]), one row per product, its reviews' titles and texts as the
 * list and the most common division, department and class of its reviews.
 *
 * hybridqa: one table per Wikipedia table, named from its uid (the file name): lower case,
 * each run of other characters than letters and digits replaced by '_', "t_" in front when
 * it starts with a digit ("2001_Brazilian_Grand_Prix_0" -> t_2001_brazilian_grand_prix_0).
 * Columns are the header's texts; each column with linked cells gets a "<column>_Info"
 * FREE_TEXT[] column right after it, holding the passages its cell links to. The table's
 * title, section and introduction go to suql_table_info(tbl, uid, url, title,
 * section_title, section_text, intro), for the chat agent.
 *
 * The database is written to OUT.db.tmp and renamed when complete.
 */
#include "base/util.h"
#include "import/import.h"
#include "retrieve/retrieve.h"
#include "store/catalog.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The database being made, through the storage seam (the importer and the catalog use it). */
static Store *store;

static int exec(sqlite3 *db, const char *sql, SuqlErr *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(err, SUQL_ERROR, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* ---- clothing ---- */

static const char *const CLOTHING_DDL =
	"CREATE TABLE reviews (id INTEGER PRIMARY KEY, clothing_id INTEGER, age INTEGER, "
	"title TEXT, review_text TEXT, rating INTEGER, recommended INTEGER, "
	"positive_feedback INTEGER, division TEXT, department TEXT, class TEXT);";

/* The most common value of a column among a product's reviews (ties: alphabetical). */
#define MODE(col) \
	"(SELECT " col " FROM reviews r2 WHERE r2.clothing_id = r.clothing_id AND " col " IS NOT NULL " \
	"GROUP BY " col " ORDER BY count(*) DESC, " col " LIMIT 1)"

static const char *const PRODUCTS_SQL =
	"CREATE INDEX reviews_clothing_id ON reviews(clothing_id);"
	"CREATE TABLE products (clothing_id INTEGER PRIMARY KEY, num_reviews INTEGER, "
	"avg_rating REAL, recommended_share REAL, division TEXT, department TEXT, class TEXT, "
	"reviews TEXT);"
	"INSERT INTO products SELECT clothing_id, count(*), round(avg(rating), 2), "
	"round(avg(recommended), 3), " MODE("division") ", " MODE("department") ", " MODE("class") ", "
	"(SELECT json_group_array(t) FROM (SELECT CASE "
	"  WHEN title IS NULL THEN review_text "
	"  WHEN review_text IS NULL THEN title "
	"  WHEN substr(title, -1) IN ('.', '!', '?') THEN title || ' ' || review_text "
	"  ELSE title || '. ' || review_text END AS t "
	" FROM reviews r3 WHERE r3.clothing_id = r.clothing_id AND t IS NOT NULL ORDER BY id)) "
	"FROM reviews r GROUP BY clothing_id ORDER BY clothing_id;";

static int clothing(sqlite3 *db, const char *csv, SuqlErr *err)
{
	if (exec(db, CLOTHING_DDL, err) < 0)
		return -1;
	const char *types[][2] = {
		{"review_text", "FREE_TEXT"}, {"division", "ENUM"}, {"department", "ENUM"}, {"class", "ENUM"},
	};
	for (int i = 0; i < 4; i++)
		if (catalog_set(store, "reviews", types[i][0], types[i][1], err) != SUQL_OK)
			return -1;
	ImportOptions opt = IMPORT_OPTIONS_INIT;
	ImportStats st = {0};
	opt.format = IMPORT_CSV;
	opt.columns = "id, clothing_id, age, title, review_text, rating, recommended, "
	              "positive_feedback, division, department, class";
	opt.stats = &st;
	if (import_file(store, csv, "reviews", &opt, err) != SUQL_OK)
		return -1;
	if (exec(db, PRODUCTS_SQL, err) < 0)
		return -1;
	for (int i = 1; i < 4; i++)
		if (catalog_set(store, "products", types[i][0], types[i][1], err) != SUQL_OK)
			return -1;
	if (catalog_set(store, "products", "reviews", "FREE_TEXT[]", err) != SUQL_OK ||
	    ret_ensure(db, "reviews", "review_text", NULL, err) != SUQL_OK ||
	    ret_ensure(db, "products", "reviews", NULL, err) != SUQL_OK)
		return -1;
	printf("clothing: %lld reviews\n", st.rows);
	return 0;
}

/* ---- hybridqa ---- */

static char *table_name(const char *uid)
{
	SBuf b = SBUF_INIT;
	if (isdigit((unsigned char)uid[0]))
		sb_puts(&b, "t_");
	int gap = 0;
	for (const char *p = uid; *p; p++) {
		if (isalnum((unsigned char)*p)) {
			if (gap && b.len && b.s[b.len - 1] != '_')
				sb_putc(&b, '_');
			sb_putc(&b, (char)tolower((unsigned char)*p));
			gap = 0;
		} else {
			gap = 1;
		}
	}
	return sb_steal(&b);
}

static void csv_field(SBuf *b, const char *s)
{
	if (!s || !*s)
		return;   /* unquoted empty: NULL */
	sb_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			sb_putc(b, '"');
		sb_putc(b, *s);
	}
	sb_putc(b, '"');
}

static int one_table(sqlite3 *db, const char *dir, const char *file, char ***used, int *nused,
                     SuqlErr *err)
{
	char *tpath = xprintf("%s/tables/%s", dir, file);
	char *ppath = xprintf("%s/passages/%s", dir, file);
	json_error_t je;
	json_t *t = json_load_file(tpath, 0, &je);
	json_t *pass = json_load_file(ppath, 0, &je);
	int rc = -1;
	char **cols = NULL;
	int *linked = NULL;
	size_t ncol = 0;
	SBuf csv = SBUF_INIT, types = SBUF_INIT;
	char *name = NULL;
	if (!t || !pass) {
		err_set(err, SUQL_IO, "%s: %s", t ? ppath : tpath, je.text);
		goto out;
	}
	json_t *header = json_object_get(t, "header"), *data = json_object_get(t, "data");
	const char *uid = json_string_value(json_object_get(t, "uid"));
	char *stem = xstrndup(file, strlen(file) - 5);
	name = table_name(uid ? uid : stem);
	free(stem);
	for (int k = 2;; k++) {   /* two uids that read alike: _2, _3 ... */
		int clash = 0;
		for (int i = 0; i < *nused; i++)
			clash |= str_ieq((*used)[i], name);
		if (!clash)
			break;
		char *n2 = xprintf("%s_%d", name, k);
		free(name);
		name = n2;
	}
	ncol = json_array_size(header);
	cols = xcalloc(ncol ? ncol : 1, sizeof *cols);
	linked = xcalloc(ncol ? ncol : 1, sizeof *linked);
	size_t r, c;
	json_t *row, *cell;
	json_array_foreach(data, r, row)
		json_array_foreach(row, c, cell)
			if (c < ncol && json_array_size(json_array_get(cell, 1)) > 0)
				linked[c] = 1;
	/* header row: names trimmed, empty ones by position, repeats numbered */
	for (c = 0; c < ncol; c++) {
		const char *raw = json_string_value(json_array_get(json_array_get(header, c), 0));
		char *h = str_trim_dup(raw ? raw : "");
		if (!*h) {
			free(h);
			h = xprintf("column%zu", c + 1);
		}
		for (int k = 2;; k++) {
			int clash = 0;
			for (size_t j = 0; j < c; j++)
				clash |= str_ieq(cols[j], h);
			if (!clash)
				break;
			char *h2 = xprintf("%s_%d", h, k);
			free(h);
			h = h2;
		}
		cols[c] = h;
		if (c)
			sb_putc(&csv, ',');
		csv_field(&csv, h);
		if (linked[c]) {
			char *info = xprintf("%s_Info", h);
			sb_putc(&csv, ',');
			csv_field(&csv, info);
			sb_printf(&types, "%s\"%s\"=FREE_TEXT[]", types.len ? "," : "", info);
			free(info);
		}
	}
	sb_putc(&csv, '\n');
	json_array_foreach(data, r, row) {
		for (c = 0; c < ncol; c++) {
			json_t *cl = json_array_get(row, c);
			if (c)
				sb_putc(&csv, ',');
			csv_field(&csv, json_string_value(json_array_get(cl, 0)));
			if (!linked[c])
				continue;
			json_t *list = json_array();
			size_t k;
			json_t *link;
			json_array_foreach(json_array_get(cl, 1), k, link) {
				json_t *p = json_object_get(pass, json_string_value(link) ?: "");
				if (json_is_string(p))
					json_array_append(list, p);
			}
			sb_putc(&csv, ',');
			if (json_array_size(list) > 0) {
				char *j = json_dumps(list, JSON_COMPACT);
				csv_field(&csv, j);
				free(j);
			}
			json_decref(list);
		}
		sb_putc(&csv, '\n');
	}
	ImportOptions opt = IMPORT_OPTIONS_INIT;
	opt.format = IMPORT_CSV;
	opt.types = types.len ? types.s : NULL;
	opt.index = 1;
	if (import_buffer(store, file, sb_str(&csv), csv.len, name, &opt, err) != SUQL_OK)
		goto out;
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "INSERT INTO suql_table_info VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1,
	                   &st, NULL);
	const char *keys[] = {"uid", "url", "title", "section_title", "section_text", "intro"};
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	for (int i = 0; i < 6; i++)
		sqlite3_bind_text(st, i + 2, json_string_value(json_object_get(t, keys[i])), -1,
		                  SQLITE_STATIC);
	int src = sqlite3_step(st);
	sqlite3_finalize(st);
	if (src != SQLITE_DONE) {
		err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(db));
		goto out;
	}
	*used = xrealloc(*used, (size_t)(*nused + 1) * sizeof **used);
	(*used)[(*nused)++] = name;
	name = NULL;
	rc = 0;
out:
	for (size_t i = 0; i < ncol; i++)
		free(cols[i]);
	free(cols);
	free(linked);
	free(name);
	sb_free(&csv);
	sb_free(&types);
	json_decref(t);
	json_decref(pass);
	free(tpath);
	free(ppath);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int hybridqa(sqlite3 *db, const char *dir, SuqlErr *err)
{
	char *tdir = xprintf("%s/tables", dir);
	DIR *d = opendir(tdir);
	if (!d) {
		err_set(err, SUQL_IO, "cannot read %s", tdir);
		free(tdir);
		return -1;
	}
	free(tdir);
	char **files = NULL;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l > 5 && strcmp(de->d_name + l - 5, ".json") == 0) {
			files = xrealloc(files, (size_t)(n + 1) * sizeof *files);
			files[n++] = xstrdup(de->d_name);
		}
	}
	closedir(d);
	if (n)
		qsort(files, (size_t)n, sizeof *files, cmp_str);
	int rc = exec(db, "CREATE TABLE suql_table_info (tbl TEXT PRIMARY KEY, uid TEXT, url TEXT, "
	              "title TEXT, section_title TEXT, section_text TEXT, intro TEXT);", err);
	char **used = NULL;
	int nused = 0;
	for (int i = 0; i < n && rc == 0; i++)
		rc = one_table(db, dir, files[i], &used, &nused, err);
	if (rc == 0)
		printf("hybridqa: %d tables\n", nused);
	for (int i = 0; i < n; i++)
		free(files[i]);
	for (int i = 0; i < nused; i++)
		free(used[i]);
	free(files);
	free(used);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "clothing") != 0 && strcmp(argv[1], "hybridqa") != 0)) {
		fputs("usage: mkfixtures clothing CSV OUT.db | mkfixtures hybridqa DIR OUT.db\n", stderr);
		return 2;
	}
	char *tmp = xprintf("%s.tmp", argv[3]);
	unlink(tmp);
	sqlite3 *db;
	SuqlErr err = {0};
	int rc = sqlite3_open(tmp, &db) == SQLITE_OK ? 0 : -1;
	store = store_sqlite_wrap(db);
	if (rc == 0) {
		exec(db, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;", &err);
		rc = exec(db, "BEGIN", &err);
	}
	if (rc == 0)
		rc = strcmp(argv[1], "clothing") == 0 ? clothing(db, argv[2], &err) : hybridqa(db, argv[2], &err);
	if (rc == 0)
		rc = exec(db, "COMMIT", &err);
	if (rc == 0)
		rc = exec(db, "VACUUM", &err);
	if (rc != 0)
		fprintf(stderr, "mkfixtures: %s\n", err.msg ? err.msg : sqlite3_errmsg(db));
	store_close(store);
	sqlite3_close(db);
	if (rc == 0 && rename(tmp, argv[3]) != 0) {
		perror("mkfixtures: rename");
		rc = -1;
	}
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	err_clear(&err);
	return rc == 0 ? 0 : 1;
}

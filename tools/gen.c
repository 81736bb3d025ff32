/*
 * gen.c: the scale generator (build/gen). It writes N synthetic restaurants in the demo
 * schema, with reviews drawn from a grammar (gen_grammar.h) that express each restaurant's
 * latent attributes (romantic, kids, parking, long_wait, happy_hour, vegan, outdoor)
 * clearly, weakly, by negating the opposite, or not at all, and the truth beside them, so
 * that the precision and recall of free-text filters can be measured.
 *
 *   gen -n N [--seed S] [--out DIR] [--db FILE] [--no-index] [--reviews MIN-MAX] [--quiet]
 *
 * It writes DIR/restaurants.jsonl and DIR/restaurant_truth.jsonl. With --db it creates the
 * tables restaurants and restaurant_truth in FILE (SUQL types in the catalog; the truth
 * marked as evaluation labels, which chat mode does not see), imports the files through the
 * importer and builds the retrieval index of reviews and popular_dishes:
 * "generate and import" is one command. Without --out the files go to a temporary
 * directory ($TMPDIR, else /tmp) that is removed afterwards.
 *
 * Output depends only on the seed and the restaurant's number: the same seed gives the same
 * bytes, and the first N restaurants of a larger run are those of a smaller one.
 */
#include "base/util.h"
#include "import/import.h"
#include "retrieve/retrieve.h"
#include "store/catalog.h"

#include "gen_grammar.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NELEM(a) ((int)(sizeof(a) / sizeof *(a)))

/* ---- randomness: xoshiro256**, seeded per restaurant with splitmix64 ---- */

typedef struct Rng {
	uint64_t s[4];
} Rng;

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static void rng_seed(Rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed * 0x2545F4914F6CDD1DULL + stream;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(Rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

static int rnd(Rng *r, int n)      /* 0 .. n-1 */
{
	return n <= 1 ? 0 : (int)(rng_next(r) % (uint64_t)n);
}

static int chance(Rng *r, int percent)
{
	return rnd(r, 100) < percent;
}

static int weighted(Rng *r, const int *w, int n)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		total += w[i];
	int x = rnd(r, total);
	for (int i = 0; i < n; i++)
		if ((x -= w[i]) < 0)
			return i;
	return n - 1;
}

/* ---- one restaurant ---- */

typedef struct Place {
	long long id;
	const GenCity *city;
	const GenConcept *c;
	int price;                 /* 0 cheap .. 3 luxury */
	int rating;                /* tenths: 45 is 4.5 */
	const char *dishes[6];
	int ndish;
	char name[96];
	int truth[GEN_NATTR];
	GenEv ev[GEN_NATTR];
} Place;

static const char *const price_names[] = {"cheap", "moderate", "expensive", "luxury"};

static int count_nonnull(const char *const *v, int max)
{
	int n = 0;
	while (n < max && v[n])
		n++;
	return n;
}

/* Expand a template ({a|b} choices, $SLOTS) into out. *dish is the dish $DISH named. */
static void expand_at(Rng *r, const Place *p, const char *t, SBuf *out, int *dish)
{
	while (*t) {
		if (*t == '{') {
			/* find the alternatives of this group, honouring nesting */
			const char *alt[16];
			size_t len[16];
			int n = 0, depth = 0;
			const char *s = t + 1, *q = s;
			for (; *q; q++) {
				if (*q == '{') {
					depth++;
				} else if (*q == '}' && depth-- == 0) {
					break;
				} else if (*q == '|' && depth == 0 && n < 15) {
					alt[n] = s;
					len[n++] = (size_t)(q - s);
					s = q + 1;
				}
			}
			alt[n] = s;
			len[n++] = (size_t)(q - s);
			int k = rnd(r, n);
			char *pick = xstrndup(alt[k], len[k]);
			expand_at(r, p, pick, out, dish);
			free(pick);
			t = *q ? q + 1 : q;
		} else if (*t == '$') {
			const char *w = t + 1;
			size_t n = 0;
			while ((w[n] >= 'A' && w[n] <= 'Z') || (w[n] >= '0' && w[n] <= '9'))
				n++;
			if (str_nieq(w, n, "DISH")) {
				*dish = rnd(r, p->ndish);
				sb_puts(out, p->dishes[*dish]);
			} else if (str_nieq(w, n, "DISH2")) {   /* another dish than $DISH */
				sb_puts(out, p->dishes[(*dish + 1 + rnd(r, p->ndish - 1)) % p->ndish]);
			} else if (str_nieq(w, n, "NAME")) {
				sb_puts(out, p->name);
			} else if (str_nieq(w, n, "CITY")) {
				sb_puts(out, p->city->name);
			} else if (str_nieq(w, n, "PERSON")) {
				sb_puts(out, gen_people[rnd(r, NELEM(gen_people))]);
			} else if (str_nieq(w, n, "WHEN")) {
				sb_puts(out, gen_when[rnd(r, NELEM(gen_when))]);
			} else if (str_nieq(w, n, "MIN")) {
				sb_printf(out, "%d", 20 + 5 * rnd(r, 11));
			} else {
				sb_putn(out, t, n + 1);
			}
			t = w + n;
		} else {
			sb_putc(out, *t++);
		}
	}
}

static void expand(Rng *r, const Place *p, const char *t, SBuf *out)
{
	int dish = 0;
	expand_at(r, p, t, out, &dish);
}

static void sentence(Rng *r, const Place *p, const char *const *bank, int n, SBuf *out)
{
	if (out->len)
		sb_putc(out, ' ');
	size_t at = out->len;
	expand(r, p, bank[rnd(r, n)], out);
	if (out->s[at] >= 'a' && out->s[at] <= 'z')   /* "$DISH is a must." */
		out->s[at] = (char)(out->s[at] - 'a' + 'A');
}

/* A typo in one longer word: two letters swapped, or one dropped. It is made before the
   attribute phrases are written, so the wording the truth table rests on stays intact. */
static void typo(Rng *r, SBuf *b)
{
	for (int tries = 0; tries < 8; tries++) {
		size_t i = (size_t)rnd(r, (int)b->len);
		while (i > 0 && b->s[i - 1] != ' ')
			i--;
		size_t e = i;
		while (e < b->len && ((b->s[e] >= 'a' && b->s[e] <= 'z')))
			e++;
		if (e - i < 6)
			continue;
		size_t k = i + 1 + (size_t)rnd(r, (int)(e - i - 2));
		if (rnd(r, 2)) {
			char c = b->s[k];
			b->s[k] = b->s[k + 1];
			b->s[k + 1] = c;
		} else {
			memmove(b->s + k, b->s + k + 1, b->len - k);
			b->len--;
		}
		return;
	}
}

static void make_place(Place *p, long long id, uint64_t seed, Rng *r)
{
	memset(p, 0, sizeof *p);
	p->id = id;
	rng_seed(r, seed, (uint64_t)id);
	int cw[NELEM(gen_cities)], kw[NELEM(gen_concepts)];
	for (int i = 0; i < NELEM(gen_cities); i++)
		cw[i] = gen_cities[i].weight;
	for (int i = 0; i < NELEM(gen_concepts); i++)
		kw[i] = gen_concepts[i].weight;
	p->city = &gen_cities[weighted(r, cw, NELEM(gen_cities))];
	p->c = &gen_concepts[weighted(r, kw, NELEM(gen_concepts))];
	p->price = weighted(r, p->c->price, 4);
	/* ratings: mostly 3.5 to 4.7, a tail down to 2.5 */
	p->rating = 35 + rnd(r, 13);
	if (chance(r, 15))
		p->rating = 25 + rnd(r, 11);
	int nd = count_nonnull(p->c->dishes, 10);
	p->ndish = 3 + rnd(r, 4);
	int used[10] = {0};
	for (int i = 0; i < p->ndish; i++) {
		int k = rnd(r, nd);
		while (used[k])
			k = (k + 1) % nd;
		used[k] = 1;
		p->dishes[i] = p->c->dishes[k];
	}
	snprintf(p->name, sizeof p->name, "%s %s", p->c->name_a[rnd(r, 6)], p->c->name_b[rnd(r, 6)]);

	for (int a = 0; a < GEN_NATTR; a++) {
		int pr = gen_attrs[a].base;
		const char *n = gen_attrs[a].name;
		if (strcmp(n, "romantic") == 0)
			pr += p->c->romantic + 10 * (p->price - 1);
		else if (strcmp(n, "kids") == 0)
			pr += p->c->kids - 10 * (p->price - 1);
		else if (strcmp(n, "vegan") == 0)
			pr += p->c->vegan;
		else if (strcmp(n, "happy_hour") == 0)
			pr += p->c->happy;
		else if (strcmp(n, "parking") == 0)
			pr = p->city->parking;
		else if (strcmp(n, "long_wait") == 0)
			pr += 3 * (p->rating - 40);
		p->truth[a] = chance(r, pr);
		int e = rnd(r, 100);
		p->ev[a] = e < 45 ? GEN_CLEAR : e < 65 ? GEN_WEAK : e < 80 ? GEN_NEGATED : GEN_NONE;
	}
}

/* The reviews: each expressed attribute goes into one review (a clear one sometimes into a
   second review too); every review also talks about food, and often service and price. */
static void make_reviews(Rng *r, const Place *p, int rmin, int rmax, SBuf *json)
{
	int n = rmin + rnd(r, rmax - rmin + 1);
	SBuf rev[16];
	int home[GEN_NATTR], second[GEN_NATTR];
	for (int a = 0; a < GEN_NATTR; a++) {
		home[a] = rnd(r, n);
		second[a] = p->ev[a] == GEN_CLEAR && chance(r, 30) ? rnd(r, n) : -1;
	}
	sb_putc(json, '[');
	for (int i = 0; i < n; i++) {
		SBuf *b = &rev[i];
		memset(b, 0, sizeof *b);
		int mood = p->rating + rnd(r, 11) - 5;   /* this reviewer's view */
		if (chance(r, 35))
			sentence(r, p, gen_openers, NELEM(gen_openers), b);
		if (mood >= 40)
			sentence(r, p, gen_food_pos, NELEM(gen_food_pos), b);
		else if (mood >= 33)
			sentence(r, p, gen_food_mixed, NELEM(gen_food_mixed), b);
		else
			sentence(r, p, gen_food_neg, NELEM(gen_food_neg), b);
		if (chance(r, 6))
			typo(r, b);   /* only ever in what comes before the attribute phrases */
		for (int a = 0; a < GEN_NATTR; a++) {
			if (p->ev[a] == GEN_NONE || (home[a] != i && second[a] != i))
				continue;
			int kind = second[a] == i && home[a] != i ? GEN_CLEAR : (int)p->ev[a];
			const char *const *bank = p->truth[a] ? gen_attrs[a].yes[kind - 1]
			                                      : gen_attrs[a].no[kind - 1];
			if (b->len)
				sb_putc(b, ' ');
			SBuf s = SBUF_INIT;
			expand(r, p, bank[rnd(r, count_nonnull(bank, 5))], &s);
			const char *h = gen_hedges[rnd(r, NELEM(gen_hedges))];
			if (*h) {   /* "Honestly, " + "very romantic." with the first letter lowered */
				sb_puts(b, h);
				if (s.s[0] >= 'A' && s.s[0] <= 'Z' && !(s.s[1] >= 'A' && s.s[1] <= 'Z'))
					s.s[0] = (char)(s.s[0] - 'A' + 'a');
			}
			sb_puts(b, sb_str(&s));
			sb_free(&s);
		}
		if (chance(r, 45))
			sentence(r, p, mood >= 38 ? gen_service_pos : gen_service_neg,
			         mood >= 38 ? NELEM(gen_service_pos) : NELEM(gen_service_neg), b);
		if (chance(r, 25))
			sentence(r, p, gen_price, NELEM(gen_price), b);
		if (chance(r, 4))
			sentence(r, p, gen_distractors, NELEM(gen_distractors), b);
		if (chance(r, 40))
			sentence(r, p, gen_closers, NELEM(gen_closers), b);
		if (i)
			sb_putc(json, ',');
		sb_put_json(json, b->s, b->len);
		sb_free(b);
	}
	sb_putc(json, ']');
}

static void put_list(SBuf *b, const char *const *v, int n)
{
	sb_putc(b, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			sb_putc(b, ',');
		sb_put_json(b, v[i], strlen(v[i]));
	}
	sb_putc(b, ']');
}

static void write_place(Rng *r, const Place *p, int rmin, int rmax, SBuf *rest, SBuf *truth)
{
	const char *cuis[4];
	int nc = count_nonnull(p->c->cuisines, 3);
	for (int i = 0; i < nc; i++)
		cuis[i] = p->c->cuisines[i];
	if (p->c->extra && chance(r, 30))
		cuis[nc++] = p->c->extra;
	sb_printf(rest, "{\"id\":%lld,\"name\":", p->id);
	sb_put_json(rest, p->name, strlen(p->name));
	sb_puts(rest, ",\"cuisines\":");
	put_list(rest, cuis, nc);
	sb_printf(rest, ",\"price\":\"%s\",\"rating\":%d.%d,\"num_reviews\":%d,\"address\":\"%d %s, %s, CA %s\"",
	          price_names[p->price], p->rating / 10, p->rating % 10, 5 + rnd(r, 2000),
	          10 + rnd(r, 4000), p->city->streets[rnd(r, 8)], p->city->name, p->city->zips[rnd(r, 3)]);
	sb_puts(rest, ",\"popular_dishes\":");
	put_list(rest, p->dishes, p->ndish);
	sb_printf(rest, ",\"phone_number\":\"(%s) 555-%04d\",\"reviews\":", p->city->area, rnd(r, 10000));
	make_reviews(r, p, rmin, rmax, rest);
	sb_printf(rest, ",\"opening_hours\":\"%s\",\"location\":\"%s\"}\n",
	          gen_hours[rnd(r, NELEM(gen_hours))], p->city->name);

	sb_printf(truth, "{\"id\":%lld", p->id);
	for (int a = 0; a < GEN_NATTR; a++)
		sb_printf(truth, ",\"%s\":%d,\"%s_ev\":\"%s\"", gen_attrs[a].name, p->truth[a],
		          gen_attrs[a].name, gen_ev_names[p->ev[a]]);
	sb_puts(truth, "}\n");
}

/* ---- the database ---- */

static SuqlStatus create_tables(sqlite3 *db, Store *st, SuqlErr *err)
{
	SBuf t = SBUF_INIT;
	sb_puts(&t, "CREATE TABLE restaurant_truth (id INTEGER PRIMARY KEY");
	for (int a = 0; a < GEN_NATTR; a++)
		sb_printf(&t, ", %s INTEGER, %s_ev TEXT", gen_attrs[a].name, gen_attrs[a].name);
	sb_puts(&t, ");");
	const char *ddl =
		"CREATE TABLE restaurants (id INTEGER PRIMARY KEY, name TEXT, cuisines TEXT, price TEXT, "
		"rating NUMERIC(2,1), num_reviews INTEGER, address TEXT, popular_dishes TEXT, "
		"phone_number TEXT, reviews TEXT, opening_hours TEXT, location TEXT);";
	char *msg = NULL;
	SuqlStatus s = SUQL_OK;
	if (sqlite3_exec(db, ddl, NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(db, t.s, NULL, NULL, &msg) != SQLITE_OK)
		s = err_set(err, SUQL_ERROR, "%s", msg);
	sqlite3_free(msg);
	sb_free(&t);
	if (s == SUQL_OK)
		s = catalog_set(st, "restaurants", "cuisines", "ENUM[]", err);
	if (s == SUQL_OK)
		s = catalog_set(st, "restaurants", "price", "ENUM('cheap','moderate','expensive','luxury')", err);
	if (s == SUQL_OK)
		s = catalog_set(st, "restaurants", "popular_dishes", "FREE_TEXT[]", err);
	if (s == SUQL_OK)
		s = catalog_set(st, "restaurants", "reviews", "FREE_TEXT[]", err);
	return s;
}

static int load_db(const char *path, const char *dir, int index, int quiet)
{
	sqlite3 *db;
	SuqlErr err = {0};
	if (sqlite3_open(path, &db) != SQLITE_OK) {
		fprintf(stderr, "gen: cannot open %s: %s\n", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return 1;
	}
	sqlite3_exec(db, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA cache_size=-262144;",
	             NULL, NULL, NULL);
	double t0 = util_now_ms();
	char *rp = xprintf("%s/restaurants.jsonl", dir), *tp = xprintf("%s/restaurant_truth.jsonl", dir);
	ImportOptions opt = IMPORT_OPTIONS_INIT;
	ImportStats stats = {0};
	opt.stats = &stats;
	int rc = 0;
	Store *st = store_sqlite_wrap(db);
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    create_tables(db, st, &err) != SUQL_OK ||
	    import_file(st, rp, "restaurants", &opt, &err) != SUQL_OK ||
	    import_file(st, tp, "restaurant_truth", &opt, &err) != SUQL_OK ||
	    /* the truth is an answer key: chat mode must not see it */
	    catalog_prop_set(st, "restaurant_truth", CATALOG_LABELS, "on", &err) != SUQL_OK ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "gen: %s: %s\n", path, err.msg ? err.msg : sqlite3_errmsg(db));
		rc = 1;
	}
	double t1 = util_now_ms();
	if (!rc && !quiet)
		fprintf(stderr, "gen: imported into %s in %.2f s\n", path, (t1 - t0) / 1000);
	if (!rc && index) {
		RetInfo a, b;
		if (ret_ensure(db, "restaurants", "reviews", &a, &err) != SUQL_OK ||
		    ret_ensure(db, "restaurants", "popular_dishes", &b, &err) != SUQL_OK) {
			fprintf(stderr, "gen: index: %s\n", err.msg);
			rc = 1;
		} else if (!quiet) {
			fprintf(stderr, "gen: indexed %lld review passages and %lld dish passages in %.2f s\n",
			        a.passages, b.passages, (util_now_ms() - t1) / 1000);
		}
	}
	free(rp);
	free(tp);
	err_clear(&err);
	store_close(st);
	sqlite3_close(db);
	return rc;
}

/* ---- main ---- */

static int usage(void)
{
	fputs("usage: gen -n N [--seed S] [--out DIR] [--db FILE] [--no-index] [--reviews MIN-MAX] "
	      "[--quiet]\n", stderr);
	return 2;
}

static int write_file(const char *path, const SBuf *b)
{
	FILE *f = fopen(path, "ab");
	if (!f || fwrite(b->s, 1, b->len, f) != b->len || fclose(f) != 0) {
		fprintf(stderr, "gen: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long long n = -1;
	uint64_t seed = 1;
	const char *out = NULL, *dbpath = NULL;
	int index = 1, quiet = 0, rmin = 5, rmax = 8;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "-n") == 0 && v)
			n = atoll(argv[++i]);
		else if (strcmp(a, "--seed") == 0 && v)
			seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(a, "--out") == 0 && v)
			out = argv[++i];
		else if (strcmp(a, "--db") == 0 && v)
			dbpath = argv[++i];
		else if (strcmp(a, "--reviews") == 0 && v && sscanf(argv[++i], "%d-%d", &rmin, &rmax) == 2)
			;
		else if (strcmp(a, "--no-index") == 0)
			index = 0;
		else if (strcmp(a, "--quiet") == 0)
			quiet = 1;
		else
			return usage();
	}
	if (n < 1 || (!out && !dbpath) || rmin < 1 || rmax < rmin || rmax > 16)
		return usage();
	const char *tmpdir = getenv("TMPDIR");
	char *tmp = xprintf("%s/suql-gen-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	const char *dir = out;
	if (!dir) {
		if (!mkdtemp(tmp)) {
			fprintf(stderr, "gen: cannot make a temporary directory: %s\n", strerror(errno));
			free(tmp);
			return 1;
		}
		dir = tmp;
	} else if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "gen: cannot create %s: %s\n", dir, strerror(errno));
		free(tmp);
		return 1;
	}
	char *rp = xprintf("%s/restaurants.jsonl", dir), *tp = xprintf("%s/restaurant_truth.jsonl", dir);
	unlink(rp);
	unlink(tp);
	double t0 = util_now_ms();
	SBuf rest = SBUF_INIT, truth = SBUF_INIT;
	Rng r;
	Place p;
	int rc = 0;
	long long bytes = 0;
	for (long long id = 1; id <= n && !rc; id++) {
		make_place(&p, id, seed, &r);
		write_place(&r, &p, rmin, rmax, &rest, &truth);
		if (rest.len > (1u << 22) || id == n) {
			bytes += (long long)rest.len;
			rc = write_file(rp, &rest) || write_file(tp, &truth);
			sb_truncate(&rest, 0);
			sb_truncate(&truth, 0);
		}
	}
	sb_free(&rest);
	sb_free(&truth);
	if (!rc && !quiet)
		fprintf(stderr, "gen: wrote %lld restaurants (%.1f MB) in %.2f s\n", n, (double)bytes / 1e6,
		        (util_now_ms() - t0) / 1000);
	if (!rc && dbpath)
		rc = load_db(dbpath, dir, index, quiet);
	if (!out) {
		unlink(rp);
		unlink(tp);
		rmdir(dir);
	}
	free(tmp);
	free(rp);
	free(tp);
	return rc;
}

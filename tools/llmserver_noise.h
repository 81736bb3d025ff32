/*
 * llmserver_noise.h: the test server's noisy model, part of llmserver.c (included after its
 * hash and --factor's classes, before the automatic replies that use it).
 *
 * --noise P makes automatic mode wrong on a share P of values: a value is the text an
 * answer is about (a candidate's text, a pair's left or right value, a literal classified
 * into an ENUM's values), and whether it is wrong is decided by a hash of the value and of
 * --noise-seed S alone, never of the request, so a value is wrong the same way asked
 * alone, in a batch, in a batch of another size, as a pair or as a classification, and in
 * a batch of the Batch API. Wrong means: a yes/no verdict turned around; a constrained
 * answer (or an extract() field) another of the values offered; a number or date another
 * one; a join's factor class another class (a value in no class is put in one); a pair's
 * verdict turned around when either value is wrong (under --factor: the pair compared by
 * the wrong values' wrong classes, so factoring and judging pairs agree); an ENUM
 * classification another permitted value. Free-text answers and summaries stay as they
 * are: there is no right one to miss.
 *
 * --noise-values FILE names the values that are wrong, one a line, exactly those (with
 * --noise P as well, those and P of the others): a test that puts k chosen values in the
 * wrong class.
 *
 * --noise-scope classes keeps the noise to classifications (constrained answers, a join's
 * factor classes, ENUM classifications): yes/no verdicts, pairs included, stay right. That
 * is a model that factors a join's question rightly but puts some values in the wrong
 * class while it judges every pair it is shown rightly.
 *
 * --logprobs calibrated gives log-probabilities as --logprobs give does, each verdict at
 * 0.99, or at 0.6 when its value is wrong (a pair: either value), so that a confidence
 * threshold between the two (llm.min_confidence 0.9) keeps exactly the right verdicts.
 */

static double noise_rate;          /* --noise P: the share of values answered wrong */
static uint64_t noise_seed = 1;    /* --noise-seed S */
static int noise_classes_only;     /* --noise-scope classes */
static uint64_t *noise_list;       /* --noise-values FILE: hashes of the values that are
                                      wrong, whatever --noise says (sorted) */
static size_t nnoise_list;

#define NOISE_SURE   0.99   /* --logprobs calibrated: a right verdict's probability */
#define NOISE_UNSURE 0.6    /* ... and a wrong one's */

/* A 64-bit finaliser (splitmix64's): FNV's low bits follow the last bytes of a text, and
   values that differ only there must be wrong independently. */
static uint64_t noise_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t noise_hash(const char *value)
{
	return noise_mix(fnv(value, strlen(value)) ^ noise_mix(noise_seed + 0x9e3779b97f4a7c15ull));
}

/* Whether value is one the model is wrong about. */
static int cmp_noise(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int noisy(const char *value)
{
	if (!value)
		return 0;
	if (nnoise_list) {
		uint64_t h = fnv(value, strlen(value));
		if (bsearch(&h, noise_list, nnoise_list, sizeof *noise_list, cmp_noise))
			return 1;
	}
	if (noise_rate <= 0)
		return 0;
	return (double)(noise_hash(value) >> 11) < noise_rate * 9007199254740992.0;   /* 2^53 */
}

/* Wrong as a verdict or an answer (not under --noise-scope classes). */
static int noisy_answer(const char *value)
{
	return !noise_classes_only && noisy(value);
}

/* A wrong one of n choices for value, other than right (n > 1), by its hash. */
static size_t noise_other(const char *value, size_t right, size_t n)
{
	return (right + 1 + (size_t)((noise_hash(value) >> 3) % (n - 1))) % n;
}

/* --factor: the class the model puts value in (-1: none): its class, or a wrong one. */
static int noisy_factor_class(const char *value)
{
	int c = factor_class(value);
	if (!noisy(value) || nfactor_vals < 1)
		return c;
	if (c < 0)
		return (int)((noise_hash(value) >> 3) % (uint64_t)nfactor_vals);
	return nfactor_vals > 1 ? (int)noise_other(value, (size_t)c, (size_t)nfactor_vals) : -1;
}

/* --factor: the class a pair's verdict compares: the wrong one too, unless the noise is
   kept to classifications. */
static int pair_factor_class(const char *value)
{
	return noise_classes_only ? factor_class(value) : noisy_factor_class(value);
}

/* --logprobs give or calibrated: the probability of a verdict about text (a pair: left
   and text), and the verdict's own mode. 0 unsure-word: 0.55. */
static double verdict_prob_of(const char *left, const char *text, int calibrated)
{
	for (int i = 0; i < nunsure_words && text; i++)
		if (ci_find(text, unsure_words[i]))
			return 0.55;
	if (!calibrated)
		return 0.97;
	int wrong = left ? !noise_classes_only && (noisy(left) || noisy(text))
	                 : noisy_answer(text);
	return wrong ? NOISE_UNSURE : NOISE_SURE;
}

/* --noise, --noise-seed, --noise-scope: 1 when a is one of them (v its value; *bad set
   when the value is not one it takes). */
static int noise_option(const char *a, const char *v, int *bad)
{
	char *end = NULL;
	if (strcmp(a, "--noise") == 0) {
		noise_rate = v ? strtod(v, &end) : -1;
		*bad = !v || *end || !(noise_rate >= 0 && noise_rate <= 1);
		if (*bad)
			fprintf(stderr, "llmserver: --noise takes a share from 0 to 1\n");
		return 1;
	}
	if (strcmp(a, "--noise-seed") == 0) {
		unsigned long long s = v ? strtoull(v, &end, 10) : 0;
		*bad = !v || !*v || *end;
		if (*bad)
			fprintf(stderr, "llmserver: --noise-seed takes a whole number\n");
		noise_seed = (uint64_t)s;
		return 1;
	}
	if (strcmp(a, "--noise-values") == 0) {   /* one value a line */
		char *text = v ? util_read_file(v, NULL) : NULL;
		*bad = !text;
		if (*bad) {
			fprintf(stderr, "llmserver: --noise-values takes a file of values, one a line\n");
			return 1;
		}
		for (char *sv = NULL, *line = strtok_r(text, "\n", &sv); line;
		     line = strtok_r(NULL, "\n", &sv)) {
			noise_list = xrealloc(noise_list, (nnoise_list + 1) * sizeof *noise_list);
			noise_list[nnoise_list++] = fnv(line, strlen(line));
		}
		qsort(noise_list, nnoise_list, sizeof *noise_list, cmp_noise);
		free(text);
		return 1;
	}
	if (strcmp(a, "--noise-scope") == 0) {
		*bad = !v || (strcmp(v, "all") != 0 && strcmp(v, "classes") != 0);
		if (*bad)
			fprintf(stderr, "llmserver: --noise-scope all or classes\n");
		noise_classes_only = v && strcmp(v, "classes") == 0;
		return 1;
	}
	return 0;
}

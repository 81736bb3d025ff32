/*
 * fuzzdrive.c: a plain driver for the fuzz targets (tools/fuzz_NAME.c), linked into
 * $(BUILD)/fuzzcheck/fuzz_NAME with the ordinary build's objects, so that `make check`
 * runs every target without a compiler of its own or a rebuild of the library. It is not
 * a coverage-guided fuzzer: it runs each seed, then a fixed number of inputs mutated from
 * the seeds by a seeded pseudo-random generator (bit flips, interesting bytes, inserts,
 * deletions, repeats and splices of two seeds), the same inputs on every machine for the
 * same seeds. A target's properties abort on a violation; the driver then writes the
 * input that did it to DIR/crash-N (from its signal handler, with write(2)) and dies of
 * the same signal. Searching further, with coverage and sanitizers, is `make fuzz`
 * (scripts/fuzz.sh, libFuzzer under clang).
 *
 *     fuzz_NAME -runs=N [-seed=S] [-max_len=L] [-artifact_prefix=DIR/] SEEDDIR|FILE...
 *
 * It prints one line: "fuzz_NAME: E executions (S seeds, N mutated, seed X) in T s".
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Input {
	unsigned char *data;
	size_t len;
} Input;

static Input *seeds;
static size_t nseeds, capseeds;

/* The input being run, for the signal handler. */
static const unsigned char *volatile cur_data;
static volatile size_t cur_len;
static char crash_path[4096];

static uint64_t rng_state = 1;

static uint64_t rng(void)   /* xorshift64* */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

static void add_seed(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	Input in = {NULL, 0};
	size_t cap = 0;
	unsigned char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		if (in.len + n > cap) {
			cap = (in.len + n) * 2;
			in.data = realloc(in.data, cap);
			if (!in.data)
				abort();
		}
		memcpy(in.data + in.len, buf, n);
		in.len += n;
	}
	fclose(f);
	if (nseeds == capseeds) {
		capseeds = capseeds ? capseeds * 2 : 64;
		seeds = realloc(seeds, capseeds * sizeof *seeds);
		if (!seeds)
			abort();
	}
	seeds[nseeds++] = in;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of a directory, in name order (the same inputs everywhere). */
static void add_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		add_seed(dir);
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof *names);
			if (!names)
				abort();
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		names[n] = malloc(len);
		if (!names[n])
			abort();
		snprintf(names[n], len, "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			add_seed(names[i]);
		free(names[i]);
	}
	free(names);
}

static void on_signal(int sig)
{
	int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		const unsigned char *p = cur_data;
		size_t left = cur_len;
		while (p && left > 0) {
			ssize_t w = write(fd, p, left);
			if (w <= 0)
				break;
			p += w;
			left -= (size_t)w;
		}
		close(fd);
	}
	const char msg[] = "fuzzdrive: the target died on an input; it is in ";
	if (write(2, msg, sizeof msg - 1) < 0 || write(2, crash_path, strlen(crash_path)) < 0 ||
	    write(2, "\n", 1) < 0) {
		/* nothing more can be said */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void run_one(const unsigned char *data, size_t len)
{
	/* an allocation of exactly the input's size, so that a sanitizer build sees a read
	   past its end */
	unsigned char *copy = malloc(len ? len : 1);
	if (!copy)
		abort();
	if (len)
		memcpy(copy, data, len);
	cur_data = copy;
	cur_len = len;
	LLVMFuzzerTestOneInput(copy, len);
	cur_data = NULL;
	cur_len = 0;
	free(copy);
}

static const unsigned char interesting[] = {0, 1, 0x7f, 0x80, 0xff, '\'', '"', '(', ')', ',',
                                            ';', '\n', '\\', '{', '}', '[', ']', ':', '-', '0'};

/* One mutated input in out (of capacity max), from the seeds. */
static size_t mutate(unsigned char *out, size_t max)
{
	const Input *s = &seeds[below(nseeds)];
	size_t len = s->len < max ? s->len : max;
	memcpy(out, s->data, len);
	int steps = 1 + (int)below(4);
	for (int k = 0; k < steps; k++) {
		size_t at = below(len + 1);
		switch (below(7)) {
		case 0:   /* flip a bit */
			if (len)
				out[below(len)] ^= (unsigned char)(1u << below(8));
			break;
		case 1:   /* an interesting byte in place */
			if (len)
				out[below(len)] = interesting[below(sizeof interesting)];
			break;
		case 2:   /* insert a byte */
			if (len < max) {
				memmove(out + at + 1, out + at, len - at);
				out[at] = below(2) ? interesting[below(sizeof interesting)]
				                   : (unsigned char)below(256);
				len++;
			}
			break;
		case 3: { /* delete a run */
			size_t n = below(len - (at < len ? at : len) + 1);
			if (n > 16)
				n = 1 + below(16);
			if (at + n <= len) {
				memmove(out + at, out + at + n, len - at - n);
				len -= n;
			}
			break;
		}
		case 4: { /* repeat a run */
			if (!len)
				break;
			size_t from = below(len), n = 1 + below(32);
			if (from + n > len)
				n = len - from;
			if (len + n > max)
				break;
			memmove(out + at + n, out + at, len - at);
			memmove(out + at, out + (from >= at ? from + n : from), n);
			len += n;
			break;
		}
		case 5: { /* splice: the tail of another seed from here on */
			const Input *o = &seeds[below(nseeds)];
			if (!o->len)
				break;
			size_t from = below(o->len);
			size_t n = o->len - from;
			if (at + n > max)
				n = max - at;
			memcpy(out + at, o->data + from, n);
			len = at + n;
			break;
		}
		default: /* cut short */
			len = at;
			break;
		}
	}
	return len;
}

int main(int argc, char **argv)
{
	long runs = 1000;
	unsigned long seed = 1;
	size_t max_len = 4096;
	const char *prefix = "./";
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "-runs=", 6) == 0)
			runs = atol(argv[i] + 6);
		else if (strncmp(argv[i], "-seed=", 6) == 0)
			seed = strtoul(argv[i] + 6, NULL, 10);
		else if (strncmp(argv[i], "-max_len=", 9) == 0)
			max_len = (size_t)atol(argv[i] + 9);
		else if (strncmp(argv[i], "-artifact_prefix=", 17) == 0)
			prefix = argv[i] + 17;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "%s: unknown option %s\n", name, argv[i]);
			return 2;
		} else {
			add_dir(argv[i]);
		}
	}
	if (max_len < 1)
		max_len = 1;
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	snprintf(crash_path, sizeof crash_path, "%scrash-%lu", prefix, seed);
	signal(SIGABRT, on_signal);
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
	signal(SIGFPE, on_signal);
	signal(SIGILL, on_signal);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < nseeds; i++)
		run_one(seeds[i].data, seeds[i].len < max_len ? seeds[i].len : max_len);
	if (nseeds == 0) {
		static const unsigned char empty[1];
		seeds = malloc(sizeof *seeds);
		if (!seeds)
			abort();
		seeds[0].data = (unsigned char *)empty;
		seeds[0].len = 0;
		nseeds = 1;
		run_one(empty, 0);
	}
	unsigned char *buf = malloc(max_len);
	if (!buf)
		abort();
	for (long r = 0; r < runs; r++) {
		size_t len = mutate(buf, max_len);
		run_one(buf, len);
	}
	free(buf);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%s: %ld executions (%zu seeds, %ld mutated, seed %lu) in %.1f s, 0 findings\n",
	       name, (long)nseeds + runs, nseeds, runs, seed, secs);
	return 0;
}

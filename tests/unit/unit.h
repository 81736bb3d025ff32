/*
 * unit.h: the smallest test harness that speaks the runner's protocol. Each CHECK prints
 * "ok NAME" or "not ok NAME" with the file and line; unit_done() returns the exit status.
 */
#ifndef SUQL_UNIT_H
#define SUQL_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_failed;

#define CHECK(cond, name)                                                              \
	do {                                                                           \
		if (cond) {                                                            \
			printf("ok %s\n", name);                                       \
		} else {                                                               \
			printf("not ok %s\n# %s:%d: %s\n", name, __FILE__, __LINE__, #cond); \
			unit_failed++;                                                 \
		}                                                                      \
	} while (0)

/* Compare strings, showing both on failure. */
#define CHECK_STR(got, want, name)                                                     \
	do {                                                                           \
		const char *g_ = (got), *w_ = (want);                                  \
		if (g_ && w_ && strcmp(g_, w_) == 0) {                                 \
			printf("ok %s\n", name);                                       \
		} else {                                                               \
			printf("not ok %s\n# %s:%d\n# got:  %s\n# want: %s\n", name,   \
			       __FILE__, __LINE__, g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
			unit_failed++;                                                 \
		}                                                                      \
	} while (0)

static inline int unit_done(void)
{
	return unit_failed ? 1 : 0;
}

#endif

/*
 * exec_sample_math.c: the arithmetic of the sample operator (exec_sample.c), pure
 * functions of numbers: the normal quantile of a confidence, the intervals, the sample
 * sizes, the random order.
 *
 * Why these intervals: a count is a proportion of a group's candidates, and its interval
 * is Wilson's score interval with the finite-population correction (the sample's size
 * divided by (N - n) / (N - 1)): unlike the normal approximation it does not shrink to
 * nothing when few or none of the sample pass (0 of 50 is not "0 +/- 0"), and it keeps
 * its coverage at small counts. A sum is N times the mean of the per-candidate value (0
 * where the predicate fails), and an average the mean of the values of the rows that pass
 * (a ratio); both take the normal approximation with the correction 1 - n/N, once the
 * caller has enough values for a variance to say something.
 */
#include "engine/exec_int.h"

#include <math.h>

double exec_sample_math_z(double c)
{
	double lo = 0, hi = 40;   /* bisection on erfc: z with P(|Z| > z) = 1 - c */
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (erfc(mid / sqrt(2.0)) > 1 - c)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

long long exec_sample_math_need(double p, double e, double z, long long N, long long min)
{
	double n0 = z * z * (1 - p) / (p * e * e);
	double n = N > 0 ? n0 / (1 + (n0 - 1) / (double)N) : n0;
	long long k = (long long)ceil(n);
	if (k < min)
		k = min;
	return N >= 0 && k > N ? N : k;
}

void exec_sample_math_wilson(double p, long long n, long long N, double z, double *lo,
                             double *hi)
{
	double left = N > 1 ? (double)(N - n) / (double)(N - 1) : 0;   /* the correction */
	double ne = left > 0 ? (double)n / left : 1e300;
	double z2 = z * z / ne;
	double centre = (p + z2 / 2) / (1 + z2);
	double half = z / (1 + z2) * sqrt(p * (1 - p) / ne + z * z / (4 * ne * ne));
	*lo = fmax(0, centre - half);
	*hi = fmin(1, centre + half);
}

double exec_sample_math_half(double s1, double s2, long long k, long long n, long long N,
                             double z, double *mean)
{
	*mean = s1 / (double)k;
	double var = (s2 - (double)k * *mean * *mean) / (double)(k - 1);
	if (var < 0)
		var = 0;
	double f = N > 0 ? 1 - (double)n / (double)N : 0;
	return z * sqrt(var / (double)k * f);
}

long long exec_sample_math_need_mean(double s1, double s2, long long k, long long n,
                                     long long N, double e, double z, int avg)
{
	if (k < 2)
		return -1;
	double mean = s1 / (double)k;
	double var = (s2 - (double)k * mean * mean) / (double)(k - 1);
	if (mean == 0)
		return -1;
	double n0 = z * z * (var > 0 ? var : 0) / (e * e * mean * mean);
	if (avg)
		n0 *= (double)n / (double)k;   /* candidates per value */
	double need = n0 / (1 + (n0 - 1) / (double)(N > 0 ? N : 1));
	return (long long)ceil(need);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void exec_sample_math_shuffle(long long *order, long long n, uint64_t seed)
{
	for (long long i = n - 1; i > 0; i--) {   /* Fisher-Yates */
		long long j = (long long)(splitmix(&seed) % (uint64_t)(i + 1));
		long long t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}

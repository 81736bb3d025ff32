/*
 * fuzz_csv.c: a libFuzzer target over the CSV reader and the import behind it (built by
 * scripts/fuzz.sh). The properties are in fuzz_import.h.
 */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const NAMES[] = {"f.csv", "f.tsv"};
	fuzz_import(data, size, NAMES, 2);
	return 0;
}

/*
 * fuzz_json.c: a libFuzzer target over the JSON and JSONL readers and the import behind
 * them (built by scripts/fuzz.sh). The properties are in fuzz_import.h.
 */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const NAMES[] = {"f.json", "f.jsonl"};
	fuzz_import(data, size, NAMES, 2);
	return 0;
}

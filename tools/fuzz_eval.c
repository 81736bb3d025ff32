/*
 * fuzz_eval.c: a libFuzzer target over what the evaluation harness reads from outside
 * (built by scripts/fuzz.sh, not by the Makefile's tool rule): each input is read as a
 * benchmark file, then as the questions file merged into it, then as a report to resume;
 * and, as text, normalised for scoring. Properties checked (a violation aborts): a string
 * matches itself exactly with F1 1, and normalising is idempotent.
 */
#include "eval/eval.h"
#include "eval/eval_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	EvalBench b;
	SuqlErr err = {0};
	if (eval_bench_parse(&b, text, size, "fuzz.jsonl", &err) == SUQL_OK) {
		if (!b.q_id)
			b.q_id = xstrdup("id");
		if (!b.q_question)
			b.q_question = xstrdup("question");
		if (!b.q_answers)
			b.q_answers = xstrdup("answers");
		err_clear(&err);
		eval_bench_merge(&b, text, size, "fuzz.jsonl", &err);
		eval_bench_free(&b);
	}
	err_clear(&err);
	json_t *cases = NULL;
	eval_report_parse(text, size, "fuzz.report", "t", "m", &cases, &err);
	json_decref(cases);
	err_clear(&err);

	char *s = xstrndup(text, size);
	const char *self[] = {s};
	if (eval_exact(s, self, 1) != 1 || eval_f1(s, self, 1) != 1)
		abort();
	char *n1 = eval_normalize(s), *n2 = eval_normalize(n1);
	if (strcmp(n1, n2) != 0)
		abort();
	free(n1);
	free(n2);
	free(s);
	return 0;
}

/*
 * llmserver_extract.h: the test server's automatic reply to extract() (prompts/extract.txt),
 * part of llmserver.c (included after its JSON sections and the noisy model). Each text's
 * object holds every field of the request's list: a bool, a whole number, a number or a
 * date from an FNV hash of the field's name and the text (so each field of each text has
 * its own value, the same however the texts are batched), a text field the text's first
 * sentence; with --noise, every typed field of a text the model is wrong about is another
 * value (noisy_answer: a bool turned around, another number or year). With quotes asked
 * for, "_quotes" holds null for each field.
 */

#define EXTRACT_TEXTS  "### Texts (a JSON list of strings)\n"
#define EXTRACT_FIELDS "The fields, as a JSON list:\n"

static json_t *extract_value(const char *type, const char *name, const char *text)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, name);
	sb_putc(&b, '\t');
	sb_puts(&b, text);
	uint64_t h = fnv(sb_str(&b), b.len);
	sb_free(&b);
	int wrong = noisy_answer(text);
	char buf[16];
	if (strcmp(type, "bool") == 0)
		return json_boolean((h % 2 == 0) != wrong);
	if (strcmp(type, "int") == 0)
		return json_integer((json_int_t)pick(text, h % 100, 100, wrong));
	if (strcmp(type, "real") == 0)
		return json_real((double)pick(text, h % 1000, 1000, wrong) / 10.0);
	if (strcmp(type, "date") == 0) {
		snprintf(buf, sizeof buf, "%04d-%02d-%02d", 1900 + (int)pick(text, h % 120, 120, wrong),
		         1 + (int)((h >> 8) % 12), 1 + (int)((h >> 16) % 28));
		return json_string(buf);
	}
	char *f = first_sentence(text);
	json_t *j = json_string(f);
	free(f);
	return j;
}

static char *extract_content(const char *prompt)
{
	json_t *texts = json_section(prompt, EXTRACT_TEXTS), *t;
	const char *fp = strstr(prompt, EXTRACT_FIELDS);
	json_error_t e;
	json_t *fields = fp ? json_loadb(fp + strlen(EXTRACT_FIELDS), strlen(fp + strlen(EXTRACT_FIELDS)),
	                                 JSON_DISABLE_EOF_CHECK, &e) : NULL;
	int quotes = strstr(prompt, "\"_quotes\"") != NULL;
	json_t *answers = json_array();
	size_t i, k;
	json_array_foreach(texts, i, t) {
		const char *text = json_string_value(t) ? json_string_value(t) : "";
		json_t *o = json_object(), *f, *q = quotes ? json_object() : NULL;
		json_array_foreach(fields, k, f) {
			const char *name = json_string_value(json_object_get(f, "name"));
			const char *type = json_string_value(json_object_get(f, "type"));
			if (!name || !type)
				continue;
			json_object_set_new(o, name, extract_value(type, name, text));
			if (q)
				json_object_set_new(q, name, json_null());
		}
		if (q)
			json_object_set_new(o, "_quotes", q);
		json_array_append_new(answers, o);
	}
	json_decref(texts);
	json_decref(fields);
	json_t *obj = json_pack("{s:o}", "answers", answers);
	char *s = json_dumps(obj, JSON_COMPACT);
	json_decref(obj);
	return s;
}

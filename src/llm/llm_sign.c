/*
 * llm_sign.c: the mark suql puts on what a model said before it keeps it in a database
 * (llm_sign, llm.h). A database file may come from someone else, and anyone can write a
 * row that names a model; only a row carrying this user's mark was made here, by the model
 * it names. The mark is a keyed SHA-256 (H(k2 || hex H(k1 || text)), k1 and k2 halves of
 * a secret of 32 random bytes) of the row's text, so it cannot be made without the key.
 *
 * The key lives beside the LLM cache: $XDG_CACHE_HOME/suql/sign.key (else
 * ~/.cache/suql/sign.key), made on first use with mode 0600. When it cannot be read or made,
 * a key of this process is used: what is kept then is trusted by this process only (a
 * later run makes it again). Deleting the file has every kept mapping made again once.
 */
#include "llm/llm.h"
#include "llm/llm_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_HEX 64

static char key[KEY_HEX + 1];
static int key_state;   /* 0: not read yet, 1: ready, -1: no SHA-256 */

static int random_key(char out[KEY_HEX + 1])
{
	unsigned char raw[32];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, raw, sizeof raw);
	close(fd);
	if (n != (ssize_t)sizeof raw)
		return 0;
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[KEY_HEX] = 0;
	return 1;
}

static int valid_key(const char *k)
{
	if (strlen(k) != KEY_HEX)
		return 0;
	for (const char *p = k; *p; p++)
		if (!strchr("0123456789abcdef", *p))
			return 0;
	return 1;
}

/* The key in the open file f, when it holds a well-formed one; f is closed. */
static void read_key(FILE *f)
{
	char buf[KEY_HEX + 2] = {0};
	if (fgets(buf, sizeof buf, f)) {
		buf[strcspn(buf, "\r\n")] = 0;
		if (valid_key(buf))
			memcpy(key, buf, KEY_HEX + 1);
	}
	fclose(f);
}

/* The key file's path (beside the cache), or NULL. */
static char *key_path(void)
{
	char *cache = llm_cache_default_path();
	if (!cache)
		return NULL;
	char *slash = strrchr(cache, '/');
	char *p = slash ? xprintf("%.*s/sign.key", (int)(slash - cache), cache) : NULL;
	free(cache);
	return p;
}

static void load_key(void)
{
	SuqlErr e = {0};
	if (llm_sha256_load(&e) != SUQL_OK) {
		err_clear(&e);
		key_state = -1;
		return;
	}
	key_state = 1;
	char *path = key_path();
	FILE *f = path ? fopen(path, "r") : NULL;
	if (f)
		read_key(f);
	if (!key[0] && random_key(key) && path) {
		/* made once, readable by this user only; a key another process made at the same
		   moment wins (O_EXCL), and is read back */
		util_make_parent_dirs(path);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0) {
			char line[KEY_HEX + 1];
			memcpy(line, key, KEY_HEX);
			line[KEY_HEX] = '\n';
			if (write(fd, line, sizeof line) != (ssize_t)sizeof line)
				unlink(path);
			close(fd);
		} else if (errno == EEXIST && (f = fopen(path, "r")) != NULL) {
			read_key(f);
		}
	}
	free(path);
	if (!key[0])
		key_state = -1;
}

int llm_sign(const char *text, char out[65])
{
	if (!key_state)
		load_key();
	if (key_state < 0)
		return 0;
	SBuf b = SBUF_INIT;
	sb_putn(&b, key, KEY_HEX / 2);
	sb_puts(&b, text);
	char inner[65];
	llm_sha256_hex(b.s, b.len, inner);
	sb_free(&b);
	sb_putn(&b, key + KEY_HEX / 2, KEY_HEX / 2);
	sb_puts(&b, inner);
	llm_sha256_hex(b.s, b.len, out);
	sb_free(&b);
	return 1;
}

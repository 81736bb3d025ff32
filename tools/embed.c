/*
 * embed.c: turns the prompts/ text files into a C file so the prompts are part of the binary.
 * Usage: embed FILE... > prompts_gen.c. The name of each prompt is its file name without
 * directory and ".txt". Used only by the build.
 */
#include <stdio.h>
#include <string.h>

static int emit(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".txt") == 0)
		n -= 4;
	printf("\t{\"%.*s\",\n\t\"", (int)n, base);
	int c, col = 0;
	while ((c = fgetc(f)) != EOF) {
		if (c == '\n') {
			printf("\\n\"\n\t\"");
			col = 0;
			continue;
		}
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\%03o", c);
		else
			putchar(c);
		if (++col > 100) {
			printf("\"\n\t\"");
			col = 0;
		}
	}
	printf("\"},\n");
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0;
	printf("/* Generated from prompts/ by tools/embed.c; do not edit. */\n");
	printf("#include \"llm/prompt.h\"\n#include <string.h>\n\n");
	printf("const PromptFile prompt_files[] = {\n");
	for (int i = 1; i < argc; i++)
		bad |= emit(argv[i]);
	printf("\t{0, 0}\n};\n");
	return bad;
}

# suql: a plain Makefile.
#
#   make            build ./suql (the program) and the tools under build/
#   make run        install what is missing, build the program, the demo database and the
#                   test server build/llmserver (not the other tools and tests), open the
#                   REPL on the demo database
#   make demo-chat  chat mode on the demo database against build/llmserver playing the
#                   model from fixtures/chat/demo-rules.json (a scripted stand-in)
#   make check      install what is missing, build, run every test
#   make bench      benchmarks (not tests; they print figures)
#   make eval       answer quality and cost on the shipped benchmarks, with the model configured
#   make fuzz       libFuzzer over every tools/fuzz_*.c target (FUZZ_SECONDS=60 each by
#                   default; FUZZ_TARGETS=parse,csv picks some)
#   make install    PREFIX=/usr/local: binary, man page, prompts, bash and zsh completion
#   make SAN=address,undefined check    the same, built with sanitizers
#   make READLINE=1 link GNU readline instead of libedit (in build/readline/)
#   make SUQL_CFLAGS=...  more compiler flags, added to the defaults (warnings included)
#
# Every src/*/*.c is part of the program; src/cli/main.c holds main(). Every tools/*.c is a
# separate program linked with the same objects (minus main), except tools/fuzz_*.c: those
# are libFuzzer targets, built only with FUZZ=1 (clang, in build-fuzz/; scripts/fuzz.sh).
# Every tests/unit/*.c is a unit test program. New files need no edit here.

# Parallel by default: as many jobs as processors plus one (compiling, and the test runner,
# whose suites spend much of their time waiting on the servers they start); `make -jN`
# given on the command line wins, and tests/run takes its N too.
NPROC     := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
MAKEFLAGS += -j$(shell expr $(NPROC) + 1)

PREFIX    ?= /usr/local
CC        ?= cc
SAN       ?=
FUZZ      ?= 0
READLINE  ?= 0
DEPS      ?= scripts/deps.sh

# Each kind of build has its own directory, so switching never mixes objects.
ifeq ($(FUZZ),1)
  BUILD    := build-fuzz
  CC       := clang
  SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
else ifeq ($(SAN),)
  BUILD    := build
  SANFLAGS :=
else
  BUILD    := build-san
  SANFLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

ifeq ($(READLINE),1)
  BUILD    := $(BUILD)/readline
  EDITPKG  := readline
  EDITDEF  := -DSUQL_READLINE=1
  EDITLIBS := -lreadline
  DEPPKGS  := libreadline-dev
else
  EDITPKG  := libedit
  EDITDEF  :=
  EDITLIBS := $(shell pkg-config --libs libedit 2>/dev/null)
endif

# libpq: the PostgreSQL backend (store/store_pg.c). libcurl, libpq and libcrypto are
# compiled against their headers but not linked: base/dynlib.c loads them by soname when a
# statement first needs them (doc/speed.md, start-up), so plain SQL never maps them.
PKGS      := sqlite3 jansson
DLPKGS    := libcurl libcrypto libpq
PKGCFLAGS := $(shell pkg-config --cflags $(PKGS) $(DLPKGS) 2>/dev/null) \
             $(if $(filter libedit,$(EDITPKG)),$(shell pkg-config --cflags libedit 2>/dev/null))
PKGLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(EDITLIBS) -lstemmer -lm -lpthread -ldl

# CFLAGS replaces the optimisation and debug flags; SUQL_CFLAGS adds to everything
# (make SUQL_CFLAGS=-Wpedantic), the warnings included.
CFLAGS    ?= -O2 -g
SUQL_CFLAGS ?=
WARNINGS  := -Wall -Wextra -Wshadow -Wconversion -Werror
ALLCFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARNINGS) \
             -Isrc -I$(BUILD) $(EDITDEF) $(PKGCFLAGS) $(SANFLAGS) $(CFLAGS) $(SUQL_CFLAGS)
ALLLDFLAGS := $(SANFLAGS) $(LDFLAGS)

SRCS      := $(sort $(wildcard src/*/*.c))
LIBOBJS   := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(filter-out src/cli/main.c,$(SRCS))) \
             $(BUILD)/obj/prompts_gen.o
MAINOBJ   := $(BUILD)/obj/cli/main.o
TOOLS     := $(patsubst tools/%.c,$(BUILD)/%,$(filter-out tools/embed.c tools/fuzz_%.c,$(sort $(wildcard tools/*.c))))
FUZZERS   := $(patsubst tools/%.c,$(BUILD)/%,$(sort $(wildcard tools/fuzz_*.c)))
# The same targets linked with a plain driver (tests/fuzzdrive.c) on this build, for the
# fuzz suite of `make check`; libFuzzer's own build is `make fuzz`.
FUZZCHECK := $(patsubst tools/%.c,$(BUILD)/fuzzcheck/%,$(sort $(wildcard tools/fuzz_*.c)))
UNITS     := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(sort $(wildcard tests/unit/*.c)))
PROMPTS   := $(sort $(wildcard prompts/*.txt))

ifeq ($(BUILD),build)
  PROG := suql
else
  PROG := $(BUILD)/suql
endif

.PHONY: all run demo-chat check bench eval fuzz fuzzers install uninstall clean deps fixtures demo
all: $(PROG) $(TOOLS) $(UNITS) $(FUZZCHECK) $(BUILD)/demo.db

$(PROG): $(MAINOBJ) $(BUILD)/libsuql.a
	$(CC) $(ALLLDFLAGS) -o $@ $^ $(PKGLIBS)

$(BUILD)/libsuql.a: $(LIBOBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/%.o: src/%.c | $(BUILD)/obj
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -MMD -MP -c -o $@ $<

# Prompts are plain text files, embedded at build time by a tiny generator.
$(BUILD)/embed: tools/embed.c | $(BUILD)/obj
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/prompts_gen.c: $(BUILD)/embed $(PROMPTS)
	$(BUILD)/embed $(PROMPTS) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/prompts_gen.o: $(BUILD)/prompts_gen.c
	$(CC) $(ALLCFLAGS) -c -o $@ $<

$(BUILD)/%: tools/%.c $(BUILD)/libsuql.a
	$(CC) $(ALLCFLAGS) -MMD -MP -o $@ $< $(BUILD)/libsuql.a $(ALLLDFLAGS) $(PKGLIBS)

# libFuzzer targets: the library as built with FUZZ=1, plus libFuzzer's main.
$(BUILD)/fuzz_%: tools/fuzz_%.c $(BUILD)/libsuql.a
	$(CC) $(ALLCFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< $(BUILD)/libsuql.a $(ALLLDFLAGS) $(PKGLIBS)

fuzzers: $(FUZZERS)

$(BUILD)/fuzzcheck/fuzz_%: tools/fuzz_%.c tests/fuzzdrive.c $(BUILD)/libsuql.a
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -MMD -MP -o $@ $< tests/fuzzdrive.c $(BUILD)/libsuql.a $(ALLLDFLAGS) $(PKGLIBS)

# The sqllogictest runner hashes results with OpenSSL's MD5.
$(BUILD)/slt: PKGLIBS += $(shell pkg-config --libs libcrypto 2>/dev/null || echo -lcrypto)

$(BUILD)/unit/%: tests/unit/%.c $(BUILD)/libsuql.a | $(BUILD)/unit
	$(CC) $(ALLCFLAGS) -MMD -MP -o $@ $< $(BUILD)/libsuql.a $(ALLLDFLAGS) $(PKGLIBS)

$(BUILD)/obj $(BUILD)/unit:
	mkdir -p $@

# The bundled demo database, built from SQL text under fixtures/ by suql itself.
DEMO_SQL := $(sort $(wildcard fixtures/demo/*.sql))
$(BUILD)/demo.db: $(PROG) $(DEMO_SQL)
	rm -f $@.tmp
	if [ -n "$(DEMO_SQL)" ]; then cat $(DEMO_SQL) | ./$(PROG) --bail $@.tmp >/dev/null; \
	else ./$(PROG) -c 'SELECT 1' $@.tmp >/dev/null; fi
	mv $@.tmp $@

demo: $(BUILD)/demo.db

deps:
	@sh $(DEPS) $(DEPPKGS)

run: deps
	$(MAKE) $(PROG) $(BUILD)/demo.db $(BUILD)/llmserver
	./$(PROG) $(BUILD)/demo.db

# Chat mode against build/llmserver playing the model from a shipped rules file: a scripted
# stand-in, not a language model (scripts/demo-chat.sh says so and what it answers).
demo-chat: deps
	$(MAKE) $(PROG) $(BUILD)/demo.db $(BUILD)/llmserver
	SUQL_BUILD=$(BUILD) SUQL_PROG=./$(PROG) sh scripts/demo-chat.sh

# The real datasets (clothing, HybridQA) are built first so that the tests using them run;
# without ../shared/data they are skipped with a message.
check: deps
	$(MAKE) all
	SUQL_BUILD=$(BUILD) SUQL_PROG=$(PROG) sh scripts/fixtures.sh
	SUQL_BUILD=$(BUILD) SUQL_PROG=$(PROG) sh tests/run

bench: deps
	$(MAKE) all
	SUQL_BUILD=$(BUILD) SUQL_PROG=$(PROG) sh bench/run

# Quality and cost of the answers on the benchmarks in fixtures/eval/ (scripts/eval.sh).
eval: deps
	$(MAKE) all
	SUQL_BUILD=$(BUILD) SUQL_PROG=$(PROG) sh scripts/eval.sh

fixtures: deps
	$(MAKE) all
	SUQL_BUILD=$(BUILD) SUQL_PROG=$(PROG) sh scripts/fixtures.sh

# clang and libFuzzer: wanted by check (the fuzz suite is skipped without them), needed
# by fuzz. PostgreSQL's server: wanted by check and bench, which start one of their own
# (tests/pg.sh; the suites that need it are skipped without it).
check: DEPPKGS += opt:clang opt:libclang-rt-dev opt:postgresql opt:strace
bench: DEPPKGS += opt:postgresql opt:valgrind
fuzz: DEPPKGS += clang libclang-rt-dev

FUZZ_SECONDS ?= 60
fuzz: deps
	$(MAKE) all
	SUQL_BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh scripts/fuzz.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/suql/prompts
	install -m 755 $(PROG) $(DESTDIR)$(PREFIX)/bin/suql
	install -m 644 man/suql.1 $(DESTDIR)$(PREFIX)/share/man/man1/suql.1
	if [ -n "$(PROMPTS)" ]; then install -m 644 $(PROMPTS) $(DESTDIR)$(PREFIX)/share/suql/prompts/; fi
	install -m 644 $(BUILD)/demo.db $(DESTDIR)$(PREFIX)/share/suql/demo.db
	# shell completion, written by the program from its own table of options
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	./$(PROG) --completion bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/suql
	./$(PROG) --completion zsh >$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_suql
	chmod 644 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/suql $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_suql

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/suql $(DESTDIR)$(PREFIX)/share/man/man1/suql.1
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/suql $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_suql
	rm -rf $(DESTDIR)$(PREFIX)/share/suql

clean:
	rm -rf build build-san build-fuzz suql

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*.d $(BUILD)/*.d $(BUILD)/unit/*.d $(BUILD)/fuzzcheck/*.d)

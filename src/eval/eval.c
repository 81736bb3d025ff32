/*
 * eval.c: a run of the evaluation harness (eval.h): the parent process reads the benchmark,
 * checks it against the database and the configured model (with the benchmark's settings
 * and the user's applied, as each worker will), builds what the workers share (retrieval
 * indexes, the linearized passages), resumes the report, then forks workers and hands them
 * cases one at a time over pipes. Each worker answers a case with one JSON line, which the
 * parent appends to the report at once (so a stopped run loses at most the cases in
 * flight) and adds to the summary. Workers are as many as the client's concurrency allows
 * and each gets an equal share of it, so the requests in flight never exceed the setting.
 *
 * The summary is computed by SQLite over the JSON lines (eval_report.c) and written with the
 * renderer, so --csv and --json work on it as on any result.
 */
#include "eval/eval_int.h"

#include "base/progress.h"
#include "base/util.h"
#include "chat/agent.h"
#include "retrieve/retrieve.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const WAY_NAMES[EVAL_NWAYS] = {"suql", "chat", "linearize"};

const char *eval_way_name(EvalWay w)
{
	return w >= 0 && w < EVAL_NWAYS ? WAY_NAMES[w] : "?";
}

static int eval_way_parse(const char *name, EvalWay *w)
{
	for (int i = 0; i < EVAL_NWAYS; i++)
		if (str_ieq(name, WAY_NAMES[i])) {
			*w = (EvalWay)i;
			return 1;
		}
	return 0;
}

/* "suql,chat" or "all" into want[]; *all says "all" was asked (chat is then skipped
   without a model rather than refused). */
static SuqlStatus parse_ways(const char *spec, int want[EVAL_NWAYS], int *all, SuqlErr *err)
{
	memset(want, 0, EVAL_NWAYS * sizeof *want);
	*all = 0;
	char *copy = xstrdup(spec);
	SuqlStatus s = SUQL_OK;
	for (char *p = copy, *save = NULL, *t; (t = strtok_r(p, ", ", &save)); p = NULL) {
		EvalWay w;
		if (str_ieq(t, "all")) {
			*all = 1;
			for (int i = 0; i < EVAL_NWAYS; i++)
				want[i] = 1;
		} else if (eval_way_parse(t, &w)) {
			want[w] = 1;
		} else {
			s = err_set(err, SUQL_USAGE, "--way: unknown way '%s' (suql, chat, linearize, all)",
			            t);
			break;
		}
	}
	free(copy);
	return s;
}

/* ---- the parent's checks and preparations ---- */

typedef struct EvalRun {
	const EvalConfig *cfg;
	EvalBench bench;
	EvalShared sh;
	int want[EVAL_NWAYS];
	char *label;           /* the backend, as llm_label says */
	int offline;
	int concurrency;
	int asked_chat;        /* chat was asked for (by "all"), and left out offline */
	int times;             /* the times setting: show the seconds column */
	char *tmpdir;
} EvalRun;

/* Tables the cases are about must exist; the indexes of their free-text columns are made
   current once, here, rather than by several workers at the same time. */
static SuqlStatus prepare_db(EvalRun *run, Session *ses, SuqlErr *err)
{
	sqlite3 *db = engine_db(ses->engine);   /* NULL: a PostgreSQL database */
	const EvalBench *b = &run->bench;
	for (int i = 0; i < b->ncases; i++) {
		const char *t = b->cases[i].table ? b->cases[i].table : b->table;
		if (!t)
			continue;
		sqlite3_stmt *st;
		int found = 0;
		if (!db)
			found = store_has_table(engine_store(ses->engine), t);
		else if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type IN ('table', "
		                            "'view') AND name = ? COLLATE NOCASE", -1, &st, NULL) ==
		         SQLITE_OK) {
			sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
			found = sqlite3_step(st) == SQLITE_ROW;
			sqlite3_finalize(st);
		}
		if (!found)
			return err_set(err, SUQL_USAGE, "%s:%d: case \"%s\" is about table %s, which %s "
			               "does not have", run->cfg->bench, b->cases[i].line, b->cases[i].id,
			               t, run->cfg->db);
	}
	/* PostgreSQL ranks by the server's text search (`:index` makes its GIN indexes): there
	   is no retrieval index of suql's own to bring up to date */
	if (!db)
		return SUQL_OK;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT tbl, col FROM suql_catalog WHERE type LIKE "
	                       "'FREE_TEXT%' ORDER BY tbl, col", -1, &st, NULL) != SQLITE_OK)
		return SUQL_OK;   /* no SUQL types: no free text to index */
	SuqlStatus s = SUQL_OK;
	while (s == SUQL_OK && sqlite3_step(st) == SQLITE_ROW) {
		char *t = xstrdup((const char *)sqlite3_column_text(st, 0));
		char *c = xstrdup((const char *)sqlite3_column_text(st, 1));
		s = ret_ensure(db, t, c, NULL, err);
		free(t);
		free(c);
	}
	sqlite3_finalize(st);
	return s;
}

static SuqlStatus prepare(EvalRun *run, SuqlErr *err)
{
	const EvalConfig *cfg = run->cfg;
	SuqlStatus s = eval_bench_load(&run->bench, cfg->bench, err);
	if (s != SUQL_OK)
		return s;
	run->sh.cfg = cfg;
	run->sh.bench = &run->bench;
	const char *spec = cfg->ways ? cfg->ways : run->bench.ways ? run->bench.ways : "suql";
	int all;
	if ((s = parse_ways(spec, run->want, &all, err)) != SUQL_OK)
		return s;
	if (!cfg->db)
		return err_set(err, SUQL_USAGE, "--eval needs the DATABASE the benchmark is about");
	if (!store_pg_target(cfg->db) && access(cfg->db, R_OK) != 0)
		return err_set(err, SUQL_USAGE, "cannot open %s: %s", cfg->db, strerror(errno));

	Session ses;
	session_init(&ses, 0);
	Llm *llm = llm_open(cfg->llm, err);
	if (!llm)
		return SUQL_USAGE;
	ses.llm = llm;
	s = session_open(&ses, cfg->db, err);
	if (s == SUQL_OK)
		s = eval_apply_settings(&ses, &run->sh, err);
	if (s == SUQL_OK) {
		run->label = xstrdup(llm_label(llm));
		run->offline = llm_is_offline(llm);
		SBuf set = SBUF_INIT;
		engine_settings(ses.engine, &set);
		run->times = !strstr(sb_str(&set), "times = off");
		sb_free(&set);
		run->concurrency = llm_concurrency(llm);
		if (run->want[EVAL_CHAT] && run->offline && !all)
			s = err_set(err, SUQL_USAGE, "the chat way needs a language model, and none is "
			            "configured (the offline backend cannot turn questions into SUQL): "
			            "set SUQL_LLM_URL and SUQL_MODEL (or OPENAI_API_KEY), or leave chat "
			            "out of --way");
		run->asked_chat = run->want[EVAL_CHAT];
		if (run->offline)
			run->want[EVAL_CHAT] = 0;
	}
	if (s == SUQL_OK)
		s = prepare_db(run, &ses, err);
	if (s == SUQL_OK && run->want[EVAL_LINEARIZE]) {
		char tmpl[] = "/tmp/suql-eval.XXXXXX";
		const char *td = getenv("TMPDIR");
		char *dir = td && *td ? xprintf("%s/suql-eval.XXXXXX", td) : xstrdup(tmpl);
		if (!mkdtemp(dir)) {
			s = err_set(err, SUQL_IO, "cannot make a temporary directory: %s", strerror(errno));
			free(dir);
		} else {
			run->tmpdir = dir;
			run->sh.lin_path = xprintf("%s/passages.db", dir);
			s = eval_linear_build(engine_store(ses.engine), &run->bench, run->sh.lin_path, err);
		}
	}
	if (s != SUQL_OK && s != SUQL_LLM && s != SUQL_INTERRUPT && s != SUQL_IO)
		s = SUQL_USAGE;
	session_free(&ses);
	llm_close(llm);
	return s;
}

static void run_free(EvalRun *run)
{
	if (run->sh.lin_path)
		unlink(run->sh.lin_path);
	if (run->tmpdir)
		rmdir(run->tmpdir);
	free(run->sh.lin_path);
	free(run->tmpdir);
	free(run->label);
	eval_bench_free(&run->bench);
}

/* ---- workers ---- */

typedef struct Job {
	int c;          /* case index */
	EvalWay way;
} Job;

typedef struct Slot {
	pid_t pid;
	int to, from;   /* the worker's stdin and stdout, as the parent holds them */
	SBuf in;        /* what it sent, up to a full line */
	int job;        /* the job it works on, -1 when idle */
} Slot;

static int write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The worker process: jobs "CASE WAY\n" on in, one JSON line per job on out. */
static void worker(const EvalShared *sh, int in, int out)
{
	EvalWorker w;
	SuqlErr err = {0};
	FILE *f = fdopen(in, "r");
	SuqlStatus s = eval_worker_open(&w, sh, &err);
	char *line = NULL;
	size_t cap = 0;
	while (f && getline(&line, &cap, f) > 0) {
		int ci, wi;
		if (sscanf(line, "%d %d", &ci, &wi) != 2 || ci < 0 || ci >= sh->bench->ncases)
			break;
		json_t *res;
		if (s != SUQL_OK) {
			res = eval_result_new(&sh->bench->cases[ci], (EvalWay)wi);
			json_object_set_new(res, "model_error", json_string(err.msg ? err.msg : "failed"));
			json_object_set_new(res, "status", json_integer(s));
		} else {
			res = eval_run_case(&w, &sh->bench->cases[ci], (EvalWay)wi);
		}
		char *text = json_dumps(res, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(res);
		int bad = !text || write_all(out, text, strlen(text)) < 0 || write_all(out, "\n", 1) < 0;
		free(text);
		if (bad)
			break;
	}
	free(line);
	if (f)
		fclose(f);
	close(out);
	eval_worker_close(&w);   /* also after a failed open: it frees what was made */
	err_clear(&err);
}

typedef struct Pool {
	Slot *slots;
	int n;
	Job *jobs;
	int njobs, next, done;
	int stop;
	int status;          /* the exit status so far */
	char *first_error;   /* the model failure that stopped the run */
} Pool;

static void send_next(Pool *p, Slot *s)
{
	if (!p->stop && p->next < p->njobs) {
		char cmd[48];
		snprintf(cmd, sizeof cmd, "%d %d\n", p->jobs[p->next].c, (int)p->jobs[p->next].way);
		if (write_all(s->to, cmd, strlen(cmd)) == 0) {
			s->job = p->next++;
			return;
		}
	}
	s->job = -1;
	if (s->to >= 0) {
		close(s->to);   /* no more work: the worker ends */
		s->to = -1;
	}
}

static SuqlStatus start_workers(Pool *p, const EvalShared *sh, SuqlErr *err)
{
	fflush(NULL);
	for (int i = 0; i < p->n; i++) {
		int a[2], b[2];
		if (pipe(a) < 0 || pipe(b) < 0)
			return err_set(err, SUQL_IO, "cannot make a pipe: %s", strerror(errno));
		pid_t pid = fork();
		if (pid < 0)
			return err_set(err, SUQL_IO, "cannot start a worker: %s", strerror(errno));
		if (pid == 0) {
			for (int k = 0; k < i; k++) {
				if (p->slots[k].to >= 0)
					close(p->slots[k].to);
				close(p->slots[k].from);
			}
			close(a[1]);
			close(b[0]);
			worker(sh, a[0], b[1]);
			exit(0);
		}
		close(a[0]);
		close(b[1]);
		p->slots[i] = (Slot){pid, a[1], b[0], SBUF_INIT, -1};
	}
	return SUQL_OK;
}

/* One line from a worker. */
static void take(Pool *p, const char *line, EvalReport *rep, Progress *bar)
{
	json_error_t je;
	json_t *res = json_loads(line, 0, &je);
	const char *model_error = json_string_value(json_object_get(res, "model_error"));
	if (!res) {
		p->stop = 1;
		p->status = SUQL_EXIT_FAILED;
		if (!p->first_error)
			p->first_error = xprintf("a worker sent a line that is not JSON: %s", je.text);
	} else if (json_is_true(json_object_get(res, "interrupted"))) {
		p->stop = 1;
		p->status = SUQL_EXIT_INTERRUPTED;
	} else if (model_error) {
		p->stop = 1;
		int st = (int)json_integer_value(json_object_get(res, "status"));
		if (p->status != SUQL_EXIT_INTERRUPTED)
			p->status = st == SUQL_LLM ? SUQL_EXIT_LLM : st == SUQL_USAGE ? SUQL_EXIT_USAGE
			            : SUQL_EXIT_FAILED;
		if (!p->first_error)
			p->first_error = xprintf("case \"%s\" (%s): %s",
			                         json_string_value(json_object_get(res, "id")),
			                         json_string_value(json_object_get(res, "way")), model_error);
	} else {
		eval_report_add(rep, res, line);
		p->done++;
		progress_set(bar, p->done);
	}
	json_decref(res);
}

static void pool_run(Pool *p, const EvalShared *sh, EvalReport *rep, Progress *bar)
{
	for (int i = 0; i < p->n; i++)
		send_next(p, &p->slots[i]);
	int live = p->n;
	struct pollfd *fds = xcalloc((size_t)p->n, sizeof *fds);
	while (live > 0) {
		if (suql_interrupted && !p->stop) {
			p->stop = 1;
			p->status = SUQL_EXIT_INTERRUPTED;
			for (int i = 0; i < p->n; i++)
				if (p->slots[i].to >= 0 && p->slots[i].job < 0)
					send_next(p, &p->slots[i]);
		}
		for (int i = 0; i < p->n; i++) {
			fds[i].fd = p->slots[i].from;
			fds[i].events = POLLIN;
			fds[i].revents = 0;
		}
		if (poll(fds, (nfds_t)p->n, 200) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < p->n; i++) {
			Slot *s = &p->slots[i];
			if (s->from < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char buf[65536];
			ssize_t k = read(s->from, buf, sizeof buf);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {   /* the worker ended */
				close(s->from);
				s->from = -1;
				if (s->to >= 0)
					close(s->to);
				s->to = -1;
				live--;
				if (s->job >= 0 && !p->stop) {
					p->stop = 1;
					p->status = SUQL_EXIT_FAILED;
					if (!p->first_error)
						p->first_error = xprintf("the worker running case \"%s\" stopped "
						                         "without an answer",
						                         sh->bench->cases[p->jobs[s->job].c].id);
				}
				continue;
			}
			sb_putn(&s->in, buf, (size_t)k);
			char *nl;
			while (s->in.len && (nl = memchr(s->in.s, '\n', s->in.len))) {
				*nl = '\0';
				take(p, s->in.s, rep, bar);
				size_t used = (size_t)(nl - s->in.s) + 1;
				memmove(s->in.s, nl + 1, s->in.len - used);
				sb_truncate(&s->in, s->in.len - used);
				send_next(p, s);
			}
		}
	}
	free(fds);
	for (int i = 0; i < p->n; i++) {
		int st;
		while (waitpid(p->slots[i].pid, &st, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(st) && p->status == SUQL_EXIT_OK) {
			p->status = SUQL_EXIT_FAILED;
			if (!p->first_error)
				p->first_error = xprintf("a worker was killed by signal %d", WTERMSIG(st));
		}
		sb_free(&p->slots[i].in);
	}
}

/* ---- the run ---- */

int eval_main(const EvalConfig *cfg)
{
	EvalRun run;
	memset(&run, 0, sizeof run);
	run.cfg = cfg;
	SuqlErr err = {0};
	SuqlStatus s = prepare(&run, &err);
	EvalReport *rep = NULL;
	if (s == SUQL_OK)
		s = eval_report_open(&rep, cfg->report, run.bench.name, run.label, &err);
	if (s != SUQL_OK) {
		fprintf(stderr, "error: %s\n", err.msg ? err.msg : "failed");
		err_clear(&err);
		eval_report_close(rep);
		run_free(&run);
		return s == SUQL_LLM ? SUQL_EXIT_LLM : s == SUQL_INTERRUPT ? SUQL_EXIT_INTERRUPTED
		       : SUQL_EXIT_USAGE;
	}

	Pool p;
	memset(&p, 0, sizeof p);
	p.jobs = xcalloc((size_t)run.bench.ncases * EVAL_NWAYS + 1, sizeof *p.jobs);
	for (int w = 0; w < EVAL_NWAYS; w++)
		for (int i = 0; i < run.bench.ncases && run.want[w]; i++)
			if (!eval_report_has(rep, run.bench.cases[i].id, eval_way_name((EvalWay)w)))
				p.jobs[p.njobs++] = (Job){i, (EvalWay)w};
	p.n = run.concurrency < p.njobs ? run.concurrency : p.njobs;
	if (p.n < 1)
		p.n = p.njobs ? 1 : 0;
	run.sh.concurrency = p.n ? (run.concurrency / p.n > 0 ? run.concurrency / p.n : 1) : 1;
	if (p.n > 0) {
		char *label = xprintf("%s: %d cases", run.bench.name, p.njobs);
		Progress *bar = progress_open(stderr, PROGRESS_AUTO, label, p.njobs);
		free(label);
		p.slots = xcalloc((size_t)p.n, sizeof *p.slots);
		session_signals();
		s = start_workers(&p, &run.sh, &err);
		if (s == SUQL_OK) {
			pool_run(&p, &run.sh, rep, bar);
		} else {
			fprintf(stderr, "error: %s\n", err.msg);
			p.status = SUQL_EXIT_USAGE;
		}
		progress_close(bar);
	}
	if (p.first_error)
		fprintf(stderr, "error: %s\n", p.first_error);
	int skipped_chat = run.offline && run.asked_chat;
	eval_report_finish(rep, cfg, run.bench.ncases, run.bench.k, run.want, run.times,
	                   skipped_chat, p.njobs - p.done);
	eval_report_close(rep);
	free(p.first_error);
	free(p.slots);
	free(p.jobs);
	run_free(&run);
	err_clear(&err);
	return p.status;
}

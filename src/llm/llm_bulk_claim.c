/*
 * llm_bulk_claim.c: the claim that lets one process at a time resume a bulk job
 * (doc/bulk.md, "Every job runs once"). A job's owner column holds "pid start host" of the
 * process resuming it, set in one write transaction of the cache file that first reads
 * it, so two resumes cannot both hold it; a claim whose process is gone (the pid ended, or
 * is another process now: its start time differs) is taken over; one from another host
 * cannot be checked and counts as taken.
 *
 * Ownership: the job's strings stay the job's; what this file makes it frees, or hands to
 * the job (its owner).
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* When process pid started (clock ticks after boot, /proc/PID/stat's 22nd field); -1 when
   it is not known. */
static long long proc_start(long pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	size_t n = 0;
	char *s = util_read_file(path, &n);
	long long t = -1;
	char *p = s ? strrchr(s, ')') : NULL;   /* the name may hold spaces and parentheses */
	if (p) {
		int field = 2;
		for (p++; *p && field < 22; p++)
			if (*p == ' ')
				field++;
		if (field == 22)
			t = strtoll(p, NULL, 10);
	}
	free(s);
	return t;
}

static char *this_process(void)
{
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) != 0 || !host[0])
		snprintf(host, sizeof host, "?");
	return xprintf("%ld %lld %s", (long)getpid(), proc_start((long)getpid()), host);
}

/* Whether the process an owner string names may still hold the claim: 1 when it is alive
   (or on another host, where it cannot be told), 0 when it is gone. */
static int owner_alive(const char *owner, long *pid, char *host, size_t hn)
{
	long long start = -1;
	char h[256] = "";
	*pid = 0;
	if (sscanf(owner, "%ld %lld %255s", pid, &start, h) < 1 || *pid <= 0)
		return 0;
	snprintf(host, hn, "%s", h);
	char here[256] = "";
	if (gethostname(here, sizeof here - 1) != 0)
		here[0] = 0;
	if (h[0] && strcmp(h, here) != 0)
		return 1;
	if (kill((pid_t)*pid, 0) != 0 && errno == ESRCH)
		return 0;
	long long now = proc_start(*pid);
	return !(start >= 0 && now >= 0 && now != start);
}

long llm_bulk_taken(const LlmBulkJob *job)
{
	long pid;
	char host[256];
	return job->owner && owner_alive(job->owner, &pid, host, sizeof host) ? pid : 0;
}

SuqlStatus llm_bulk_claim(Llm *llm, LlmBulkJob *job, SuqlErr *err)
{
	sqlite3 *db = llm_bulk_db(llm, err);
	if (!db)
		return err->code;
	char *me = this_process();
	int rc = llm_bulk_write_begin(db);
	SuqlStatus s = SUQL_OK;
	if (rc == SQLITE_OK && llm_bulk_job_load(db, job->seq, job) != SQLITE_ROW)
		rc = SQLITE_ERROR;
	if (rc == SQLITE_OK && strcmp(job->status, "resumed") == 0) {
		s = err_set(err, SUQL_USAGE, "batch %d was resumed already (its statement ran again); "
		            "run the statement to see its rows", job->seq);
	} else if (rc == SQLITE_OK && job->owner) {
		long pid;
		char host[256];
		if (owner_alive(job->owner, &pid, host, sizeof host)) {
			char when[16] = "?";
			time_t at = (time_t)job->claimed;
			struct tm tm;
			if (localtime_r(&at, &tm))
				strftime(when, sizeof when, "%H:%M:%S", &tm);
			s = err_set(err, SUQL_USAGE, "batch %d is taken: process %ld%s%s has been "
			            "resuming it since %s (status %s); it runs once, there", job->seq,
			            pid, host[0] ? " on " : "", host, when, job->status);
		}
	}
	if (rc == SQLITE_OK && s == SUQL_OK) {
		/* a job kept before jobs had a token gets one: its write is marked as any */
		if (!job->token)
			job->token = llm_bulk_new_token();
		sqlite3_stmt *st = NULL;
		rc = sqlite3_prepare_v2(db, "UPDATE llm_bulk SET owner = ?, claimed = ?, token = ? "
		                        "WHERE seq = ?", -1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_text(st, 1, me, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, (long long)time(NULL));
			sqlite3_bind_text(st, 3, job->token, -1, SQLITE_STATIC);
			sqlite3_bind_int(st, 4, job->seq);
			rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		}
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_OK) {
		s = llm_bulk_db_fail(db, err);
		llm_bulk_write_end(db, rc);
	} else if (llm_bulk_write_end(db, s == SUQL_OK ? SQLITE_OK : SQLITE_ABORT) != SQLITE_OK &&
	           s == SUQL_OK) {
		s = llm_bulk_db_fail(db, err);
	}
	if (s == SUQL_OK) {
		free(job->owner);
		job->owner = me;
	} else {
		free(me);
	}
	return s;
}

void llm_bulk_release(Llm *llm, LlmBulkJob *job)
{
	SuqlErr err = {0};
	sqlite3 *db = job->owner ? llm_bulk_db(llm, &err) : NULL;
	err_clear(&err);
	if (!db)
		return;
	sqlite3_stmt *st = NULL;
	int rc = llm_bulk_write_begin(db);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "UPDATE llm_bulk SET owner = NULL WHERE seq = ? AND "
		                        "owner = ?", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int(st, 1, job->seq);
		sqlite3_bind_text(st, 2, job->owner, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	llm_bulk_write_end(db, rc);
	free(job->owner);
	job->owner = NULL;
}

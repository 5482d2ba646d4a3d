/* SPDX-License-Identifier: MIT */
/* chainsim conform PATH...: run conformance cases, each judged by its own
 * expect lines, in worker processes so that a crash or a hang costs one case
 * (docs/conform.md). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "chainsim/device.h"
#include "chainsim/file.h"
#include "chainsim/run.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#include "cli.h"
#include "commands.h"
#include "conform.h"
#include "exec_options.h"

static void conform_usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim conform [OPTIONS] PATH...\n"
		"       chainsim conform merge [--json F] [--junit F] [--allow-unavailable]\n"
		"                              [--allow-unobservable] FILE...\n"
		"\n"
		"Runs the scenario cases PATH (files, and the .chain files directly in folders),\n"
		"each judged by its own expect lines, and prints one line per case in path\n"
		"order and a SUMMARY line. The executor options (below, as chainsim run takes\n"
		"them) apply to every case; a case file's `# run:` lines give it its own, each\n"
		"--NAME or --NAME=V, over the command line's. A case file without an expect\n"
		"line is refused.\n"
		"\n"
		"  --backend sim|hw      where cases run (default sim; this build has no hw\n"
		"                        backend, so its cases are unavailable)\n"
		"  --jobs N              run N cases at a time, in N worker processes; a case\n"
		"                        that crashes or hangs costs its worker, which is\n"
		"                        replaced, and that case only\n"
		"  --isolate             a fresh worker process for every case (slower; for\n"
		"                        cases that may leave a worker's memory corrupted)\n"
		"  --timeout S           seconds one case may take before it is killed (120)\n"
		"  --filter RE           only cases whose path matches the extended regex RE\n"
		"  --shard K/N|auto      run slice K of N (1-based), chosen after --filter by a\n"
		"                        stable hash of the case path; auto reads CHAINSIM_SHARD\n"
		"                        (K/N), SLURM_ARRAY_TASK_ID/_COUNT or\n"
		"                        JOB_COMPLETION_INDEX with CHAINSIM_SHARD_COUNT\n"
		"  --json F              write the results, with time and peak memory per case\n"
		"  --junit F             write JUnit XML\n"
		"  --allow-unavailable   unavailable cases do not fail the run\n"
		"  --allow-unobservable  unobservable cases (every expectation held, but the\n"
		"                        chain could not be judged to its end: a grid\n"
		"                        stopped at its budget, code the simulator cannot\n"
		"                        run) do not fail the run\n"
		"  --no-progress         no live progress line (it is shown on a terminal only)\n"
		"  --version             print chainsim's version\n"
		"executor options:\n");
	cs_exec_options_help(out);
	fprintf(out,
		"A PATH - is one case read from standard input, and a merge FILE - is one result\n"
		"file read from it. An option's value follows it or an '='.\n"
		"\n"
		"exit status: 0 every case passed; 1 a case failed, crashed, timed out, was\n"
		"unavailable or unobservable; 2 bad usage, or no case selected; 3 no case could run on the\n"
		"backend. `merge` joins shard results and refuses (2) a missing, repeated or\n"
		"crashed shard, or a case run twice or not at all.\n");
}

typedef struct conform_opts {
	const char *backend;
	unsigned jobs;
	double timeout_s;
	const char *filter;
	unsigned shard_index, shard_count;
	const char *json_out, *junit_out;
	bool allow_unavailable, allow_unobservable, progress;
	bool isolate; /* a fresh worker process for every case */
	/* Test-only (tests/sim/test_conform.c): a case whose path contains the
	 * text kills itself with SIGSEGV, or sleeps forever, in its worker. */
	const char *inject_crash, *inject_hang;
	/* the case named -, read from standard input before the workers start */
	const char *stdin_text;
	size_t stdin_len;
	cs_run_opts exec; /* the command line's executor options, for every case */
} conform_opts;

/* CLOCK_MONOTONIC: the same clock in the runner and in its workers. */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double now_s(void)
{
	return (double)now_ns() / 1e9;
}

/* ---- selection ---------------------------------------------------------- */

/* FNV-1a, 64 bits: the same on every machine and every build. */
static uint64_t path_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* "./a//b" and "a/b" are one case: the hash and the reports see the latter. */
static char *normalize_path(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		for (p += 2; *p == '/'; p++)
			;
	char *out = g_strdup(p), *w = out;
	for (const char *r = out; *r; r++)
		if (!(r[0] == '/' && r[1] == '/'))
			*w++ = *r;
	*w = 0;
	return out;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool add_path(GPtrArray *out, const char *arg)
{
	if (!strcmp(arg, CS_FILE_STDIN)) { /* run_case reads it from conform_opts */
		g_ptr_array_add(out, g_strdup(arg));
		return true;
	}
	struct stat st;
	if (stat(arg, &st) != 0) {
		fprintf(stderr, "chainsim conform: %s: %s\n", arg, strerror(errno));
		return false;
	}
	if (S_ISREG(st.st_mode)) {
		g_ptr_array_add(out, normalize_path(arg));
		return true;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "chainsim conform: %s: neither a file nor a folder\n", arg);
		return false;
	}
	DIR *d = opendir(arg);
	if (!d) {
		fprintf(stderr, "chainsim conform: %s: %s\n", arg, strerror(errno));
		return false;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= 6 || strcmp(e->d_name + len - 6, ".chain") != 0)
			continue;
		char *full = g_build_filename(arg, e->d_name, NULL);
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
			g_ptr_array_add(out, normalize_path(full));
		g_free(full);
	}
	closedir(d);
	return true;
}

/* Sorted, without repeats: the fixed order every report uses. */
static void sort_unique(GPtrArray *a)
{
	if (a->len < 2)
		return; /* pdata may be NULL, which qsort must not see */
	qsort(a->pdata, a->len, sizeof(char *), cmp_str);
	guint w = 0;
	for (guint r = 0; r < a->len; r++) {
		if (w && !strcmp(a->pdata[w - 1], a->pdata[r]))
			g_free(a->pdata[r]);
		else
			a->pdata[w++] = a->pdata[r];
	}
	g_ptr_array_set_size(a, w);
}

static bool parse_shard(const char *text, unsigned *k, unsigned *n)
{
	char *end;
	errno = 0;
	unsigned long kk = strtoul(text, &end, 10);
	if (end == text || *end != '/' || errno)
		return false;
	const char *ns = end + 1;
	unsigned long nn = strtoul(ns, &end, 10);
	if (end == ns || *end || errno || nn == 0 || nn > 1000000 || kk == 0 || kk > nn)
		return false;
	*k = (unsigned)kk;
	*n = (unsigned)nn;
	return true;
}

static bool env_uint(const char *name, unsigned long *v)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !*end && !errno;
}

/* --shard auto: the slice a scheduler gave this process. Slurm's task ids run
 * from SLURM_ARRAY_TASK_MIN (0 when unset); a Kubernetes Indexed Job's index
 * is 0-based and its count is what the manifest passes as
 * CHAINSIM_SHARD_COUNT; a CI matrix sets CHAINSIM_SHARD=K/N itself. */
static bool shard_auto(unsigned *k, unsigned *n, char *why, size_t whylen)
{
	const char *ci = getenv("CHAINSIM_SHARD");
	if (ci && *ci) {
		if (parse_shard(ci, k, n))
			return true;
		snprintf(why, whylen, "CHAINSIM_SHARD='%s' is not K/N with 1 <= K <= N", ci);
		return false;
	}
	unsigned long id, count, min = 0, idx;
	if (env_uint("SLURM_ARRAY_TASK_ID", &id)) {
		if (!env_uint("SLURM_ARRAY_TASK_COUNT", &count) || count == 0) {
			snprintf(why, whylen, "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not");
			return false;
		}
		env_uint("SLURM_ARRAY_TASK_MIN", &min);
		if (id < min || id - min >= count) {
			snprintf(why, whylen, "SLURM_ARRAY_TASK_ID=%lu is outside %lu..%lu "
				 "(the array must be contiguous)", id, min, min + count - 1);
			return false;
		}
		*k = (unsigned)(id - min + 1);
		*n = (unsigned)count;
		return true;
	}
	if (env_uint("JOB_COMPLETION_INDEX", &idx)) {
		if (!env_uint("CHAINSIM_SHARD_COUNT", &count) || count == 0 || idx >= count) {
			snprintf(why, whylen, "JOB_COMPLETION_INDEX is set but CHAINSIM_SHARD_COUNT "
				 "is missing or not above it (set it to the Job's completions)");
			return false;
		}
		*k = (unsigned)idx + 1;
		*n = (unsigned)count;
		return true;
	}
	snprintf(why, whylen, "none of CHAINSIM_SHARD, SLURM_ARRAY_TASK_ID or "
		 "JOB_COMPLETION_INDEX is set");
	return false;
}

/* ---- one case, in a worker ------------------------------------------ */

/* The `# run:` lines: this case's executor options, over the command line's
 * in *o. False with a located reason. */
static bool read_run_lines(const char *path, const char *text, cs_run_opts *o, char *why,
			   size_t whylen)
{
	uint32_t line = 1;
	for (const char *l = text; *l; line++) {
		const char *eol = strchr(l, '\n');
		size_t len = eol ? (size_t)(eol - l) : strlen(l);
		if (len >= 6 && !strncmp(l, "# run:", 6)) {
			char *opts = g_strndup(l + 6, len - 6);
			char **words = g_strsplit_set(opts, " \t\r", -1);
			bool ok = true;
			for (char **w = words; ok && *w; w++) {
				if (!**w || cs_exec_option_word(*w, o))
					continue;
				char known[512];
				cs_exec_options_list(known, sizeof(known));
				snprintf(why, whylen, "%s:%u: '# run:' option '%s' is not one conform "
					 "knows (%s) with a valid value", path, line, *w, known);
				ok = false;
			}
			g_strfreev(words);
			g_free(opts);
			if (!ok)
				return false;
		}
		if (!eol)
			break;
		l = eol + 1;
	}
	return true;
}

/* A case whose expectations all held is still not a pass when its chain could
 * not be judged to its end (no break, a stage not observable) and no
 * expectation states that stage's not-observable: CONFORM_RC_UNOBSERVABLE
 * then, with the reason; else CS_EXIT_OK. */
static int unobserved(const cs_scenario *s, cs_device *dev, char *why, size_t whylen)
{
	for (size_t i = 0; i < cs_scenario_expect_count(s); i++)
		if (strstr(cs_scenario_expect(s, i)->text, "not-observable"))
			return CS_EXIT_OK;
	cs_report *r = cs_report_build(dev);
	if (!r) {
		snprintf(why, whylen, "out of memory judging the chain");
		return CS_EXIT_INTERNAL;
	}
	const cs_chain *c = &r->overall;
	int rc = CS_EXIT_OK;
	if (c->first_break == CS_STAGE_NONE && c->unobservable != CS_STAGE_NONE) {
		snprintf(why, whylen, "%s: not judged: every expectation held, but the chain is not "
			 "observable from stage %d (%s) [%s]: %.400s", cs_scenario_name(s),
			 (int)c->unobservable, cs_stage_name(c->unobservable), cs_cause_key(c->cause),
			 c->diagnosis);
		rc = CONFORM_RC_UNOBSERVABLE;
	}
	cs_report_free(r);
	return rc;
}

/* A step of a case that failed with st: unavailable, internal or bad input. */
static int status_answer(cs_status st)
{
	return st == CS_ERR_UNAVAILABLE			       ? CS_EXIT_UNAVAILABLE
	       : st == CS_ERR_INTERNAL || st == CS_ERR_NOMEM ? CS_EXIT_INTERNAL
							      : CS_EXIT_INPUT;
}

/* Runs one case; returns the status the worker answers with (0 pass, 1 an
 * expectation failed, 2 bad input, 3 unavailable, 4 internal, 5 unobservable)
 * and the reason. */
static int run_case(const char *path, const conform_opts *co, char *why, size_t whylen)
{
	cs_diag d;
	cs_diag_clear(&d);
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	bool from_stdin = !strcmp(path, CS_FILE_STDIN);
	char *read = NULL;
	size_t len = co->stdin_len;
	if (!from_stdin && !cs_file_read(path, CS_FILE_MAX_TEXT, "the case", &read, &len, &d)) {
		cs_diag_format(&d, msg, sizeof(msg));
		g_strlcpy(why, msg, whylen);
		return d.status == CS_ERR_NOMEM ? CS_EXIT_INTERNAL : CS_EXIT_INPUT;
	}
	const char *text = from_stdin ? co->stdin_text : read;
	cs_run_opts ro = co->exec;
	bool ok = read_run_lines(cs_file_name(path), text, &ro, why, whylen);
	/* the text read once: its run lines and its scenario are the same version */
	cs_scenario *s = ok ? cs_scenario_parse(text, len, cs_file_name(path), NULL, &d) : NULL;
	free(read);
	if (!ok)
		return CS_EXIT_INPUT;
	if (!s) {
		cs_diag_format(&d, msg, sizeof(msg));
		g_strlcpy(why, msg, whylen);
		return status_answer(d.status);
	}
	if (strcmp(co->backend, "sim") != 0) {
		snprintf(why, whylen, "backend %s is not available in this build", co->backend);
		cs_scenario_free(s);
		return CS_EXIT_UNAVAILABLE;
	}
	/* cases running side by side (--jobs) each take one host thread for CTAs */
	if (!ro.threads && co->jobs > 1)
		ro.threads = 1;
	cs_run run;
	int rc = CS_EXIT_OK;
	if (!cs_run_scenario(s, &ro, CS_RUN_JUDGE_NONE, &run, &d)) {
		cs_diag_format(&d, msg, sizeof(msg));
		g_strlcpy(why, msg, whylen);
		/* a device that cannot be made is not the case's fault */
		rc = run.dev || d.status == CS_ERR_UNAVAILABLE ? status_answer(d.status)
							       : CS_EXIT_INTERNAL;
	} else if (cs_scenario_expect_count(s) == 0) {
		/* the outcomes exist only after the run: one per expect line */
		snprintf(why, whylen, "%s: refused: no expect line (a case states what it expects)",
			 cs_file_name(path));
		rc = CS_EXIT_INPUT;
	} else {
		for (size_t i = 0; i < cs_scenario_expect_count(s); i++) {
			const cs_expect_outcome *o = cs_scenario_expect(s, i);
			if (!o->held) {
				snprintf(why, whylen, "%s:%u: expect failed: %s (%s)",
					 cs_file_name(path), o->line, o->text, o->detail);
				rc = CS_EXIT_BROKEN;
				break;
			}
		}
		if (rc == CS_EXIT_OK)
			rc = unobserved(s, run.dev, why, whylen);
	}
	cs_run_clear(&run);
	cs_scenario_free(s);
	return rc;
}

/* ---- the workers: one process runs cases until one crashes or hangs ------ */

/* Workers take the next case themselves from a counter in memory they share
 * with the parent, so that no case waits for the parent to be scheduled (on a
 * VM, waking another CPU costs an interrupt to the hypervisor). Each answers a
 * case with "<index> <rc> <peak KiB> <seconds> <reason>" and a NUL, in one
 * write under PIPE_BUF, so a parent that reads late never blocks it. Its slot
 * says which case it runs and since when: a worker that ends without
 * answering took that case down with it, and the parent judges the case
 * crashed (or timed out, when the parent killed it) and starts a new worker. */
enum { NO_CASE = UINT32_MAX };

typedef struct worker_slot {
	_Atomic uint32_t current;     /* the case it runs, or NO_CASE */
	_Atomic uint64_t started_ns;  /* CLOCK_MONOTONIC when it took that case */
} worker_slot;

typedef struct shared_work {
	_Atomic uint32_t next; /* the next case to take; past the last: none left */
	worker_slot slot[];
} shared_work;

typedef struct worker {
	pid_t pid;	/* 0: no process in this slot */
	int result_fd;	/* answers from it */
	bool killed;	/* killed by the parent when its case timed out */
	char buf[2 * (CONFORM_REASON_MAX + 64)];
	size_t len;
} worker;

/* The worker's view of its own peak resident set: /proc/self/clear_refs and
 * /proc/self/status, opened once (-1 where there is no /proc). */
typedef struct peak_rss {
	int clear_fd, status_fd;
} peak_rss;

static peak_rss peak_rss_open(void)
{
	return (peak_rss){ open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC),
			   open("/proc/self/status", O_RDONLY | O_CLOEXEC) };
}

/* Starts a new peak: Linux resets the high-water mark when "5" is written to
 * clear_refs; where it cannot, the peak stays the worker's since it began. */
static void peak_rss_reset(const peak_rss *p)
{
	if (p->clear_fd >= 0) {
		ssize_t w = pwrite(p->clear_fd, "5", 1, 0);
		(void)w;
	}
}

/* The peak resident set since peak_rss_reset, in KiB. */
static long peak_rss_kib(const peak_rss *p)
{
	long kib = 0;
	char text[4096];
	ssize_t got = p->status_fd >= 0 ? pread(p->status_fd, text, sizeof(text) - 1, 0) : -1;
	const char *hwm = got > 0 ? (text[got] = 0, strstr(text, "\nVmHWM:")) : NULL;
	if (hwm)
		kib = strtol(hwm + 7, NULL, 10);
	if (kib <= 0) { /* no /proc: the process's peak from getrusage */
		struct rusage ru;
		if (getrusage(RUSAGE_SELF, &ru) == 0)
			kib = ru.ru_maxrss;
	}
	return kib;
}

static _Noreturn void worker_main(const conform_opts *co, const conform_case *cases, size_t n,
				  shared_work *sh, worker_slot *me, int result_fd)
{
	int devnull = open("/dev/null", O_WRONLY);
	if (devnull >= 0) {
		dup2(devnull, STDOUT_FILENO);
		close(devnull);
	}
	peak_rss peak = peak_rss_open();
	for (;;) {
		uint32_t idx = atomic_fetch_add(&sh->next, 1);
		if (idx >= n)
			_exit(0);
		uint64_t t0 = now_ns();
		atomic_store(&me->started_ns, t0);
		atomic_store(&me->current, idx);
		const char *path = cases[idx].path;
		if (co->inject_crash && strstr(path, co->inject_crash)) {
			signal(SIGSEGV, SIG_DFL);
			raise(SIGSEGV);
		}
		if (co->inject_hang && strstr(path, co->inject_hang))
			for (;;)
				pause();
		peak_rss_reset(&peak);
		char why[CONFORM_REASON_MAX] = "";
		int rc = run_case(path, co, why, sizeof(why));
		char line[CONFORM_REASON_MAX + 64];
		int len = snprintf(line, sizeof(line), "%u %d %ld %.6f %s", idx, rc,
				   peak_rss_kib(&peak), (double)(now_ns() - t0) / 1e9, why);
		if (len > (int)sizeof(line) - 1)
			len = (int)sizeof(line) - 1;
		if (write(result_fd, line, (size_t)len + 1) != (ssize_t)len + 1)
			_exit(CS_EXIT_INTERNAL);
		atomic_store(&me->current, NO_CASE);
		if (co->isolate)
			_exit(0);
	}
}

static bool start_worker(const conform_opts *co, const conform_case *cases, size_t n,
			 shared_work *sh, worker *all, size_t nall, size_t i)
{
	int res[2];
	if (pipe2(res, O_CLOEXEC) != 0)
		return false;
	atomic_store(&sh->slot[i].current, NO_CASE);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(res[0]), close(res[1]);
		return false;
	}
	if (pid == 0) {
		/* the other workers' pipes, so that each sees its own end close */
		for (size_t k = 0; k < nall; k++)
			if (all[k].pid)
				close(all[k].result_fd);
		close(res[0]);
		worker_main(co, cases, n, sh, &sh->slot[i], res[1]);
	}
	close(res[1]);
	all[i] = (worker){ .pid = pid, .result_fd = res[0] };
	return true;
}

static const char *signal_name(int sig)
{
	const char *n = sigabbrev_np(sig);
	return n ? n : "?";
}

/* One answer; false when it is not one (the worker is then judged crashed). */
static bool case_answered(const char *a, conform_case *cases, size_t n)
{
	char *end;
	unsigned long idx = strtoul(a, &end, 10);
	long rc = *end == ' ' ? strtol(end + 1, &end, 10) : -1;
	long kib = *end == ' ' ? strtol(end + 1, &end, 10) : -1;
	double s = *end == ' ' ? strtod(end + 1, &end) : -1;
	if (*end != ' ' || idx >= n || rc < 0 || rc > 255 || kib < 0 || s < 0 ||
	    cases[idx].outcome != CONFORM_PENDING)
		return false;
	conform_case *c = &cases[idx];
	c->seconds = s;
	c->exit_code = (int)rc;
	c->peak_rss_kib = kib;
	snprintf(c->reason, sizeof(c->reason), "%s", end + 1);
	c->outcome = c->exit_code == CS_EXIT_OK		 ? CONFORM_PASS
		     : c->exit_code == CS_EXIT_UNAVAILABLE ? CONFORM_UNAVAILABLE
		     : c->exit_code == CONFORM_RC_UNOBSERVABLE ? CONFORM_UNOBSERVABLE
							   : CONFORM_FAIL;
	return true;
}

/* Worker i's result pipe closed (or it answered garbage): reap it, and judge
 * the case it was running, if it had not answered, as crashed or timed out.
 * Returns the cases settled. */
static size_t worker_ended(worker *all, size_t i, shared_work *sh, conform_case *cases,
			   size_t n, bool garbage)
{
	worker *w = &all[i];
	int st = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	if (garbage)
		kill(w->pid, SIGKILL);
	close(w->result_fd);
	while (wait4(w->pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	w->pid = 0;
	uint32_t idx = atomic_load(&sh->slot[i].current);
	if (idx >= n || cases[idx].outcome != CONFORM_PENDING)
		return 0;
	conform_case *c = &cases[idx];
	c->seconds = (double)(now_ns() - atomic_load(&sh->slot[i].started_ns)) / 1e9;
	c->peak_rss_kib = ru.ru_maxrss;
	c->exit_code = -1;
	c->outcome = CONFORM_CRASHED;
	if (garbage) {
		snprintf(c->reason, sizeof(c->reason), "crashed: its worker answered garbage");
	} else if (w->killed) {
		c->outcome = CONFORM_TIMEOUT;
		c->signal = SIGKILL;
		snprintf(c->reason, sizeof(c->reason), "timed out after %.1f s: killed", c->seconds);
	} else if (WIFSIGNALED(st)) {
		c->signal = WTERMSIG(st);
		snprintf(c->reason, sizeof(c->reason), "crashed: killed by signal %d (SIG%s)",
			 c->signal, signal_name(c->signal));
	} else {
		c->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		snprintf(c->reason, sizeof(c->reason), "crashed: exited %d without a result",
			 c->exit_code);
	}
	return 1;
}

/* Reads what worker i has to say; returns the cases it settled (answered,
 * or lost when the worker ended). */
static size_t worker_readable(worker *all, size_t i, shared_work *sh, conform_case *cases,
			      size_t n)
{
	worker *w = &all[i];
	ssize_t got = read(w->result_fd, w->buf + w->len, sizeof(w->buf) - 1 - w->len);
	if (got < 0 && errno == EINTR)
		return 0;
	if (got <= 0)
		return worker_ended(all, i, sh, cases, n, false);
	w->len += (size_t)got;
	w->buf[w->len] = 0;
	size_t settled = 0, used = 0;
	char *nul;
	while ((nul = memchr(w->buf + used, 0, w->len - used))) {
		if (!case_answered(w->buf + used, cases, n))
			return settled + worker_ended(all, i, sh, cases, n, true);
		settled++;
		used = (size_t)(nul - w->buf) + 1;
	}
	memmove(w->buf, w->buf + used, w->len - used);
	w->len -= used;
	if (w->len >= sizeof(w->buf) - 1) /* an answer longer than any answer */
		settled += worker_ended(all, i, sh, cases, n, true);
	return settled;
}

/* ---- the parent: workers, progress, results ---------------------------- */

static void print_case(FILE *out, const conform_case *c)
{
	static const char *const tag[] = { [CONFORM_PASS] = "PASS",
					   [CONFORM_FAIL] = "FAIL",
					   [CONFORM_CRASHED] = "CRASH",
					   [CONFORM_TIMEOUT] = "TIMEOUT",
					   [CONFORM_UNAVAILABLE] = "UNAVAIL",
					   [CONFORM_UNOBSERVABLE] = "UNOBS" };
	const char *t = c->outcome >= CONFORM_PASS && c->outcome <= CONFORM_UNOBSERVABLE
				? tag[c->outcome] : "?";
	if (c->outcome == CONFORM_PASS)
		fprintf(out, "%-7s %s (%.2f s)\n", t, c->path, c->seconds);
	else
		fprintf(out, "%-7s %s: %s\n", t, c->path, c->reason);
}

static void progress(const conform_case *cases, size_t n, size_t done, double t0)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += cases[i].outcome != CONFORM_PENDING && cases[i].outcome != CONFORM_PASS;
	double el = now_s() - t0;
	fprintf(stderr, "\r\033[K[%zu/%zu] %zu not passed, %.1f s elapsed", done, n, bad, el);
	if (done)
		fprintf(stderr, ", about %.1f s left", el / (double)done * (double)(n - done));
	fflush(stderr);
}

static bool run_all(const conform_opts *co, conform_case *cases, size_t n)
{
	size_t nw = co->jobs < n ? co->jobs : n;
	worker *w = calloc(nw, sizeof(*w));
	struct pollfd *pfd = calloc(nw, sizeof(*pfd));
	size_t shlen = sizeof(shared_work) + nw * sizeof(worker_slot);
	shared_work *sh = mmap(NULL, shlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			       -1, 0);
	if (!w || !pfd || sh == MAP_FAILED) {
		free(w);
		free(pfd);
		if (sh != MAP_FAILED)
			munmap(sh, shlen);
		return false;
	}
	atomic_store(&sh->next, 0);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
	sigaction(SIGPIPE, &ign, &old_pipe);
	size_t done = 0, printed = 0;
	double t0 = now_s(), last_progress = 0;
	bool ok = true;
	for (;;) {
		/* a worker for every free slot while cases are left to take */
		for (size_t i = 0; ok && i < nw && atomic_load(&sh->next) < n; i++) {
			if (w[i].pid)
				continue;
			if (!start_worker(co, cases, n, sh, w, nw, i)) {
				fprintf(stderr, "chainsim conform: cannot start a worker: %s\n",
					strerror(errno));
				ok = false;
			}
		}
		size_t np = 0;
		double wait_s = 0.25;
		for (size_t i = 0; i < nw; i++) {
			if (!w[i].pid)
				continue;
			uint32_t idx = atomic_load(&sh->slot[i].current);
			/* the start read between two reads of the same case is that
			 * case's; the clock read after it, so that a case taken since
			 * cannot look older than it is */
			uint64_t started = atomic_load(&sh->slot[i].started_ns), now = now_ns();
			if (idx != NO_CASE && idx == atomic_load(&sh->slot[i].current)) {
				double left = co->timeout_s -
					      (now > started ? (double)(now - started) / 1e9 : 0);
				if (left <= 0 && !w[i].killed) {
					kill(w[i].pid, SIGKILL);
					w[i].killed = true;
				}
				if (left > 0 && left < wait_s)
					wait_s = left;
			}
			pfd[np++] = (struct pollfd){ .fd = w[i].result_fd, .events = POLLIN };
		}
		if (!np)
			break;
		int pr = poll(pfd, np, (int)(wait_s * 1000) + 1);
		if (pr < 0 && errno != EINTR) {
			ok = false;
			break;
		}
		for (size_t i = 0, p = 0; pr > 0 && i < nw; i++) {
			if (!w[i].pid)
				continue;
			if (pfd[p++].revents)
				done += worker_readable(w, i, sh, cases, n);
		}
		while (printed < n && cases[printed].outcome != CONFORM_PENDING) {
			if (co->progress)
				fputs("\r\033[K", stderr);
			print_case(stdout, &cases[printed++]);
			fflush(stdout);
		}
		if (co->progress && (now_s() - last_progress > 0.2 || done == n)) {
			progress(cases, n, done, t0);
			last_progress = now_s();
		}
	}
	if (ok && done < n) {
		fprintf(stderr, "chainsim conform: %zu of %zu cases were never settled\n", n - done, n);
		ok = false;
	}
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (co->progress)
		fputs("\r\033[K", stderr);
	munmap(sh, shlen);
	free(w);
	free(pfd);
	return ok;
}

/* ---- the command -------------------------------------------------------- */

enum { OPT_BACKEND = 0x200, OPT_TIMEOUT, OPT_FILTER, OPT_SHARD, OPT_JSON, OPT_JUNIT,
       OPT_ALLOW_UNAVAILABLE, OPT_ALLOW_UNOBSERVABLE, OPT_NO_PROGRESS, OPT_ISOLATE, OPT_INJECT_CRASH, OPT_INJECT_HANG };

static const struct option conform_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "jobs", required_argument, NULL, 'j' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "allow-unavailable", no_argument, NULL, OPT_ALLOW_UNAVAILABLE },
	{ "allow-unobservable", no_argument, NULL, OPT_ALLOW_UNOBSERVABLE },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "isolate", no_argument, NULL, OPT_ISOLATE },
	{ "test-inject-crash", required_argument, NULL, OPT_INJECT_CRASH },
	{ "test-inject-hang", required_argument, NULL, OPT_INJECT_HANG },
#define X CS_EXEC_LONG_OPTION
#include "exec_options.def"
#undef X
	{ 0 },
};

/* chainsim conform merge [--json F] [--junit F] [--allow-unavailable] FILE... */
static int conform_merge_command(int argc, char **argv)
{
	conform_merge_opts o = { 0 };
	cs_cli_begin();
	for (int c, li = -1; (c = getopt_long(argc, argv, ":h", conform_options, &li)) != -1;
	     li = -1) {
		switch (c) {
		case 'h':
			conform_usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case OPT_JSON:
			o.json_out = optarg;
			break;
		case OPT_JUNIT:
			o.junit_out = optarg;
			break;
		case OPT_ALLOW_UNAVAILABLE:
			o.allow_unavailable = true;
			break;
		case OPT_ALLOW_UNOBSERVABLE:
			o.allow_unobservable = true;
			break;
		case '?':
		case ':':
			return cs_cli_bad_option("conform merge", c, argv, conform_usage);
		default: /* a run's option, named by its table entry (-j is jobs) */
			fprintf(stderr, "chainsim conform merge: --%s is for a run, not a merge\n",
				li >= 0 ? conform_options[li].name : "jobs");
			return CS_EXIT_INPUT;
		}
	}
	return conform_merge(&o, argv + optind, (size_t)(argc - optind));
}

/* The command line into *co: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, conform_opts *co, bool *shard_is_auto)
{
	cs_cli_begin();
	for (int c; (c = getopt_long(argc, argv, ":hj:", conform_options, NULL)) != -1;) {
		const cs_exec_option *row = cs_exec_option_of(c);
		char *end;
		switch (c) {
		case 'h':
			conform_usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case OPT_BACKEND:
			co->backend = optarg;
			if (strcmp(co->backend, "sim") && strcmp(co->backend, "hw")) {
				fprintf(stderr, "chainsim conform: --backend is sim or hw, not '%s'\n",
					co->backend);
				return CS_EXIT_INPUT;
			}
			break;
		case 'j': {
			unsigned long j = strtoul(optarg, &end, 10);
			if (*end || j == 0 || j > 1024 || optarg[0] == '-') {
				fprintf(stderr, "chainsim conform: --jobs takes 1..1024, not '%s'\n",
					optarg);
				return CS_EXIT_INPUT;
			}
			co->jobs = (unsigned)j;
			break;
		}
		case OPT_TIMEOUT:
			co->timeout_s = strtod(optarg, &end);
			if (*end || !(co->timeout_s > 0) || co->timeout_s > 86400) {
				fprintf(stderr, "chainsim conform: --timeout takes seconds, not '%s'\n",
					optarg);
				return CS_EXIT_INPUT;
			}
			break;
		case OPT_FILTER:
			co->filter = optarg;
			break;
		case OPT_SHARD:
			if (!strcmp(optarg, "auto")) {
				*shard_is_auto = true;
			} else if (!parse_shard(optarg, &co->shard_index, &co->shard_count)) {
				fprintf(stderr, "chainsim conform: --shard is K/N with 1 <= K <= N, "
					"or auto, not '%s'\n", optarg);
				return CS_EXIT_INPUT;
			}
			break;
		case OPT_JSON:
			co->json_out = optarg;
			break;
		case OPT_JUNIT:
			co->junit_out = optarg;
			break;
		case OPT_ALLOW_UNAVAILABLE:
			co->allow_unavailable = true;
			break;
		case OPT_ALLOW_UNOBSERVABLE:
			co->allow_unobservable = true;
			break;
		case OPT_NO_PROGRESS:
			co->progress = false;
			break;
		case OPT_ISOLATE:
			co->isolate = true;
			break;
		case OPT_INJECT_CRASH:
			co->inject_crash = optarg;
			break;
		case OPT_INJECT_HANG:
			co->inject_hang = optarg;
			break;
		default:
			if (!row)
				return cs_cli_bad_option("conform", c, argv, conform_usage);
			if (!cs_exec_option_take("conform", row, optarg, &co->exec))
				return CS_EXIT_INPUT;
		}
	}
	return -1;
}

/* The case named - (one at most), read from standard input into *text
 * before the workers start. False after saying why. */
static bool read_stdin_case(char **paths, size_t n, conform_opts *co, char **text)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(paths[i], CS_FILE_STDIN))
			continue;
		if (*text) {
			fprintf(stderr, "chainsim conform: standard input (-) holds one case, "
				"given twice\n");
			return false;
		}
		cs_diag d;
		cs_diag_clear(&d);
		if (!cs_file_read(CS_FILE_STDIN, CS_FILE_MAX_TEXT, "the case", text, &co->stdin_len,
				  &d)) {
			char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 8];
			cs_diag_format(&d, msg, sizeof(msg));
			fprintf(stderr, "chainsim conform: %s\n", msg);
			return false;
		}
		co->stdin_text = *text;
	}
	return true;
}

/* The cases PATH... name, after --filter, sorted and each once, into all
 * (g_strdup'd paths). False after saying why. */
static bool collect_cases(const conform_opts *co, char **paths, size_t n, GPtrArray *all)
{
	for (size_t i = 0; i < n; i++)
		if (!add_path(all, paths[i]))
			return false;
	if (co->filter) {
		regex_t re;
		int e = regcomp(&re, co->filter, REG_EXTENDED | REG_NOSUB);
		if (e) {
			char eb[256];
			regerror(e, &re, eb, sizeof(eb));
			fprintf(stderr, "chainsim conform: --filter '%s': %s\n", co->filter, eb);
			return false;
		}
		guint w = 0;
		for (guint r = 0; r < all->len; r++) {
			if (regexec(&re, all->pdata[r], 0, NULL, 0) == 0)
				all->pdata[w++] = all->pdata[r];
			else
				g_free(all->pdata[r]);
		}
		g_ptr_array_set_size(all, w);
		regfree(&re);
	}
	sort_unique(all);
	if (!all->len) {
		fprintf(stderr, "chainsim conform: no case selected%s%s%s: nothing to judge\n",
			co->filter ? " (--filter '" : "", co->filter ? co->filter : "",
			co->filter ? "')" : "");
		return false;
	}
	return true;
}

/* Runs this shard's slice of the cases in all, prints the summary, writes
 * the result files; the exit status. */
static int run_selected(const conform_opts *co, GPtrArray *all)
{
	conform_case *cases = calloc(all->len, sizeof(*cases));
	size_t n = 0;
	if (!cases)
		return CS_EXIT_INTERNAL;
	for (guint i = 0; i < all->len; i++)
		if (path_hash(all->pdata[i]) % co->shard_count == co->shard_index - 1)
			cases[n++].path = all->pdata[i];
	if (!n) {
		fprintf(stderr, "chainsim conform: shard %u/%u selects none of the %u cases: "
			"use fewer shards\n", co->shard_index, co->shard_count, all->len);
		free(cases);
		return CS_EXIT_INPUT;
	}
	if (!run_all(co, cases, n)) {
		free(cases);
		return CS_EXIT_INTERNAL;
	}
	conform_summary sum = conform_summarize(cases, n);
	conform_print_summary(stdout, &sum);
	int rc = conform_exit_status(&sum, co->allow_unavailable, co->allow_unobservable);
	conform_meta meta = { .backend = co->backend, .shard_index = co->shard_index,
			      .shard_count = co->shard_count, .filter = co->filter,
			      .selection = (char *const *)all->pdata, .nselection = all->len,
			      .allow_unavailable = co->allow_unavailable,
			      .allow_unobservable = co->allow_unobservable };
	char err[256];
	if (co->json_out && !conform_write_json(co->json_out, &meta, cases, n, err, sizeof(err))) {
		fprintf(stderr, "chainsim conform: --json %s: %s\n", co->json_out, err);
		rc = CS_EXIT_INTERNAL;
	}
	if (co->junit_out && !conform_write_junit(co->junit_out, cases, n, err, sizeof(err))) {
		fprintf(stderr, "chainsim conform: --junit %s: %s\n", co->junit_out, err);
		rc = CS_EXIT_INTERNAL;
	}
	free(cases);
	return rc;
}

int cs_cmd_conform(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return conform_merge_command(argc - 1, argv + 1);
	conform_opts co = { .backend = "sim", .jobs = 1, .timeout_s = 120,
			    .progress = isatty(STDERR_FILENO) };
	bool shard_is_auto = false;
	int rc = parse_args(argc, argv, &co, &shard_is_auto);
	if (rc >= 0)
		return rc;
	char **paths = argv + optind;
	size_t npaths = (size_t)(argc - optind);
	char *stdin_case = NULL, why[256];
	rc = CS_EXIT_INPUT;
	if (!read_stdin_case(paths, npaths, &co, &stdin_case))
		goto out;
	if (shard_is_auto && !shard_auto(&co.shard_index, &co.shard_count, why, sizeof(why))) {
		fprintf(stderr, "chainsim conform: --shard auto: %s\n", why);
		goto out;
	}
	if (!co.shard_count)
		co.shard_index = co.shard_count = 1;
	if (!npaths) {
		fprintf(stderr, "chainsim conform: no case or folder given\n");
		conform_usage(stderr);
		goto out;
	}
	GPtrArray *all = g_ptr_array_new(); /* of g_strdup'd paths */
	if (collect_cases(&co, paths, npaths, all))
		rc = run_selected(&co, all);
	for (guint i = 0; i < all->len; i++)
		g_free(all->pdata[i]);
	g_ptr_array_free(all, TRUE);
out:
	free(stdin_case);
	return rc;
}

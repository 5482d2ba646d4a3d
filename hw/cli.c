/* SPDX-License-Identifier: MIT */
/* chainsim-hw's command line, shared by the real binary and the fake-RM one:
 * read the capture (hostile), block the stopping signals so the replay can
 * release what it holds when one arrives, replay, write the results. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s CAPTURE -o RESULTS [--timeout S] [--wait-timeout S] [--settle-ms MS]\n"
		"\n"
		"Replays CAPTURE (written by `chainsim export`) on the GPU through the kernel\n"
		"driver's RM interface and writes the observables to RESULTS, for\n"
		"`chainsim diff --hw-results RESULTS CAPTURE` (docs/capture.md).\n"
		"\n"
		"  --timeout S       stop the whole replay after S seconds (default 60)\n"
		"  --wait-timeout S  record a wait unmet after S seconds (default 2)\n"
		"  --settle-ms MS    after a submission, let the GPU run up to MS (default 50)\n"
		"\n"
		"exit status: 0 replayed, every wait met and no channel error; 1 replayed, a\n"
		"wait unmet or a channel error; 2 bad capture or usage; 3 no device or a\n"
		"driver this build does not know (nothing ran); 4 an RM call failed or the\n"
		"replay timed out. Every RM object is released on every path, a signal\n"
		"(INT, TERM, HUP, QUIT) included.\n", prog);
}

static bool seconds(const char *t, uint64_t scale, uint64_t *out)
{
	char *end;
	double v = strtod(t, &end);
	if (*end || !(v > 0) || v > 3600)
		return false;
	*out = (uint64_t)(v * (double)scale);
	return true;
}

int cs_hw_main(int argc, char **argv, const cs_hw_rm_ops *ops, void *rm)
{
	const char *prog = argc ? argv[0] : "chainsim-hw", *capfile = NULL, *out = NULL;
	cs_hw_limits lim = { .wait_ns = 2000000000ull, .settle_ns = 50000000ull,
			     .total_ns = 60000000000ull };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout, prog);
			return CS_HW_EXIT_OK;
		} else if (!strcmp(a, "-o") && v) {
			out = argv[++i];
		} else if (!strcmp(a, "--timeout") && v && seconds(v, 1000000000ull, &lim.total_ns)) {
			i++;
		} else if (!strcmp(a, "--wait-timeout") && v && seconds(v, 1000000000ull, &lim.wait_ns)) {
			i++;
		} else if (!strcmp(a, "--settle-ms") && v && seconds(v, 1000000ull, &lim.settle_ns)) {
			i++;
		} else if (a[0] == '-' || capfile) {
			fprintf(stderr, "%s: unexpected argument '%s'\n", prog, a);
			usage(stderr, prog);
			return CS_HW_EXIT_INPUT;
		} else {
			capfile = a;
		}
	}
	if (!capfile || !out) {
		fprintf(stderr, "%s: needs a CAPTURE and -o RESULTS\n", prog);
		usage(stderr, prog);
		return CS_HW_EXIT_INPUT;
	}
	cs_diag d;
	cs_diag_clear(&d);
	cs_capture *c = cs_capture_load(capfile, &d);
	if (!c) {
		char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "%s: %s\n", prog, msg);
		return d.status == CS_ERR_NOMEM ? CS_HW_EXIT_INTERNAL : CS_HW_EXIT_INPUT;
	}
	/* Stopping signals wait while blocked; the replay looks for them at each
	 * step and poll, and releases everything before it honours one. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);

	fprintf(stderr, "%s: replaying %s (%zu records) through %s\n", prog, capfile, c->nitems,
		ops->name);
	cs_results res;
	char why[CS_HW_WHY_MAX];
	int sig = 0;
	int rc = cs_hw_replay(c, ops, rm, &lim, &res, &sig, why);
	if (rc == CS_HW_EXIT_OK || rc == CS_HW_EXIT_BROKEN) {
		errno = 0;
		FILE *f = fopen(out, "w");
		bool ok = f && cs_results_write(&res, f);
		if (f && fclose(f))
			ok = false;
		if (!ok) {
			fprintf(stderr, "%s: -o %s: cannot write the results (%zu records): %s\n", prog,
				out, res.nrecs, errno ? strerror(errno) : "write error");
			rc = CS_HW_EXIT_INTERNAL;
		} else {
			fprintf(stderr, "%s: %s: %u submissions replayed (%s %s), results in %s\n", prog,
				capfile, res.ran, res.backend, res.driver, out);
		}
	} else {
		fprintf(stderr, "%s: %s%s\n", prog,
			rc == CS_HW_EXIT_UNAVAILABLE ? "no device: " : "", why);
		if (rc == CS_HW_EXIT_UNAVAILABLE)
			fprintf(stderr, "%s: nothing ran; no results written\n", prog);
	}
	cs_results_clear(&res);
	cs_capture_free(c);
	if (sig) {
		/* every object is released: now honour the signal */
		fprintf(stderr, "%s: released every RM object; signal %d\n", prog, sig);
		fflush(stderr);
		signal(sig, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		raise(sig);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

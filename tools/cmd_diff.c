/* chainsim diff --hw-results FILE CAPTURE: compare a results file from a GPU
 * machine (chainsim-hw) with the simulator's replay of the same capture, stage
 * by stage where hardware can observe them, and name the first divergence. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/file.h"
#include "chainsim/results.h"
#include "chainsim/stage.h"

#include "cli.h"
#include "commands.h"

static void diff_usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim diff --hw-results FILE CAPTURE\n"
		"\n"
		"Replays CAPTURE on the simulator and compares its observables with FILE, the\n"
		"results chainsim-hw wrote for the same capture: stage 2 (submissions), 4\n"
		"(GP_GET, where the GPU shows it), 5 (channel errors and host semaphores), 9\n"
		"(the memory the scenario expects), 10 (engine releases), 11 (waits). Prints\n"
		"one line per stage and the first divergence.\n"
		"\n"
		"  --hw-results FILE  the results chainsim-hw wrote\n"
		"  --version          print chainsim's version\n"
		"Either FILE or CAPTURE may be -, standard input; an option's value follows it or\n"
		"an '='.\n"
		"\n"
		"exit status: 0 they agree, 1 they diverge, 2 bad input (a results file that\n"
		"records no run, or one for another capture), 4 internal error.\n");
}

typedef struct verdict {
	unsigned compared;
	bool diverged;
	char first[512];
} verdict;

static void mark(verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mark(verdict *v, const char *fmt, ...)
{
	if (!v->diverged) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(v->first, sizeof(v->first), fmt, ap);
		va_end(ap);
	}
	v->diverged = true;
}

static size_t count_kind(const cs_results *r, cs_results_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nrecs; i++)
		n += r->recs[i].kind == k;
	return n;
}

/* The i-th record of a kind, or NULL. */
static const cs_results_rec *nth(const cs_results *r, cs_results_kind k, size_t i)
{
	for (size_t j = 0; j < r->nrecs; j++)
		if (r->recs[j].kind == k && i-- == 0)
			return &r->recs[j];
	return NULL;
}

static unsigned read_stage(uint64_t kind)
{
	switch (kind) {
	case CS_CAP_RB_WAIT: return 11;
	case CS_CAP_RB_RELEASE: return 10;
	case CS_CAP_RB_HOST_SEM: return 5;
	default: return 9;
	}
}

static void compare(const cs_results *sim, const cs_results *hw, verdict v[12])
{
	/* stages 2 and 4: the submissions, GP_PUT written, GP_GET seen */
	size_t ns = count_kind(sim, CS_RES_SUBMIT), nh = count_kind(hw, CS_RES_SUBMIT);
	for (size_t i = 0; i < ns || i < nh; i++) {
		const cs_results_rec *a = nth(sim, CS_RES_SUBMIT, i), *b = nth(hw, CS_RES_SUBMIT, i);
		v[2].compared++;
		if (!a || !b) {
			mark(&v[2], "submission %zu is only in the %s's results", i, a ? "simulator" : "GPU");
			continue;
		}
		if (a->a != b->a || a->b != b->b)
			mark(&v[2], "submission %zu: simulator channel %" PRIu64 " GP_PUT %" PRIu64
			     ", GPU channel %" PRIu64 " GP_PUT %" PRIu64, i, a->a, a->b, b->a, b->b);
		if (a->c >= 0 && b->c >= 0) {
			v[4].compared++;
			if (a->c != b->c)
				mark(&v[4], "after submission %zu GP_GET is %" PRId64 " on the simulator, %"
				     PRId64 " on the GPU", i, a->c, b->c);
		}
	}
	/* stage 5: channel errors, as sets of (channel, RC); none on both is agreement */
	v[5].compared++;
	for (int side = 0; side < 2; side++) {
		const cs_results *x = side ? hw : sim, *y = side ? sim : hw;
		for (size_t i = 0; i < x->nrecs; i++) {
			const cs_results_rec *e = &x->recs[i];
			if (e->kind != CS_RES_ERROR)
				continue;
			bool found = false;
			for (size_t j = 0; j < y->nrecs && !found; j++)
				found = y->recs[j].kind == CS_RES_ERROR && y->recs[j].a == e->a &&
					y->recs[j].b == e->b;
			if (!found)
				mark(&v[5], "channel %" PRIu64 " error RC %" PRIu64 " on the %s only", e->a,
				     e->b, side ? "GPU" : "simulator");
		}
	}
	/* stage 11: waits */
	size_t ws = count_kind(sim, CS_RES_WAIT), wh = count_kind(hw, CS_RES_WAIT);
	for (size_t i = 0; i < ws || i < wh; i++) {
		const cs_results_rec *a = nth(sim, CS_RES_WAIT, i), *b = nth(hw, CS_RES_WAIT, i);
		v[11].compared++;
		if (!a || !b)
			mark(&v[11], "wait %zu is only in the %s's results", i, a ? "simulator" : "GPU");
		else if (a->met != b->met || a->va != b->va)
			mark(&v[11], "wait %zu on 0x%" PRIx64 " == 0x%" PRIx64 ": %s on the simulator, "
			     "%s on the GPU (it saw 0x%" PRIx64 ")", i, a->va, a->b,
			     a->met ? "met" : "unmet", b->met ? "met" : "unmet", (uint64_t)b->c);
	}
	/* stages 5, 9, 10, 11: read-backs, in capture order */
	size_t rs = count_kind(sim, CS_RES_READ);
	for (size_t i = 0; i < rs; i++) {
		const cs_results_rec *a = nth(sim, CS_RES_READ, i), *b = nth(hw, CS_RES_READ, i);
		unsigned st = read_stage(a->b);
		v[st].compared++;
		if (!b || b->va != a->va || b->a != a->a) {
			mark(&v[st], "read-back %zu (0x%" PRIx64 ") is missing from the GPU's results", i,
			     a->va);
			continue;
		}
		if (!a->bytes || !b->bytes) {
			if (a->bytes != b->bytes)
				mark(&v[st], "0x%" PRIx64 " could be read on the %s only", a->va,
				     a->bytes ? "simulator" : "GPU");
			continue;
		}
		for (uint64_t k = 0; k < a->a; k++)
			if (a->bytes[k] != b->bytes[k]) {
				mark(&v[st], "%s at 0x%" PRIx64 ": byte 0x%02x on the simulator, 0x%02x on "
				     "the GPU", cs_capture_rb_kind_name((cs_capture_rb_kind)a->b),
				     a->va + k, a->bytes[k], b->bytes[k]);
				break;
			}
	}
}

static const struct option diff_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "hw-results", required_argument, NULL, 'r' },
	{ 0 },
};

int cs_cmd_diff(int argc, char **argv)
{
	const char *hwfile = NULL, *capfile = NULL;
	cs_cli_begin();
	for (int c; (c = getopt_long(argc, argv, ":h", diff_options, NULL)) != -1;) {
		switch (c) {
		case 'h':
			diff_usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case 'r':
			hwfile = optarg;
			break;
		default:
			return cs_cli_bad_option("diff", c, argv, diff_usage);
		}
	}
	if (optind < argc)
		capfile = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "chainsim diff: one capture at a time ('%s' is a second)\n",
			argv[optind]);
		return CS_EXIT_INPUT;
	}
	if (hwfile && capfile && !strcmp(hwfile, CS_FILE_STDIN) && !strcmp(capfile, CS_FILE_STDIN)) {
		fprintf(stderr, "chainsim diff: standard input (-) can give the results or the "
			"capture, not both\n");
		return CS_EXIT_INPUT;
	}
	if (!hwfile || !capfile) {
		fprintf(stderr, "chainsim diff: needs --hw-results FILE and a CAPTURE\n");
		diff_usage(stderr);
		return CS_EXIT_INPUT;
	}
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_diag d;
	cs_diag_clear(&d);
	cs_results hw, sim;
	if (!cs_results_load(hwfile, &hw, &d)) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim diff: %s\n", msg);
		return CS_EXIT_INPUT;
	}
	int rc = CS_EXIT_INPUT;
	cs_capture *c = cs_capture_load(capfile, &d);
	cs_device *dev = NULL;
	cs_results_init(&sim, "sim", "-", 0, 0);
	if (!c) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim diff: %s\n", msg);
		goto out;
	}
	const char *hwname = cs_file_name(hwfile), *capname = cs_file_name(capfile);
	if (hw.ran == 0) {
		fprintf(stderr, "chainsim diff: %s records no run (ran 0): nothing to compare\n",
			hwname);
		goto out;
	}
	if (hw.capture_crc != c->crc) {
		fprintf(stderr, "chainsim diff: %s is for capture %08x; %s is %08x\n", hwname,
			hw.capture_crc, capname, c->crc);
		goto out;
	}
	cs_device_config cfg = { .arch = c->arch };
	dev = cs_device_new(&cfg, &d);
	if (!dev || !cs_capture_replay(c, dev, &sim, &d)) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim diff: %s: %s\n", capname, msg);
		goto out;
	}
	verdict v[12] = { 0 };
	compare(&sim, &hw, v);
	printf("diff %s (simulator) vs %s (%s %s)\n", capname, hwname, hw.backend, hw.driver);
	static const unsigned shown[] = { 2, 4, 5, 9, 10, 11 };
	int first = 0;
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		unsigned s = shown[i];
		printf("%2u  %-15s %s\n", s, cs_stage_name((cs_stage)s),
		       !v[s].compared ? "not-observable" : v[s].diverged ? "diverged" : "agree");
		if (v[s].diverged && !first)
			first = (int)s;
	}
	if (first)
		printf("first divergence at stage %d (%s): %s\n", first, cs_stage_name((cs_stage)first),
		       v[first].first);
	else
		printf("no divergence\n");
	rc = first ? CS_EXIT_BROKEN : CS_EXIT_OK;
out:
	cs_device_free(dev);
	cs_capture_free(c);
	cs_results_clear(&hw);
	cs_results_clear(&sim);
	return rc;
}

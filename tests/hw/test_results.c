/* SPDX-License-Identifier: MIT */
/* Results files (docs/capture.md, "Results"): written and read back the same;
 * bad lines refused at file:line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chainsim/results.h"

static char *write_text(const char *text)
{
	char *path = strdup("/tmp/chainsim-results-XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

Test(results, round_trip)
{
	cs_results r;
	cs_results_init(&r, "fake-rm", "580.95", 0xdeadbeef, 3);
	r.ran = 2;
	uint8_t bytes[4] = { 1, 2, 3, 0xff };
	cs_results_rec recs[] = {
		{ .kind = CS_RES_SUBMIT, .a = 0, .b = 1, .c = -1, .ns = 10 },
		{ .kind = CS_RES_SUBMIT, .a = 1, .b = 2, .c = 2, .ns = 11 },
		{ .kind = CS_RES_WAIT, .va = 0x200000000, .a = 8, .b = 5, .c = 4, .met = false },
		{ .kind = CS_RES_ERROR, .a = 1, .b = 31 },
		{ .kind = CS_RES_READ, .va = 0x200001000, .a = 4, .b = 2 },
		{ .kind = CS_RES_READ, .va = 0x200002000, .a = 4, .b = 4 },
	};
	for (size_t i = 0; i < 6; i++)
		cr_assert(cs_results_add(&r, &recs[i], i == 4 ? bytes : NULL));
	char *path = write_text("");
	FILE *f = fopen(path, "w");
	cr_assert(cs_results_write(&r, f));
	fclose(f);
	cs_results b;
	cs_diag d;
	cr_assert(cs_results_load(path, &b, &d), "%s", d.msg);
	cr_expect_str_eq(b.backend, "fake-rm");
	cr_expect_str_eq(b.driver, "580.95");
	cr_expect_eq(b.capture_crc, 0xdeadbeef);
	cr_expect_eq(b.arch_code, 3);
	cr_expect_eq(b.ran, 2);
	cr_assert_eq(b.nrecs, 6);
	cr_expect_eq(b.recs[0].c, -1);
	cr_expect_eq(b.recs[1].c, 2);
	cr_expect_eq(b.recs[2].met, false);
	cr_expect_eq(b.recs[2].c, 4);
	cr_expect_eq(b.recs[3].b, 31);
	cr_expect(b.recs[4].bytes && !memcmp(b.recs[4].bytes, bytes, 4));
	cr_expect_null(b.recs[5].bytes);
	cs_results_clear(&r);
	cs_results_clear(&b);
	unlink(path);
	free(path);
}

Test(results, bad_lines_located)
{
	static const struct {
		const char *text;
		uint32_t line;
	} cases[] = {
		{ "chainsim-results 2\n", 1 },
		{ "chainsim-results 1\nbackend sim -\ncapture 1 3\nran 1\nsubmit 0 x - 1\nend\n", 5 },
		{ "chainsim-results 1\nbackend sim -\ncapture 1 3\nran 1\nread 0x10 2 1 abc\nend\n", 5 },
		{ "chainsim-results 1\nbackend sim -\ncapture 1 3\nran 1\nread 0x10 2 1 zz00\nend\n", 5 },
		{ "chainsim-results 1\nbackend sim -\ncapture 1 3\nran 1\nbogus\nend\n", 5 },
		{ "chainsim-results 1\nbackend sim -\ncapture 1 3\nran 1\nwait 0x10 4 1 maybe 0\nend\n", 5 },
		{ "chainsim-results 1\nbackend sim -\ncapture 1 3\nran 1\n", 4 },           /* no end */
		{ "chainsim-results 1\nbackend sim -\nran 1\nend\n", 4 },                    /* no capture */
		{ "chainsim-results 1\nbackend sim -\ncapture 1 3\nran 1\nend\nerror 0 1\n", 6 },
		{ "chainsim-results 1\nbackend sim -\ncapture 0000000000000001 3\nran 1\nend\n", 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path = write_text(cases[i].text);
		cs_results r;
		cs_diag d;
		cs_diag_clear(&d);
		cr_expect_not(cs_results_load(path, &r, &d), "case %zu accepted", i);
		cr_expect_eq(d.status, CS_ERR_INPUT, "case %zu", i);
		cr_expect_eq(d.line, cases[i].line, "case %zu: line %u (%s)", i, d.line, d.msg);
		unlink(path);
		free(path);
	}
}

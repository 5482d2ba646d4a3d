/* SPDX-License-Identifier: MIT */
/* Helpers shared by the scenario suite's tests. */
#ifndef CHAINSIM_TESTS_SCENARIO_COMMON_H
#define CHAINSIM_TESTS_SCENARIO_COMMON_H

#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/arch.h"
#include "chainsim/diag.h"
#include "chainsim/mem.h"
#include "chainsim/scenario.h"
#include "source.h"

/* A path under tests/scenario/ in the source tree (g_free it). */
static inline char *scn_test_path(const char *rel)
{
	return test_source_file("tests/scenario", rel);
}

static inline cs_scenario *scn_parse_ok(const char *text)
{
	cs_diag d;
	cs_scenario *s = cs_scenario_parse(text, strlen(text), "t.chain", ".", &d);
	if (!s) {
		char buf[1024];
		cs_diag_format(&d, buf, sizeof(buf));
		cr_assert_fail("parse failed: %s\n---\n%s", buf, text);
	}
	return s;
}

/* Parse and expect an error at line:col whose message holds phrase. */
static inline void scn_parse_fails(const char *text, uint32_t line, uint32_t col,
				   const char *phrase)
{
	cs_diag d;
	cs_scenario *s = cs_scenario_parse(text, strlen(text), "t.chain", ".", &d);
	char buf[1024];
	cs_diag_format(&d, buf, sizeof(buf));
	cr_assert_null(s, "parsed, expected an error '%s'\n---\n%s", phrase, text);
	cr_assert_eq(d.status, CS_ERR_INPUT, "%s", buf);
	cr_assert(d.line == line && d.col == col, "at %u:%u, expected %u:%u: %s", d.line, d.col,
		  line, col, buf);
	cr_assert(strstr(d.msg, phrase), "message '%s' lacks '%s'", d.msg, phrase);
}

/* Little-endian dwords from memory. */
static inline void scn_read_dwords(cs_mem *mem, uint64_t va, uint32_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t b[4];
		uint64_t fault;
		cr_assert(cs_mem_read(mem, va + 4 * i, b, 4, &fault), "read 0x%llx",
			  (unsigned long long)(va + 4 * i));
		out[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			 (uint32_t)b[3] << 24;
	}
}

#endif

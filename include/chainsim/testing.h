/* SPDX-License-Identifier: MIT */
/* Criterion helpers for a forwarding layer's own tests (docs/testing.md): run a
 * scenario, or judge a device the test drove itself, then assert the chain
 * completes, that it breaks at a stage with a cause, or that memory holds the
 * bytes expected. A failed assertion prints the chain's diagnosis, so the test
 * log says where the launch broke and why.
 *
 * Header only, on libchainsim's public API: include it after criterion and
 * link criterion and chainsim (pkg-config --cflags --libs chainsim criterion).
 * Every helper is a static inline function or a macro over cr_assert (fatal)
 * or cr_expect (the test goes on). */
#ifndef CHAINSIM_TESTING_H
#define CHAINSIM_TESTING_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/cause.h"
#include "chainsim/device.h"
#include "chainsim/report.h"
#include "chainsim/run.h"
#include "chainsim/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A finished run, judged. */
typedef struct cs_test_run {
	cs_scenario *scenario; /* NULL when judging a device the test drove itself */
	cs_device *dev;        /* freed with the run only when the run made it */
	cs_report *report;     /* NULL when the input failed before it could be judged */
	bool owns_device;
	bool ran;              /* false: the scenario failed to parse or stopped; see diag */
	cs_diag diag;
} cs_test_run;

enum { CS_TEST_MSG_MAX = CS_DIAGNOSIS_MAX + CS_DIAG_MSG_MAX + 512 };

static inline void cs_test_run_scenario_(cs_test_run *r)
{
	cs_run run;
	r->ran = cs_run_scenario(r->scenario, NULL, CS_RUN_JUDGE_WHOLE, &run, &r->diag);
	r->dev = run.dev;
	r->report = run.report;
	r->owns_device = true;
}

/* Load and run a .chain file (relative paths in it resolve from its directory). */
static inline cs_test_run cs_test_run_file(const char *path)
{
	cs_test_run r;
	memset(&r, 0, sizeof(r));
	cs_diag_clear(&r.diag);
	r.scenario = cs_scenario_load(path, &r.diag);
	if (r.scenario)
		cs_test_run_scenario_(&r);
	return r;
}

/* Run scenario text; name is for messages, base_dir where its paths resolve. */
static inline cs_test_run cs_test_run_text(const char *text, const char *name,
					   const char *base_dir)
{
	cs_test_run r;
	memset(&r, 0, sizeof(r));
	cs_diag_clear(&r.diag);
	r.scenario = cs_scenario_parse(text, strlen(text), name, base_dir, &r.diag);
	if (r.scenario)
		cs_test_run_scenario_(&r);
	return r;
}

/* Judge a device the test drove itself through the C API (a scenario it
 * executed under a forwarding hook of its own, say); the device stays the
 * test's (cs_device_finish it first, as a scenario's end does). The named
 * checks find the names among the device's regions. */
static inline cs_test_run cs_test_judge(cs_device *dev)
{
	cs_test_run r;
	memset(&r, 0, sizeof(r));
	cs_diag_clear(&r.diag);
	r.dev = dev;
	r.ran = dev && cs_device_trace_ok(dev, &r.diag);
	if (r.ran)
		r.report = cs_report_build(dev);
	return r;
}

static inline void cs_test_run_free(cs_test_run *r)
{
	cs_report_free(r->report);
	if (r->owns_device)
		cs_device_free(r->dev);
	cs_scenario_free(r->scenario);
	memset(r, 0, sizeof(*r));
}

/* Append a formatted text to the NUL-terminated text in buf (len bytes). */
static inline void cs_test_append_(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void cs_test_append_(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	if (used < len)
		vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Append what the run came to, for a failure message: the input error, or the
 * chain's verdict with the break's stage, cause and diagnosis. */
static inline void cs_test_describe(const cs_test_run *r, char *buf, size_t len)
{
	if (!r->ran || !r->report) {
		char where[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
		cs_diag_format(&r->diag, where, sizeof(where));
		cs_test_append_(buf, len, "the run did not finish: %s", where);
	} else if (r->report->overall.first_break != CS_STAGE_NONE) {
		const cs_chain *c = &r->report->overall;
		cs_test_append_(buf, len, "break at stage %d (%s) [%s]: %s", (int)c->first_break,
				cs_stage_name(c->first_break), cs_cause_key(c->cause), c->diagnosis);
	} else {
		cs_test_append_(buf, len, "chain complete");
	}
}

/* ---- checks: true when they hold, else msg says what was found ---------------- */

static inline bool cs_test_check_complete(const cs_test_run *r, char *msg, size_t len)
{
	if (r->ran && r->report && r->report->overall.first_break == CS_STAGE_NONE)
		return true;
	msg[0] = 0;
	cs_test_append_(msg, len, "expected the chain to complete; ");
	cs_test_describe(r, msg, len);
	return false;
}

/* stage: 1..11; cause_key: a key of cause.def, or NULL for any cause. */
static inline bool cs_test_check_break(const cs_test_run *r, int stage, const char *cause_key,
				       char *msg, size_t len)
{
	msg[0] = 0;
	if (cause_key && cs_cause_parse(cause_key) == CS_CAUSE_NONE) {
		cs_test_append_(msg, len, "'%s' is not a cause key (cause.def)", cause_key);
		return false;
	}
	if (r->ran && r->report && (int)r->report->overall.first_break == stage && stage > 0 &&
	    (!cause_key || !strcmp(cs_cause_key(r->report->overall.cause), cause_key)))
		return true;
	const char *name = cs_stage_name((cs_stage)stage);
	cs_test_append_(msg, len, "expected a break at stage %d (%s)", stage,
			name ? name : "no such stage");
	if (cause_key)
		cs_test_append_(msg, len, " [%s]", cause_key);
	cs_test_append_(msg, len, "; ");
	cs_test_describe(r, msg, len);
	return false;
}

/* The device's memory at va holds the len bytes at expected. */
static inline bool cs_test_check_mem(const cs_test_run *r, uint64_t va, const void *expected,
				     size_t len, char *msg, size_t mlen)
{
	char name[CS_REGION_NAME_MAX + 32];
	msg[0] = 0;
	if (!r->dev) {
		cs_test_append_(msg, mlen, "no device to read 0x%llx from; ", (unsigned long long)va);
		cs_test_describe(r, msg, mlen);
		return false;
	}
	uint8_t *got = (uint8_t *)malloc(len ? len : 1);
	if (!got || !cs_device_peek(r->dev, va, got, len)) {
		cs_device_addr_name(r->dev, va, name, sizeof(name));
		cs_test_append_(msg, mlen, "%zu bytes at %s (0x%llx) cannot be read (not mapped); ",
				len, name, (unsigned long long)va);
		cs_test_describe(r, msg, mlen);
		free(got);
		return false;
	}
	const uint8_t *want = (const uint8_t *)expected;
	size_t i = 0;
	while (i < len && got[i] == want[i])
		i++;
	if (i < len) {
		cs_device_addr_name(r->dev, va + i, name, sizeof(name));
		cs_test_append_(msg, mlen, "memory differs at %s (0x%llx, byte %zu of %zu): 0x%02x, "
				"expected 0x%02x; ", name, (unsigned long long)(va + i), i, len,
				got[i], want[i]);
		cs_test_describe(r, msg, mlen);
	}
	free(got);
	return i == len;
}

/* As cs_test_check_mem, at a name the scenario placed (alloc, push, qmd, L.sem).
 * A run from cs_test_judge has no scenario of its own: the name is then looked
 * up among the device's regions, which a scenario executed on the device (a
 * test of a forwarding hook in C) named the same way. */
static inline bool cs_test_check_mem_named(const cs_test_run *r, const char *name, uint64_t off,
					   const void *expected, size_t len, char *msg, size_t mlen)
{
	uint64_t va = 0, size = 0;
	msg[0] = 0;
	const cs_region *reg = !r->scenario && r->dev
				       ? cs_mem_region_named(cs_device_mem(r->dev), name)
				       : NULL;
	if (reg) {
		va = reg->va;
		size = reg->size;
	} else if (!r->scenario || !cs_scenario_symbol(r->scenario, name, &va, &size)) {
		cs_test_append_(msg, mlen, r->scenario ? "the scenario places no '%s'; "
				: "the device has no region named '%s'; ", name);
		cs_test_describe(r, msg, mlen);
		return false;
	}
	if (off > size || len > size - off) {
		cs_test_append_(msg, mlen, "%s+0x%llx, %zu bytes: past the end of %s (%llu bytes)",
				name, (unsigned long long)off, len, name, (unsigned long long)size);
		return false;
	}
	return cs_test_check_mem(r, va + off, expected, len, msg, mlen);
}

/* ---- the assertions ------------------------------------------------------------ */

#define CS_TEST_CHECK_(report, check)                                                      \
	do {                                                                               \
		char cs_test_msg_[CS_TEST_MSG_MAX];                                        \
		bool cs_test_ok_ = (check);                                                \
		report(cs_test_ok_, "%s", cs_test_ok_ ? "" : cs_test_msg_);                 \
	} while (0)

/* The chain completed (no break). */
#define cs_assert_complete(run) \
	CS_TEST_CHECK_(cr_assert, cs_test_check_complete((run), cs_test_msg_, sizeof(cs_test_msg_)))
#define cs_expect_complete(run) \
	CS_TEST_CHECK_(cr_expect, cs_test_check_complete((run), cs_test_msg_, sizeof(cs_test_msg_)))

/* The first break is at stage (1..11) with cause_key ("no-schedule"; NULL: any). */
#define cs_assert_break(run, stage, cause_key)                                             \
	CS_TEST_CHECK_(cr_assert, cs_test_check_break((run), (stage), (cause_key), cs_test_msg_, \
						      sizeof(cs_test_msg_)))
#define cs_expect_break(run, stage, cause_key)                                             \
	CS_TEST_CHECK_(cr_expect, cs_test_check_break((run), (stage), (cause_key), cs_test_msg_, \
						      sizeof(cs_test_msg_)))

/* Memory at va (or at a scenario name plus an offset) holds len bytes. */
#define cs_assert_mem_eq(run, va, expected, len)                                           \
	CS_TEST_CHECK_(cr_assert, cs_test_check_mem((run), (va), (expected), (len), cs_test_msg_, \
						    sizeof(cs_test_msg_)))
#define cs_expect_mem_eq(run, va, expected, len)                                           \
	CS_TEST_CHECK_(cr_expect, cs_test_check_mem((run), (va), (expected), (len), cs_test_msg_, \
						    sizeof(cs_test_msg_)))
#define cs_assert_mem_named_eq(run, name, off, expected, len)                              \
	CS_TEST_CHECK_(cr_assert, cs_test_check_mem_named((run), (name), (off), (expected), (len), \
							  cs_test_msg_, sizeof(cs_test_msg_)))
#define cs_expect_mem_named_eq(run, name, off, expected, len)                              \
	CS_TEST_CHECK_(cr_expect, cs_test_check_mem_named((run), (name), (off), (expected), (len), \
							  cs_test_msg_, sizeof(cs_test_msg_)))

#ifdef __cplusplus
}
#endif

#endif

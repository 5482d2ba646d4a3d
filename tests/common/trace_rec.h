/* SPDX-License-Identifier: MIT */
/* The one trace recorder of the test suites: every record the sink is given,
 * in order, none dropped, each with its own copy of the detail text (so a
 * record's ev.detail stays valid however the array grows). The sink stamps
 * seq (a running count) and time_ns (the clock given at init), as the device's
 * sink does (include/chainsim/trace.h). */
#ifndef CS_TESTS_TRACE_REC_H
#define CS_TESTS_TRACE_REC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/trace.h"

typedef struct test_record {
	cs_event ev;        /* ev.detail is detail, or NULL when none was given */
	char *detail;       /* owned; NULL when the record had none */
} test_record;

typedef struct test_trace {
	test_record *recs;  /* may move at every record: index it, keep no pointer */
	size_t n, cap;
	uint64_t seq;       /* the next record's seq; clearing keeps counting */
	const uint64_t *now_ns;
} test_trace;

/* now_ns: the clock to stamp records with (NULL: 0). */
void test_trace_init(test_trace *t, const uint64_t *now_ns);
void test_trace_fini(test_trace *t);
/* Forgets the records (seq goes on). */
void test_trace_clear(test_trace *t);
/* A sink that records into t, which must not move while the sink is in use. */
cs_trace_sink test_trace_sink(test_trace *t, cs_trace_level level);

size_t test_trace_count(const test_trace *t, cs_event_kind kind);
/* The nth record (0-based) of a kind, NULL when there are fewer; valid until
 * the next record or clear. */
const test_record *test_trace_nth(const test_trace *t, cs_event_kind kind, size_t nth);
/* One line per record, for a failing test's message. */
void test_trace_dump(const test_trace *t, FILE *out);

#endif

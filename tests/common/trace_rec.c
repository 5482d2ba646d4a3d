/* SPDX-License-Identifier: MIT */
/* tests/common/trace_rec.h */
#include "trace_rec.h"

#include <stdlib.h>
#include <string.h>

void test_trace_init(test_trace *t, const uint64_t *now_ns)
{
	memset(t, 0, sizeof(*t));
	t->now_ns = now_ns;
}

void test_trace_clear(test_trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->recs[i].detail);
	t->n = 0;
}

void test_trace_fini(test_trace *t)
{
	test_trace_clear(t);
	free(t->recs);
	t->recs = NULL;
	t->cap = 0;
}

static void record(void *ctx, const cs_event *ev)
{
	test_trace *t = ctx;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		test_record *grown = realloc(t->recs, cap * sizeof(*grown));
		if (!grown)
			abort(); /* a test's own memory: nothing to report it through */
		t->recs = grown;
		t->cap = cap;
	}
	test_record *r = &t->recs[t->n++];
	r->ev = *ev;
	r->ev.seq = t->seq++;
	r->ev.time_ns = t->now_ns ? *t->now_ns : 0;
	r->detail = ev->detail ? strdup(ev->detail) : NULL;
	if (ev->detail && !r->detail)
		abort();
	r->ev.detail = r->detail;
}

cs_trace_sink test_trace_sink(test_trace *t, cs_trace_level level)
{
	return (cs_trace_sink){ .ctx = t, .emit = record, .level = level };
}

size_t test_trace_count(const test_trace *t, cs_event_kind kind)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->recs[i].ev.kind == kind;
	return n;
}

const test_record *test_trace_nth(const test_trace *t, cs_event_kind kind, size_t nth)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->recs[i].ev.kind == kind && nth-- == 0)
			return &t->recs[i];
	return NULL;
}

void test_trace_dump(const test_trace *t, FILE *out)
{
	for (size_t i = 0; i < t->n; i++) {
		const cs_event *e = &t->recs[i].ev;
		fprintf(out, "%4zu %-16s stage %u ch %u addr 0x%llx value 0x%llx aux 0x%llx %s\n", i,
			cs_event_kind_name((cs_event_kind)e->kind), e->stage, e->channel,
			(unsigned long long)e->addr, (unsigned long long)e->value,
			(unsigned long long)e->aux, e->detail ? e->detail : "");
	}
}

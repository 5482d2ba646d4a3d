/* SPDX-License-Identifier: MIT */
/* The shared recorder keeps every record, in order, each with its detail,
 * however far its array grows; the bus wires memory, clock and recorder and
 * reads and writes words; the source tree's files are read whole. */
#include <criterion/criterion.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "source.h"

static void emit(test_bus *b, cs_event_kind kind, const char *detail)
{
	cs_event ev = cs_event_make(kind, CS_STAGE_FE_EXEC, CS_UNIT_FE, 0);
	ev.detail = detail;
	cs_trace_emit(&b->bus.trace, &ev);
}

Test(common, every_record_and_its_detail_outlive_the_array_growing)
{
	test_bus b;
	test_bus_init(&b, 49, CS_TRACE_CHAIN);
	emit(&b, CS_EV_FAULT, "the first");
	const char *first = b.trace.recs[0].ev.detail;
	cr_assert_str_eq(first, "the first");
	char text[32];
	for (unsigned i = 1; i < 5000; i++) {
		b.now = i;
		snprintf(text, sizeof(text), "record %u", i);
		emit(&b, i % 2 ? CS_EV_METHOD : CS_EV_FAULT, text); /* text is reused: copied */
	}
	cr_assert_eq(b.trace.n, 5000, "none dropped");
	cr_expect_str_eq(b.trace.recs[0].ev.detail, "the first", "the detail moved with the array");
	cr_expect_str_eq(first, "the first", "the detail's own copy does not move");
	cr_expect_str_eq(b.trace.recs[4999].detail, "record 4999");
	cr_expect_eq(b.trace.recs[4999].ev.seq, 4999);
	cr_expect_eq(b.trace.recs[4999].ev.time_ns, 4999);
	cr_expect_eq(test_trace_count(&b.trace, CS_EV_FAULT), 2500);
	cr_expect_str_eq(test_trace_nth(&b.trace, CS_EV_METHOD, 2)->detail, "record 5");
	cr_expect_str_eq(test_trace_nth(&b.trace, CS_EV_METHOD, 2)->ev.detail, "record 5",
			 "the record's event carries its own copy, not the emitter's buffer");
	cr_expect_null(test_trace_nth(&b.trace, CS_EV_METHOD, 2500));
	emit(&b, CS_EV_FAULT, NULL);
	cr_expect_null(b.trace.recs[5000].ev.detail, "no detail stays no detail");
	test_trace_clear(&b.trace);
	emit(&b, CS_EV_METHOD, "after");
	cr_expect_eq(b.trace.n, 1);
	cr_expect_eq(b.trace.recs[0].ev.seq, 5001, "seq goes on after a clear");
	test_bus_fini(&b);
}

Test(common, the_bus_reaches_real_memory)
{
	test_bus b;
	test_bus_init(&b, 49, CS_TRACE_CHAIN);
	cs_diag d;
	cr_assert(cs_mem_map(b.mem, "x", 0x100000, 0x1000, &d), "%s", d.msg);
	uint32_t v = 0xfeedf00d, back = 0;
	uint64_t fault = 0;
	cr_assert(b.bus.mem.write(b.bus.mem.ctx, 0x100010, &v, 4, &fault));
	cr_assert(cs_mem_read(b.mem, 0x100010, &back, 4, &fault));
	cr_expect_eq(back, v);
	cr_expect_not(b.bus.mem.read(b.bus.mem.ctx, 0x900000, &back, 4, &fault));
	cr_expect_eq(fault, 0x900000);
	test_bus_fini(&b);
}

Test(common, the_bus_reads_and_writes_words)
{
	test_bus b;
	test_bus_init(&b, 49, CS_TRACE_CHAIN);
	cs_diag d;
	cr_assert(cs_mem_map(b.mem, "x", 0x100000, 0x1000, &d), "%s", d.msg);
	test_bus_write32(&b, 0x100010, 0xfeedf00d);
	test_bus_write64(&b, 0x100020, 0x0123456789abcdefull);
	cr_expect_eq(test_bus_read32(&b, 0x100010), 0xfeedf00d);
	cr_expect_eq(test_bus_read64(&b, 0x100020), 0x0123456789abcdefull);
	cr_expect_eq(test_bus_read32(&b, 0x100024), 0x01234567, "little-endian");
	test_bus_fini(&b);
}

Test(common, a_word_off_the_map_aborts, .signal = SIGABRT)
{
	test_bus b;
	test_bus_init(&b, 49, CS_TRACE_CHAIN);
	test_bus_read32(&b, 0x900000);
}

Test(common, source_files_are_read_whole_with_a_nul)
{
	size_t len = 0;
	char *text = test_read_source("tests/common/source.h", &len);
	cr_assert_not_null(text);
	cr_expect_eq(strlen(text), len);
	cr_expect(strstr(text, "char *test_read_source(const char *rel, size_t *len);"));
	free(text);
	cr_expect_null(test_read_source("tests/common/no-such-file", &len));
}

Test(common, fixture_kernels_and_suite_files_are_found_under_the_root)
{
	char *want = test_source_path("fixtures/kernels/out/vadd.sm_90.ptx");
	char *got = test_kernel_fixture("vadd.sm_90.ptx");
	cr_expect_str_eq(got, want);
	g_free(got);
	got = test_source_file("fixtures/kernels/out", "vadd.sm_90.ptx");
	cr_expect_str_eq(got, want);
	g_free(got);
	size_t len = 0;
	char *ptx = test_read_kernel_fixture("vadd.sm_90.ptx", &len);
	cr_assert_not_null(ptx);
	cr_expect_eq(strlen(ptx), len);
	cr_expect(strstr(ptx, ".entry vadd"), "%.200s", ptx);
	free(ptx);
	char *same = test_read_file(want, &len);
	cr_assert_not_null(same);
	cr_expect_eq(strlen(same), len);
	free(same);
	g_free(want);
	cr_expect_null(test_read_file("/nonexistent/chainsim", &len));
}

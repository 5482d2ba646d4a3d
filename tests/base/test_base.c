/* SPDX-License-Identifier: MIT */
/* The shared contracts: diagnostics, the arch and class tables, stages, the
 * class-description helpers, pushbuffer/GPFIFO encoders, and sparse memory. */
#include <criterion/criterion.h>
#include <string.h>

#include "chainsim/arch.h"
#include "chainsim/classdesc.h"
#include "chainsim/diag.h"
#include "chainsim/mem.h"
#include "chainsim/pushbuf.h"
#include "chainsim/stage.h"

Test(diag, formats_text_and_binary_locations)
{
	cs_diag d;
	char buf[256];
	cs_diag_at_text(&d, CS_ERR_INPUT, "a.chain", 3, 7, "expected %s", "a number");
	cs_diag_format(&d, buf, sizeof(buf));
	cr_assert_str_eq(buf, "a.chain:3:7: expected a number");
	cs_diag_at_offset(&d, CS_ERR_INPUT, "pb.bin", 0x1c, "reserved SEC_OP 2");
	cs_diag_format(&d, buf, sizeof(buf));
	cr_assert_str_eq(buf, "pb.bin: byte 0x1c: reserved SEC_OP 2");
}

Test(arch, tables_agree_with_hw_facts)
{
	cs_arch a;
	cr_assert(cs_arch_from_name("hopper", &a));
	const cs_arch_info *h = cs_arch_get(a);
	cr_assert_eq(h->host_class, 0xC86F);
	cr_assert_eq(h->compute_class, 0xCBC0);
	cr_assert_eq(cs_arch_qmd_major(a), 4);
	cr_assert_eq(cs_class_qmd_major(0xC9C0), 3);
	cr_assert_eq(cs_class_qmd_major(0xCEC0), 5);
	cr_assert_eq(cs_class_qmd_major(0xC8B5), 0, "a copy class reads no QMD");
	cr_assert_eq(h->va_bits, 57);
	cr_assert(cs_arch_from_name("ampere", &a));
	cr_assert_eq(cs_arch_get(a)->va_bits, 49);
	cr_assert_not(cs_arch_from_name("kepler", &a));
	cr_assert(cs_class_valid_for(0xCBC0, CS_ARCH_HOPPER));
	cr_assert_not(cs_class_valid_for(0xCBC0, CS_ARCH_AMPERE));
	cr_assert_eq(cs_class_kind_of(0xC8B5), CS_CLASS_COPY);
	cr_assert_eq(cs_class_kind_of(0x1234), CS_CLASS_NONE);
	char list[128];
	cs_class_list_for(CS_ARCH_BLACKWELL, CS_CLASS_COMPUTE, list, sizeof(list));
	cr_assert_str_eq(list, "CDC0, CEC0");
}

Test(stage, names_and_parse)
{
	cr_assert_str_eq(cs_stage_name(CS_STAGE_FE_EXEC), "fe-exec");
	cr_assert_eq(cs_stage_parse("7"), CS_STAGE_QMD_READ);
	cr_assert_eq(cs_stage_parse("guest-wake"), CS_STAGE_GUEST_WAKE);
	cr_assert_eq(cs_stage_parse("12"), CS_STAGE_NONE);
	cr_assert_eq(cs_stage_parse("fe"), CS_STAGE_NONE);
	cr_assert_eq(cs_stage_author(CS_STAGE_QMD_READ), CS_AUTHOR_ENGINE);
}

static const char *const ops[] = { "ACQUIRE", "RELEASE" };
static const cs_field_desc exec_fields[] = {
	{ "OPERATION", 2, 0, ops, 2, CS_FIELD_ENUM, NULL, 0 },
	{ "PAYLOAD_SIZE", 24, 24, NULL, 0, CS_FIELD_NUMBER, NULL, 0 },
};
static const cs_method_desc methods[] = {
	{ "NOP", 0x8, 1, 4, NULL, 0 },
	{ "SEM_EXECUTE", 0x6c, 1, 4, exec_fields, 2 },
	{ "LOAD_INLINE_QMD_DATA", 0x320, 64, 4, NULL, 0 },
};
static const cs_class_desc test_class = { 0xC86F, "TEST", "test", methods, 3 };

Test(classdesc, lookup_by_offset_and_name)
{
	uint32_t idx, off;
	char label[64], fields[128];
	cr_assert_eq(cs_class_method_at(&test_class, 0x328, &idx), &methods[2]);
	cr_assert_eq(idx, 2);
	cr_assert_null(cs_class_method_at(&test_class, 0x420, &idx));
	cr_assert(cs_class_method_named(&test_class, "LOAD_INLINE_QMD_DATA(63)", &off));
	cr_assert_eq(off, 0x320 + 63 * 4);
	cr_assert_not(cs_class_method_named(&test_class, "LOAD_INLINE_QMD_DATA(64)", &off));
	cr_assert_not(cs_class_method_named(&test_class, "NOP(0)", &off));
	cr_assert(cs_class_method_label(&test_class, 0x324, label, sizeof(label)));
	cr_assert_str_eq(label, "LOAD_INLINE_QMD_DATA(1)");
	cs_method_format_fields(&methods[1], 0x01000001, fields, sizeof(fields));
	cr_assert_str_eq(fields, "OPERATION=RELEASE PAYLOAD_SIZE=0x1");
}

/* The fields are appended by hand, not by snprintf: the same text, cut as
 * snprintf cuts it, and the same count. */
Test(classdesc, fields_are_cut_like_snprintf)
{
	char full[128], cut[128];
	size_t n = cs_method_format_fields(&methods[1], 0x01000007, full, sizeof(full));
	cr_assert_str_eq(full, "OPERATION=0x7 PAYLOAD_SIZE=0x1");
	cr_assert_eq(n, strlen(full));
	for (size_t len = 1; len <= strlen(full) + 1; len++) {
		memset(cut, 'z', sizeof(cut));
		size_t k = cs_method_format_fields(&methods[1], 0x01000007, cut, len);
		cr_assert_eq(strlen(cut), len - 1, "len %zu", len);
		cr_assert_eq(strncmp(cut, full, len - 1), 0, "len %zu", len);
		cr_assert_eq(k, len - 1 < n ? len - 1 : n, "len %zu", len);
	}
	cr_assert_eq(cs_method_format_fields(&methods[1], 1, cut, 0), 0);
}

Test(pushbuf, header_and_gpfifo_round_trip)
{
	uint32_t h = cs_pb_inc(5, 0x3ffc, 0x1fff);
	cr_assert_eq(cs_pb_secop(h), CS_SECOP_INC);
	cr_assert_eq(cs_pb_subch(h), 5);
	cr_assert_eq(cs_pb_method(h), 0x3ffc);
	cr_assert_eq(cs_pb_count(h), 0x1fff);
	cs_gp_entry e = { .addr = 0xab12345678ull, .length = 0x1fffff, .sync = true,
			  .subroutine = true };
	uint32_t lo, hi;
	cs_gp_encode(&e, &lo, &hi);
	cs_gp_entry d = cs_gp_decode(lo, hi);
	cr_assert_eq(d.addr, e.addr);
	cr_assert_eq(d.length, e.length);
	cr_assert(d.sync && d.subroutine && !d.fetch_cond);
	cs_gp_entry ctl = { .opcode = CS_GP_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE };
	cs_gp_encode(&ctl, &lo, &hi);
	d = cs_gp_decode(lo, hi);
	cr_assert_eq(d.length, 0);
	cr_assert_eq(d.opcode, CS_GP_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE);
}

Test(mem, map_alloc_and_faults)
{
	cs_mem *m = cs_mem_new(49);
	cs_diag d;
	uint64_t a, b, fault = 0;
	cr_assert(cs_mem_alloc(m, "a", 100, 1, &a, &d));
	cr_assert_eq(a, CS_MEM_ALLOC_BASE);
	cr_assert(cs_mem_alloc(m, "b", 8192, 0x10000, &b, &d));
	cr_assert_eq(b % 0x10000, 0);
	cr_assert_gt(b, a);
	cr_assert_not(cs_mem_alloc(m, "a", 8, 1, &b, &d), "duplicate name accepted");
	cr_assert_not(cs_mem_map(m, "c", a, 4096, &d), "overlap accepted");
	cr_assert(strstr(d.msg, "overlap region 'a'"));
	cr_assert_not(cs_mem_map(m, "far", 1ull << 49, 4096, &d), "beyond 49 bits accepted");
	cr_assert_not(cs_mem_map(m, "odd", 0x1001, 4096, &d));

	uint32_t v = 0xdeadbeef, r = 0;
	cr_assert(cs_mem_write(m, a + 4092, &v, 4, &fault));
	cr_assert(cs_mem_read(m, a + 4092, &r, 4, &fault));
	cr_assert_eq(r, v);
	/* a's mapping is one page; the write running past it faults at the page end */
	cr_assert_not(cs_mem_write(m, a + 4094, &v, 4, &fault));
	cr_assert_eq(fault, a + 4096);
	cr_assert_not(cs_mem_read(m, 0x1000, &r, 4, &fault));
	cr_assert_eq(fault, 0x1000);
	cr_assert_null(cs_mem_span(m, a + 4094, 4), "span across a page end");
	cr_assert_not_null(cs_mem_span(m, b + 4096, 4096));
	cr_assert_eq(cs_mem_region_at(m, b + 5000), cs_mem_region_named(m, "b"));
	cr_assert_eq(cs_mem_pages_backed(m), 2, "only touched pages are backed");
	cs_mem_free(m);
}

Test(mem, many_pages_stay_distinct)
{
	cs_mem *m = cs_mem_new(57);
	uint64_t base;
	cr_assert(cs_mem_alloc(m, "big", 64ull << 20, 1, &base, NULL));
	for (uint64_t p = 0; p < (64u << 20) / 4096; p++) {
		uint64_t tag = p * 2654435761u;
		cr_assert(cs_mem_write(m, base + p * 4096 + 8, &tag, 8, NULL));
	}
	for (uint64_t p = 0; p < (64u << 20) / 4096; p++) {
		uint64_t tag = 0;
		cs_mem_read(m, base + p * 4096 + 8, &tag, 8, NULL);
		if (tag != p * 2654435761u)
			cr_assert_fail("page %llu holds the wrong data", (unsigned long long)p);
	}
	cs_mem_free(m);
}

Test(mem, backing_limit_and_unwritten_pages)
{
	cs_mem *m = cs_mem_new(49);
	uint64_t base, fault = 0;
	cr_assert(cs_mem_alloc(m, "big", 1 << 20, 1, &base, NULL));
	uint32_t v = 0xffffffff;
	cr_assert(cs_mem_read(m, base + 8192, &v, 4, &fault));
	cr_assert_eq(v, 0, "a never-written page reads as zero");
	cr_assert_eq(cs_mem_pages_backed(m), 0, "and reading it backs nothing");
	cs_mem_set_max_backed(m, 2 * CS_PAGE_SIZE);
	cr_assert(cs_mem_write(m, base, &v, 4, &fault));
	cr_assert(cs_mem_write(m, base + CS_PAGE_SIZE, &v, 4, &fault));
	cr_assert_not(cs_mem_backing_exhausted(m));
	cr_assert_not(cs_mem_write(m, base + 2 * CS_PAGE_SIZE, &v, 4, &fault));
	cr_assert(cs_mem_backing_exhausted(m), "the refusal is told apart from a fault");
	cr_assert(cs_mem_write(m, base + 4, &v, 4, &fault), "backed pages stay writable");
	cs_mem_free(m);
}

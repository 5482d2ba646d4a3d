/* SPDX-License-Identifier: MIT */
/* The compute and copy class tables and their field decoders. */
#include <criterion/criterion.h>
#include <string.h>

#include "chainsim/arch.h"
#include "chainsim/gr.h"

static const uint32_t compute[] = { 0xC6C0, 0xC7C0, 0xC9C0, 0xCBC0, 0xCDC0, 0xCEC0 };
static const uint32_t copy[] = { 0xC6B5, 0xC7B5, 0xC8B5, 0xC9B5 };

static size_t fmt(uint32_t cls, const char *method, uint32_t data, char *buf, size_t len)
{
	const cs_class_desc *d = cs_gr_class(cls);
	uint32_t off;
	cr_assert(cs_class_method_named(d, method, &off), "%04X has no %s", cls, method);
	const cs_method_desc *m = cs_class_method_at(d, off, NULL);
	cr_assert_not_null(m);
	return cs_method_format_fields(m, data, buf, len);
}

Test(gr_classes, every_class_has_its_table)
{
	for (size_t i = 0; i < 6; i++) {
		const cs_class_desc *d = cs_gr_class(compute[i]);
		cr_assert_not_null(d, "%04X", compute[i]);
		cr_expect_eq(d->id, compute[i]);
		cr_expect_str_eq(d->name, cs_class_name(compute[i]));
		cr_expect_not_null(strstr(d->source, "open-gpu-doc"));
		cr_expect_eq(cs_class_kind_of(d->id), CS_CLASS_COMPUTE);
		uint32_t off;
		cr_expect(cs_class_method_named(d, "SEND_PCAS_A", &off));
		cr_expect_eq(off, CS_GR_SEND_PCAS_A);
		cr_expect(cs_class_method_named(d, "SET_REPORT_SEMAPHORE_D", &off));
		cr_expect_eq(off, CS_GR_SET_REPORT_SEMAPHORE_D);
		cr_expect(cs_class_method_named(d, "INVALIDATE_SHADER_CACHES_NO_WFI", &off));
		cr_expect_eq(off, 0x1698);
		cr_expect(cs_class_method_named(d, "LOAD_INLINE_QMD_DATA(63)", &off));
		cr_expect_eq(off, 0x320 + 63 * 4);
		/* 96 inline dwords from CBC0 on, 64 before. */
		bool h = compute[i] >= 0xCBC0;
		cr_expect_eq(cs_class_method_named(d, "LOAD_INLINE_QMD_DATA(95)", &off), h);
		cr_expect_eq(cs_class_method_named(d, "CHECK_QMD_VERSION", &off), !h);
		char label[64];
		cr_expect(cs_class_method_label(d, 0x324, label, sizeof(label)));
		cr_expect_str_eq(label, "LOAD_INLINE_QMD_DATA(1)");
	}
	for (size_t i = 0; i < 4; i++) {
		const cs_class_desc *d = cs_gr_class(copy[i]);
		cr_assert_not_null(d, "%04X", copy[i]);
		cr_expect_str_eq(d->name, cs_class_name(copy[i]));
		cr_expect_eq(cs_class_kind_of(d->id), CS_CLASS_COPY);
		uint32_t off;
		cr_expect(cs_class_method_named(d, "LAUNCH_DMA", &off));
		cr_expect_eq(off, CS_CE_LAUNCH_DMA);
		cr_expect(cs_class_method_named(d, "LINE_COUNT", &off));
		cr_expect_eq(off, CS_CE_LINE_COUNT);
		cr_expect_eq(cs_class_method_named(d, "SET_SEMAPHORE_PAYLOAD_UPPER", &off),
			     copy[i] != 0xC6B5);
	}
	cr_expect_null(cs_gr_class(0xC56F));
	cr_expect_null(cs_gr_class(0xCB97));
	cr_expect_null(cs_gr_class(0));
}

/* One row of base/classes.def makes a class: every compute or copy class the
 * class table knows has gr's method table and a shared-memory limit as its kind
 * asks, and no other class has either. */
Test(gr_classes, every_compute_and_copy_row_is_served)
{
	unsigned served = 0;
	for (uint32_t cls = 0; cls <= 0xffff; cls++) {
		cs_class_kind kind = cs_class_kind_of(cls);
		bool ours = kind == CS_CLASS_COMPUTE || kind == CS_CLASS_COPY;
		const cs_class_desc *d = cs_gr_class(cls);
		cr_expect_eq(d != NULL, ours, "%04X (%s): gr table %s", cls,
			     cs_class_kind_name(kind), d ? "present" : "missing");
		cr_expect_eq(cs_gr_shared_limit(cls, NULL) != 0, kind == CS_CLASS_COMPUTE,
			     "%04X: shared-memory limit %u", cls, cs_gr_shared_limit(cls, NULL));
		if (!d)
			continue;
		served++;
		cr_expect_str_eq(d->name, cs_class_name(cls));
		cr_expect_not_null(strstr(d->source, "NVIDIA/open-gpu-doc classes/"), "%s", d->source);
		cr_expect_gt(d->nmethods, 0);
	}
	cr_expect_geq(served, 10, "only %u classes served", served);
}

Test(gr_classes, field_decoders_name_values)
{
	char b[640];
	fmt(0xCBC0, "SEND_SIGNALING_PCAS2_B", 3, b, sizeof(b));
	cr_expect_str_eq(b, "PCAS_ACTION=INVALIDATE_COPY_SCHEDULE SELECT=0x0 OFFSET_MINUS_ONE=0x0");
	fmt(0xCBC0, "SEND_SIGNALING_PCAS2_B", 4, b, sizeof(b));
	cr_expect_str_eq(b, "PCAS_ACTION=0x4 SELECT=0x0 OFFSET_MINUS_ONE=0x0");
	fmt(0xCBC0, "SET_INLINE_QMD_ADDRESS_A", 0x40000001, b, sizeof(b));
	cr_expect_str_eq(b, "QMD_ADDRESS_SHIFTED8_UPPER=0x1 INLINE_SIZE=INLINE_384");
	fmt(0xC7C0, "SET_INLINE_QMD_ADDRESS_A", 0x40000001, b, sizeof(b));
	cr_expect_str_eq(b, "QMD_ADDRESS_SHIFTED8_UPPER=0x40000001");
	fmt(0xC9C0, "SET_REPORT_SEMAPHORE_D", 0x10000003, b, sizeof(b));
	cr_expect_str_eq(b, "OPERATION=TRAP FLUSH_DISABLE=FALSE REDUCTION_ENABLE=FALSE "
			    "REDUCTION_OP=RED_ADD REDUCTION_FORMAT=UNSIGNED_32 "
			    "CONDITIONAL_TRAP=FALSE AWAKEN_ENABLE=FALSE STRUCTURE_SIZE=ONE_WORD");
	/* REPORT_SEMAPHORE_EXECUTE (clcbc0.h 0x0168): CBC0 and later only */
	uint32_t off = 0;
	cr_expect_not(cs_class_method_named(cs_gr_class(0xC9C0), "REPORT_SEMAPHORE_EXECUTE", &off));
	cr_assert(cs_class_method_named(cs_gr_class(0xCDC0), "REPORT_SEMAPHORE_EXECUTE", &off));
	cr_expect_eq(off, CS_GR_REPORT_SEMAPHORE_EXECUTE);
	cr_expect_eq(off, 0x168);
	fmt(0xCBC0, "REPORT_SEMAPHORE_EXECUTE", 0x000015cb, b, sizeof(b));
	cr_expect_str_eq(b, "OPERATION=TRAP AWAKEN_ENABLE=FALSE STRUCTURE_SIZE=SEMAPHORE_ONE_WORD "
			    "FLUSH_DISABLE=FALSE REDUCTION_ENABLE=TRUE REDUCTION_OP=RED_INC "
			    "REDUCTION_FORMAT=SIGNED PAYLOAD_SIZE64=TRUE TRAP_TYPE=TRAP_NONE");
	fmt(0xCEC0, "INVALIDATE_SHADER_CACHES_NO_WFI", 0x1000, b, sizeof(b));
	cr_expect_str_eq(b, "INSTRUCTION=FALSE GLOBAL_DATA=FALSE CONSTANT=TRUE");
	fmt(0xC6C0, "LAUNCH_DMA", 0x1, b, sizeof(b));
	cr_expect_not_null(strstr(b, "DST_MEMORY_LAYOUT=PITCH"), "%s", b);
	cr_expect_not_null(strstr(b, "COMPLETION_TYPE=FLUSH_DISABLE"), "%s", b);
	fmt(0xC8B5, "LAUNCH_DMA", 0x08000396, b, sizeof(b));
	cr_expect_not_null(strstr(b, "DATA_TRANSFER_TYPE=NON_PIPELINED FLUSH_ENABLE=TRUE "
				     "SEMAPHORE_TYPE=RELEASE_FOUR_WORD_SEMAPHORE"), "%s", b);
	cr_expect_not_null(strstr(b, "SRC_MEMORY_LAYOUT=PITCH DST_MEMORY_LAYOUT=PITCH "
				     "MULTI_LINE_ENABLE=TRUE"), "%s", b);
	cr_expect_not_null(strstr(b, "SEMAPHORE_PAYLOAD_SIZE=TWO_WORD"), "%s", b);
	fmt(0xC6B5, "LAUNCH_DMA", 0x08000000, b, sizeof(b));
	cr_expect_null(strstr(b, "SEMAPHORE_PAYLOAD_SIZE"), "%s", b);
}

Test(gr_classes, pcas2_actions_sort_into_schedule_other_reserved)
{
	static const int sched[16] = { [2] = 1, [3] = 1, [9] = 1, [10] = 1 };
	static const int reserved[16] = { [4] = 1, [5] = 1, [14] = 1, [15] = 1 };
	for (uint32_t a = 0; a < 16; a++) {
		cr_expect_eq(cs_pcas2_action_schedules(a), sched[a] != 0, "action %u", a);
		cr_expect_eq(cs_pcas2_action_name(a) == NULL, reserved[a] != 0, "action %u", a);
		cr_expect_eq(cs_pcas2_action_valid(0xCBC0, a), !reserved[a], "action %u", a);
		cr_expect_eq(cs_pcas2_action_valid(0xC6C0, a), !reserved[a] && a < 0xc, "action %u",
			     a);
	}
	cr_expect_str_eq(cs_pcas2_action_name(9), "PREFETCH_SCHEDULE");
	cr_expect_null(cs_pcas2_action_name(16));
	cr_expect_str_eq(cs_dep_action_name(1), "SCHEDULE");
	cr_expect_null(cs_dep_action_name(2));
}

Test(gr_classes, shared_limits_and_qmd_versions_per_class)
{
	bool assumed = false;
	cr_expect_eq(cs_gr_shared_limit(0xC6C0, &assumed), 164u * 1024u);
	cr_expect(assumed);
	cr_expect_eq(cs_gr_shared_limit(0xC9C0, NULL), 100u * 1024u);
	cr_expect_eq(cs_gr_shared_limit(0xCBC0, NULL), 227u * 1024u);
	cr_expect_eq(cs_gr_shared_limit(0xCEC0, NULL), 227u * 1024u);
	cr_expect_eq(cs_gr_shared_limit(0xC8B5, &assumed), 0);
	cr_expect_not(assumed);
	static const unsigned major[] = { 3, 3, 3, 4, 5, 5 };
	for (size_t i = 0; i < 6; i++)
		cr_expect_eq(cs_class_qmd_major(compute[i]), major[i]);
	cr_expect_eq(cs_class_qmd_major(0xC8B5), 0);
	/* The arch table's canonical classes are served here. */
	for (int a = 0; a < CS_ARCH_COUNT; a++) {
		const cs_arch_info *ai = cs_arch_get((cs_arch)a);
		cr_expect_not_null(cs_gr_class(ai->compute_class));
		cr_expect_not_null(cs_gr_class(ai->copy_class));
	}
	/* SET_INLINE_QMD_ADDRESS_A: INLINE_SIZE and the 9 upper bits from CBC0 on,
	 * the whole word before it (the engine and the device's watch read these). */
	cr_expect_eq(cs_gr_inline_qmd_dwords(0xC6C0, 1u << 30), 64);
	cr_expect_eq(cs_gr_inline_qmd_dwords(0xCBC0, 0), 64);
	cr_expect_eq(cs_gr_inline_qmd_dwords(0xCBC0, 1u << 30), 96);
	cr_expect_eq(cs_gr_inline_qmd_dwords(0xCEC0, (1u << 30) | 0x1ffu), 96);
	cr_expect_eq(cs_gr_inline_qmd_upper(0xC9C0, 0x400000abu), 0x400000abu);
	cr_expect_eq(cs_gr_inline_qmd_upper(0xCBC0, 0x400003abu), 0x1abu);
}

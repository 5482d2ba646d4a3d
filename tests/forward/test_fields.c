/* SPDX-License-Identifier: MIT */
/* Field kinds (include/chainsim/classdesc.h, gr/qmd_fields.def): the address
 * parts the class tables name are the addresses the engines use. Each stream
 * writes every address-carrying method with junk above the field's width;
 * the test rebuilds each address from the trace's method records through the
 * tables alone and compares it with the address the engine's record shows. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/device.h"
#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/rewrite.h"
#include "chainsim/scenario.h"
#include "source.h"

enum { MAX_ADDRS = 16 };

typedef struct addr_state {
	const char *name[MAX_ADDRS];
	uint64_t value[MAX_ADDRS];
	unsigned n;
} addr_state;

static uint64_t *slot(addr_state *st, const char *name)
{
	for (unsigned i = 0; i < st->n; i++)
		if (strcmp(st->name[i], name) == 0)
			return &st->value[i];
	cr_assert_lt(st->n, MAX_ADDRS);
	st->name[st->n] = name;
	st->value[st->n] = 0;
	return &st->value[st->n++];
}

static const cs_class_desc *class_of(uint32_t cls)
{
	const cs_class_desc *d = cs_gr_class(cls);
	return d ? d : cs_fe_host_class(cls);
}

/* One method record folded into the addresses its fields are parts of. */
static const char *fold(addr_state *st, const cs_event *ev)
{
	const cs_class_desc *d = class_of(ev->cls);
	const cs_method_desc *m = d ? cs_class_method_at(d, ev->method, NULL) : NULL;
	const char *last = NULL;
	for (unsigned j = 0; m && j < m->nfields; j++) {
		const cs_field_desc *f = &m->fields[j];
		if (f->kind != CS_FIELD_ADDRESS)
			continue;
		unsigned width = cs_field_width(f);
		uint64_t mask = (width + f->addr_shift >= 64 ? ~0ull
							     : ((1ull << width) - 1) << f->addr_shift);
		uint64_t *v = slot(st, f->addr);
		*v = (*v & ~mask) | (cs_field_addr_bits(f, (uint32_t)ev->value) & mask);
		last = f->addr;
	}
	return last;
}

typedef struct run_counts {
	unsigned i2m, report, copy, copy_sem, host_sem, qmd, program, qmd_release;
} run_counts;

static void check_stream(cs_arch arch, const char *text, run_counts *got)
{
	cs_diag d;
	char *base = test_source_path("tests/forward");
	cs_scenario *s = cs_scenario_parse(text, strlen(text), "fields.chain", base, &d);
	g_free(base);
	cr_assert_not_null(s, "%s", d.msg);
	cs_device_config cfg = { .arch = arch, .trace_level = CS_TRACE_ALL };
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(dev, "%s", d.msg);
	cr_assert(cs_scenario_execute(s, dev, &d), "%s", d.msg);

	addr_state st = { .n = 0 };
	const char *host_sem = NULL;
	uint64_t qmd_program = 0, qmd_release0 = 0;
	memset(got, 0, sizeof(*got));
	size_t n;
	const cs_event *evs = cs_device_events(dev, &n);
	for (size_t i = 0; i < n; i++) {
		const cs_event *ev = &evs[i];
		switch (ev->kind) {
		case CS_EV_METHOD: {
			const char *a = fold(&st, ev);
			if (a && (!strcmp(a, "SEM_ADDR") || !strcmp(a, "SEMAPHORE")))
				host_sem = a;
			break;
		}
		case CS_EV_I2M_WRITE:
			cr_expect_eq(ev->addr, *slot(&st, "I2M_DST"), "I2M at 0x%llx, table 0x%llx",
				     (unsigned long long)ev->addr,
				     (unsigned long long)*slot(&st, "I2M_DST"));
			got->i2m++;
			break;
		case CS_EV_COPY:
			cr_expect_eq(ev->addr, *slot(&st, "COPY_DST"));
			cr_expect_eq(ev->aux, *slot(&st, "COPY_SRC"));
			got->copy++;
			break;
		case CS_EV_SEM_RELEASE:
			if (ev->unit == CS_UNIT_FE) {
				cr_assert_not_null(host_sem);
				cr_expect_eq(ev->addr, *slot(&st, host_sem), "%s at 0x%llx, table 0x%llx",
					     host_sem, (unsigned long long)ev->addr,
					     (unsigned long long)*slot(&st, host_sem));
				got->host_sem++;
			} else if (ev->unit == CS_UNIT_COPY) {
				cr_expect_eq(ev->addr, *slot(&st, "COPY_SEMAPHORE"));
				got->copy_sem++;
			} else if (ev->method == CS_GR_SET_REPORT_SEMAPHORE_D) {
				cr_expect_eq(ev->addr, *slot(&st, "REPORT"), "REPORT at 0x%llx, table 0x%llx",
					     (unsigned long long)ev->addr,
					     (unsigned long long)*slot(&st, "REPORT"));
				got->report++;
			} else {
				cr_expect_eq(ev->addr, qmd_release0, "QMD release at 0x%llx, RELEASE0 0x%llx",
					     (unsigned long long)ev->addr,
					     (unsigned long long)qmd_release0);
				got->qmd_release++;
			}
			break;
		case CS_EV_QMD_INSTALL: {
			const char *a = ev->aux == 0 ? "INLINE_QMD" : "QMD";
			cr_expect_eq(ev->addr, *slot(&st, a), "%s at 0x%llx, table 0x%llx", a,
				     (unsigned long long)ev->addr, (unsigned long long)*slot(&st, a));
			/* the QMD table's address fields, read from the installed QMD */
			const cs_qmd_layout *l = cs_qmd_layout_of(cs_arch_qmd_major(arch));
			uint8_t bytes[CS_QMD_MAX_BYTES];
			cr_assert(cs_device_peek(dev, ev->addr, bytes, l->bytes));
			cs_qmd q;
			cr_assert(cs_qmd_from_bytes(&q, l->major, bytes, l->bytes, &d), "%s", d.msg);
			const cs_qmd_field *af[8];
			unsigned na = cs_qmd_addr_fields(l, af, 8);
			cr_assert_eq(na, 5, "PROGRAM, CONSTANT_BUFFER, RELEASE0, RELEASE1, DEPENDENT_QMD");
			for (unsigned k = 0; k < na; k++) {
				if (!strcmp(af[k]->addr, "PROGRAM"))
					qmd_program = cs_qmd_field_get(&q, af[k], 0);
				if (!strcmp(af[k]->addr, "RELEASE0"))
					qmd_release0 = cs_qmd_field_get(&q, af[k], 0);
			}
			got->qmd++;
			break;
		}
		case CS_EV_DISPATCH:
			cr_expect_eq(ev->addr, qmd_program, "program at 0x%llx, QMD's PROGRAM 0x%llx",
				     (unsigned long long)ev->addr, (unsigned long long)qmd_program);
			got->program++;
			break;
		default:
			break;
		}
	}
	cs_device_free(dev);
	cs_scenario_free(s);
}

/* Junk sits above each upper field's width: bit 31 on Hopper (fields 24:0),
 * bit 20 for 16:0 fields and bit 12 for 7:0 fields on Ampere. */
static const char hopper_stream[] =
	"arch hopper\n"
	"module m ../../fixtures/kernels/out/vadd.nocompress.fatbin\n"
	"alloc buf 0x1000 at=0x300000000\n"
	"alloc a 256\nalloc b 256\nalloc c 256\n"
	"push pb\n"
	"  inc 1 SET_OBJECT 0xCBC0\n"
	"  inc 4 SET_OBJECT 0xC8B5\n"
	"  inc 1 LINE_LENGTH_IN 4\n  inc 1 LINE_COUNT 1\n"
	"  inc 1 OFFSET_OUT_UPPER 0x80000003\n  inc 1 OFFSET_OUT 0x10\n"
	"  inc 1 LAUNCH_DMA 0x1\n  inc 1 LOAD_INLINE_DATA 7\n"
	"  inc 1 SET_REPORT_SEMAPHORE_A 0x80000003\n  inc 1 SET_REPORT_SEMAPHORE_B 0x20\n"
	"  inc 1 SET_REPORT_SEMAPHORE_C 9\n  inc 1 SET_REPORT_SEMAPHORE_D 0x10000000\n"
	"  inc 4 OFFSET_IN_UPPER 0x80000003 0x40 0x80000003 0x80\n"
	"  inc 4 LINE_LENGTH_IN 4 1\n"
	"  inc 4 SET_SEMAPHORE_A 0x80000003 0xc0 5\n"
	"  inc 4 LAUNCH_DMA 0x18a\n"
	"  inc 0 SEM_ADDR_LO 0x100 0x80000003 1 0\n  inc 0 SEM_EXECUTE 1\n"
	"  launch m.vadd grid=1 block=32 args=a,b,c,4 path=pcas name=P\n"
	"  launch m.vadd grid=1 block=32 args=a,b,c,4 path=inline name=I\n"
	"end\n"
	"gpfifo pb\nsubmit\nwait I.sem == 1\n";

static const char ampere_stream[] =
	"arch ampere\n"
	"module m ../../fixtures/kernels/out/vadd.nocompress.fatbin\n"
	"alloc buf 0x1000 at=0x300000000\n"
	"alloc a 256\nalloc b 256\nalloc c 256\n"
	"push pb\n"
	"  inc 1 SET_OBJECT 0xC6C0\n"
	"  inc 4 SET_OBJECT 0xC6B5\n"
	"  inc 1 LINE_LENGTH_IN 4\n  inc 1 LINE_COUNT 1\n"
	"  inc 1 OFFSET_OUT_UPPER 0x100003\n  inc 1 OFFSET_OUT 0x10\n"
	"  inc 1 LAUNCH_DMA 0x1\n  inc 1 LOAD_INLINE_DATA 7\n"
	"  inc 1 SET_REPORT_SEMAPHORE_A 0x1003\n  inc 1 SET_REPORT_SEMAPHORE_B 0x20\n"
	"  inc 1 SET_REPORT_SEMAPHORE_C 9\n  inc 1 SET_REPORT_SEMAPHORE_D 0x10000000\n"
	"  inc 4 OFFSET_IN_UPPER 0x100003 0x40 0x100003 0x80\n"
	"  inc 4 LINE_LENGTH_IN 4 1\n"
	"  inc 4 SET_SEMAPHORE_A 0x100003 0xc0 5\n"
	"  inc 4 LAUNCH_DMA 0x18a\n"
	"  inc 0 SEM_ADDR_LO 0x100 0x1003 1 0\n  inc 0 SEM_EXECUTE 1\n"
	"  inc 0 SEMAPHOREA 0x1003 0x140 2 0x01000002\n"
	"  launch m.vadd grid=1 block=32 args=a,b,c,4 path=pcas name=P\n"
	"  launch m.vadd grid=1 block=32 args=a,b,c,4 path=inline name=I\n"
	"end\n"
	"gpfifo pb\nsubmit\nwait I.sem == 1\n";

Test(fields, hopper_engines_use_the_tables_addresses)
{
	run_counts got;
	check_stream(CS_ARCH_HOPPER, hopper_stream, &got);
	cr_expect_eq(got.i2m, 1);
	cr_expect_eq(got.report, 1);
	cr_expect_eq(got.copy, 1);
	cr_expect_eq(got.copy_sem, 1);
	cr_expect_eq(got.host_sem, 1);
	cr_expect_eq(got.qmd, 2);
	cr_expect_eq(got.program, 2);
	cr_expect_eq(got.qmd_release, 2);
}

Test(fields, ampere_engines_use_the_tables_addresses)
{
	run_counts got;
	check_stream(CS_ARCH_AMPERE, ampere_stream, &got);
	cr_expect_eq(got.i2m, 1);
	cr_expect_eq(got.report, 1);
	cr_expect_eq(got.copy, 1);
	cr_expect_eq(got.copy_sem, 1);
	cr_expect_eq(got.host_sem, 2, "SEM_ADDR and the legacy SEMAPHOREA..D");
	cr_expect_eq(got.qmd, 2);
	cr_expect_eq(got.program, 2);
	cr_expect_eq(got.qmd_release, 2);
}

/* The widths the public headers give (docs/hardware.md), as address bits. */
Test(fields, address_widths_per_class)
{
	static const struct {
		uint32_t cls;
		const char *addr;
		unsigned bits;
	} want[] = {
		{ 0xC56F, "SEM_ADDR", 40 },   { 0xC86F, "SEM_ADDR", 57 },
		{ 0xC96F, "SEM_ADDR", 57 },   { 0xC56F, "SEMAPHORE", 40 },
		{ 0xC86F, "SEMAPHORE", 0 },   { 0xC56F, "MEM_OP_TARGET", 64 },
		{ 0xC6C0, "I2M_DST", 49 },    { 0xCBC0, "I2M_DST", 57 },
		{ 0xC6C0, "REPORT", 40 },     { 0xC9C0, "REPORT", 40 },
		{ 0xCBC0, "REPORT", 57 },     { 0xC6C0, "LOCAL_MEMORY", 49 },
		{ 0xCDC0, "LOCAL_MEMORY", 57 },{ 0xCBC0, "INLINE_QMD", 49 },
		{ 0xC6C0, "QMD", 40 },        { 0xC6B5, "COPY_SRC", 49 },
		{ 0xC7B5, "COPY_DST", 49 },   { 0xC8B5, "COPY_DST", 57 },
		{ 0xC9B5, "COPY_SEMAPHORE", 57 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const cs_class_desc *d = class_of(want[i].cls);
		cr_assert_not_null(d);
		cr_expect_eq(cs_class_addr_bits(d, want[i].addr), want[i].bits, "%04X %s: %u",
			     want[i].cls, want[i].addr, cs_class_addr_bits(d, want[i].addr));
	}
	/* MEM_OP_C/D's PDB is a physical address: no address part */
	const cs_class_desc *host = cs_fe_host_class(0xC56F);
	cs_addr_part parts[16];
	unsigned n = cs_class_addr_parts(host, parts, 16);
	cr_assert_eq(n, 6, "SEMAPHOREA/B, MEM_OP_A/B, SEM_ADDR_LO/HI: %u", n);
	for (unsigned i = 0; i < n; i++)
		cr_expect(strncmp(parts[i].field->name, "PDB", 3) != 0);
}

/* An address latched from its parts (cs_field_addr_merge) is the same in
 * either order, each part replaces only its own bits, and put gives each
 * part back as its method's data. */
Test(fields, address_parts_merge_in_any_order)
{
	static const uint32_t classes[] = { 0xC56F, 0xC86F };
	static const uint64_t addrs[] = { 0xa5b6c7d8ull, 0x1ab6c7d8ull, 0x01ffffab6c7d8ull };
	for (size_t i = 0; i < 2; i++) {
		const cs_class_desc *d = cs_fe_host_class(classes[i]);
		const cs_field_desc *lo = cs_class_addr_field(d, "SEM_ADDR", CS_FE_M_SEM_ADDR_LO);
		const cs_field_desc *hi = cs_class_addr_field(d, "SEM_ADDR", CS_FE_M_SEM_ADDR_HI);
		cr_assert(lo && hi);
		uint64_t top = 1ull << cs_class_addr_bits(d, "SEM_ADDR");
		for (size_t a = 0; a < sizeof(addrs) / sizeof(addrs[0]); a++) {
			uint64_t want = addrs[a] & (top - 1) & ~3ull;
			uint32_t dlo = cs_field_addr_put(lo, 0, addrs[a]);
			uint32_t dhi = cs_field_addr_put(hi, 0, addrs[a]);
			uint64_t lo_first = cs_field_addr_merge(hi, cs_field_addr_merge(lo, 0, dlo), dhi);
			uint64_t hi_first = cs_field_addr_merge(lo, cs_field_addr_merge(hi, 0, dhi), dlo);
			cr_expect_eq(lo_first, want, "%04X 0x%llx: 0x%llx", classes[i],
				     (unsigned long long)addrs[a], (unsigned long long)lo_first);
			cr_expect_eq(hi_first, want);
			/* a later SEM_ADDR_LO replaces bits 31:2 and keeps the upper part */
			cr_expect_eq(cs_field_addr_merge(lo, lo_first, 0), want & ~0xfffffffcull);
		}
	}
}

/* The rewrite library knows exactly the tables' address names (and the
 * pushbuffer): every name of every class and QMD table, nothing else. */
Test(fields, rewrite_knows_the_tables_addresses)
{
	static const uint32_t classes[] = { 0xC56F, 0xC86F, 0xC96F, 0xC6C0, 0xC7C0, 0xC9C0,
					    0xCBC0, 0xCDC0, 0xCEC0, 0xC6B5, 0xC7B5, 0xC8B5, 0xC9B5 };
	unsigned names = 0;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		cs_addr_part parts[32];
		unsigned n = cs_class_addr_parts(class_of(classes[i]), parts, 32);
		cr_assert_leq(n, 32);
		for (unsigned k = 0; k < n; k++) {
			cr_expect(cs_rewrite_addr_known(parts[k].field->addr), "%04X %s.%s: %s",
				  classes[i], parts[k].method->name, parts[k].field->name,
				  parts[k].field->addr);
			names++;
		}
	}
	for (unsigned major = 3; major <= 5; major++) {
		const cs_qmd_field *af[8];
		unsigned n = cs_qmd_addr_fields(cs_qmd_layout_of(major), af, 8);
		for (unsigned k = 0; k < n; k++)
			cr_expect(cs_rewrite_addr_known(af[k]->addr), "V0%u %s", major, af[k]->name);
	}
	cr_expect_gt(names, 40);
	cr_expect(cs_rewrite_addr_known("PUSHBUFFER"));
	cr_expect(!cs_rewrite_addr_known("PDB"));
	cr_expect(!cs_rewrite_addr_known("QMD_ADDRESS_SHIFTED8"));
	cr_expect(!cs_rewrite_addr_known(""));
}

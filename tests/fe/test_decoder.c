/* SPDX-License-Identifier: MIT */
/* The streaming pushbuffer decoder and the host class tables. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"

enum { CAP = 20000 };

typedef struct dec_out {
	cs_pb_item *items;
	size_t n;
	size_t consumed;
	cs_diag d;
} dec_out;

static dec_out decode_all(cs_pb_decoder *dec, const uint32_t *dw, size_t n)
{
	dec_out o = { calloc(CAP, sizeof(cs_pb_item)), 0, 0, { 0 } };
	cr_assert_not_null(o.items);
	o.n = cs_pb_decode(dec, dw, n, o.items, CAP, &o.consumed, &o.d);
	return o;
}

Test(decoder, incrementing)
{
	cs_pb_decoder dec;
	cs_pb_decoder_init(&dec, false);
	uint32_t pb[] = { cs_pb_inc(1, 0x200, 3), 10, 11, 12 };
	dec_out o = decode_all(&dec, pb, 4);
	cr_assert_eq(o.n, 3);
	cr_assert_eq(o.consumed, 4);
	for (unsigned i = 0; i < 3; i++) {
		cr_assert_eq(o.items[i].kind, CS_PB_ITEM_METHOD);
		cr_assert_eq(o.items[i].subch, 1);
		cr_assert_eq(o.items[i].method, 0x200 + 4 * i);
		cr_assert_eq(o.items[i].data, 10 + i);
		cr_assert_eq(o.items[i].dword, 1 + i);
	}
	cr_assert_eq(dec.methods, 3);
	cr_assert_eq(dec.headers, 1);
	free(o.items);
}

Test(decoder, non_incrementing_and_increment_once)
{
	cs_pb_decoder dec;
	cs_pb_decoder_init(&dec, false);
	uint32_t pb[] = { cs_pb_noninc(2, 0x1b4, 3), 1, 2, 3, cs_pb_oneinc(3, 0x300, 4), 4, 5, 6, 7 };
	dec_out o = decode_all(&dec, pb, 9);
	cr_assert_eq(o.n, 7);
	for (unsigned i = 0; i < 3; i++)
		cr_assert_eq(o.items[i].method, 0x1b4);
	cr_assert_eq(o.items[3].method, 0x300);
	cr_assert_eq(o.items[4].method, 0x304);
	cr_assert_eq(o.items[5].method, 0x304);
	cr_assert_eq(o.items[6].method, 0x304);
	cr_assert_eq(o.items[6].data, 7);
	cr_assert_eq(o.items[6].subch, 3);
	free(o.items);
}

Test(decoder, immediate_and_its_edges)
{
	cs_pb_decoder dec;
	cs_pb_decoder_init(&dec, true);
	uint32_t pb[] = { cs_pb_immd(4, 0x50, 0), cs_pb_immd(7, 0x3ffc, CS_PB_MAX_IMMD) };
	dec_out o = decode_all(&dec, pb, 2);
	cr_assert_eq(o.n, 4); /* header + method, twice */
	cr_assert_eq(o.items[0].kind, CS_PB_ITEM_HEADER);
	cr_assert_eq(o.items[0].data, pb[0]);
	cr_assert_eq(o.items[1].kind, CS_PB_ITEM_METHOD);
	cr_assert_eq(o.items[1].data, 0);
	cr_assert_eq(o.items[1].dword, 0);
	cr_assert_eq(o.items[3].method, 0x3ffc);
	cr_assert_eq(o.items[3].subch, 7);
	cr_assert_eq(o.items[3].data, 8191);
	cr_assert_eq(o.items[3].dword, 1);
	free(o.items);
}

Test(decoder, count_zero_headers)
{
	cs_pb_decoder dec;
	cs_pb_decoder_init(&dec, true);
	uint32_t pb[] = { cs_pb_inc(0, 0x8, 0), cs_pb_noninc(1, 0x200, 0), cs_pb_oneinc(0, 0x8, 0),
			  cs_pb_inc(0, 0x8, 1), 42 };
	dec_out o = decode_all(&dec, pb, 5);
	cr_assert_eq(o.n, 5); /* four headers, one method */
	cr_assert_eq(o.items[3].kind, CS_PB_ITEM_HEADER);
	cr_assert_eq(o.items[4].kind, CS_PB_ITEM_METHOD);
	cr_assert_eq(o.items[4].data, 42);
	cr_assert_eq(o.items[4].dword, 4);
	cr_assert(!cs_pb_decoder_pending(&dec));
	free(o.items);

	cs_pb_decoder_init(&dec, false);
	o = decode_all(&dec, pb, 3);
	cr_assert_eq(o.n, 0);
	cr_assert_eq(o.consumed, 3);
	cr_assert(!dec.failed);
	free(o.items);
}

Test(decoder, count_8191)
{
	uint32_t *pb = calloc(8192, 4);
	pb[0] = cs_pb_noninc(1, 0x1b4, CS_PB_MAX_COUNT);
	for (uint32_t i = 1; i < 8192; i++)
		pb[i] = i;
	cs_pb_decoder dec;
	cs_pb_decoder_init(&dec, false);
	dec_out o = decode_all(&dec, pb, 8192);
	cr_assert_eq(o.n, 8191);
	cr_assert_eq(o.items[8190].data, 8191);
	cr_assert_eq(o.items[8190].method, 0x1b4);
	cr_assert(!cs_pb_decoder_pending(&dec));
	free(o.items);

	/* incrementing: 4096 methods from 0 reach exactly 0x3ffc; 8191 cannot */
	pb[0] = cs_pb_inc(0, 0, 4096);
	cs_pb_decoder_init(&dec, false);
	o = decode_all(&dec, pb, 4097);
	cr_assert_eq(o.n, 4096);
	cr_assert_eq(o.items[4095].method, 0x3ffc);
	free(o.items);

	pb[0] = cs_pb_inc(0, 0x100, CS_PB_MAX_COUNT);
	cs_pb_decoder_init(&dec, false);
	o = decode_all(&dec, pb, 8192);
	cr_assert_eq(o.n, 0);
	cr_assert(dec.failed);
	cr_assert(o.d.has_offset);
	cr_assert_eq(o.d.offset, 0);
	cr_assert_not_null(strstr(o.d.msg, "runs past the last method"), "%s", o.d.msg);
	free(o.items);
	free(pb);
}

Test(decoder, end_of_segment_mid_entry)
{
	uint32_t pb[] = { cs_pb_inc(0, 0x8, 1), 1, cs_pb_end_seg(), cs_pb_inc(0, 0x8, 1), 2 };
	cs_pb_decoder dec;
	cs_pb_decoder_init(&dec, false);
	dec_out o = decode_all(&dec, pb, 5);
	cr_assert_eq(o.n, 2);
	cr_assert_eq(o.items[0].kind, CS_PB_ITEM_METHOD);
	cr_assert_eq(o.items[1].kind, CS_PB_ITEM_END_SEG);
	cr_assert_eq(o.items[1].dword, 2);
	cr_assert_eq(o.consumed, 3, "decoding stops after END_SEG");
	/* fed on: ignored until a new segment */
	size_t used;
	cs_pb_item more[4];
	cr_assert_eq(cs_pb_decode(&dec, pb + 3, 2, more, 4, &used, NULL), 0);
	cr_assert_eq(used, 2);
	cs_pb_decoder_segment(&dec);
	cr_assert_eq(cs_pb_decode(&dec, pb + 3, 2, more, 4, &used, NULL), 1);
	cr_assert_eq(more[0].data, 2);
	free(o.items);

	/* reporting headers, the ignored dwords are listed */
	cs_pb_decoder_init(&dec, true);
	o = decode_all(&dec, pb, 5);
	cr_assert_eq(o.n, 5);
	cr_assert_eq(o.items[0].kind, CS_PB_ITEM_HEADER);
	cr_assert_eq(o.items[2].kind, CS_PB_ITEM_END_SEG);
	cr_assert_eq(o.items[3].kind, CS_PB_ITEM_SKIPPED);
	cr_assert_eq(o.items[3].data, pb[3]);
	cr_assert_eq(o.items[4].kind, CS_PB_ITEM_SKIPPED);
	cr_assert_eq(o.items[4].data, 2);
	cr_assert_eq(o.consumed, 5);
	free(o.items);
}

Test(decoder, header_last_dword_data_in_next_feed)
{
	uint32_t a[] = { cs_pb_inc(0, 0x8, 1), 5, cs_pb_inc(1, 0x400, 3) };
	uint32_t b[] = { 7, 8 };
	uint32_t c[] = { 9, cs_pb_immd(0, 0x50, 3) };
	cs_pb_decoder dec;
	cs_pb_decoder_init(&dec, false);
	cs_pb_item it[8];
	size_t used;
	cr_assert_eq(cs_pb_decode(&dec, a, 3, it, 8, &used, NULL), 1);
	cr_assert(cs_pb_decoder_pending(&dec));
	cs_pb_decoder_segment(&dec);
	cr_assert_eq(cs_pb_decode(&dec, b, 2, it, 8, &used, NULL), 2);
	cr_assert_eq(it[0].method, 0x400);
	cr_assert_eq(it[1].method, 0x404);
	cr_assert_eq(it[0].dword, 3);
	cs_pb_decoder_segment(&dec);
	cr_assert_eq(cs_pb_decode(&dec, c, 2, it, 8, &used, NULL), 2);
	cr_assert_eq(it[0].method, 0x408);
	cr_assert_eq(it[0].data, 9);
	cr_assert_eq(it[0].dword, 5);
	cr_assert_eq(it[1].data, 3);
	cr_assert_eq(it[1].dword, 6);
}

/* Any slicing of the input gives the same items. */
Test(decoder, slicing_does_not_matter)
{
	uint32_t pb[64];
	size_t n = 0;
	pb[n++] = cs_pb_inc(1, 0x200, 5);
	for (int i = 0; i < 5; i++)
		pb[n++] = 100 + (uint32_t)i;
	pb[n++] = cs_pb_immd(2, 0x300, 77);
	pb[n++] = 0; /* DMA_NOP */
	pb[n++] = cs_pb_oneinc(3, 0x400, 4);
	for (int i = 0; i < 4; i++)
		pb[n++] = 200 + (uint32_t)i;
	pb[n++] = cs_pb_noninc(4, 0x500, 3);
	for (int i = 0; i < 3; i++)
		pb[n++] = 300 + (uint32_t)i;

	cs_pb_decoder whole;
	cs_pb_decoder_init(&whole, true);
	dec_out ref = decode_all(&whole, pb, n);
	cr_assert_eq(ref.consumed, n);

	for (size_t step = 1; step <= 7; step++) {
		for (size_t cap = 2; cap <= 5; cap++) {
			cs_pb_decoder dec;
			cs_pb_decoder_init(&dec, true);
			cs_pb_item got[128];
			size_t ng = 0;
			for (size_t pos = 0; pos < n;) {
				size_t len = n - pos < step ? n - pos : step;
				size_t used;
				cs_pb_item tmp[8];
				size_t k = cs_pb_decode(&dec, pb + pos, len, tmp, cap, &used, NULL);
				cr_assert(k > 0 || used > 0, "no progress at %zu", pos);
				memcpy(got + ng, tmp, k * sizeof(*tmp));
				ng += k;
				pos += used;
			}
			cr_assert_eq(ng, ref.n, "step %zu cap %zu", step, cap);
			cr_assert_eq(memcmp(got, ref.items, ng * sizeof(*got)), 0, "step %zu cap %zu",
				     step, cap);
		}
	}
	free(ref.items);
}

Test(decoder, reserved_kinds_are_located)
{
	struct {
		uint32_t h;
		const char *phrase;
	} cases[] = {
		{ 0x00010004u, "SEC_OP 0" },
		{ 0x40010004u, "SEC_OP 2" },
		{ 0xc0010004u, "SEC_OP 6 is reserved" },
	};
	for (unsigned i = 0; i < 3; i++) {
		uint32_t pb[] = { cs_pb_inc(0, 0x8, 1), 1, 0, cases[i].h, 5 };
		cs_pb_decoder dec;
		cs_pb_decoder_init(&dec, false);
		dec_out o = decode_all(&dec, pb, 5);
		cr_assert_eq(o.n, 1, "the method before the bad header is still yielded");
		cr_assert_eq(o.consumed, 3);
		cr_assert(dec.failed);
		cr_assert_eq(o.d.status, CS_ERR_INPUT);
		cr_assert(o.d.has_offset);
		cr_assert_eq(o.d.offset, 12, "byte offset of the header");
		cr_assert_not_null(strstr(o.d.msg, cases[i].phrase), "%s", o.d.msg);
		/* a failed decoder stays failed */
		size_t used;
		cr_assert_eq(cs_pb_decode(&dec, pb, 2, o.items, 4, &used, NULL), 0);
		cr_assert_eq(used, 0);
		free(o.items);
	}
}

Test(decoder, increment_once_at_last_method)
{
	uint32_t pb[] = { cs_pb_oneinc(0, 0x3ffc, 2), 1, 2 };
	cs_pb_decoder dec;
	cs_pb_decoder_init(&dec, false);
	dec_out o = decode_all(&dec, pb, 3);
	cr_assert(dec.failed);
	cr_assert_not_null(strstr(o.d.msg, "no next method"));
	free(o.items);
	pb[0] = cs_pb_oneinc(0, 0x3ffc, 1);
	cs_pb_decoder_init(&dec, false);
	o = decode_all(&dec, pb, 2);
	cr_assert(!dec.failed);
	cr_assert_eq(o.n, 1);
	free(o.items);
}

/* ---- host class tables --------------------------------------------------- */

Test(hostclass, three_classes_with_sources)
{
	const uint32_t ids[] = { 0xC56F, 0xC86F, 0xC96F };
	const char *hdr[] = { "clc56f.h", "clc86f.h", "clc96f.h" };
	for (unsigned i = 0; i < 3; i++) {
		const cs_class_desc *c = cs_fe_host_class(ids[i]);
		cr_assert_not_null(c);
		cr_assert_eq(c->id, ids[i]);
		cr_assert_not_null(strstr(c->source, hdr[i]), "%s", c->source);
		cr_assert_str_eq(c->name, cs_class_name(ids[i]));
	}
	cr_assert_null(cs_fe_host_class(0xCBC0));
	cr_assert_null(cs_fe_host_class(0xC46F));
	cr_assert_null(cs_fe_host_class(0));
}

Test(hostclass, offsets_match_the_facts)
{
	struct {
		const char *name;
		uint32_t off;
	} rows[] = {
		{ "SET_OBJECT", 0x000 },     { "NOP", 0x008 },         { "NON_STALL_INTERRUPT", 0x020 },
		{ "MEM_OP_A", 0x028 },       { "MEM_OP_D", 0x034 },    { "SET_REFERENCE", 0x050 },
		{ "SEM_ADDR_LO", 0x05c },    { "SEM_ADDR_HI", 0x060 }, { "SEM_PAYLOAD_LO", 0x064 },
		{ "SEM_PAYLOAD_HI", 0x068 }, { "SEM_EXECUTE", 0x06c }, { "WFI", 0x078 },
	};
	const uint32_t ids[] = { 0xC56F, 0xC86F, 0xC96F };
	for (unsigned k = 0; k < 3; k++) {
		const cs_class_desc *c = cs_fe_host_class(ids[k]);
		for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			uint32_t off = 0xffff;
			cr_assert(cs_class_method_named(c, rows[i].name, &off), "%04X %s", ids[k],
				  rows[i].name);
			cr_assert_eq(off, rows[i].off, "%04X %s", ids[k], rows[i].name);
			char label[64];
			cr_assert(cs_class_method_label(c, rows[i].off, label, sizeof(label)));
			cr_assert_str_eq(label, rows[i].name);
		}
	}
	/* legacy semaphores only on C56F */
	uint32_t off;
	cr_assert(cs_class_method_named(cs_fe_host_class(0xC56F), "SEMAPHORED", &off));
	cr_assert_eq(off, 0x1c);
	cr_assert(!cs_class_method_named(cs_fe_host_class(0xC86F), "SEMAPHORED", &off));
	cr_assert(!cs_class_method_named(cs_fe_host_class(0xC96F), "ILLEGAL", &off));
}

Test(hostclass, field_decoders)
{
	const cs_class_desc *c56 = cs_fe_host_class(0xC56F);
	const cs_class_desc *c86 = cs_fe_host_class(0xC86F);
	char buf[256];
	const cs_method_desc *m = cs_class_method_at(c56, CS_FE_M_SEM_EXECUTE, NULL);
	cr_assert_not_null(m);
	uint32_t d = cs_fe_sem_execute(CS_FE_SEM_ACQ_STRICT_GEQ, true, false, true, CS_FE_RED_IMIN, false);
	cs_method_format_fields(m, d, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "OPERATION=ACQ_STRICT_GEQ"), "%s", buf);
	cr_assert_not_null(strstr(buf, "PAYLOAD_SIZE=64BIT"), "%s", buf);
	cr_assert_not_null(strstr(buf, "RELEASE_WFI=EN"), "%s", buf);
	cr_assert_not_null(strstr(buf, "RELEASE_TIMESTAMP=DIS"), "%s", buf);
	cr_assert_not_null(strstr(buf, "REDUCTION_FORMAT=SIGNED"), "%s", buf);
	d = cs_fe_sem_execute(CS_FE_SEM_REDUCTION, false, true, false, CS_FE_RED_DEC, true);
	cs_method_format_fields(m, d, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "OPERATION=REDUCTION"), "%s", buf);
	cr_assert_not_null(strstr(buf, "REDUCTION=DEC"), "%s", buf);
	cr_assert_not_null(strstr(buf, "RELEASE_TIMESTAMP=EN"), "%s", buf);
	cr_assert_not_null(strstr(buf, "REDUCTION_FORMAT=UNSIGNED"), "%s", buf);

	/* SEM_ADDR_HI: 7:0 on C56F, 24:0 from C86F */
	const cs_method_desc *hi56 = cs_class_method_at(c56, CS_FE_M_SEM_ADDR_HI, NULL);
	const cs_method_desc *hi86 = cs_class_method_at(c86, CS_FE_M_SEM_ADDR_HI, NULL);
	cr_assert_eq(hi56->fields[0].hi, 7);
	cr_assert_eq(hi86->fields[0].hi, 24);

	m = cs_class_method_at(c56, CS_FE_M_SET_OBJECT, NULL);
	cs_method_format_fields(m, 0x0001CBC0u, buf, sizeof(buf));
	cr_assert_str_eq(buf, "NVCLASS=0xcbc0 ENGINE=0x1");
	m = cs_class_method_at(c86, CS_FE_M_MEM_OP_D, NULL);
	cs_method_format_fields(m, 5u << 27, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "OPERATION=MEMBAR"), "%s", buf);
	m = cs_class_method_at(c86, CS_FE_M_WFI, NULL);
	cs_method_format_fields(m, 1, buf, sizeof(buf));
	cr_assert_str_eq(buf, "SCOPE=ALL");
	m = cs_class_method_at(c56, CS_FE_M_NON_STALL_INTERRUPT, NULL);
	cs_method_format_fields(m, 9, buf, sizeof(buf));
	cr_assert_str_eq(buf, "HANDLE=0x9");
}

Test(hostclass, assumed_rows)
{
	cr_assert(cs_fe_host_method_assumed(0xC86F, CS_FE_M_NOP));
	cr_assert(cs_fe_host_method_assumed(0xC86F, CS_FE_M_SET_REFERENCE));
	cr_assert(cs_fe_host_method_assumed(0xC96F, CS_FE_M_WFI));
	cr_assert(!cs_fe_host_method_assumed(0xC86F, CS_FE_M_WFI));
	cr_assert(!cs_fe_host_method_assumed(0xC86F, CS_FE_M_SEM_EXECUTE));
	cr_assert(!cs_fe_host_method_assumed(0xC56F, CS_FE_M_NOP));
	cr_assert(!cs_fe_host_method_assumed(0xCBC0, CS_FE_M_NOP));
}

Test(hostclass, names)
{
	cr_assert_str_eq(cs_fe_sem_op_name(CS_FE_SEM_ACQ_NOR), "ACQ_NOR");
	cr_assert_str_eq(cs_fe_sem_op_name(7), "?");
	cr_assert_str_eq(cs_fe_red_op_name(CS_FE_RED_IADD), "IADD");
	cr_assert_str_eq(cs_fe_red_op_name(8), "?");
	cr_assert_str_eq(cs_fe_secop_name(CS_SECOP_END_SEG), "END_SEG");
	cr_assert_str_eq(cs_fe_secop_name(CS_SECOP_ONEINC), "ONEINC");
}

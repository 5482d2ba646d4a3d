/* SPDX-License-Identifier: MIT */
/* The pushbuffer walker: items in order, SET_OBJECT bindings per subchannel,
 * END_SEG, a header cut off by the buffer's end, a malformed header. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"

/* Every METHOD step of dw: its subch, method, index and the class it goes to. */
typedef struct walked {
	cs_pb_step st[600];
	size_t n;
	size_t items;
} walked;

static walked *walk_all(cs_pb_walk *w, const uint32_t *dw, size_t n, bool headers,
			const uint32_t *bound)
{
	walked *o = calloc(1, sizeof(*o));
	cr_assert_not_null(o);
	cs_pb_walk_begin(w, dw, n, headers, bound);
	cs_pb_step st;
	while (cs_pb_walk_next(w, &st)) {
		o->items++;
		if (st.item.kind == CS_PB_ITEM_METHOD && o->n < 600)
			o->st[o->n++] = st;
	}
	return o;
}

Test(walk, set_object_binds_each_subchannel)
{
	const uint32_t start[8] = { 0, 0xC6C0, 0, 0, 0xC7B5, 0, 0, 0 };
	uint32_t pb[] = {
		cs_pb_inc(1, 0x200, 1), 7,          /* 0: compute's, as the caller began */
		cs_pb_inc(1, 0, 1), 0xCBC0,         /* 1: SET_OBJECT 1 := CBC0 */
		cs_pb_inc(3, 0, 1), 0x1C8B5,        /* 2: SET_OBJECT 3 := C8B5 (engine bits) */
		cs_pb_immd(1, 0x200, 5),            /* 3: goes to CBC0 now */
		cs_pb_inc(3, 0x300, 2), 8, 9,       /* 4, 5: C8B5 */
		cs_pb_inc(4, 0x400, 1), 1,          /* 6: untouched: C7B5 */
		cs_pb_noninc(1, 0, 2), 0xC9C0, 0xCAC0, /* 7, 8: the last one binds */
		cs_pb_inc(1, 0x204, 1), 3,          /* 9: CAC0 */
	};
	cs_pb_walk w;
	walked *o = walk_all(&w, pb, sizeof(pb) / 4, false, start);
	cr_assert_eq(o->n, 10);
	const uint32_t cls[10] = { 0xC6C0, 0xC6C0, 0, 0xCBC0, 0xC8B5, 0xC8B5, 0xC7B5, 0xCBC0, 0xC9C0,
				   0xCAC0 };
	for (unsigned i = 0; i < 10; i++) {
		cr_assert_eq(o->st[i].index, i);
		cr_assert_eq(o->st[i].cls, cls[i], "method %u went to 0x%x, not 0x%x", i, o->st[i].cls,
			     cls[i]);
	}
	cr_assert_eq(w.bound[1], 0xCAC0);
	cr_assert_eq(w.bound[3], 0xC8B5);
	cr_assert_eq(w.bound[4], 0xC7B5);
	cr_assert_eq(w.bound[0], 0);
	cr_assert(!cs_pb_decoder_pending(&w.dec));
	free(o);
}

Test(walk, bind_overrides_what_was_walked)
{
	uint32_t pb[] = { cs_pb_inc(2, 0, 1), 0xCBC0, cs_pb_inc(2, 0x300, 1), 1 };
	cs_pb_walk w;
	cs_pb_walk_begin(&w, pb, 4, false, NULL);
	cs_pb_step st;
	cr_assert(cs_pb_walk_next(&w, &st));
	cr_assert_eq(w.bound[2], 0xCBC0);
	cs_pb_walk_bind(&w, 2, st.cls); /* a rewrite dropped the SET_OBJECT */
	cr_assert(cs_pb_walk_next(&w, &st));
	cr_assert_eq(st.cls, 0);
	cr_assert(!cs_pb_walk_next(&w, &st));
}

/* More items than one chunk: the walk goes on across the decoder's refills. */
Test(walk, across_chunks)
{
	enum { N = 3 * CS_PB_WALK_CHUNK + 7 };
	uint32_t *pb = calloc(N + 4, 4);
	cr_assert_not_null(pb);
	pb[0] = cs_pb_inc(0, 0, 1);
	pb[1] = 0xC8B5;
	pb[2] = cs_pb_noninc(0, 0x400, N);
	for (unsigned i = 0; i < N; i++)
		pb[3 + i] = i;
	cs_pb_walk w;
	cs_pb_walk_begin(&w, pb, N + 3, false, NULL);
	cs_pb_step st;
	unsigned seen = 0;
	while (cs_pb_walk_next(&w, &st)) {
		if (st.index == 0)
			continue;
		cr_assert_eq(st.item.data, st.index - 1);
		cr_assert_eq(st.cls, 0xC8B5);
		seen++;
	}
	cr_assert_eq(seen, N);
	cr_assert_eq(w.fed, N + 3);
	free(pb);
}

Test(walk, end_seg_ends_the_walk_unless_headers_are_reported)
{
	uint32_t pb[] = { cs_pb_inc(1, 0x200, 1), 1, cs_pb_end_seg(), cs_pb_inc(1, 0x204, 1), 2 };
	cs_pb_walk w;
	walked *o = walk_all(&w, pb, 5, false, NULL);
	cr_assert_eq(o->n, 1);
	cr_assert_eq(o->items, 2); /* the method, the END_SEG */
	cr_assert(w.ended);
	free(o);
	o = walk_all(&w, pb, 5, true, NULL);
	cr_assert_eq(o->n, 1);
	cr_assert_eq(o->items, 5); /* header, method, END_SEG, two SKIPPED */
	cr_assert_eq(w.fed, 5);
	free(o);
}

/* A header that announces more data than the buffer holds: the methods
 * that are there, and the decoder left waiting for the rest. */
Test(walk, truncated_header)
{
	uint32_t pb[] = { cs_pb_inc(1, 0x200, 4), 1, 2 };
	cs_pb_walk w;
	walked *o = walk_all(&w, pb, 3, false, NULL);
	cr_assert_eq(o->n, 2);
	cr_assert(cs_pb_decoder_pending(&w.dec));
	cr_assert_eq(w.dec.remaining, 2);
	cr_assert(!w.dec.failed);
	cr_assert(cs_pb_check(pb, 3, NULL));
	free(o);
}

Test(walk, malformed_header_is_located)
{
	uint32_t pb[] = { cs_pb_inc(1, 0x200, 1), 1, cs_pb_immd(0, 0x100, 1), 0x40000000u,
			  cs_pb_inc(1, 0x204, 1), 2 };
	cs_pb_walk w;
	walked *o = walk_all(&w, pb, 6, false, NULL);
	cr_assert_eq(o->n, 2);
	cr_assert(w.dec.failed);
	cr_assert_eq(w.diag.status, CS_ERR_INPUT);
	cr_assert_eq(w.diag.offset, 12, "offset %llu", (unsigned long long)w.diag.offset);
	cr_assert_not_null(strstr(w.diag.msg, "0x40000000"), "%s", w.diag.msg);
	cs_diag d;
	cr_assert(!cs_pb_check(pb, 6, &d));
	cr_assert_eq(d.offset, 12);
	cr_assert(cs_pb_check(pb, 3, &d));
	free(o);
}

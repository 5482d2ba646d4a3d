/* SPDX-License-Identifier: MIT */
/* The differential test of the .sync warp instructions: generated kernels run
 * each one with random member masks (groups of lanes, exited lanes among the
 * members) on two divergent sibling paths that meet at it, checked against a
 * small reference model of the rules in docs/warp.md. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* One generated case: per lane its value, member mask, path, exit flag and
 * shfl lane operand; the shfl's c operand is one immediate. */
typedef struct wcase {
	uint32_t a[32], mask[32], path[32], exited[32], b[32];
	uint32_t c;
} wcase;

enum { K_REDUX, K_VOTE, K_SHFL, K_MATCH, K_ELECT, K_WARPSYNC };
typedef struct wop {
	int kind;
	const char *text; /* %s destination, %s predicate */
	int sub;          /* redux op / vote mode / shfl mode / match mode */
	bool sgn;
} wop;

static const wop ops[] = {
	{ K_REDUX, "redux.sync.add.u32 %s, %%r3, %%r4;", 0, false },
	{ K_REDUX, "redux.sync.min.u32 %s, %%r3, %%r4;", 1, false },
	{ K_REDUX, "redux.sync.max.u32 %s, %%r3, %%r4;", 2, false },
	{ K_REDUX, "redux.sync.min.s32 %s, %%r3, %%r4;", 1, true },
	{ K_REDUX, "redux.sync.max.s32 %s, %%r3, %%r4;", 2, true },
	{ K_REDUX, "redux.sync.and.b32 %s, %%r3, %%r4;", 3, false },
	{ K_REDUX, "redux.sync.or.b32 %s, %%r3, %%r4;", 4, false },
	{ K_REDUX, "redux.sync.xor.b32 %s, %%r3, %%r4;", 5, false },
	{ K_VOTE, "vote.sync.ballot.b32 %s, %%p4, %%r4;", 3, false },
	{ K_VOTE, "vote.sync.all.pred %s, %%p4, %%r4;", 0, false },
	{ K_VOTE, "vote.sync.any.pred %s, %%p4, %%r4;", 1, false },
	{ K_VOTE, "vote.sync.uni.pred %s, %%p4, %%r4;", 2, false },
	{ K_SHFL, "shfl.sync.up.b32 %s|%s, %%r3, %%r7, %u, %%r4;", 0, false },
	{ K_SHFL, "shfl.sync.down.b32 %s|%s, %%r3, %%r7, %u, %%r4;", 1, false },
	{ K_SHFL, "shfl.sync.bfly.b32 %s|%s, %%r3, %%r7, %u, %%r4;", 2, false },
	{ K_SHFL, "shfl.sync.idx.b32 %s|%s, %%r3, %%r7, %u, %%r4;", 3, false },
	{ K_MATCH, "match.any.sync.b32 %s, %%r9, %%r4;", 0, false },
	{ K_MATCH, "match.all.sync.b32 %s|%s, %%r9, %%r4;", 1, false },
	{ K_ELECT, "elect.sync %s|%s, %%r4;", 0, false },
	{ K_WARPSYNC, "bar.warp.sync %%r4;", 0, false },
};

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* The instruction text with its destinations: a register or a predicate
 * (vote's non-ballot modes write the predicate as d). */
static void op_text(char *buf, size_t n, const wop *o, const char *reg, const char *pred, uint32_t c)
{
	bool pred_dst = o->kind == K_VOTE && o->sub != 3;
	if (o->kind == K_SHFL)
		snprintf(buf, n, o->text, reg, pred, c);
	else if (o->kind == K_WARPSYNC)
		snprintf(buf, n, "bar.warp.sync %%r4;");
	else if (strstr(o->text, "|"))
		snprintf(buf, n, o->text, reg, pred);
	else
		snprintf(buf, n, o->text, pred_dst ? pred : reg);
}

/* The reference model: what lane l gets (value, predicate). */
static void model(const wop *o, const wcase *w, unsigned l, uint32_t *val, uint32_t *pred)
{
	uint32_t live = 0;
	for (unsigned j = 0; j < 32; j++)
		live |= (uint32_t)!w->exited[j] << j;
	uint32_t P = w->mask[l] & live;
	*val = 0;
	*pred = 0;
	switch (o->kind) {
	case K_REDUX: {
		bool first = true;
		uint32_t acc = 0;
		for (unsigned j = 0; j < 32; j++) {
			if (!((P >> j) & 1))
				continue;
			uint32_t v = w->a[j];
			if (first) {
				acc = v;
				first = false;
				continue;
			}
			switch (o->sub) {
			case 0: acc += v; break;
			case 1: acc = o->sgn ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc); break;
			case 2: acc = o->sgn ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc); break;
			case 3: acc &= v; break;
			case 4: acc |= v; break;
			default: acc ^= v; break;
			}
		}
		*val = acc;
		break;
	}
	case K_VOTE: {
		uint32_t act = 0;
		for (unsigned j = 0; j < 32; j++)
			if ((P >> j) & 1 && (w->a[j] & 1))
				act |= 1u << j;
		if (o->sub == 3)
			*val = act;
		else
			*pred = o->sub == 0 ? act == P : o->sub == 1 ? act != 0 : (act == 0 || act == P);
		break;
	}
	case K_SHFL: {
		uint32_t bval = w->b[l] & 31, cval = w->c & 31, seg = (w->c >> 8) & 31;
		uint32_t maxl = (l & seg) | (cval & ~seg), minl = l & seg;
		int j;
		bool ok;
		switch (o->sub) {
		case 0: j = (int)l - (int)bval; ok = j >= (int)maxl; break;
		case 1: j = (int)(l + bval); ok = j <= (int)maxl; break;
		case 2: j = (int)(l ^ bval); ok = j <= (int)maxl; break;
		default: j = (int)(minl | (bval & ~seg)); ok = j <= (int)maxl; break;
		}
		if (!ok)
			j = (int)l;
		*val = (P >> j) & 1 ? w->a[j] : 0; /* an undefined source: chainsim's 0 */
		*pred = ok;
		break;
	}
	case K_MATCH: {
		uint32_t same = 0;
		for (unsigned j = 0; j < 32; j++)
			if ((P >> j) & 1 && (w->a[j] & 3) == (w->a[l] & 3))
				same |= 1u << j;
		*val = o->sub == 0 ? same : same == P ? P : 0;
		*pred = o->sub == 1 && same == P;
		break;
	}
	case K_ELECT:
		*val = (uint32_t)__builtin_ctz(P);
		*pred = l == *val;
		break;
	default:
		break;
	}
}

/* Lanes in ngroups random groups, each lane's member mask its group (exited
 * lanes stay in the masks), random paths, values, exits and shfl operands. */
static void make_case(wcase *w, uint32_t *seed)
{
	unsigned ngroups = 1 + rnd(seed) % 4;
	uint32_t group[32];
	for (unsigned l = 0; l < 32; l++)
		group[l] = rnd(seed) % ngroups;
	for (unsigned l = 0; l < 32; l++) {
		w->mask[l] = 0;
		for (unsigned j = 0; j < 32; j++)
			if (group[j] == group[l])
				w->mask[l] |= 1u << j;
		w->a[l] = rnd(seed) % 4 == 0 ? rnd(seed) % 8 : rnd(seed);
		w->path[l] = rnd(seed) & 1;
		w->exited[l] = rnd(seed) % 6 == 0;
		w->b[l] = rnd(seed) % 40;
	}
	w->exited[rnd(seed) % 32] = 0; /* one lane at least runs */
	static const uint32_t cs[] = { 0x1f, 0, 0x101f, 0x181f, 0x1c00, 0x0f, 0x1e07 };
	w->c = cs[rnd(seed) % (sizeof(cs) / sizeof(cs[0]))];
}

/* Runs op o on case w: lanes on path 1 branch to the second copy of the
 * instruction, the others run the first, and both meet at it. */
static void run_case(const wop *o, const wcase *w, uint32_t got[32][2], cs_grid_result *r)
{
	char opa[160], opb[160], body[2048];
	op_text(opa, sizeof(opa), o, "%r20", "%p5", w->c);
	op_text(opb, sizeof(opb), o, "%r21", "%p6", w->c);
	snprintf(body, sizeof(body),
		 "\tld.global.u32 %%r3, [%%rd5];\n\tld.global.u32 %%r4, [%%rd5+128];\n"
		 "\tld.global.u32 %%r5, [%%rd5+256];\n\tld.global.u32 %%r6, [%%rd5+384];\n"
		 "\tld.global.u32 %%r7, [%%rd5+512];\n"
		 "\tand.b32 %%r8, %%r3, 1;\n\tsetp.ne.u32 %%p4, %%r8, 0;\n\tand.b32 %%r9, %%r3, 3;\n"
		 "\tmov.u32 %%r20, 0;\n\tmov.u32 %%r21, 0;\n"
		 "\tsetp.ne.u32 %%p1, %%r6, 0;\n\t@%%p1 exit;\n"
		 "\tsetp.ne.u32 %%p2, %%r5, 0;\n\t@%%p2 bra $B;\n\t%s\n\tbra $J;\n"
		 "$B:\n\t%s\n$J:\n"
		 "\tselp.b32 %%r22, %%r21, %%r20, %%p2;\n"
		 "\tselp.u32 %%r24, 1, 0, %%p5;\n\tselp.u32 %%r25, 1, 0, %%p6;\n"
		 "\tselp.b32 %%r23, %%r25, %%r24, %%p2;\n"
		 "\tmul.wide.u32 %%rd6, %%r2, 8;\n\tadd.s64 %%rd7, %%rd1, %%rd6;\n"
		 "\tst.global.v2.u32 [%%rd7], {%%r22, %%r23};\n",
		 opa, opb);
	uint32_t in[5][32];
	memcpy(in[0], w->a, sizeof(in[0]));
	memcpy(in[1], w->mask, sizeof(in[1]));
	memcpy(in[2], w->path, sizeof(in[2]));
	memcpy(in[3], w->exited, sizeof(in[3]));
	memcpy(in[4], w->b, sizeof(in[4]));
	memset(got, 0, 32 * 2 * sizeof(uint32_t));
	*r = h_run_body("", body, 32, in, sizeof(in), got, 32 * 2 * sizeof(uint32_t));
}

Test(warp_diff, random_masks_on_divergent_sibling_paths)
{
	uint32_t seed = 0x2301u;
	unsigned checked = 0;
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		for (int trial = 0; trial < 24; trial++) {
			wcase w;
			make_case(&w, &seed);
			uint32_t got[32][2];
			cs_grid_result r;
			run_case(&ops[k], &w, got, &r);
			cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s trial %d: %s", ops[k].text, trial,
				     r.diag.msg);
			for (unsigned l = 0; l < 32; l++) {
				if (w.exited[l])
					continue;
				uint32_t v, p;
				model(&ops[k], &w, l, &v, &p);
				cr_expect_eq(got[l][0], v, "%s trial %d lane %u mask 0x%08x: 0x%x, model 0x%x",
					     ops[k].text, trial, l, w.mask[l], got[l][0], v);
				cr_expect_eq(got[l][1], p, "%s trial %d lane %u: predicate %u, model %u",
					     ops[k].text, trial, l, got[l][1], p);
				checked++;
			}
		}
	}
	cr_expect_gt(checked, 10000u);
}

/* Runs body on one warp and expects an error whose message holds both words. */
static void expect_error(const char *body, const char *w1, const char *w2)
{
	uint32_t out[32];
	cs_grid_result r = h_run_body("", body, 32, NULL, 0, out, sizeof(out));
	cr_expect_eq(r.outcome, CS_GRID_ERROR);
	cr_expect(strstr(r.diag.msg, w1) && strstr(r.diag.msg, w2), "%s", r.diag.msg);
}

/* A member that never reaches the instruction (it waits at the reconvergence
 * point after a branch the others took) is an error naming the lanes, not a
 * result computed without it. */
Test(warp_diff, member_that_never_arrives_is_an_error)
{
	expect_error("\tsetp.lt.u32 %p1, %r2, 16;\n\t@!%p1 bra $J;\n"
		     "\tredux.sync.add.u32 %r3, %r2, -1;\n$J:\n\tst.global.u32 [%rd4], %r3;\n",
		     "0xffff0000", "not converged");
}

/* Two lanes that execute one instruction together with different member
 * masks are an error (PTX requires the same mask). */
Test(warp_diff, differing_member_masks_are_an_error)
{
	expect_error("\tsetp.lt.u32 %p1, %r2, 1;\n\tselp.b32 %r4, 3, -1, %p1;\n"
		     "\tredux.sync.add.u32 %r3, %r2, %r4;\n\tst.global.u32 [%rd4], %r3;\n",
		     "member masks", "same mask");
}

/* A shfl that reads an exited lane gets chainsim's 0 and leaves a finding
 * (an assumption record) naming the PTX line, the lanes and the value. */
Test(warp_diff, undefined_source_is_a_finding)
{
	char *src = h_kernel("", "\tsetp.ge.u32 %p1, %r2, 16;\n\t@%p1 exit;\n"
				 "\tadd.u32 %r3, %r2, 100;\n"
				 "\tshfl.sync.down.b32 %r4, %r3, 8, 31, -1;\n"
				 "\tst.global.u32 [%rd4], %r4;\n");
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	free(src);
	cr_assert(p, "%s", d.msg);
	h_env e;
	h_init(&e);
	uint64_t out = h_alloc(&e, 4 * 32);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 32, 1, 1 }, 0,
				 (uint64_t[]){ out, 0, 32 }, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t got[32];
	h_read(&e, out, got, sizeof(got));
	for (uint32_t l = 0; l < 16; l++)
		cr_expect_eq(got[l], l < 8 ? l + 108 : 0, "lane %u: %u", l, got[l]);
	unsigned notes = 0;
	for (size_t i = 0; i < e.tb.trace.n; i++) {
		const cs_event *ev = &e.tb.trace.recs[i].ev;
		if (ev->kind == CS_EV_ASSUMPTION && ev->detail && strstr(ev->detail, "returns 0") &&
		    strstr(ev->detail, "lane 8 reads lane 16"))
			notes++;
	}
	cr_expect_eq(notes, 1u);
	h_fini(&e);
	cs_ptx_program_free(p);
}

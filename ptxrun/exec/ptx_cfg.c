/* SPDX-License-Identifier: MIT */
/* Reconvergence points: the immediate post-dominator of each branch's block,
 * computed on the function's CFG with a virtual exit node (Cooper, Harvey and
 * Kennedy's iterative dominator algorithm run on the reversed graph). */
#include "ptx_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct cfg {
	uint32_t nb;        /* blocks; node nb is the virtual exit */
	uint32_t *start;    /* first instruction of each block */
	uint32_t *succ;     /* two successors per block (PTX_NONE when absent) */
	uint32_t *po;       /* postorder number on the reversed graph */
	uint32_t *ipdom;
} cfg;

static bool ends_block(const ptx_ins *in)
{
	return in->op == OP_BRA || in->op == OP_RET || in->op == OP_EXIT || in->op == OP_TRAP;
}

static uint32_t intersect(const cfg *g, uint32_t a, uint32_t b)
{
	while (a != b) {
		while (g->po[a] < g->po[b])
			a = g->ipdom[a];
		while (g->po[b] < g->po[a])
			b = g->ipdom[b];
	}
	return a;
}

/* leader[i]: instruction f->start + i starts a block (n + 1 entries). */
static void mark_leaders(const cs_ptx_program *p, const ptx_func *f, uint8_t *leader)
{
	uint32_t n = f->end - f->start;
	leader[0] = 1;
	for (uint32_t i = 0; i < n; i++) {
		const ptx_ins *in = &p->code[f->start + i];
		if (in->op == OP_BRA)
			leader[(uint32_t)in->imm - f->start] = 1;
		if (ends_block(in))
			leader[i + 1] = 1;
	}
}

/* Each block's successors: a branch's target and, when guarded, its fall
 * through; ret and exit go to the virtual exit. */
static void cfg_successors(const cs_ptx_program *p, const ptx_func *f, cfg *g,
			   const uint32_t *block_of, uint32_t n)
{
	for (uint32_t k = 0; k < g->nb; k++) {
		uint32_t last = (k + 1 < g->nb ? g->start[k + 1] : n) - 1;
		const ptx_ins *in = &p->code[f->start + last];
		uint32_t *s = &g->succ[2 * k];
		s[0] = s[1] = PTX_NONE;
		bool guarded = in->guard != PTX_NONE;
		uint32_t fall = last + 1 < n ? block_of[last + 1] : g->nb;
		if (in->op == OP_BRA) {
			s[0] = block_of[(uint32_t)in->imm - f->start];
			if (guarded)
				s[1] = fall;
		} else if (in->op == OP_RET || in->op == OP_EXIT) {
			s[0] = g->nb;
			if (guarded)
				s[1] = fall;
		} else {
			/* trap stops the grid, so its lanes reconverge nowhere: taken as
			 * falling through, it keeps a switch's `default: trap` (as in
			 * __pipeline_memcpy_async) from moving the switch's join to the exit */
			s[0] = fall;
		}
		if (s[1] == s[0])
			s[1] = PTX_NONE;
	}
}

/* The reversed graph: pred[pred_cnt[k] .. pred_cnt[k + 1]) are node k's
 * forward predecessors. False when out of memory. */
static bool cfg_predecessors(const cfg *g, uint32_t *pred_cnt, uint32_t *pred)
{
	for (uint32_t k = 0; k < g->nb; k++)
		for (int j = 0; j < 2; j++)
			if (g->succ[2 * k + j] != PTX_NONE)
				pred_cnt[g->succ[2 * k + j] + 1]++;
	for (uint32_t k = 1; k <= g->nb + 1; k++)
		pred_cnt[k] += pred_cnt[k - 1];
	uint32_t *fill = calloc(g->nb + 1, sizeof(uint32_t));
	if (!fill)
		return false;
	for (uint32_t k = 0; k < g->nb; k++)
		for (int j = 0; j < 2; j++) {
			uint32_t s = g->succ[2 * k + j];
			if (s != PTX_NONE)
				pred[pred_cnt[s] + fill[s]++] = k;
		}
	free(fill);
	return true;
}

/* Numbers the nodes reachable from the exit in postorder of a depth-first
 * walk over predecessor edges (g->po; PTX_NONE: unreachable); returns how
 * many. stack holds 2 (nb + 1) entries, seen nb + 1 zeroed ones. */
static uint32_t cfg_postorder(cfg *g, const uint32_t *pred_cnt, const uint32_t *pred,
			      uint32_t *stack, uint8_t *seen)
{
	uint32_t counter = 0;
	for (uint32_t k = 0; k <= g->nb; k++)
		g->po[k] = PTX_NONE;
	uint32_t sp = 0;
	stack[sp++] = g->nb;
	stack[sp++] = 0;
	seen[g->nb] = 1;
	while (sp) {
		uint32_t node = stack[sp - 2], it = stack[sp - 1];
		uint32_t lo = pred_cnt[node], hi = pred_cnt[node + 1];
		if (lo + it < hi) {
			stack[sp - 1]++;
			uint32_t q = pred[lo + it];
			if (!seen[q]) {
				seen[q] = 1;
				stack[sp++] = q;
				stack[sp++] = 0;
			}
		} else {
			g->po[node] = counter++;
			sp -= 2;
		}
	}
	return counter;
}

/* Each node's immediate post-dominator (g->ipdom), iterated to a fixed point
 * over the counter reachable nodes in reverse postorder; order holds them. */
static void cfg_ipdoms(cfg *g, uint32_t *order, uint32_t counter)
{
	for (uint32_t k = 0; k <= g->nb; k++)
		g->ipdom[k] = PTX_NONE;
	g->ipdom[g->nb] = g->nb;
	/* nodes in reverse postorder (exit first) */
	for (uint32_t k = 0; k <= g->nb; k++)
		if (g->po[k] != PTX_NONE)
			order[counter - 1 - g->po[k]] = k;
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t oi = 1; oi < counter; oi++) {
			uint32_t k = order[oi];
			uint32_t nd = PTX_NONE;
			for (int j = 0; j < 2; j++) {
				uint32_t s = g->succ[2 * k + j];
				if (s == PTX_NONE || g->ipdom[s] == PTX_NONE)
					continue;
				nd = nd == PTX_NONE ? s : intersect(g, s, nd);
			}
			if (nd != g->ipdom[k]) {
				g->ipdom[k] = nd;
				changed = true;
			}
		}
	}
}

bool ptx_cfg_reconverge(cs_ptx_program *p, ptx_func *f, cs_diag *d)
{
	uint32_t n = f->end - f->start;
	if (n == 0)
		return true;
	uint8_t *leader = calloc(n + 1, 1);
	uint32_t *block_of = malloc((n + 1) * sizeof(uint32_t));
	if (!leader || !block_of) {
		free(leader);
		free(block_of);
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	mark_leaders(p, f, leader);
	cfg g;
	memset(&g, 0, sizeof(g));
	for (uint32_t i = 0; i < n; i++)
		g.nb += leader[i];
	g.start = malloc(g.nb * sizeof(uint32_t));
	g.succ = malloc(2 * g.nb * sizeof(uint32_t));
	g.po = malloc((g.nb + 1) * sizeof(uint32_t));
	g.ipdom = malloc((g.nb + 1) * sizeof(uint32_t));
	/* predecessors as an adjacency list for the reversed-graph DFS */
	uint32_t *pred_cnt = calloc(g.nb + 2, sizeof(uint32_t));
	uint32_t *pred = malloc((2 * g.nb + 1) * sizeof(uint32_t));
	uint32_t *stack = malloc((g.nb + 1) * 2 * sizeof(uint32_t));
	uint8_t *seen = calloc(g.nb + 1, 1);
	bool ok = g.start && g.succ && g.po && g.ipdom && pred_cnt && pred && stack && seen;
	if (!ok) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		goto out;
	}
	uint32_t b = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (leader[i])
			g.start[b++] = i;
		block_of[i] = b - 1;
	}
	cfg_successors(p, f, &g, block_of, n);
	if (!cfg_predecessors(&g, pred_cnt, pred)) {
		ok = false;
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		goto out;
	}
	uint32_t counter = cfg_postorder(&g, pred_cnt, pred, stack, seen);
	cfg_ipdoms(&g, stack, counter);
	/* each branch's reconvergence pc: the start of its block's ipdom */
	for (uint32_t k = 0; k < g.nb; k++) {
		uint32_t last = (k + 1 < g.nb ? g.start[k + 1] : n) - 1;
		ptx_ins *in = &p->code[f->start + last];
		if (in->op != OP_BRA)
			continue;
		uint32_t ip = g.ipdom[k];
		in->o[1] = (ip == PTX_NONE || ip == g.nb) ? PTX_NONE : f->start + g.start[ip];
	}
out:
	free(leader);
	free(block_of);
	free(g.start);
	free(g.succ);
	free(g.po);
	free(g.ipdom);
	free(pred_cnt);
	free(pred);
	free(stack);
	free(seen);
	return ok;
}

static bool is_shared_load32(const ptx_ins *in)
{
	return in->op == OP_LD && in->aux == SP_SHARED && in->aux2 == 1 &&
	       ptx_type_bytes((ptx_type)in->t1) == 4 && in->guard == PTX_NONE &&
	       in->o[1] != PTX_NONE;
}

uint8_t *ptx_cfg_slot_uses(const cs_ptx_program *p)
{
	uint8_t *uses = calloc(p->nslots ? p->nslots : 1, 1);
	if (!uses)
		return NULL;
#define COUNT_USE(slot_)                                          \
	do {                                                      \
		uint32_t s_ = (slot_);                            \
		if (s_ < p->nslots && uses[s_] < UINT8_MAX)       \
			uses[s_]++;                               \
	} while (0)
	for (size_t i = 0; i < p->ncode; i++) {
		for (unsigned k = 0; k < 6; k++)
			COUNT_USE(p->code[i].o[k]);
		COUNT_USE(p->code[i].guard);
	}
	/* mma.sync, wmma.mma and wmma.load/store keep their fragment registers
	 * beside the instruction */
	for (size_t i = 0; i < p->nmmas; i++) {
		const ptx_mma *mm = &p->mmas[i];
		for (unsigned k = 0; k < mm->nd; k++)
			COUNT_USE(mm->d[k]);
		for (unsigned k = 0; k < mm->na; k++)
			COUNT_USE(mm->a[k]);
		for (unsigned k = 0; k < mm->nb; k++)
			COUNT_USE(mm->b[k]);
		for (unsigned k = 0; k < mm->nc; k++)
			COUNT_USE(mm->c[k]);
	}
	for (size_t i = 0; i < p->nwmmas; i++)
		for (unsigned k = 0; k < p->wmmas[i].nregs; k++)
			COUNT_USE(p->wmmas[i].regs[k]);
#undef COUNT_USE
	return uses;
}

/* An offset a fused run takes: word aligned, and small enough that the
 * executor's 32-bit address arithmetic cannot wrap. */
static bool fused_offset(int64_t imm)
{
	return imm >= 0 && imm < INT32_MAX && !(imm & 3);
}

/* ld.shared.b32 a, [x+i]; ld.shared.b32 b, [y+j]; fma.rn.f32 d, a, b, c (or b, a)
 * at in, inside one block, in the shape the executor runs as one step: the two
 * loaded registers distinct and each read once by the fma, c not one of them,
 * and no result overwriting an address register. */
static bool is_fma_triple(const ptx_ins *in, const uint8_t *leader)
{
	const ptx_ins *ld2 = in + 1, *fma = in + 2;
	if (!is_shared_load32(in) || !is_shared_load32(ld2) || fma->op != OP_FMA_F32 ||
	    fma->guard != PTX_NONE || leader[1] || leader[2] || !fused_offset(in->imm) ||
	    !fused_offset(ld2->imm))
		return false;
	uint32_t a = in->o[1], b = ld2->o[1], x = in->o[0], y = ld2->o[0];
	bool reads_ab = (fma->o[1] == a && fma->o[2] == b) || (fma->o[1] == b && fma->o[2] == a);
	return a != b && reads_ab && fma->o[3] != a && fma->o[3] != b && a != x && a != y &&
	       b != x && b != y && fma->o[0] != x && fma->o[0] != y;
}

/* Whether the triple at next continues the run of the one at in: the same
 * address registers, and its fma accumulates onto in's result. */
static bool fma_triples_chain(const ptx_ins *in, const ptx_ins *next)
{
	return next->o[0] == in->o[0] && next[1].o[0] == in[1].o[0] && next[2].o[3] == in[2].o[0];
}

bool ptx_cfg_fuse(cs_ptx_program *p, const ptx_func *f, const uint8_t *uses, cs_diag *d)
{
	uint32_t n = f->end - f->start;
	uint8_t *leader = calloc(n + 1, 1);
	if (!leader) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	mark_leaders(p, f, leader);
	for (uint32_t i = 0; i + 2 < n;) {
		ptx_ins *in = &p->code[f->start + i];
		if (!is_fma_triple(in, leader + i)) {
			i++;
			continue;
		}
		/* the run: no branch lands inside it, so it is entered at its head */
		uint32_t len = 1;
		while (len < PTX_FUSED_RUN_MAX && i + 3 * len + 2 < n && !leader[i + 3 * len] &&
		       is_fma_triple(in + 3 * len, leader + i + 3 * len) &&
		       fma_triples_chain(in + 3 * (len - 1), in + 3 * len))
			len++;
		uint32_t max1 = 0, max2 = 0, all_dead = 1;
		for (uint32_t k = len; k-- > 0;) {
			ptx_ins *t = in + 3 * k;
			/* each loaded register: written here, read by this fma only;
			 * each fma result but the last: read by the next fma only */
			if (uses[t->o[1]] == 2)
				t->flags |= F_DEAD_DEST;
			if (uses[t[1].o[1]] == 2)
				t[1].flags |= F_DEAD_DEST;
			if (k + 1 < len && uses[t[2].o[0]] == 2)
				t[2].flags |= F_DEAD_DEST;
			max1 = (uint32_t)t->imm > max1 ? (uint32_t)t->imm : max1;
			max2 = (uint32_t)t[1].imm > max2 ? (uint32_t)t[1].imm : max2;
			all_dead &= (t->flags & t[1].flags & F_DEAD_DEST) &&
				    (k + 1 == len || (t[2].flags & F_DEAD_DEST));
			t->op = OP_LD_SHARED_FMA;
			t->o[2] = max1;
			t->o[3] = max2;
			t->o[4] = all_dead;
			t->o[5] = len - k;
		}
		i += 3 * len;
	}
	free(leader);
	return true;
}

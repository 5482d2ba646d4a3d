/* SPDX-License-Identifier: MIT */
/* Private to the instruction builder (ptx_ins.c, ptx_optab.c, ptx_build_*.c):
 * a parsed statement, the operand and modifier helpers every family uses, and
 * one builder per instruction family. A builder checks the statement's
 * operands and modifiers and fills one ptx_ins; a modifier it does not take
 * is refused afterwards unless it is a hint (ptx_ins.c). */
#ifndef CS_PTX_BUILD_H
#define CS_PTX_BUILD_H

#include "ptx_optab.h"
#include "ptx_parse_int.h"

enum { MAX_MODS = 16, MAX_OPNDS = 8, MAX_LIST = 32, MAX_VEC = 8 /* a wmma fragment */ };

typedef enum okind { OK_REG = 1, OK_PRED, OK_IMM, OK_MEM, OK_VEC, OK_NAME, OK_LIST, OK_SINK,
		     OK_CLOCK } okind;

typedef struct opnd {
	okind kind;
	ptx_tok at;
	uint32_t slot;      /* OK_REG: slot (maybe const-tagged: a symbol's address) */
	bool is_addr;       /* OK_REG that is a symbol's address */
	uint32_t pred;      /* OK_PRED */
	bool neg;
	bool has_pipe;      /* d|p */
	uint32_t pipe_pred;
	int immk;           /* OK_IMM: 0 int, 1 f32 bits, 2 f64 bits */
	bool pred_sreg;     /* OK_IMM: the value of a predicate special register, which
			       only mov.pred reads */
	uint64_t imm;
	int mspace;         /* OK_MEM: space the symbol implies, -1 none */
	uint32_t mbase;     /* OK_MEM base slot */
	int64_t moff;
	uint32_t vec[MAX_VEC]; /* OK_VEC: slots (PTX_NONE for `_`) */
	bool vec_pred;
	int nvec;
	bool vec_is_imm[MAX_VEC]; /* OK_VEC element k is an immediate (`{0, %rs1}`): */
	int vec_immk[MAX_VEC];    /* its kind and value as for OK_IMM, made a slot by */
	uint64_t vec_imm[MAX_VEC]; /* pp_vec_src once the element type is known */
	ptx_tok *list;      /* OK_LIST names, in the statement's list storage */
	int nlist;
	int clock;          /* OK_CLOCK: 0 %clock, 1 %clock64, 2 %globaltimer */
} opnd;

struct stmt {
	ptx_tok optok;
	char base[32];
	const char *mod[MAX_MODS];
	uint32_t modlen[MAX_MODS];
	bool used[MAX_MODS];
	int nmods;
	ptx_type types[4];
	int ntypes;
	opnd o[MAX_OPNDS];
	int nops;
	uint32_t guard;
	bool guard_neg;
	int nlists;
	/* storage for call's (rets) and (args); not cleared per statement */
	ptx_tok lists[2][MAX_LIST];
};

/* ---- the statement (ptx_ins.c) ---------------------------------------- */

/* Every modifier is taken by the builder or a hint; an error names the first
 * that is neither. */
bool pp_check_mods(pp *P, stmt *s);
/* An instruction with no operands and no guard. */
void ins_blank(ptx_ins *ins);

/* ---- modifiers (ptx_build_operands.c) ---------------------------------- */

/* Modifier i of the statement is m. */
bool stmt_mod_is(const stmt *s, int i, const char *m);
/* Marks the first unused modifier m used; false when there is none. */
bool stmt_take(stmt *s, const char *m);
/* The index in list of the first unused modifier naming one of them (marked
 * used), or -1. */
int stmt_take_one(stmt *s, const char *const *list, int n);
/* A rounding modifier (RND_*), RND_NONE when there is none. */
int stmt_take_rnd(stmt *s);

/* ---- operands (ptx_build_operands.c) ----------------------------------- */

/* Type i of the opcode; T_NONE (and an error) when it has fewer. */
ptx_type pp_want_type(pp *P, stmt *s, int i);
/* The statement has lo..hi operands; an error when not. */
bool pp_nops(pp *P, stmt *s, int lo, int hi);
/* Source operand i of type t: a register, or an immediate made a constant slot. */
bool pp_src(pp *P, stmt *s, int i, ptx_type t, uint32_t *slot);
/* Destination operand i: a writable register. */
bool pp_dst(pp *P, stmt *s, int i, uint32_t *slot);
bool pp_pred_src(pp *P, stmt *s, int i, uint32_t *pred, bool *neg);
bool pp_pred_dst(pp *P, stmt *s, int i, uint32_t *pred);
/* Element k of a vector operand as a source of type t: its register, or its
 * immediate made a constant slot; PTX_NONE for `_`. */
uint32_t pp_vec_src(pp *P, const opnd *o, int k, ptx_type t);
/* Vector operand i is written: no immediates in it. */
bool pp_vec_dst(pp *P, const stmt *s, int i);
/* d, a, b[, c] arithmetic with one type: operands, type and slots into ins. */
bool pp_arith(pp *P, stmt *s, ptx_ins *ins, int nsrc);
/* ins->op becomes op32 or op64 when t is 32 or 64 bits wide and that fast
 * opcode exists (>= 0); false otherwise. */
bool ins_fast_int(ptx_ins *ins, ptx_type t, int op32, int op64);

static inline bool type_is_int(ptx_type t)
{
	return t >= T_B8 && t <= T_S64;
}

static inline unsigned type_bits(ptx_type t)
{
	return ptx_type_bytes(t) * 8;
}

/* ---- families ------------------------------------------------------------
 * Each builder's form is the per-opcode constant of its row in ptx_optab.c. */

/* ptx_build_move.c: mov. */
ptx_builder ptx_build_mov;

/* ptx_build_arith.c: arithmetic on an integer or a float type.
 * add/sub: form IO_ADD or IO_SUB; mul/mad/fma: form MUL_*; div/rem: form
 * IO_DIV or IO_REM; the one-to-four source ops: form ARITH_OPS(...). */
enum { MUL_MUL, MUL_MAD, MUL_FMA };
/* The integer (IO_*) and float (FO_*) sub-ops of a one-to-four source op,
 * -1 where that kind of type is refused, and its number of sources. */
#define ARITH_OPS(nsrc, io, fo) ((nsrc) | ((io) + 1) << 4 | ((fo) + 1) << 12)
#define ARITH_NSRC(form) ((form) & 0xf)
#define ARITH_IO(form) ((((form) >> 4) & 0xff) - 1)
#define ARITH_FO(form) (((form) >> 12) - 1)
ptx_builder ptx_build_add_sub;
ptx_builder ptx_build_mul;
ptx_builder ptx_build_div_rem;
ptx_builder ptx_build_arith_op;

/* ptx_build_int.c: integer-only arithmetic and bit operations.
 * addc/subc/madc: form CA_ADD, CA_SUB or CA_MADLO; mul24/mad24: form
 * IO_MUL24 or IO_MAD24; and/or/xor: form IO_AND, IO_OR or IO_XOR; shl/shr:
 * form IO_SHL or IO_SHR. */
ptx_builder ptx_build_carry;
ptx_builder ptx_build_mul24;
ptx_builder ptx_build_shf;
ptx_builder ptx_build_logic;
ptx_builder ptx_build_shift;
ptx_builder ptx_build_prmt;
ptx_builder ptx_build_bitmask;
ptx_builder ptx_build_fns;
ptx_builder ptx_build_lop3;
ptx_builder ptx_build_dot; /* dp4a, dp2a */
/* add.cc/sub.cc (form CA_ADD, CA_SUB) through the carry flag. */
bool pp_carry_arith(pp *P, stmt *s, ptx_ins *ins, int form, bool carry_in, bool carry_out);
/* madc and mad.cc: .lo or .hi picks the half of the product added. */
bool pp_mad_carry(pp *P, stmt *s, ptx_ins *ins, bool carry_in, bool carry_out);

/* ptx_build_cmp.c: comparisons and selects. setp/set: form OP_SETP or OP_SET. */
ptx_builder ptx_build_setp;
ptx_builder ptx_build_selp;
ptx_builder ptx_build_slct;
ptx_builder ptx_build_testp;

/* ptx_build_cvt.c: conversions. */
ptx_builder ptx_build_cvt;
ptx_builder ptx_build_cvta;

/* ptx_build_mem.c: loads, stores and address spaces. ld/ldu/st: form OP_LD
 * or OP_ST. */
ptx_builder ptx_build_ld_st;
ptx_builder ptx_build_isspacep;
ptx_builder ptx_build_cluster_addr; /* getctarank, mapa */
/* The module's .target is sm_90 or later: it has clusters. */
bool pp_target_has_clusters(const pp *P);

/* ptx_build_atom.c: atom and red: form OP_ATOM or OP_RED. */
ptx_builder ptx_build_atom;

/* ptx_build_ctl.c: control flow. ret/exit/trap: form OP_RET, OP_EXIT or
 * OP_TRAP; brx emits its own lowering (ins is NULL). */
ptx_builder ptx_build_bra;
ptx_builder ptx_build_ret;
ptx_builder ptx_build_call;
ptx_builder ptx_build_brx;

/* ptx_build_warp.c: warp-level operations and barriers. bar/barrier: form
 * BAR_PLAIN or BAR_NEEDS_MODE (barrier takes .sync or .arrive). */
enum { BAR_PLAIN, BAR_NEEDS_MODE };
ptx_builder ptx_build_shfl;
ptx_builder ptx_build_vote;
ptx_builder ptx_build_match;
ptx_builder ptx_build_redux;
ptx_builder ptx_build_elect;
ptx_builder ptx_build_activemask;
ptx_builder ptx_build_bar;

/* ptx_build_tensor.c: tensor cores and their data movement. */
ptx_builder ptx_build_mma;
ptx_builder ptx_build_wmma;
ptx_builder ptx_build_ldmatrix;
ptx_builder ptx_build_cp;

/* ptx_build_mbar.c: mbarrier objects; cp.async.mbarrier.arrive (ptx_build_cp
 * hands it the statement once it took .async.mbarrier). */
ptx_builder ptx_build_mbarrier;
bool ptx_build_cp_mbarrier(pp *P, stmt *s, ptx_ins *ins);
/* cp.async.bulk (once ptx_build_cp took .async.bulk). */
bool ptx_build_cp_bulk(pp *P, stmt *s, ptx_ins *ins);

/* ptx_build_misc.c: fences, hints and the grid dependency controls. */
ptx_builder ptx_build_membar;
ptx_builder ptx_build_hint;
ptx_builder ptx_build_griddepcontrol;

#endif

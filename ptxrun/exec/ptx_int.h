/* SPDX-License-Identifier: MIT */
/* Private to ptxrun/exec/: the predecoded program the parser builds and the
 * executor runs. Operands are indices into one per-warp register file of 64-bit
 * slots laid out [slot][lane]; immediates and special registers are slots too
 * (filled once per run), so every instruction reads registers only. Predicates
 * live in a separate file of 32-bit lane masks. */
#ifndef CS_PTX_INT_H
#define CS_PTX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/ptx.h"

#define PTX_NONE UINT32_MAX
#define PTX_WARP 32
/* The most fma triples one OP_LD_SHARED_FMA run holds (a longer sequence is
 * split into runs of this). */
#define PTX_FUSED_RUN_MAX 64

/* Value types as PTX spells them. */
typedef enum ptx_type {
	T_NONE = 0,
	T_B8, T_B16, T_B32, T_B64,
	T_U8, T_U16, T_U32, T_U64,
	T_S8, T_S16, T_S32, T_S64,
	T_F16, T_F16X2, T_BF16, T_BF16X2, T_F32, T_F64,
	T_PRED,
	T_COUNT
} ptx_type;

unsigned ptx_type_bytes(ptx_type t);
bool ptx_type_signed(ptx_type t);
bool ptx_type_float(ptx_type t);

/* Special registers with fixed slots at the start of the register file. */
enum {
	SR_TID_X, SR_TID_Y, SR_TID_Z,
	SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
	SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z,
	SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
	SR_LANEID, SR_WARPID, SR_NWARPID,
	SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE, SR_LANEMASK_GT, SR_LANEMASK_GE,
	SR_SMID, SR_NSMID, SR_GRIDID,
	SR_DYN_SMEM, SR_TOTAL_SMEM,
	SR_ZERO, /* constant 0, also the base of absolute addresses */
	SR_COUNT
};

/* Opcodes. Hot operations have their own code; the rest go through generic
 * per-lane helpers keyed by the instruction's type fields. */
typedef enum ptx_op {
	OP_NOP = 0,
	OP_MOV,          /* d = a (64-bit slot copy, truncated/extended per type) */
	OP_MOV_PRED,     /* pd = pa */
	OP_PACK,         /* d = {a,b[,c,d]} (mov.bN with vector source) */
	OP_UNPACK,       /* {d0,d1[,..]} = a */
	OP_CLOCK,        /* d = virtual time; aux: 0 clock, 1 clock64, 2 globaltimer */
	/* integer, fast 32/64-bit */
	OP_ADD32, OP_ADD64, OP_SUB32, OP_SUB64, OP_MULLO32, OP_MULLO64,
	OP_MULWIDE_S32, OP_MULWIDE_U32, OP_MADLO32, OP_MADLO64,
	OP_MADWIDE_S32, OP_MADWIDE_U32,
	OP_SHL32, OP_SHL64, OP_SHR_U32, OP_SHR_S32, OP_SHR_U64, OP_SHR_S64,
	OP_AND32, OP_OR32, OP_XOR32, OP_AND64, OP_OR64, OP_XOR64,
	OP_INT,          /* generic integer op: sub-op in aux, type in t1 */
	/* predicates */
	OP_PRED_LOGIC,   /* and/or/xor/not/mov on predicates: aux = 0 and, 1 or, 2 xor, 3 not */
	/* float, fast */
	OP_ADD_F32, OP_SUB_F32, OP_MUL_F32, OP_FMA_F32,
	OP_ADD_F64, OP_SUB_F64, OP_MUL_F64, OP_FMA_F64,
	OP_FLT,          /* generic float op: sub-op in aux, type t1, flags, rounding */
	/* compare and select */
	OP_SETP,         /* pd[|pq] = cmp(a,b) [bop c] */
	OP_SET,          /* d = cmp(a,b) ? all-ones / 1.0f : 0 */
	OP_SELP,         /* d = p ? a : b */
	OP_SLCT,         /* d = c >= 0 ? a : b */
	OP_CVT,          /* d = convert(a): t1 dest type, t2 source type */
	OP_CVTA,         /* generic <-> space: aux = space, flags & F_TO */
	/* memory */
	OP_LD, OP_ST,    /* space in aux, t1 type, vec count */
	OP_ATOM, OP_RED,
	OP_CARRY,        /* add/sub/mad with the carry flag: aux CA_*, o[4] its predicate */
	OP_ISSPACEP,     /* pd = generic address a lies in space aux */
	OP_CLUSTER_ADDR, /* getctarank (aux CL_RANK) or mapa (aux CL_MAPA) in the implicit
			    1x1x1 cluster; aux2 1: a .shared::cluster address, 0: generic */
	/* warp */
	OP_SHFL, OP_VOTE, OP_ACTIVEMASK, OP_REDUX, OP_MATCH, OP_WARPSYNC, OP_ELECT,
	OP_CP_ASYNC,     /* cp.async: shared [o0 + imm] <- [o1 + const o3], aux bytes, o2 src-size */
	OP_CP_ASYNC_GROUP, /* cp.async.commit_group / wait_group imm / wait_all: aux CPG_* */
	OP_MBAR,         /* mbarrier.* and cp.async.mbarrier.arrive: aux MB_*, aux2 MBF_*, t2
			    the space; o0 destination (state, predicate or count), object at
			    [o1 + imm], o2 count, tx-count, state or parity (PTX_NONE: 1) */
	OP_LDMATRIX,     /* ldmatrix: aux matrices, aux2 1 = .trans, space in t2; d in o1.. */
	OP_MMA,          /* mma.sync, wmma.mma: operands in p->mmas[imm] */
	OP_WMMA_LDST,    /* wmma.load / wmma.store: address o0, stride o1, the rest in p->wmmas[imm] */
	OP_CVT_TF32,     /* cvt.{rna,rn,rz}.tf32.f32: rounding in aux2 */
	OP_CVT_FP8,      /* cvt with e4m3x2 / e5m2x2: aux FP8_*, aux2 FP8_E5M2 | FP8_RELU */
	OP_BAR, OP_BAR_RED, OP_MEMBAR,
	/* control */
	OP_BRA, OP_CALL, OP_RET, OP_EXIT, OP_TRAP,
	/* fused: the head of ld.shared.b32, ld.shared.b32, fma.rn.f32 inside one
	 * block (the tiled matmul's inner step); a plain ld.shared otherwise, and
	 * the other two stay in place. A run of such triples whose loads use the
	 * same two address registers and whose fmas chain through their
	 * accumulator runs as one; from this triple to the run's end, o[5] counts
	 * the triples, o[2] and o[3] are the largest offsets of the first and the
	 * second loads (each a multiple of 4 below 2^31), and o[4] is 1 when no
	 * intermediate result is read outside the run (see F_DEAD_DEST) */
	OP_LD_SHARED_FMA,
	OP_COUNT
} ptx_op;

/* Generic integer sub-ops (OP_INT) and float sub-ops (OP_FLT). */
enum {
	IO_ADD, IO_SUB, IO_MULLO, IO_MULHI, IO_MULWIDE, IO_MADLO, IO_MADHI, IO_MADWIDE,
	IO_DIV, IO_REM, IO_ABS, IO_NEG, IO_MIN, IO_MAX, IO_POPC, IO_CLZ, IO_BREV,
	IO_BFE, IO_BFI, IO_PRMT, IO_SHL, IO_SHR, IO_AND, IO_OR, IO_XOR, IO_NOT, IO_CNOT,
	IO_SAD, IO_BFIND, IO_ADDSAT, IO_SUBSAT,
	IO_SHF,          /* funnel shift of {b:a} by c: aux2 SHF_* */
	IO_MUL24, IO_MAD24, /* low 24 bits multiplied; F_HI for bits 47..16 */
	IO_BMSK, IO_SZEXT,  /* aux2 1: .clamp, 0: .wrap */
	IO_FNS,             /* the n-th set bit of a from position b: c counts, its sign the way */
	IO_LOP3,            /* bitwise function of a, b, c: aux2 its truth table (immLut) */
	IO_DP4A, IO_DP2A,   /* byte (dp2a: halfword by byte) dot products plus c: aux2 DP_* */
	IO_CVT_PACK,        /* cvt.pack.sat: a and b clamped, packed over c: aux2 CVP_* */
};
enum { DP_A_SIGNED = 1, DP_B_SIGNED = 2, DP_HI = 4 };
/* IO_CVT_PACK: the converted width in bits (2, 4, 8, 16) and its signedness. */
enum { CVP_WIDTH = 0x1f, CVP_SIGNED = 0x80 };
enum { SHF_RIGHT = 1, SHF_CLAMP = 2 };
/* OP_CARRY forms; the flag is the carry for add and mad, the borrow for sub. */
enum { CA_ADD, CA_SUB, CA_MADLO, CA_MADHI };
/* OP_CLUSTER_ADDR forms. */
enum { CL_RANK, CL_MAPA };
/* OP_CP_ASYNC_GROUP forms. */
enum { CPG_COMMIT, CPG_WAIT, CPG_WAIT_ALL };
/* OP_MBAR operations (the order of ptx_build_mbarrier's list) and flags. */
enum { MB_INIT, MB_INVAL, MB_ARRIVE, MB_ARRIVE_DROP, MB_EXPECT_TX, MB_COMPLETE_TX, MB_TEST_WAIT,
       MB_TRY_WAIT, MB_PENDING_COUNT, MB_CP_ASYNC_ARRIVE,
       MB_CP_BULK /* shared [o0 + const o3] <- global [o4 + const o5], o2 bytes, then complete_tx */ };
enum { MBF_EXPECT_TX = 1u << 0, MBF_NO_COMPLETE = 1u << 1, MBF_PARITY = 1u << 2, MBF_NOINC = 1u << 3 };
/* OP_MATCH modes. */
enum { MA_ANY, MA_ALL };
/* OP_REDUX: aux the operation (add, min, max, and, or, xor), aux2 these f32 qualifiers. */
enum { REDUX_ABS = 1, REDUX_NAN = 2 };
enum {
	FO_ADD, FO_SUB, FO_MUL, FO_FMA, FO_DIV, FO_RCP, FO_SQRT, FO_RSQRT, FO_EX2, FO_LG2,
	FO_SIN, FO_COS, FO_TANH, FO_MIN, FO_MAX, FO_ABS, FO_NEG, FO_COPYSIGN, FO_TESTP,
};
/* Comparison operators (setp/set). */
enum {
	CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE,
	CMP_LO, CMP_LS, CMP_HI, CMP_HS,
	CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN,
};
/* Rounding modes. */
enum { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI, RND_RNA };
/* Memory spaces. */
enum { SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_KPARAM };
/* Atomic operations. */
enum { AO_ADD, AO_MIN, AO_MAX, AO_INC, AO_DEC, AO_CAS, AO_EXCH, AO_AND, AO_OR, AO_XOR };
/* Shuffle modes / vote modes. */
enum { SH_UP, SH_DOWN, SH_BFLY, SH_IDX };
enum { VO_ALL, VO_ANY, VO_UNI, VO_BALLOT };

/* OP_CVT_FP8's forms (aux) and its format and .relu (aux2). */
enum { FP8_FROM_F32X2, FP8_FROM_F16X2, FP8_TO_F16X2 };
enum { FP8_E5M2 = 1u << 0, FP8_RELU = 1u << 1 };

/* Instruction flags. */
enum {
	F_FTZ = 1u << 0,
	F_SAT = 1u << 1,
	F_GUARD_NEG = 1u << 2, /* @!p */
	F_HI = 1u << 3,        /* setp with a second destination (p|q) */
	F_NEG_C = 1u << 4,     /* setp/selp/vote predicate source written !p */
	F_TO = 1u << 5,        /* cvta.to */
	F_HAS_C = 1u << 6,     /* setp combines with a predicate; shfl writes a predicate */
	F_UNI = 1u << 7,       /* bra.uni */
	F_APPROX = 1u << 8,
	F_NEG_A = 1u << 9,     /* vote source predicate negated */
	F_CARRY_IN = 1u << 10, /* addc/subc/madc: adds (subtracts) the carry flag */
	F_CARRY_OUT = 1u << 11, /* .cc: writes the carry flag */
	F_MEMBER_MASK = 1u << 12, /* .sync warp op: o[5] is its member mask (every such op
				     has o[0] its destination, o[1] its source) */
	F_DEAD_DEST = 1u << 13, /* fused run: the destination is read only inside the
				   run, so a whole run need not write it back */
	F_SPIN = 1u << 14,     /* atom, or ld .acquire/.relaxed/.volatile: where a warp of a
				  cooperative launch yields (a spin loop polls with them) */
};

typedef struct ptx_ins {
	uint16_t op;
	uint16_t flags;
	uint32_t guard;   /* predicate index, PTX_NONE when unguarded */
	uint8_t t1, t2;   /* types (dest / source) */
	uint8_t aux;      /* sub-op, space, mode, comparison... */
	uint8_t aux2;     /* rounding, combining op, vector count, atomic op... */
	uint8_t pad[4];
	uint32_t o[6];    /* slots; predicates are predicate indices */
	int64_t imm;      /* memory offset; branch target; call site */
} ptx_ins;

/* A call site: where the callee starts and which bytes of the per-thread
 * local frame move in and out. */
typedef struct ptx_copy {
	uint32_t dst, src, size;
} ptx_copy;
/* Functions the executor provides itself: CUDA's device printf and assert. */
typedef enum ptx_builtin {
	PTX_BUILTIN_NONE = 0,
	PTX_BUILTIN_VPRINTF,    /* (int) vprintf(const char *fmt, void *args) */
	PTX_BUILTIN_ASSERTFAIL, /* __assertfail(msg, file, unsigned line, function, charSize) */
} ptx_builtin;

typedef struct ptx_callsite {
	uint32_t func;         /* function index (PTX_NONE for a builtin) */
	uint8_t builtin;       /* ptx_builtin */
	uint32_t caller;
	uint32_t nargs, nrets;
	ptx_copy *args;        /* caller frame -> callee params, at the call */
	ptx_copy *rets;        /* callee retvals -> caller frame, at the ret */
	uint32_t line, col;
	char *callee_name;     /* until linked */
} ptx_callsite;

typedef struct ptx_param {
	char *name;
	uint32_t offset, size, align;
} ptx_param;

typedef struct ptx_func {
	char *name;
	bool is_entry;
	bool defined;
	uint32_t line;
	uint32_t start, end;         /* instruction range */
	ptx_param *params;           /* entry: kernel params; func: params */
	size_t nparams, cap_params;
	uint32_t param_bytes;
	/* func: retvals and params live in the per-thread local area */
	uint32_t nrets;
	ptx_param *rets;
	uint32_t dyn_shared_align;
	bool visiting, done;         /* recursion check */
	cs_diag *refusal;            /* why the function cannot run (a construct the
					executor refuses, malformed text in its body, a
					call to a refused function); NULL when it can */
	const cs_diag *refusal_root; /* the refusal its own sits on: itself, or, for
					a call to a refused function, that one's root */
} ptx_func;

/* A constant slot: a literal, or the address of a module variable (known per run). */
typedef struct ptx_const {
	uint64_t value;
	int32_t var;                 /* -1 literal, -2 the dynamic shared area, PTX_CONST_ENVREG_*,
					else module var index (value = offset) */
} ptx_const;
/* %envreg1 and %envreg2: the high and low halves of the launch's grid workspace. */
#define PTX_CONST_ENVREG_HI (-3)
#define PTX_CONST_ENVREG_LO (-4)

typedef struct ptx_mvar {
	char *name;
	cs_ptx_space space;
	uint32_t size, align, offset; /* offset in the private module image */
	uint8_t *init;
} ptx_mvar;

struct cs_ptx_program {
	char *name;
	uint32_t ver_major, ver_minor, addr_size;
	char target[32];
	ptx_ins *code;
	uint32_t *lines;             /* PTX line per instruction */
	size_t ncode, cap_code;
	ptx_func *funcs;
	size_t nfuncs, cap_funcs;
	size_t *entries;             /* function indices of .entry */
	size_t nentries;
	ptx_callsite *calls;
	size_t ncalls;
	uint32_t nregs;              /* declared register slots, after SR_COUNT */
	uint32_t npreds;
	ptx_const *consts;
	size_t nconsts, cap_consts;
	uint32_t const_base;         /* first constant slot = SR_COUNT + nregs */
	uint32_t nslots;             /* total slots */
	uint32_t shared_static;      /* bytes of all static .shared variables */
	uint32_t shared_dyn_align;
	uint32_t local_bytes;        /* per-thread local area (all frames) */
	ptx_mvar *vars;
	size_t nvars, cap_vars;
	uint32_t module_bytes;
	struct ptx_mma *mmas;        /* mma operand lists (OP_MMA's imm) */
	size_t nmmas, cap_mmas;
	struct ptx_wmma *wmmas;      /* wmma.load/store operands (OP_WMMA_LDST's imm) */
	size_t nwmmas, cap_wmmas;
};

/* mma.sync.aligned.m16n8kK and wmma.mma.sync m16n16kK: the fragment registers
 * of D, A, B and C; ptx_mma.c owns their layouts. */
enum { MMA_F16 = 0, MMA_BF16, MMA_TF32, MMA_F32 };
enum { MMA_FRAG_MAX = 8 };
typedef struct ptx_mma {
	uint8_t wmma;                /* 1: wmma.mma (m16n16), 0: mma.sync (m16n8) */
	uint8_t k;                   /* 8 or 16 */
	uint8_t ab_type, cd_type, c_type; /* MMA_*: A and B; D; C */
	uint8_t nd, na, nb, nc;      /* registers in each fragment */
	uint32_t d[MMA_FRAG_MAX], a[MMA_FRAG_MAX], b[MMA_FRAG_MAX], c[MMA_FRAG_MAX];
} ptx_mma;

/* wmma.load.{a,b,c} / wmma.store.d: one matrix between memory and a fragment. */
enum { WM_A, WM_B, WM_C, WM_D };
typedef struct ptx_wmma {
	uint8_t frag;                /* WM_* */
	uint8_t type;                /* MMA_*: the element type in memory */
	uint8_t k;                   /* 16, or 8 for tf32 */
	uint8_t col;                 /* 1: column-major in memory */
	uint8_t space;               /* SP_GENERIC, SP_GLOBAL or SP_SHARED */
	uint8_t nregs;
	uint32_t regs[MMA_FRAG_MAX];
	int64_t off;                 /* added to the address in the instruction's o[0]; o[1]
					is the stride's slot, PTX_NONE for the matrix's width */
} ptx_wmma;

/* The CFG pass: sets each divergent-capable branch's reconvergence pc (o[1]). */
bool ptx_cfg_reconverge(cs_ptx_program *p, ptx_func *f, cs_diag *d);
/* How often each slot appears as an operand anywhere in the program
 * (saturating at 255; predicate indices count too, which only errs high).
 * NULL when out of memory; the caller frees it. */
uint8_t *ptx_cfg_slot_uses(const cs_ptx_program *p);
/* Marks runs of instructions the executor runs as one (OP_LD_SHARED_FMA);
 * none spans a block boundary, so no branch lands inside one. uses is
 * ptx_cfg_slot_uses' count. */
bool ptx_cfg_fuse(cs_ptx_program *p, const ptx_func *f, const uint8_t *uses, cs_diag *d);

/* f16 / bf16 conversions (round to nearest even). */
float ptx_half_to_float(uint16_t h);
uint16_t ptx_float_to_half(float f);
float ptx_bf16_to_float(uint16_t h);
uint16_t ptx_float_to_bf16(float f);
/* e4m3 / e5m2 (ptx_fp8.c): to them rounds to nearest even, saturating to the
 * largest finite value (.satfinite), NaN to 0x7F; from them is exact. */
uint8_t ptx_f32_to_fp8(float f, bool e5m2, bool relu);
float ptx_fp8_to_f32(uint8_t v, bool e5m2);

#endif

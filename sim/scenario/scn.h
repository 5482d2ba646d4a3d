/* SPDX-License-Identifier: MIT */
/* Private to sim/scenario/: the parsed form of a .chain scenario (one
 * directive per line, push blocks holding their lines), expressions, and the
 * pieces the parser, the static name check and the executor share (the
 * lexer's are in lex.h). */
#ifndef CHAINSIM_SIM_SCENARIO_SCN_H
#define CHAINSIM_SIM_SCENARIO_SCN_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/diag.h"
#include "chainsim/mem.h"
#include "chainsim/registry.h"
#include "chainsim/scenario.h"
#include "chainsim/trace.h"

typedef struct scn_loc {
	uint32_t line, col;
} scn_loc;

typedef enum scn_expr_kind {
	SCN_EX_NUM = 0,
	SCN_EX_NAME, /* name: an alloc, push, qmd, launch-defined name or MODULE.KERNEL */
	SCN_EX_LO,   /* a */
	SCN_EX_HI,   /* a */
	SCN_EX_NEG,  /* a */
	SCN_EX_BIN,  /* a op b */
} scn_expr_kind;

typedef enum scn_binop {
	SCN_OP_ADD = 0,
	SCN_OP_SUB,
	SCN_OP_SHL,
	SCN_OP_SHR,
	SCN_OP_AND,
	SCN_OP_OR,
} scn_binop;

typedef struct scn_expr {
	scn_expr_kind kind;
	scn_binop op;
	scn_loc loc;
	uint64_t num;
	char *name;
	struct scn_expr *a, *b;
} scn_expr;

/* A value in a method or raw line: an expression, or @NAME (every dword of an alloc). */
typedef struct scn_val {
	scn_expr *expr; /* NULL for @NAME */
	char *at_name;
	scn_loc loc;
} scn_val;

/* A value of a data / expect mem line: an expression, or a float as written
 * (f32/f64 lines), and where it stands for diagnostics. */
typedef struct scn_dval {
	scn_expr *expr; /* NULL when is_float */
	double f;
	bool is_float;
	scn_loc loc;
} scn_dval;

typedef enum scn_type {
	SCN_T_U8 = 0,
	SCN_T_U16,
	SCN_T_U32,
	SCN_T_U64,
	SCN_T_F32,
	SCN_T_F64,
} scn_type;

typedef enum scn_pline_kind {
	SCN_PL_INC = 0,
	SCN_PL_NINC,
	SCN_PL_ONCE,
	SCN_PL_IMM,
	SCN_PL_RAW,
	SCN_PL_LAUNCH,
	SCN_PL_COPY,
	SCN_PL_RELEASE,
	SCN_PL_ACQUIRE,
	SCN_PL_BIND, /* extension: set the assembler's binding, emit nothing */
} scn_pline_kind;

typedef struct scn_pline {
	scn_pline_kind kind;
	scn_loc loc;
	uint32_t subch;
	char *method;        /* name, NAME(i) or a number as written */
	scn_loc method_loc;
	scn_val *vals;
	unsigned nvals;
	/* launch */
	char *kernel;        /* MODULE.KERNEL */
	scn_loc kernel_loc;
	scn_expr *grid[3], *block[3];
	scn_expr **args;
	bool *arg_bytes;     /* args[i] is @NAME: the parameter's bytes are alloc NAME's */
	unsigned nargs;
	bool has_args;
	scn_expr *shared;
	bool inline_path;
	char *launch_name;   /* name= or launchN */
	/* copy: vals[0..2] = dst, src, len; sem (release/acquire: addr, value) */
	scn_expr *sem_addr, *sem_value;
	bool sem64;          /* release/acquire u64 */
	bool sem_wfi;        /* release wfi: RELEASE_WFI=EN */
} scn_pline;

typedef enum scn_dir_kind {
	SCN_D_ARCH = 0,
	SCN_D_CHANNEL,
	SCN_D_ALLOC,
	SCN_D_DATA,
	SCN_D_FILL,
	SCN_D_LOAD,
	SCN_D_MODULE,
	SCN_D_QMD,
	SCN_D_PUSH,
	SCN_D_GPFIFO,
	SCN_D_GPFIFO_RAW,
	SCN_D_SUBMIT,
	SCN_D_WAIT,
	SCN_D_EXPECT_MEM,
	SCN_D_EXPECT_STAGE,
	SCN_D_EXPECT_BREAK,
	SCN_D_EXPECT_COMPLETE,
	SCN_D_EXPECT_CAUSE,    /* expect cause KEY: the first break's cause key */
	SCN_D_RANDOM,
	SCN_D_MAP,             /* map guest G host H size S: lo, hi, size */
	SCN_D_REWRITE,         /* rewrite ... end: rlines */
} scn_dir_kind;

/* One line of a rewrite block (include/chainsim/rewrite.h). */
typedef enum scn_rline_kind {
	SCN_RW_RELOCATE = 0, /* relocate */
	SCN_RW_KEEP,         /* keep ADDR... (left in the guest's view) */
	SCN_RW_DROP,         /* drop SUBCH|* METHOD */
	SCN_RW_REPLACE,      /* replace SUBCH|* METHOD VALUE */
	SCN_RW_PRELUDE,      /* prelude PUSH */
	SCN_RW_SPLIT,        /* split DWORDS */
	SCN_RW_SKEW,         /* skew ADDR DELTA */
	SCN_RW_MERGE,        /* merge */
} scn_rline_kind;

typedef struct scn_rline {
	scn_rline_kind kind;
	scn_loc loc;
	uint32_t subch;      /* 8: any subchannel */
	char *method;
	scn_loc method_loc;
	scn_expr *value;     /* replace: the data; split: dwords; prelude: the push's NAME;
				skew: the delta (a negative one written -N) */
	char **addrs;        /* keep */
	scn_loc *addr_locs;
	unsigned naddrs;
} scn_rline;

typedef struct scn_qmd_kv {
	char *key;
	scn_loc loc;
	scn_expr **vals;
	unsigned nvals;
	int dep_action; /* dependent=ADDR,NAME: the action by name, else -1 */
} scn_qmd_kv;

typedef struct scn_dir {
	scn_dir_kind kind;
	scn_loc loc;
	char *text;            /* the line as written, trimmed (for expect outcomes) */
	char *name;            /* alloc/push/qmd/module/channel name */
	scn_loc name_loc;
	scn_expr *addr;        /* NAME[+OFF] target, gpfifo address, wait address */
	scn_expr *size, *align, *at, *len, *byte, *value, *count, *seed;
	scn_expr *host_at;     /* alloc host=H: the host's view of it (a window) */
	scn_expr *entries;
	scn_type type;
	bool has_type;
	scn_dval *dvals;       /* data / expect mem values */
	unsigned nvals;
	char *path;
	scn_loc path_loc;
	char *ptx_path;        /* module ... ptx=PATH */
	scn_loc ptx_loc;
	scn_qmd_kv *kvs;
	unsigned nkvs;
	scn_pline *lines;      /* push */
	unsigned nlines;
	scn_loc end_loc;       /* push: the `end` line */
	bool sync, u64;
	bool geq;              /* wait ADDR >= VALUE */
	unsigned stage;        /* expect stage/break */
	int cause;             /* expect cause: cs_cause */
	int status;            /* expect stage: cs_stage_status */
	double fmin, fmax;     /* random f32 */
	bool has_min, has_max;
	scn_expr *imin, *imax; /* random u32 */
	scn_expr *lo, *hi;     /* gpfifo-raw */
	scn_rline *rlines;     /* rewrite */
	unsigned nrlines;
	scn_expr *tol;         /* expect mem f32 tol= (extension), a float */
	double ftol;
	bool has_tol;
} scn_dir;

typedef struct scn_def {
	char *name;
	uint32_t line;      /* where the name takes effect (a push: its `end`) */
	uint32_t decl_line; /* where it is written (a push: its `push` line) */
	scn_dir_kind kind;  /* the directive that defines it */
	bool push_block;    /* the name of a push block */
} scn_def;

/* Runtime symbol: what a name stands for during execution. */
typedef enum scn_sym_kind {
	SCN_SYM_ALLOC = 0, /* alloc, push, qmd, launch-defined */
	SCN_SYM_MODULE,
} scn_sym_kind;

typedef struct scn_sym {
	scn_sym_kind kind;
	uint64_t va;
	uint64_t size;
	bool is_push;
	uint32_t dwords;        /* push: dwords assembled */
	void *module;           /* cs_module * */
	uint64_t *kernel_va;    /* per kernel index, 0 when the kernel has no code */
	size_t nkernels;
} scn_sym;

struct cs_scenario {
	char *name;       /* for diagnostics: the path as given */
	char *base_dir;
	cs_arch arch;
	GPtrArray *pool;  /* every allocation of the parse, freed with the scenario */
	scn_dir *dirs;
	unsigned ndirs, cap_dirs;
	GHashTable *defs; /* name -> scn_def*: every definition in the file */
	/* execution */
	GHashTable *syms; /* name -> scn_sym* */
	GArray *outcomes; /* cs_expect_outcome */
	unsigned launches;
	unsigned copies;
	/* the last rewrite block's rules, applied by the device, and how they are
	 * freed (set by the executor, so the parser links without the device) */
	struct cs_rewrite *rewrite;
	void (*rewrite_free)(struct cs_rewrite *rw);
	scn_loc *rewrite_locs; /* where each of its edits is written, by edit number */
};

void *scn_alloc(cs_scenario *s, size_t size);
char *scn_strdup(cs_scenario *s, const char *p, size_t n);

/* Expressions (expr.c). The parser reads one from text at *pos: it stops at
 * whitespace outside parentheses, at ',' and at the end. */
scn_expr *scn_expr_parse(cs_scenario *s, const char *line, size_t len, size_t *pos,
			 uint32_t lineno, cs_diag *d);
/* Evaluate; names come from resolve (NULL: any name is an error). */
typedef bool (*scn_resolve_fn)(void *ctx, const scn_expr *name_expr, uint64_t *out, cs_diag *d);
bool scn_expr_eval(const cs_scenario *s, const scn_expr *e, scn_resolve_fn resolve, void *ctx,
		   uint64_t *out, cs_diag *d);
/* Parse a number literal (decimal, 0x hex, f32:X) at *pos. */
bool scn_number_parse(const char *line, size_t len, size_t *pos, uint64_t *out, const char **why);
/* Calls fn for every NAME in e. */
typedef bool (*scn_name_fn)(void *ctx, const scn_expr *name_expr, cs_diag *d);
bool scn_expr_names(const scn_expr *e, scn_name_fn fn, void *ctx, cs_diag *d);

/* The static name check (check.c): every name in s is defined before its
 * use, in file order; false with d naming the first that is not. */
bool scn_check_names(cs_scenario *s, cs_diag *d);

/* ---- execution (asm.c, exec.c) ------------------------------------------ */

typedef struct cs_module cs_module;

typedef struct scn_exec {
	cs_scenario *s;
	cs_mem *mem;
	const cs_arch_info *ai;
	/* the arch's host class's SEM_ADDR_LO/HI fields and the address bits they
	 * hold, looked up once (release/acquire lines use them) */
	const cs_field_desc *sem_addr_lo, *sem_addr_hi;
	unsigned sem_addr_bits;
	uint32_t channel;
	cs_binding bind;  /* the assembler's view, across pushbuffers in file order */
	GArray *pb;       /* dwords of the push being assembled */
	cs_diag *d;
	/* the device side, when there is one (exec.c); NULL hooks are skipped */
	void *host;
	void (*record)(void *host, const cs_event *ev);
	bool (*module_add)(void *host, cs_module *m, cs_diag *d);
	const cs_scenario_tap *tap; /* a watcher (capture export), NULL when none */
	bool rewrote;     /* this run set s->rewrite */
} scn_exec;

void scn_exec_reset(cs_scenario *s);
void scn_exec_begin(scn_exec *x, cs_scenario *s, const cs_arch_info *ai, cs_mem *mem, cs_diag *d);
/* The memory-side directives; *handled false for the device's (channel,
 * gpfifo, gpfifo-raw, submit, wait), which it leaves alone. */
bool scn_exec_memory(scn_exec *x, const scn_dir *dir, bool *handled);
/* Run only the memory side on a bare memory: a device directive is an error. */
bool scn_assemble(cs_scenario *s, cs_mem *mem, cs_diag *d);
const scn_sym *scn_symbol(const cs_scenario *s, const char *name);

bool scn_fail_at(scn_exec *x, scn_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The host-side backing limit was reached (cs_mem_backing_exhausted). */
bool scn_fail_backing(scn_exec *x, scn_loc loc);
bool scn_fail_with(scn_exec *x, scn_loc loc, const char *what, const cs_diag *inner);
bool scn_eval(scn_exec *x, const scn_expr *e, uint64_t *out);
bool scn_eval_or(scn_exec *x, const scn_expr *e, uint64_t dflt, uint64_t *out);
bool scn_eval32(scn_exec *x, const scn_expr *e, uint32_t *out);
void scn_outcome_init(cs_expect_outcome *o, const scn_dir *dir);
bool scn_expect_mem(scn_exec *x, const scn_dir *dir, cs_expect_outcome *o);

#endif

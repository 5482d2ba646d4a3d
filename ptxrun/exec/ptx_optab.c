/* SPDX-License-Identifier: MIT */
/* The opcode table: what a statement's base opcode name builds. Sorted by
 * name (strcmp order) for the binary search; tests/ptxrun checks the order. */
#include "ptx_build.h"

#include <stdlib.h>
#include <string.h>

const ptx_opcode ptx_opcodes[] = {
	{ "abs", ptx_build_arith_op, ARITH_OPS(1, IO_ABS, FO_ABS), false },
	{ "activemask", ptx_build_activemask, 0, false },
	{ "add", ptx_build_add_sub, IO_ADD, false },
	{ "addc", ptx_build_carry, CA_ADD, false },
	{ "and", ptx_build_logic, IO_AND, false },
	{ "atom", ptx_build_atom, OP_ATOM, false },
	{ "bar", ptx_build_bar, BAR_PLAIN, false },
	{ "barrier", ptx_build_bar, BAR_NEEDS_MODE, false },
	{ "bfe", ptx_build_arith_op, ARITH_OPS(3, IO_BFE, -1), false },
	{ "bfi", ptx_build_arith_op, ARITH_OPS(4, IO_BFI, -1), false },
	{ "bfind", ptx_build_arith_op, ARITH_OPS(1, IO_BFIND, -1), false },
	{ "bmsk", ptx_build_bitmask, IO_BMSK, false },
	{ "bra", ptx_build_bra, 0, false },
	{ "brev", ptx_build_arith_op, ARITH_OPS(1, IO_BREV, -1), false },
	{ "brx", ptx_build_brx, 0, true },
	{ "call", ptx_build_call, 0, false },
	{ "clz", ptx_build_arith_op, ARITH_OPS(1, IO_CLZ, -1), false },
	{ "cnot", ptx_build_arith_op, ARITH_OPS(1, IO_CNOT, -1), false },
	{ "copysign", ptx_build_arith_op, ARITH_OPS(2, -1, FO_COPYSIGN), false },
	{ "cos", ptx_build_arith_op, ARITH_OPS(1, -1, FO_COS), false },
	{ "cp", ptx_build_cp, 0, false },
	{ "cvt", ptx_build_cvt, 0, false },
	{ "cvta", ptx_build_cvta, 0, false },
	{ "div", ptx_build_div_rem, IO_DIV, false },
	{ "dp2a", ptx_build_dot, IO_DP2A, false },
	{ "dp4a", ptx_build_dot, IO_DP4A, false },
	{ "elect", ptx_build_elect, 0, false },
	{ "ex2", ptx_build_arith_op, ARITH_OPS(1, -1, FO_EX2), false },
	{ "exit", ptx_build_ret, OP_EXIT, false },
	{ "fence", ptx_build_membar, 0, false },
	{ "fma", ptx_build_mul, MUL_FMA, false },
	{ "fns", ptx_build_fns, 0, false },
	{ "getctarank", ptx_build_cluster_addr, CL_RANK, false },
	{ "griddepcontrol", ptx_build_griddepcontrol, 0, false },
	{ "isspacep", ptx_build_isspacep, 0, false },
	{ "ld", ptx_build_ld_st, OP_LD, false },
	{ "ldmatrix", ptx_build_ldmatrix, 0, false },
	{ "ldu", ptx_build_ld_st, OP_LD, false },
	{ "lg2", ptx_build_arith_op, ARITH_OPS(1, -1, FO_LG2), false },
	{ "lop3", ptx_build_lop3, 0, false },
	{ "mad", ptx_build_mul, MUL_MAD, false },
	{ "mad24", ptx_build_mul24, IO_MAD24, false },
	{ "madc", ptx_build_carry, CA_MADLO, false },
	{ "mapa", ptx_build_cluster_addr, CL_MAPA, false },
	{ "match", ptx_build_match, 0, false },
	{ "max", ptx_build_arith_op, ARITH_OPS(2, IO_MAX, FO_MAX), false },
	{ "mbarrier", ptx_build_mbarrier, 0, false },
	{ "membar", ptx_build_membar, 0, false },
	{ "min", ptx_build_arith_op, ARITH_OPS(2, IO_MIN, FO_MIN), false },
	{ "mma", ptx_build_mma, 0, false },
	{ "mov", ptx_build_mov, 0, false },
	{ "mul", ptx_build_mul, MUL_MUL, false },
	{ "mul24", ptx_build_mul24, IO_MUL24, false },
	{ "nanosleep", ptx_build_hint, 0, false },
	{ "neg", ptx_build_arith_op, ARITH_OPS(1, IO_NEG, FO_NEG), false },
	{ "not", ptx_build_arith_op, ARITH_OPS(1, IO_NOT, -1), false },
	{ "or", ptx_build_logic, IO_OR, false },
	{ "pmevent", ptx_build_hint, 0, false },
	{ "popc", ptx_build_arith_op, ARITH_OPS(1, IO_POPC, -1), false },
	{ "prefetch", ptx_build_hint, 0, false },
	{ "prefetchu", ptx_build_hint, 0, false },
	{ "prmt", ptx_build_prmt, 0, false },
	{ "rcp", ptx_build_arith_op, ARITH_OPS(1, -1, FO_RCP), false },
	{ "red", ptx_build_atom, OP_RED, false },
	{ "redux", ptx_build_redux, 0, false },
	{ "rem", ptx_build_div_rem, IO_REM, false },
	{ "ret", ptx_build_ret, OP_RET, false },
	{ "rsqrt", ptx_build_arith_op, ARITH_OPS(1, -1, FO_RSQRT), false },
	{ "sad", ptx_build_arith_op, ARITH_OPS(3, IO_SAD, -1), false },
	{ "selp", ptx_build_selp, 0, false },
	{ "set", ptx_build_setp, OP_SET, false },
	{ "setp", ptx_build_setp, OP_SETP, false },
	{ "shf", ptx_build_shf, 0, false },
	{ "shfl", ptx_build_shfl, 0, false },
	{ "shl", ptx_build_shift, IO_SHL, false },
	{ "shr", ptx_build_shift, IO_SHR, false },
	{ "sin", ptx_build_arith_op, ARITH_OPS(1, -1, FO_SIN), false },
	{ "slct", ptx_build_slct, 0, false },
	{ "sqrt", ptx_build_arith_op, ARITH_OPS(1, -1, FO_SQRT), false },
	{ "st", ptx_build_ld_st, OP_ST, false },
	{ "sub", ptx_build_add_sub, IO_SUB, false },
	{ "subc", ptx_build_carry, CA_SUB, false },
	{ "szext", ptx_build_bitmask, IO_SZEXT, false },
	{ "tanh", ptx_build_arith_op, ARITH_OPS(1, -1, FO_TANH), false },
	{ "testp", ptx_build_testp, 0, false },
	{ "trap", ptx_build_ret, OP_TRAP, false },
	{ "vote", ptx_build_vote, 0, false },
	{ "wmma", ptx_build_wmma, 0, false },
	{ "xor", ptx_build_logic, IO_XOR, false },
};

const size_t ptx_opcode_count = sizeof(ptx_opcodes) / sizeof(ptx_opcodes[0]);

static int opcode_cmp(const void *name, const void *row)
{
	return strcmp(name, ((const ptx_opcode *)row)->name);
}

const ptx_opcode *ptx_opcode_find(const char *name)
{
	return bsearch(name, ptx_opcodes, ptx_opcode_count, sizeof(ptx_opcodes[0]), opcode_cmp);
}

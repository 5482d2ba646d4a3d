/* SPDX-License-Identifier: MIT */
/* RV64GC decoder and printer (RV64I, M, A, F, D, C, Zicsr, Zifencei), printing
 * what Debian 12's riscv64-unknown-elf-objdump -d prints: its aliases (li, mv,
 * ret, j, nop, beqz...), and immediate ALU forms under the register form's
 * name (binutils 2.40 prints addi as "add rd,rs,imm"). Debian 12's Capstone
 * (4.0.2) has no RISC-V, so this decoder is the one in use; a Capstone 5 only
 * cross-checks it (tests/gsp/test_capstone.c). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "chainsim/gsp.h"
#include "gsp_internal.h"

const char *const gsp_xreg[32] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};
const char *const gsp_freg[32] = {
	"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1", "fa2", "fa3",
	"fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11",
	"ft8", "ft9", "ft10", "ft11",
};

static const char *csr_name(uint32_t c)
{
	switch (c) {
#define RV_CSR(number, name) \
	case number:         \
		return name;
#include "rvcsr.def"
#undef RV_CSR
	}
	return NULL;
}

static void csr_str(uint32_t c, char *buf, size_t n)
{
	const char *s = csr_name(c);
	if (s)
		snprintf(buf, n, "%s", s);
	else
		snprintf(buf, n, "0x%x", c);
}

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);
	v &= (bits == 64) ? ~0ull : ((1ull << bits) - 1);
	return (int64_t)((v ^ m) - m);
}

static void set(cs_rv_insn *in, const char *mn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set(cs_rv_insn *in, const char *mn, const char *fmt, ...)
{
	va_list ap;
	snprintf(in->mnemonic, sizeof(in->mnemonic), "%s", mn);
	va_start(ap, fmt);
	vsnprintf(in->operands, sizeof(in->operands), fmt, ap);
	va_end(ap);
}

static const char *rm_name(unsigned rm)
{
	static const char *const n[8] = { "rne", "rtz", "rdn", "rup", "rmm", "0x5", "0x6", "dyn" };
	return n[rm & 7];
}

static void mem(cs_rv_insn *in, cs_rv_memop op, unsigned base, int64_t imm, unsigned size)
{
	in->memop = op;
	in->mem_base = (uint8_t)base;
	in->mem_imm = imm;
	in->mem_size = (uint8_t)size;
}

/* ---- the 32-bit instruction set (compressed ones expand into these) ---- */

static bool op_imm(cs_rv_insn *in, unsigned f3, unsigned rd, unsigned rs1, uint32_t w, bool word)
{
	int64_t imm = sext(w >> 20, 12);
	unsigned sh = (w >> 20) & (word ? 0x1f : 0x3f);
	unsigned top = w >> 26;
	if (word) {
		switch (f3) {
		case 0:
			if (imm == 0)
				set(in, "sext.w", "%s,%s", gsp_xreg[rd], gsp_xreg[rs1]);
			else
				set(in, "addw", "%s,%s,%" PRId64, gsp_xreg[rd], gsp_xreg[rs1], imm);
			return true;
		case 1:
			if (w >> 25)
				return false;
			set(in, "sllw", "%s,%s,0x%x", gsp_xreg[rd], gsp_xreg[rs1], sh);
			return true;
		case 5:
			if ((w >> 25) == 0)
				set(in, "srlw", "%s,%s,0x%x", gsp_xreg[rd], gsp_xreg[rs1], sh);
			else if ((w >> 25) == 0x20)
				set(in, "sraw", "%s,%s,0x%x", gsp_xreg[rd], gsp_xreg[rs1], sh);
			else
				return false;
			return true;
		}
		return false;
	}
	switch (f3) {
	case 0:
		if (rd == 0 && rs1 == 0 && imm == 0)
			set(in, "nop", "%s", "");
		else if (rs1 == 0)
			set(in, "li", "%s,%" PRId64, gsp_xreg[rd], imm);
		else if (imm == 0)
			set(in, "mv", "%s,%s", gsp_xreg[rd], gsp_xreg[rs1]);
		else
			set(in, "add", "%s,%s,%" PRId64, gsp_xreg[rd], gsp_xreg[rs1], imm);
		return true;
	case 2:
		set(in, "slti", "%s,%s,%" PRId64, gsp_xreg[rd], gsp_xreg[rs1], imm);
		return true;
	case 3:
		if (imm == 1)
			set(in, "seqz", "%s,%s", gsp_xreg[rd], gsp_xreg[rs1]);
		else
			set(in, "sltiu", "%s,%s,%" PRId64, gsp_xreg[rd], gsp_xreg[rs1], imm);
		return true;
	case 4:
		if (imm == -1)
			set(in, "not", "%s,%s", gsp_xreg[rd], gsp_xreg[rs1]);
		else
			set(in, "xor", "%s,%s,%" PRId64, gsp_xreg[rd], gsp_xreg[rs1], imm);
		return true;
	case 6:
		set(in, "or", "%s,%s,%" PRId64, gsp_xreg[rd], gsp_xreg[rs1], imm);
		return true;
	case 7:
		if (imm == 255)
			set(in, "zext.b", "%s,%s", gsp_xreg[rd], gsp_xreg[rs1]);
		else
			set(in, "and", "%s,%s,%" PRId64, gsp_xreg[rd], gsp_xreg[rs1], imm);
		return true;
	case 1:
		if (top)
			return false;
		set(in, "sll", "%s,%s,0x%x", gsp_xreg[rd], gsp_xreg[rs1], sh);
		return true;
	case 5:
		if (top == 0)
			set(in, "srl", "%s,%s,0x%x", gsp_xreg[rd], gsp_xreg[rs1], sh);
		else if (top == 0x10)
			set(in, "sra", "%s,%s,0x%x", gsp_xreg[rd], gsp_xreg[rs1], sh);
		else
			return false;
		return true;
	}
	return false;
}

static bool op_reg(cs_rv_insn *in, unsigned f3, unsigned f7, unsigned rd, unsigned rs1,
		   unsigned rs2, bool word)
{
	static const char *const base[8] = { "add", "sll", "slt", "sltu", "xor", "srl", "or", "and" };
	static const char *const muldiv[8] = { "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu" };
	const char *mn = NULL;
	char name[16];
	if (f7 == 1) {
		if (word && (f3 == 1 || f3 == 2 || f3 == 3))
			return false;
		mn = muldiv[f3];
	} else if (f7 == 0) {
		if (word && f3 != 0 && f3 != 1 && f3 != 5)
			return false;
		mn = base[f3];
	} else if (f7 == 0x20) {
		if (f3 == 0)
			mn = "sub";
		else if (f3 == 5)
			mn = "sra";
		else
			return false;
	} else
		return false;
	snprintf(name, sizeof(name), "%s%s", mn, word ? "w" : "");
	if (f7 == 0x20 && f3 == 0 && rs1 == 0) {
		set(in, word ? "negw" : "neg", "%s,%s", gsp_xreg[rd], gsp_xreg[rs2]);
		return true;
	}
	if (!word && f7 == 0 && f3 == 3 && rs1 == 0) {
		set(in, "snez", "%s,%s", gsp_xreg[rd], gsp_xreg[rs2]);
		return true;
	}
	if (!word && f7 == 0 && f3 == 2 && rs2 == 0) {
		set(in, "sltz", "%s,%s", gsp_xreg[rd], gsp_xreg[rs1]);
		return true;
	}
	if (!word && f7 == 0 && f3 == 2 && rs1 == 0) {
		set(in, "sgtz", "%s,%s", gsp_xreg[rd], gsp_xreg[rs2]);
		return true;
	}
	set(in, name, "%s,%s,%s", gsp_xreg[rd], gsp_xreg[rs1], gsp_xreg[rs2]);
	return true;
}

static bool branch(cs_rv_insn *in, uint32_t w, uint64_t pc)
{
	unsigned f3 = (w >> 12) & 7, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31;
	uint64_t imm = ((w >> 31) & 1) << 12 | ((w >> 7) & 1) << 11 | ((w >> 25) & 0x3f) << 5 |
		       ((w >> 8) & 0xf) << 1;
	uint64_t t = pc + (uint64_t)sext(imm, 13);
	static const char *const n[8] = { "beq", "bne", NULL, NULL, "blt", "bge", "bltu", "bgeu" };
	if (!n[f3])
		return false;
	in->has_target = true;
	in->target = t;
	if (rs2 == 0 && (f3 == 0 || f3 == 1 || f3 == 4 || f3 == 5)) {
		static const char *const z[8] = { "beqz", "bnez", NULL, NULL, "bltz", "bgez", NULL, NULL };
		set(in, z[f3], "%s,%" PRIx64, gsp_xreg[rs1], t);
	} else if (rs1 == 0 && (f3 == 4 || f3 == 5)) {
		set(in, f3 == 4 ? "bgtz" : "blez", "%s,%" PRIx64, gsp_xreg[rs2], t);
	} else
		set(in, n[f3], "%s,%s,%" PRIx64, gsp_xreg[rs1], gsp_xreg[rs2], t);
	return true;
}

static void fence_set(char *buf, unsigned bits)
{
	int k = 0;
	if (bits & 8) buf[k++] = 'i';
	if (bits & 4) buf[k++] = 'o';
	if (bits & 2) buf[k++] = 'r';
	if (bits & 1) buf[k++] = 'w';
	if (!k) buf[k++] = '0';
	buf[k] = 0;
}

static bool system_op(cs_rv_insn *in, uint32_t w)
{
	unsigned f3 = (w >> 12) & 7, rd = (w >> 7) & 31, rs1 = (w >> 15) & 31;
	uint32_t csr = w >> 20;
	char cn[16];
	if (f3 == 0) {
		if (rd != 0)
			return false;
		switch (w >> 15) {
		case 0x0: set(in, "ecall", "%s", ""); return true;
		case 0x20: set(in, "ebreak", "%s", ""); return true;
		case 0x40: set(in, "uret", "%s", ""); return true;
		case 0x2040: set(in, "sret", "%s", ""); return true;
		case 0x6040: set(in, "mret", "%s", ""); return true;
		case 0x20a0: set(in, "wfi", "%s", ""); return true;
		}
		if ((w >> 25) == 0x09) {
			unsigned rs2 = (w >> 20) & 31;
			if (rs1 == 0 && rs2 == 0)
				set(in, "sfence.vma", "%s", "");
			else if (rs2 == 0)
				set(in, "sfence.vma", "%s", gsp_xreg[rs1]);
			else
				set(in, "sfence.vma", "%s,%s", gsp_xreg[rs1], gsp_xreg[rs2]);
			return true;
		}
		return false;
	}
	if (f3 == 4)
		return false;
	csr_str(csr, cn, sizeof(cn));
	bool imm = f3 >= 5;
	unsigned op = f3 & 3; /* 1 rw, 2 rs, 3 rc */
	/* floating-point CSR and counter aliases */
	if (!imm && csr <= 3) {
		static const char *const rd_alias[4] = { NULL, "frflags", "frrm", "frcsr" };
		static const char *const wr_alias[4] = { NULL, "fsflags", "fsrm", "fscsr" };
		if (op == 2 && rs1 == 0 && csr) {
			set(in, rd_alias[csr], "%s", gsp_xreg[rd]);
			return true;
		}
		if (op == 1 && csr) {
			if (rd == 0)
				set(in, wr_alias[csr], "%s", gsp_xreg[rs1]);
			else
				set(in, wr_alias[csr], "%s,%s", gsp_xreg[rd], gsp_xreg[rs1]);
			return true;
		}
	}
	if (imm && csr <= 3 && csr && op == 1) {
		static const char *const wi_alias[4] = { NULL, "fsflagsi", "fsrmi", NULL };
		if (wi_alias[csr]) {
			set(in, wi_alias[csr], "%s,%u", gsp_xreg[rd], rs1);
			return true;
		}
	}
	if (!imm && op == 2 && rs1 == 0 && (csr == 0xc00 || csr == 0xc01 || csr == 0xc02)) {
		static const char *const rdc[3] = { "rdcycle", "rdtime", "rdinstret" };
		set(in, rdc[csr - 0xc00], "%s", gsp_xreg[rd]);
		return true;
	}
	if (!imm) {
		if (op == 2 && rs1 == 0) {
			set(in, "csrr", "%s,%s", gsp_xreg[rd], cn);
			return true;
		}
		if (rd == 0) {
			static const char *const a[4] = { NULL, "csrw", "csrs", "csrc" };
			set(in, a[op], "%s,%s", cn, gsp_xreg[rs1]);
			return true;
		}
		static const char *const f[4] = { NULL, "csrrw", "csrrs", "csrrc" };
		set(in, f[op], "%s,%s,%s", gsp_xreg[rd], cn, gsp_xreg[rs1]);
		return true;
	}
	/* binutils 2.40 prints the immediate forms under the register names */
	if (rd == 0) {
		static const char *const a[4] = { NULL, "csrw", "csrs", "csrc" };
		set(in, a[op], "%s,%u", cn, rs1);
		return true;
	}
	static const char *const f[4] = { NULL, "csrrw", "csrrs", "csrrc" };
	set(in, f[op], "%s,%s,%u", gsp_xreg[rd], cn, rs1);
	return true;
}

static bool amo(cs_rv_insn *in, uint32_t w)
{
	unsigned f3 = (w >> 12) & 7, rd = (w >> 7) & 31, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31;
	unsigned f5 = w >> 27, aq = (w >> 26) & 1, rl = (w >> 25) & 1;
	const char *sz;
	if (f3 == 2)
		sz = "w";
	else if (f3 == 3)
		sz = "d";
	else
		return false;
	const char *op;
	switch (f5) {
	case 0x02: op = "lr"; break;
	case 0x03: op = "sc"; break;
	case 0x01: op = "amoswap"; break;
	case 0x00: op = "amoadd"; break;
	case 0x04: op = "amoxor"; break;
	case 0x0c: op = "amoand"; break;
	case 0x08: op = "amoor"; break;
	case 0x10: op = "amomin"; break;
	case 0x14: op = "amomax"; break;
	case 0x18: op = "amominu"; break;
	case 0x1c: op = "amomaxu"; break;
	default: return false;
	}
	char mn[24];
	snprintf(mn, sizeof(mn), "%s.%s%s%s", op, sz, aq ? ".aq" : "", rl ? ".rl" : "");
	if (aq && rl)
		snprintf(mn, sizeof(mn), "%s.%s.aqrl", op, sz);
	unsigned size = f3 == 2 ? 4 : 8;
	if (f5 == 0x02) {
		if (rs2)
			return false;
		set(in, mn, "%s,(%s)", gsp_xreg[rd], gsp_xreg[rs1]);
		mem(in, CS_RV_MEM_LOAD, rs1, 0, size);
	} else {
		set(in, mn, "%s,%s,(%s)", gsp_xreg[rd], gsp_xreg[rs2], gsp_xreg[rs1]);
		mem(in, f5 == 0x03 ? CS_RV_MEM_STORE : CS_RV_MEM_AMO, rs1, 0, size);
	}
	return true;
}

static bool fp_op(cs_rv_insn *in, uint32_t w)
{
	unsigned rd = (w >> 7) & 31, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31, rm = (w >> 12) & 7;
	unsigned f7 = w >> 25, fmt = f7 & 3;
	const char *s;
	if (fmt == 0)
		s = "s";
	else if (fmt == 1)
		s = "d";
	else
		return false;
	char mn[24];
	char rmx[8] = "";
	if (rm != 7)
		snprintf(rmx, sizeof(rmx), ",%s", rm_name(rm));
	switch (f7 >> 2) {
	case 0x00: case 0x01: case 0x02: case 0x03: {
		static const char *const n[4] = { "fadd", "fsub", "fmul", "fdiv" };
		if (rm == 5 || rm == 6)
			return false;
		snprintf(mn, sizeof(mn), "%s.%s", n[f7 >> 2], s);
		set(in, mn, "%s,%s,%s%s", gsp_freg[rd], gsp_freg[rs1], gsp_freg[rs2], rmx);
		return true;
	}
	case 0x0b:
		if (rs2 || rm == 5 || rm == 6)
			return false;
		snprintf(mn, sizeof(mn), "fsqrt.%s", s);
		set(in, mn, "%s,%s%s", gsp_freg[rd], gsp_freg[rs1], rmx);
		return true;
	case 0x04:
		if (rm > 2)
			return false;
		if (rs1 == rs2) {
			static const char *const a[3] = { "fmv", "fneg", "fabs" };
			snprintf(mn, sizeof(mn), "%s.%s", a[rm], s);
			set(in, mn, "%s,%s", gsp_freg[rd], gsp_freg[rs1]);
		} else {
			static const char *const a[3] = { "fsgnj", "fsgnjn", "fsgnjx" };
			snprintf(mn, sizeof(mn), "%s.%s", a[rm], s);
			set(in, mn, "%s,%s,%s", gsp_freg[rd], gsp_freg[rs1], gsp_freg[rs2]);
		}
		return true;
	case 0x05:
		if (rm > 1)
			return false;
		snprintf(mn, sizeof(mn), "%s.%s", rm ? "fmax" : "fmin", s);
		set(in, mn, "%s,%s,%s", gsp_freg[rd], gsp_freg[rs1], gsp_freg[rs2]);
		return true;
	case 0x14: {
		static const char *const a[3] = { "fle", "flt", "feq" };
		if (rm > 2)
			return false;
		snprintf(mn, sizeof(mn), "%s.%s", a[rm], s);
		set(in, mn, "%s,%s,%s", gsp_xreg[rd], gsp_freg[rs1], gsp_freg[rs2]);
		return true;
	}
	case 0x08: /* fcvt.s.d / fcvt.d.s */
		if (fmt == 0 && rs2 == 1) {
			set(in, "fcvt.s.d", "%s,%s%s", gsp_freg[rd], gsp_freg[rs1], rmx);
			return true;
		}
		if (fmt == 1 && rs2 == 0) {
			set(in, "fcvt.d.s", "%s,%s", gsp_freg[rd], gsp_freg[rs1]); /* exact: no rounding mode shown */
			return true;
		}
		return false;
	case 0x18: case 0x1a: {
		static const char *const it[4] = { "w", "wu", "l", "lu" };
		if (rs2 > 3)
			return false;
		if ((f7 >> 2) == 0x18) {
			snprintf(mn, sizeof(mn), "fcvt.%s.%s", it[rs2], s);
			set(in, mn, "%s,%s%s", gsp_xreg[rd], gsp_freg[rs1], rmx);
		} else {
			snprintf(mn, sizeof(mn), "fcvt.%s.%s", s, it[rs2]);
			/* int32 -> double is exact: objdump shows no rounding mode */
			set(in, mn, "%s,%s%s", gsp_freg[rd], gsp_xreg[rs1], (fmt == 1 && rs2 < 2) ? "" : rmx);
		}
		return true;
	}
	case 0x1c:
		if (rs2)
			return false;
		if (rm == 0) {
			set(in, fmt ? "fmv.x.d" : "fmv.x.w", "%s,%s", gsp_xreg[rd], gsp_freg[rs1]);
			return true;
		}
		if (rm == 1) {
			snprintf(mn, sizeof(mn), "fclass.%s", s);
			set(in, mn, "%s,%s", gsp_xreg[rd], gsp_freg[rs1]);
			return true;
		}
		return false;
	case 0x1e:
		if (rs2 || rm)
			return false;
		set(in, fmt ? "fmv.d.x" : "fmv.w.x", "%s,%s", gsp_freg[rd], gsp_xreg[rs1]);
		return true;
	}
	return false;
}

static bool decode32(uint32_t w, uint64_t pc, cs_rv_insn *in)
{
	unsigned opc = w & 0x7f, rd = (w >> 7) & 31, f3 = (w >> 12) & 7, rs1 = (w >> 15) & 31;
	unsigned rs2 = (w >> 20) & 31, f7 = w >> 25;
	int64_t imm_i = sext(w >> 20, 12);
	int64_t imm_s = sext(((w >> 25) << 5) | ((w >> 7) & 31), 12);
	switch (opc) {
	case 0x37:
		set(in, "lui", "%s,0x%x", gsp_xreg[rd], w >> 12);
		return true;
	case 0x17:
		set(in, "auipc", "%s,0x%x", gsp_xreg[rd], w >> 12);
		return true;
	case 0x6f: {
		uint64_t imm = ((w >> 31) & 1) << 20 | ((w >> 12) & 0xff) << 12 | ((w >> 20) & 1) << 11 |
			       ((w >> 21) & 0x3ff) << 1;
		uint64_t t = pc + (uint64_t)sext(imm, 21);
		in->has_target = true;
		in->target = t;
		if (rd == 0)
			set(in, "j", "%" PRIx64, t);
		else if (rd == 1) {
			set(in, "jal", "%" PRIx64, t);
			in->is_call = true;
		} else
			set(in, "jal", "%s,%" PRIx64, gsp_xreg[rd], t);
		return true;
	}
	case 0x67:
		if (f3)
			return false;
		if (rd == 0 && rs1 == 1 && imm_i == 0) {
			set(in, "ret", "%s", "");
			in->is_ret = true;
		} else if (rd == 0 && imm_i == 0)
			set(in, "jr", "%s", gsp_xreg[rs1]);
		else if (rd == 0)
			set(in, "jr", "%" PRId64 "(%s)", imm_i, gsp_xreg[rs1]);
		else if (rd == 1 && imm_i == 0) {
			set(in, "jalr", "%s", gsp_xreg[rs1]);
			in->is_call = true;
		} else if (imm_i == 0) {
			set(in, "jalr", "%s,%s", gsp_xreg[rd], gsp_xreg[rs1]);
			in->is_call = rd == 1;
		} else if (rd == 1) {
			set(in, "jalr", "%" PRId64 "(%s)", imm_i, gsp_xreg[rs1]);
			in->is_call = true;
		} else {
			set(in, "jalr", "%s,%" PRId64 "(%s)", gsp_xreg[rd], imm_i, gsp_xreg[rs1]);
			in->is_call = rd == 1;
		}
		return true;
	case 0x63:
		return branch(in, w, pc);
	case 0x03: {
		static const char *const n[8] = { "lb", "lh", "lw", "ld", "lbu", "lhu", "lwu", NULL };
		if (!n[f3])
			return false;
		set(in, n[f3], "%s,%" PRId64 "(%s)", gsp_xreg[rd], imm_i, gsp_xreg[rs1]);
		mem(in, CS_RV_MEM_LOAD, rs1, imm_i, 1u << (f3 & 3));
		return true;
	}
	case 0x23: {
		static const char *const n[8] = { "sb", "sh", "sw", "sd", NULL, NULL, NULL, NULL };
		if (!n[f3])
			return false;
		set(in, n[f3], "%s,%" PRId64 "(%s)", gsp_xreg[rs2], imm_s, gsp_xreg[rs1]);
		mem(in, CS_RV_MEM_STORE, rs1, imm_s, 1u << f3);
		return true;
	}
	case 0x07:
		if (f3 != 2 && f3 != 3)
			return false;
		set(in, f3 == 2 ? "flw" : "fld", "%s,%" PRId64 "(%s)", gsp_freg[rd], imm_i, gsp_xreg[rs1]);
		mem(in, CS_RV_MEM_LOAD, rs1, imm_i, f3 == 2 ? 4 : 8);
		return true;
	case 0x27:
		if (f3 != 2 && f3 != 3)
			return false;
		set(in, f3 == 2 ? "fsw" : "fsd", "%s,%" PRId64 "(%s)", gsp_freg[rs2], imm_s, gsp_xreg[rs1]);
		mem(in, CS_RV_MEM_STORE, rs1, imm_s, f3 == 2 ? 4 : 8);
		return true;
	case 0x13:
		return op_imm(in, f3, rd, rs1, w, false);
	case 0x1b:
		return op_imm(in, f3, rd, rs1, w, true);
	case 0x33:
		return op_reg(in, f3, f7, rd, rs1, rs2, false);
	case 0x3b:
		return op_reg(in, f3, f7, rd, rs1, rs2, true);
	case 0x0f:
		if (f3 == 1) {
			if (w != 0x0000100f)
				return false;
			set(in, "fence.i", "%s", "");
			return true;
		}
		if (f3 != 0)
			return false;
		if (w == 0x8330000f) {
			set(in, "fence.tso", "%s", "");
			return true;
		}
		{
			unsigned pred = (w >> 24) & 15, succ = (w >> 20) & 15;
			char p[8], s[8];
			if (pred == 15 && succ == 15 && (w >> 28) == 0) {
				set(in, "fence", "%s", "");
				return true;
			}
			fence_set(p, pred);
			fence_set(s, succ);
			set(in, "fence", "%s,%s", p, s);
		}
		return true;
	case 0x73:
		return system_op(in, w);
	case 0x2f:
		return amo(in, w);
	case 0x43: case 0x47: case 0x4b: case 0x4f: {
		static const char *const n[4] = { "fmadd", "fmsub", "fnmsub", "fnmadd" };
		unsigned fmt = (w >> 25) & 3, rs3 = w >> 27, rm = f3;
		if (fmt > 1 || rm == 5 || rm == 6)
			return false;
		char mn[24], rmx[8] = "";
		snprintf(mn, sizeof(mn), "%s.%s", n[(opc >> 2) & 3], fmt ? "d" : "s");
		if (rm != 7)
			snprintf(rmx, sizeof(rmx), ",%s", rm_name(rm));
		set(in, mn, "%s,%s,%s,%s%s", gsp_freg[rd], gsp_freg[rs1], gsp_freg[rs2], gsp_freg[rs3], rmx);
		return true;
	}
	case 0x53:
		return fp_op(in, w);
	}
	return false;
}

/* ---- compressed: expand to the 32-bit form, then print that ---- */

static uint32_t enc_i(unsigned opc, unsigned rd, unsigned f3, unsigned rs1, int64_t imm)
{
	return (uint32_t)(((uint64_t)imm & 0xfff) << 20) | rs1 << 15 | f3 << 12 | rd << 7 | opc;
}

static uint32_t enc_s(unsigned opc, unsigned f3, unsigned rs1, unsigned rs2, int64_t imm)
{
	uint32_t u = (uint32_t)imm & 0xfff;
	return (u >> 5) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 31) << 7 | opc;
}

static uint32_t enc_r(unsigned opc, unsigned rd, unsigned f3, unsigned rs1, unsigned rs2, unsigned f7)
{
	return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc;
}

static uint32_t enc_b(unsigned f3, unsigned rs1, unsigned rs2, int64_t off)
{
	uint32_t u = (uint32_t)off & 0x1fff;
	return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
	       ((u >> 1) & 0xf) << 8 | ((u >> 11) & 1) << 7 | 0x63;
}

static uint32_t enc_j(unsigned rd, int64_t off)
{
	uint32_t u = (uint32_t)off & 0x1fffff;
	return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 |
	       ((u >> 12) & 0xff) << 12 | rd << 7 | 0x6f;
}

/* Returns the expansion, or 0 when the halfword is not a valid RV64C instruction. */
static uint32_t expand16(uint16_t h)
{
	unsigned op = h & 3, f3 = h >> 13;
	unsigned rd = (h >> 7) & 31, rs2 = (h >> 2) & 31;
	unsigned rdp = 8 + ((h >> 2) & 7), rs1p = 8 + ((h >> 7) & 7);
	if (h == 0)
		return 0;
	if (op == 0) {
		switch (f3) {
		case 0: { /* c.addi4spn */
			unsigned nz = ((h >> 7) & 0xf) << 6 | ((h >> 11) & 3) << 4 | ((h >> 5) & 1) << 3 |
				      ((h >> 6) & 1) << 2;
			if (!nz)
				return 0;
			return enc_i(0x13, rdp, 0, 2, nz);
		}
		case 1: { /* c.fld */
			unsigned off = ((h >> 10) & 7) << 3 | ((h >> 5) & 3) << 6;
			return enc_i(0x07, rdp, 3, rs1p, off);
		}
		case 2: {
			unsigned off = ((h >> 10) & 7) << 3 | ((h >> 6) & 1) << 2 | ((h >> 5) & 1) << 6;
			return enc_i(0x03, rdp, 2, rs1p, off);
		}
		case 3: {
			unsigned off = ((h >> 10) & 7) << 3 | ((h >> 5) & 3) << 6;
			return enc_i(0x03, rdp, 3, rs1p, off);
		}
		case 5: {
			unsigned off = ((h >> 10) & 7) << 3 | ((h >> 5) & 3) << 6;
			return enc_s(0x27, 3, rs1p, rdp, off);
		}
		case 6: {
			unsigned off = ((h >> 10) & 7) << 3 | ((h >> 6) & 1) << 2 | ((h >> 5) & 1) << 6;
			return enc_s(0x23, 2, rs1p, rdp, off);
		}
		case 7: {
			unsigned off = ((h >> 10) & 7) << 3 | ((h >> 5) & 3) << 6;
			return enc_s(0x23, 3, rs1p, rdp, off);
		}
		}
		return 0;
	}
	if (op == 1) {
		int64_t imm6 = sext(((h >> 12) & 1) << 5 | ((h >> 2) & 31), 6);
		switch (f3) {
		case 0: /* c.addi / c.nop */
			if (rd == 0 && imm6 != 0)
				return 0; /* hint in objdump terms: treated as invalid-safe */
			return enc_i(0x13, rd, 0, rd, imm6);
		case 1: /* c.addiw */
			if (rd == 0)
				return 0;
			return enc_i(0x1b, rd, 0, rd, imm6);
		case 2: /* c.li */
			return enc_i(0x13, rd, 0, 0, imm6);
		case 3:
			if (rd == 2) { /* c.addi16sp */
				int64_t imm = sext(((h >> 12) & 1) << 9 | ((h >> 3) & 3) << 7 | ((h >> 5) & 1) << 6 |
						   ((h >> 2) & 1) << 5 | ((h >> 6) & 1) << 4, 10);
				if (!imm)
					return 0;
				return enc_i(0x13, 2, 0, 2, imm);
			}
			if (imm6 == 0)
				return 0;
			return ((uint32_t)imm6 & 0xfffff) << 12 | rd << 7 | 0x37;
		case 4: {
			unsigned f2 = (h >> 10) & 3;
			unsigned sh = ((h >> 12) & 1) << 5 | ((h >> 2) & 31);
			if (f2 == 0)
				return sh ? enc_i(0x13, rs1p, 5, rs1p, sh) : 0;
			if (f2 == 1)
				return sh ? enc_i(0x13, rs1p, 5, rs1p, 0x400 | sh) : 0;
			if (f2 == 2)
				return enc_i(0x13, rs1p, 7, rs1p, imm6);
			unsigned f = ((h >> 12) & 1) << 2 | ((h >> 5) & 3);
			unsigned r2 = 8 + ((h >> 2) & 7);
			switch (f) {
			case 0: return enc_r(0x33, rs1p, 0, rs1p, r2, 0x20);
			case 1: return enc_r(0x33, rs1p, 4, rs1p, r2, 0);
			case 2: return enc_r(0x33, rs1p, 6, rs1p, r2, 0);
			case 3: return enc_r(0x33, rs1p, 7, rs1p, r2, 0);
			case 4: return enc_r(0x3b, rs1p, 0, rs1p, r2, 0x20);
			case 5: return enc_r(0x3b, rs1p, 0, rs1p, r2, 0);
			}
			return 0;
		}
		case 5: {
			int64_t off = sext(((h >> 12) & 1) << 11 | ((h >> 8) & 1) << 10 | ((h >> 9) & 3) << 8 |
					   ((h >> 6) & 1) << 7 | ((h >> 7) & 1) << 6 | ((h >> 2) & 1) << 5 |
					   ((h >> 11) & 1) << 4 | ((h >> 3) & 7) << 1, 12);
			return enc_j(0, off);
		}
		case 6: case 7: {
			int64_t off = sext(((h >> 12) & 1) << 8 | ((h >> 5) & 3) << 6 | ((h >> 2) & 1) << 5 |
					   ((h >> 10) & 3) << 3 | ((h >> 3) & 3) << 1, 9);
			return enc_b(f3 == 6 ? 0 : 1, rs1p, 0, off);
		}
		}
		return 0;
	}
	if (op == 2) {
		switch (f3) {
		case 0: {
			unsigned sh = ((h >> 12) & 1) << 5 | ((h >> 2) & 31);
			if (rd == 0 || sh == 0)
				return 0;
			return enc_i(0x13, rd, 1, rd, sh);
		}
		case 1: {
			unsigned off = ((h >> 12) & 1) << 5 | ((h >> 5) & 3) << 3 | ((h >> 2) & 7) << 6;
			return enc_i(0x07, rd, 3, 2, off);
		}
		case 2: {
			unsigned off = ((h >> 12) & 1) << 5 | ((h >> 4) & 7) << 2 | ((h >> 2) & 3) << 6;
			if (rd == 0)
				return 0;
			return enc_i(0x03, rd, 2, 2, off);
		}
		case 3: {
			unsigned off = ((h >> 12) & 1) << 5 | ((h >> 5) & 3) << 3 | ((h >> 2) & 7) << 6;
			if (rd == 0)
				return 0;
			return enc_i(0x03, rd, 3, 2, off);
		}
		case 4:
			if (!((h >> 12) & 1)) {
				if (rs2 == 0)
					return rd ? enc_i(0x67, 0, 0, rd, 0) : 0;
				return rd ? enc_i(0x13, rd, 0, rs2, 0) : 0; /* c.mv prints as mv */
			}
			if (rs2 == 0) {
				if (rd == 0)
					return 0x00100073; /* c.ebreak */
				return enc_i(0x67, 1, 0, rd, 0);
			}
			return rd ? enc_r(0x33, rd, 0, rd, rs2, 0) : 0;
		case 5: {
			unsigned off = ((h >> 10) & 7) << 3 | ((h >> 7) & 7) << 6;
			return enc_s(0x27, 3, 2, rs2, off);
		}
		case 6: {
			unsigned off = ((h >> 9) & 15) << 2 | ((h >> 7) & 3) << 6;
			return enc_s(0x23, 2, 2, rs2, off);
		}
		case 7: {
			unsigned off = ((h >> 10) & 7) << 3 | ((h >> 7) & 7) << 6;
			return enc_s(0x23, 3, 2, rs2, off);
		}
		}
	}
	return 0;
}

/* What objdump prints for bytes that hold no instruction it knows. */
static bool unknown(cs_rv_insn *in)
{
	uint32_t raw = in->raw;
	uint8_t len = in->len;
	memset(in, 0, sizeof(*in));
	in->raw = raw;
	in->len = len;
	if (len == 2 && raw == 0)
		set(in, "unimp", "%s", ""); /* the defined illegal instruction (c.unimp) */
	else if (len)
		set(in, len == 2 ? ".2byte" : ".4byte", "0x%x", raw);
	return false;
}

bool cs_rv_decode_isa(const uint8_t *bytes, size_t len, uint64_t pc, bool compressed, cs_rv_insn *in)
{
	memset(in, 0, sizeof(*in));
	if (len < 2)
		return false;
	uint16_t h = (uint16_t)(bytes[0] | bytes[1] << 8);
	if ((h & 3) != 3) {
		in->len = 2;
		in->raw = h;
		if (!compressed) {
			set(in, ".2byte", "0x%x", h);
			return false;
		}
		uint32_t w = expand16(h);
		bool ok = w && decode32(w, pc, in);
		in->len = 2;
		in->raw = h;
		return ok || unknown(in);
	}
	in->len = 4;
	if (len < 4) {
		in->len = 0;
		return false;
	}
	uint32_t w = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
		     (uint32_t)bytes[3] << 24;
	in->raw = w;
	if (w == 0xc0001073) { /* csrw cycle,zero */
		set(in, "unimp", "%s", "");
		return true;
	}
	if ((w & 0x1c) == 0x1c)
		return unknown(in); /* 48-bit and longer encodings */
	return decode32(w, pc, in) || unknown(in);
}

bool cs_rv_decode(const uint8_t *bytes, size_t len, uint64_t pc, cs_rv_insn *in)
{
	return cs_rv_decode_isa(bytes, len, pc, true, in);
}

bool cs_rv_decode_in(const cs_gsp_image *img, const uint8_t *bytes, size_t len, uint64_t pc, cs_rv_insn *in)
{
	uint64_t end;
	cs_gsp_bytes kind = cs_gsp_image_bytes_at(img, pc, &end);
	if (kind != CS_GSP_BYTES_DATA)
		return cs_rv_decode_isa(bytes, len, pc, kind == CS_GSP_BYTES_CODE, in);
	/* objdump's data: four bytes at a time, fewer at the end of the stretch */
	memset(in, 0, sizeof(*in));
	uint64_t left = end - pc < len ? end - pc : len;
	if (left >= 4) {
		in->len = 4;
		in->raw = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
		set(in, ".word", "0x%08x", in->raw);
	} else if (left >= 2) {
		in->len = 2;
		in->raw = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8;
		set(in, ".short", "0x%04x", in->raw);
	} else if (left == 1) {
		in->len = 1;
		in->raw = bytes[0];
		set(in, ".byte", "0x%02x", in->raw);
	}
	return false;
}

void cs_rv_format(const cs_rv_insn *in, char *buf, size_t len)
{
	if (in->operands[0])
		snprintf(buf, len, "%s\t%s", in->mnemonic, in->operands);
	else
		snprintf(buf, len, "%s", in->mnemonic);
}

/* SPDX-License-Identifier: MIT */
/* The privileged architecture as firmware uses it (issue 11): traps from U-
 * and S-mode, delegation, ecall causes, mtval/stval, firmware ebreaks, CSRs
 * read from the debugger while the hart is in U-mode. */
#include <string.h>

#include "gsp_test_util.h"

#define PRIV_FW "priv.elf"

typedef struct trap_record {
	unsigned level; /* 1 S handler, 3 M handler */
	uint64_t cause, epc, tval, status;
} trap_record;

static trap_record record(gsp_fx *fx, unsigned i)
{
	uint64_t log = gsp_sym(fx, "trap_log") + 32 * (uint64_t)i;
	uint64_t head = gsp_read64(fx, log);
	return (trap_record){ (unsigned)(head >> 32), head & 0xFFFFFFFFu, gsp_read64(fx, log + 8),
			      gsp_read64(fx, log + 16), gsp_read64(fx, log + 24) };
}

#define MPP(st) (((st) >> 11) & 3)
#define SPP(st) (((st) >> 8) & 1)

static void expect(gsp_fx *fx, unsigned i, unsigned level, uint64_t cause, uint64_t epc, uint64_t tval)
{
	trap_record r = record(fx, i);
	cr_assert_eq(r.level, level, "trap %u: handled at level %u, want %u", i, r.level, level);
	cr_assert_eq(r.cause, cause, "trap %u: cause %lu, want %lu", i, (unsigned long)r.cause, (unsigned long)cause);
	cr_assert_eq(r.epc, epc, "trap %u: epc 0x%lx, want 0x%lx", i, (unsigned long)r.epc, (unsigned long)epc);
	cr_assert_eq(r.tval, tval, "trap %u: tval 0x%lx, want 0x%lx", i, (unsigned long)r.tval, (unsigned long)tval);
}

Test(gsp_priv, u_and_s_traps_follow_the_privileged_spec)
{
	gsp_fx fx;
	gsp_fx_open(&fx, PRIV_FW);
	cs_gsp_stop st;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_continue(fx.m, 100000, &st, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(st.reason, CS_GSP_STOP_IDLE, "reason %d: %s", st.reason, st.detail);
	cr_assert_eq(gsp_read64(&fx, gsp_sym(&fx, "trap_count")), 11);
	uint64_t amo = gsp_sym(&fx, "u_misaligned_amo");
	/* U-mode, nothing delegated: M sees every trap with MPP = U */
	expect(&fx, 0, 3, 8, gsp_sym(&fx, "u_ecall"), 0);
	cr_assert_eq(MPP(record(&fx, 0).status), 0, "MPP = U");
	expect(&fx, 1, 3, 6, amo, gsp_sym(&fx, "scratch") + 1);
	expect(&fx, 2, 3, 2, gsp_sym(&fx, "u_illegal"), 0x340022f3); /* csrr t0,mscratch */
	expect(&fx, 3, 3, 3, gsp_sym(&fx, "u_ebreak"), gsp_sym(&fx, "u_ebreak"));
	expect(&fx, 4, 3, 3, gsp_sym(&fx, "u_cebreak"), gsp_sym(&fx, "u_cebreak"));
	expect(&fx, 5, 3, 8, gsp_sym(&fx, "u_cebreak") + 4, 0);
	/* S-mode ecall is cause 9 with MPP = S */
	expect(&fx, 6, 3, 9, gsp_sym(&fx, "s_ecall"), 0);
	cr_assert_eq(MPP(record(&fx, 6).status), 1, "MPP = S");
	/* delegated U traps reach S with SPP = U; sret went back to U */
	expect(&fx, 7, 1, 8, gsp_sym(&fx, "u_ecall_delegated"), 0);
	cr_assert_eq(SPP(record(&fx, 7).status), 0, "SPP = U");
	expect(&fx, 8, 1, 2, gsp_sym(&fx, "u_illegal_delegated"), 0xffffffff);
	expect(&fx, 9, 1, 8, gsp_sym(&fx, "u_illegal_delegated") + 6, 0);
	/* the S handler's own ecall: cause 9 to M */
	trap_record last = record(&fx, 10);
	cr_assert_eq(last.level, 3);
	cr_assert_eq(last.cause, 9);
	cr_assert_eq(MPP(last.status), 1);
	uint64_t mcause = 0;
	cs_gsp_reg_read(fx.m, CS_GSP_REG_CSR0 + 0x342, &mcause, NULL);
	cr_assert_eq(mcause, 9);
	gsp_fx_close(&fx);
}

Test(gsp_priv, csrs_read_and_write_correctly_in_u_mode)
{
	gsp_fx fx;
	gsp_fx_open(&fx, PRIV_FW);
	cs_gsp_stop st;
	int id;
	cr_assert_eq(cs_gsp_break_add(fx.m, gsp_sym(&fx, "u_ecall"), false, &id, NULL), CS_OK);
	cr_assert_eq(cs_gsp_continue(fx.m, 100000, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_BREAK);
	uint64_t mtvec = 0, stvec = 0, mstatus = 0, mscratch = 0;
	for (int round = 0; round < 3; round++) {
		cr_assert_eq(cs_gsp_reg_read(fx.m, CS_GSP_REG_CSR0 + 0x305, &mtvec, NULL), CS_OK);
		cr_assert_eq(mtvec, gsp_sym(&fx, "m_trap"), "mtvec read in U-mode: 0x%lx", (unsigned long)mtvec);
		cs_gsp_reg_read(fx.m, CS_GSP_REG_CSR0 + 0x105, &stvec, NULL);
		cr_assert_eq(stvec, gsp_sym(&fx, "s_trap"));
		cs_gsp_reg_read(fx.m, CS_GSP_REG_CSR0 + 0x300, &mstatus, NULL);
		cr_assert_eq(MPP(mstatus), 0, "mret cleared MPP");
	}
	cr_assert_eq(cs_gsp_reg_write(fx.m, CS_GSP_REG_CSR0 + 0x340, 0x5151, NULL), CS_OK);
	cs_gsp_reg_read(fx.m, CS_GSP_REG_CSR0 + 0x340, &mscratch, NULL);
	cr_assert_eq(mscratch, 0x5151, "a CSR write from the debugger in U-mode is not dropped");
	char *o = gsp_cmd(&fx, "info registers mtvec", CS_OK);
	cr_assert(strstr(o, "mtvec    0x00000000800000"), "%s", o);
	g_free(o);
	/* reading CSRs left the hart in U: the ecall is still cause 8 */
	cr_assert_eq(cs_gsp_stepi(fx.m, 1, &st, NULL), CS_OK);
	cr_assert_eq(cs_gsp_pc(fx.m), gsp_sym(&fx, "m_trap"), "stepping the ecall enters the M handler");
	uint64_t mcause = 0, mepc = 0;
	cs_gsp_reg_read(fx.m, CS_GSP_REG_CSR0 + 0x342, &mcause, NULL);
	cs_gsp_reg_read(fx.m, CS_GSP_REG_CSR0 + 0x341, &mepc, NULL);
	cr_assert_eq(mcause, 8);
	cr_assert_eq(mepc, gsp_sym(&fx, "u_ecall"));
	gsp_fx_close(&fx);
}

Test(gsp_priv, firmware_ebreak_is_delivered_unless_the_user_breaks_on_it)
{
	gsp_fx fx;
	gsp_fx_open(&fx, PRIV_FW);
	cs_gsp_stop st;
	int id;
	uint64_t ebreak = gsp_sym(&fx, "u_ebreak");
	/* the user's breakpoint on the ebreak stops there, before it runs */
	cr_assert_eq(cs_gsp_break_add(fx.m, ebreak, false, &id, NULL), CS_OK);
	cr_assert_eq(cs_gsp_continue(fx.m, 100000, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_BREAK);
	cr_assert_eq(st.pc, ebreak);
	/* continuing from it delivers the ebreak to the firmware: its M handler runs */
	cr_assert_eq(cs_gsp_stepi(fx.m, 1, &st, NULL), CS_OK);
	cr_assert_eq(cs_gsp_pc(fx.m), gsp_sym(&fx, "m_trap"));
	uint64_t mcause = 0;
	cs_gsp_reg_read(fx.m, CS_GSP_REG_CSR0 + 0x342, &mcause, NULL);
	cr_assert_eq(mcause, 3);
	/* without a breakpoint every later ebreak goes to the firmware: no stop at all */
	cs_gsp_point_delete_all(fx.m);
	cr_assert_eq(cs_gsp_continue(fx.m, 100000, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_IDLE, "reason %d: %s", st.reason, st.detail);
	cr_assert_eq(gsp_read64(&fx, gsp_sym(&fx, "trap_count")), 11);
	gsp_fx_close(&fx);
}

Test(gsp_priv, page_fault_delegated_to_s_with_stval)
{
	/* fault.S page_fault: Sv39 on, a load from an unmapped page in S-mode */
	gsp_fx fx;
	gsp_fx_open(&fx, "fault.elf");
	cr_assert_eq(cs_gsp_reg_write(fx.m, CS_GSP_REG_PC, gsp_sym(&fx, "page_fault"), NULL), CS_OK);
	cs_gsp_stop st;
	cr_assert_eq(cs_gsp_continue(fx.m, 1000, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_IDLE, "reason %d: %s", st.reason, st.detail);
	uint64_t rec = gsp_sym(&fx, "pf_record");
	cr_assert_eq(gsp_read64(&fx, rec), 13, "load page fault");
	cr_assert_eq(gsp_read64(&fx, rec + 8), gsp_sym(&fx, "pf_load"), "sepc");
	cr_assert_eq(gsp_read64(&fx, rec + 16), 0x90000000, "stval is the faulting address: 0x%lx",
		     (unsigned long)gsp_read64(&fx, rec + 16));
	uint64_t priv = 0;
	cs_gsp_reg_read(fx.m, CS_GSP_REG_PRIV, &priv, NULL);
	cr_assert_eq(priv, 1, "the S handler runs in S");
	gsp_fx_close(&fx);
}

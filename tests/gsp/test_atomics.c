/* SPDX-License-Identifier: MIT */
/* Watchpoints on the targets of AMOs and LR/SC (issue 11): an atomic runs
 * once, writes its rd, keeps its reservation, and gdb sees the stop where
 * it expects it (before the access: RISC-V watchpoints are non-steppable). */
#include <string.h>

#include "gsp_test_util.h"

#define ATOMICS_FW "atomics.elf"

static uint64_t reg(gsp_fx *fx, const char *name)
{
	unsigned r;
	uint64_t v = 0;
	cr_assert(cs_gsp_reg_lookup(name, &r));
	cs_gsp_reg_read(fx->m, r, &v, NULL);
	return v;
}

static uint32_t word(gsp_fx *fx, const char *sym)
{
	uint32_t v = 0;
	cr_assert_eq(cs_gsp_mem_read(fx->m, gsp_sym(fx, sym), &v, 4, NULL), CS_OK);
	return v;
}

static void run_to_idle(gsp_fx *fx)
{
	cs_gsp_stop st;
	cr_assert_eq(cs_gsp_continue(fx->m, 10000, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_IDLE, "reason %d at 0x%lx: %s", st.reason, (unsigned long)st.pc, st.detail);
}

Test(gsp_atomics, write_watch_on_an_amo_runs_it_once)
{
	gsp_fx fx;
	gsp_fx_open(&fx, ATOMICS_FW);
	int id;
	cr_assert_eq(cs_gsp_watch_add(fx.m, gsp_sym(&fx, "amo_word"), 4, CS_GSP_WATCH_WRITE, &id, NULL), CS_OK);
	cs_gsp_stop st;
	cr_assert_eq(cs_gsp_continue(fx.m, 10000, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_WATCH);
	cr_assert_eq(st.access_pc, gsp_sym(&fx, "amo_add"));
	cr_assert_eq(st.old_value, 10);
	cr_assert_eq(st.value, 15);
	cr_assert_eq(cs_gsp_pc(fx.m), gsp_sym(&fx, "after_amo"));
	cr_assert_eq(word(&fx, "amo_word"), 15);
	cr_assert_eq(reg(&fx, "a2"), 10, "the AMO's rd holds the old value");
	run_to_idle(&fx);
	cr_assert_eq(word(&fx, "amo_word"), 15, "the AMO ran once");
	gsp_fx_close(&fx);
}

Test(gsp_atomics, write_watch_on_an_sc_writes_its_rd)
{
	gsp_fx fx;
	gsp_fx_open(&fx, ATOMICS_FW);
	int id;
	cr_assert_eq(cs_gsp_watch_add(fx.m, gsp_sym(&fx, "lr_word"), 4, CS_GSP_WATCH_WRITE, &id, NULL), CS_OK);
	unsigned t1;
	cr_assert(cs_gsp_reg_lookup("t1", &t1));
	cs_gsp_reg_write(fx.m, t1, 7, NULL); /* the sc.w must overwrite it */
	cs_gsp_stop st;
	cr_assert_eq(cs_gsp_continue(fx.m, 10000, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_WATCH);
	cr_assert_eq(st.access_pc, gsp_sym(&fx, "sc_insn"));
	cr_assert_eq(st.value, 101);
	cr_assert_eq(cs_gsp_pc(fx.m), gsp_sym(&fx, "after_sc"));
	cr_assert_eq(reg(&fx, "t1"), 0, "the sc.w succeeded and wrote 0 to rd");
	run_to_idle(&fx);
	cr_assert_eq(word(&fx, "lr_word"), 101, "one increment");
	gsp_fx_close(&fx);
}

Test(gsp_atomics, read_and_access_watches_on_lr_sc_let_the_loop_finish, .timeout = 30)
{
	const cs_gsp_watch_kind kinds[2] = { CS_GSP_WATCH_READ, CS_GSP_WATCH_ACCESS };
	for (int k = 0; k < 2; k++) {
		gsp_fx fx;
		gsp_fx_open(&fx, ATOMICS_FW);
		int id;
		cr_assert_eq(cs_gsp_watch_add(fx.m, gsp_sym(&fx, "lr_word"), 4, kinds[k], &id, NULL), CS_OK);
		cs_gsp_stop st;
		cr_assert_eq(cs_gsp_continue(fx.m, 10000, &st, NULL), CS_OK);
		cr_assert_eq(st.reason, CS_GSP_STOP_WATCH);
		cr_assert_eq(st.access_pc, gsp_sym(&fx, "lr_loop"), "the lr.w reads");
		cr_assert_not(st.is_write);
		cr_assert_eq(st.value, 100);
		if (kinds[k] == CS_GSP_WATCH_ACCESS) {
			cr_assert_eq(cs_gsp_continue(fx.m, 10000, &st, NULL), CS_OK);
			cr_assert_eq(st.reason, CS_GSP_STOP_WATCH);
			cr_assert_eq(st.access_pc, gsp_sym(&fx, "sc_insn"), "the sc.w writes");
			cr_assert(st.is_write);
			cr_assert_eq(reg(&fx, "t1"), 0);
		}
		run_to_idle(&fx);
		cr_assert_eq(word(&fx, "lr_word"), 101, "the loop ended after one increment");
		gsp_fx_close(&fx);
	}
}

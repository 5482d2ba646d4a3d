/* SPDX-License-Identifier: MIT */
/* The judge's rules, one by one, from hand-built record sequences: no front
 * end, engine or executor involved, so each rule is tested alone. */
#include <criterion/criterion.h>
#include <string.h>

#include "chainsim/report.h"
#include "chainsim/scenario.h"

typedef struct seq {
	cs_event ev[64];
	size_t n;
} seq;

static cs_event *add(seq *s, cs_event_kind k, cs_stage st, cs_unit u)
{
	cr_assert(s->n < 64);
	cs_event *e = &s->ev[s->n];
	*e = cs_event_make(k, st, u, 0);
	e->seq = s->n;
	s->n++;
	return e;
}

/* Guest build, submit, forward and the fetch of one entry of 20 dwords. */
static void prelude(seq *s)
{
	cs_event *e = add(s, CS_EV_GUEST_BUILD, CS_STAGE_GUEST_BUILD, CS_UNIT_GUEST);
	e->addr = 0x200000000;
	e->value = 20;
	e = add(s, CS_EV_GUEST_BUILD, CS_STAGE_GUEST_BUILD, CS_UNIT_GUEST);
	e->addr = 0x200001000;
	e->value = 384;
	e->aux = 4;
	e = add(s, CS_EV_GP_PUT, CS_STAGE_GUEST_SUBMIT, CS_UNIT_GUEST);
	e->value = 1;
	e->aux = 0;
	add(s, CS_EV_DOORBELL, CS_STAGE_GUEST_SUBMIT, CS_UNIT_GUEST);
	e = add(s, CS_EV_HOST_FORWARD, CS_STAGE_HOST_FORWARD, CS_UNIT_HOST);
	e->value = 1;
	e->aux = CS_HOST_FORWARD_RING;
	e->detail = "identity (no rewrite)";
	e = add(s, CS_EV_GP_FETCH, CS_STAGE_FE_FETCH, CS_UNIT_FE);
	e->gp_entry = 0;
	e->addr = 0x200000000;
	e->value = 20;
}

static void entry_done(seq *s, uint64_t methods)
{
	cs_event *e = add(s, CS_EV_ENTRY_DONE, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->value = methods;
}

static cs_event *launch_rec(seq *s, cs_event_kind k, cs_stage st, uint32_t launch)
{
	cs_event *e = add(s, k, st, st == CS_STAGE_QMD_INSTALL ? CS_UNIT_COMPUTE : CS_UNIT_COMPUTE);
	e->launch = launch;
	e->gp_entry = 0;
	e->method_index = 5;
	return e;
}

/* Stages 6-9 of launch id through a grid that ran. */
static void launch_ran(seq *s, uint32_t id, uint64_t qmd)
{
	cs_event *e = launch_rec(s, CS_EV_QMD_INSTALL, CS_STAGE_QMD_INSTALL, id);
	e->addr = qmd;
	e->value = 384;
	e->aux = 1;
	e = launch_rec(s, CS_EV_QMD_SCHEDULE, CS_STAGE_QMD_INSTALL, id);
	e->value = 3;
	e = launch_rec(s, CS_EV_QMD_READ, CS_STAGE_QMD_READ, id);
	e->addr = qmd;
	e->value = 4;
	e = launch_rec(s, CS_EV_CTX_LOAD, CS_STAGE_CTX_LOAD, id);
	e->detail = "compute CBC0 bound";
	e = launch_rec(s, CS_EV_DISPATCH, CS_STAGE_GR_DISPATCH, id);
	e->addr = 0x200002000;
	e->value = 4;
	e = launch_rec(s, CS_EV_GRID_DONE, CS_STAGE_GR_DISPATCH, id);
	e->value = 4;
	e->detail = "vadd";
}

static void release(seq *s, uint32_t id, uint64_t addr, uint64_t v)
{
	cs_event *e = launch_rec(s, CS_EV_SEM_RELEASE, CS_STAGE_ENGINE_RELEASE, id);
	e->addr = addr;
	e->value = v;
	e->aux = 4;
}

static void wait_ok(seq *s, uint64_t addr, uint64_t v)
{
	cs_event *e = add(s, CS_EV_WAIT_BEGIN, CS_STAGE_GUEST_WAKE, CS_UNIT_GUEST);
	e->addr = addr;
	e->value = v;
	e = add(s, CS_EV_WAIT_DONE, CS_STAGE_GUEST_WAKE, CS_UNIT_HOST);
	e->addr = addr;
	e->value = v;
}

static void wait_fail(seq *s, uint64_t addr, uint64_t want, uint64_t seen)
{
	cs_event *e = add(s, CS_EV_WAIT_BEGIN, CS_STAGE_GUEST_WAKE, CS_UNIT_GUEST);
	e->addr = addr;
	e->value = want;
	e = add(s, CS_EV_WAIT_FAILED, CS_STAGE_GUEST_WAKE, CS_UNIT_HOST);
	e->addr = addr;
	e->value = seen;
	e->aux = want;
	e->detail = "the device went idle first";
}

static cs_report *judge(const seq *s, cs_arch arch, bool no_exec)
{
	cs_report_input in = { .arch = arch, .events = s->ev, .nevents = s->n,
			       .no_executor = no_exec };
	cs_report *r = cs_report_judge(&in);
	cr_assert_not_null(r);
	return r;
}

static void expect_break(const cs_report *r, cs_stage st, const char *cause, const char *phrase)
{
	cr_expect_eq(r->overall.first_break, st, "break at %d (%s: %s), wanted %d",
		     r->overall.first_break, cs_cause_key(r->overall.cause), r->overall.diagnosis, st);
	cr_expect_str_eq(cs_cause_key(r->overall.cause), cause, "cause %s (%s)", cs_cause_key(r->overall.cause),
			 r->overall.diagnosis);
	if (phrase)
		cr_expect(strstr(r->overall.diagnosis, phrase) != NULL,
			  "diagnosis lacks '%s': %s", phrase, r->overall.diagnosis);
	for (int i = 1; i < (int)st; i++)
		cr_expect_neq(r->overall.rows[i].status, CS_STAGE_NOT_FIRED, "stage %d not fired", i);
}

/* The prelude, its entry done after 3 methods, and launch 0 (QMD at
 * 0x200001000) through a grid that ran. */
static void one_launch_ran(seq *s)
{
	prelude(s);
	entry_done(s, 3);
	launch_ran(s, 0, 0x200001000);
}

/* s judged on Hopper with an executor breaks as expect_break says. */
static void judged_break(const seq *s, cs_stage st, const char *cause, const char *phrase)
{
	cs_report *r = judge(s, CS_ARCH_HOPPER, false);
	expect_break(r, st, cause, phrase);
	cs_report_free(r);
}

Test(judge, complete_chain)
{
	seq s = { 0 };
	prelude(&s);
	entry_done(&s, 9);
	launch_ran(&s, 0, 0x200001000);
	release(&s, 0, 0x200003000, 1);
	wait_ok(&s, 0x200003000, 1);
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	cr_expect_eq(r->overall.first_break, CS_STAGE_NONE, "%s: %s", cs_cause_key(r->overall.cause),
		     r->overall.diagnosis);
	for (int i = 1; i <= CS_STAGE_COUNT; i++)
		cr_expect_eq(r->overall.rows[i].status, CS_STAGE_FIRED, "stage %d", i);
	cr_expect_eq(r->nlaunches, 1);
	cr_expect_eq(r->launches[0].first_break, CS_STAGE_NONE);
	cr_expect_eq(r->overall.rows[10].author, CS_AUTHOR_ENGINE);
	cr_expect(strstr(r->overall.rows[4].evidence, "entry 0: 0x200000000, 20 dwords"),
		  "%s", r->overall.rows[4].evidence);
	cr_expect(strstr(r->overall.rows[2].evidence, "GP_PUT 0 -> 1"));
	uint64_t v;
	cr_expect(cs_report_counter(r, "ctas", &v) && v == 4);
	cr_expect(cs_report_counter(r, "methods", &v) && v == 9);
	cr_expect(cs_report_counter(r, "launches", &v) && v == 1);
	cr_expect_str_eq(cs_report_result(r, NULL), "complete");
	cs_report_free(r);
}

Test(judge, silence_is_not_health)
{
	seq s = { 0 };
	prelude(&s);
	s.n--; /* no fetch: forwarded, then nothing */
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_FE_FETCH, "not-fetched", "fetched no GPFIFO entry");
	for (int i = 6; i <= 10; i++)
		cr_expect_eq(r->overall.rows[i].status, CS_STAGE_NOT_FIRED, "stage %d", i);
	cs_report_free(r);
}

/* Drop record i (to build a variant of the prelude). */
static void drop(seq *s, size_t i)
{
	memmove(&s->ev[i], &s->ev[i + 1], (s->n - i - 1) * sizeof(cs_event));
	s->n--;
}

Test(judge, no_launch_is_na)
{
	seq s = { 0 };
	prelude(&s);
	drop(&s, 1); /* no QMD built */
	entry_done(&s, 4);
	cs_event *e = add(&s, CS_EV_SEM_RELEASE, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->addr = 0x200003000;
	e->value = 7;
	wait_ok(&s, 0x200003000, 7);
	cs_report *r = judge(&s, CS_ARCH_AMPERE, false);
	for (int i = 6; i <= 9; i++)
		cr_expect_eq(r->overall.rows[i].status, CS_STAGE_NA, "stage %d", i);
	/* the channel semaphore is stage 10's release when nothing was launched */
	cr_expect_eq(r->overall.rows[10].status, CS_STAGE_FIRED);
	cr_expect_eq(r->overall.rows[10].author, CS_AUTHOR_FRONT_END);
	cr_expect_eq(r->overall.first_break, CS_STAGE_NONE, "%s", r->overall.diagnosis);
	cr_expect_not(r->has_launch);
	cs_report_free(r);
}

Test(judge, pb_unmapped)
{
	seq s = { 0 };
	prelude(&s);
	s.ev[s.n - 1].addr = 0x7d0000000;
	cs_event *e = add(&s, CS_EV_FAULT, CS_STAGE_FE_FETCH, CS_UNIT_FE);
	e->gp_entry = 0;
	e->addr = 0x7d0000000;
	e->value = CS_ACCESS_FETCH;
	e = add(&s, CS_EV_CHANNEL_STOP, CS_STAGE_FE_FETCH, CS_UNIT_FE);
	e->gp_entry = 0;
	e->detail = "the pushbuffer 0x7d0000000 (20 dwords) is not mapped at 0x7d0000000";
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_FE_FETCH, "pb-unmapped", "pushbuffer 0x7d0000000 (20 dwords)");
	cr_expect(strstr(r->overall.diagnosis, "entry 0"));
	cr_expect_eq(r->nfaults, 1);
	cs_report_free(r);
}

Test(judge, no_object)
{
	seq s = { 0 };
	prelude(&s);
	cs_event *e = add(&s, CS_EV_CHANNEL_STOP, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->method_index = 2;
	e->subch = 1;
	e->cls = 0;
	e->method = 0x2b4;
	e->detail = "method 0x02b4 on subchannel 1, which has no object bound";
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_FE_EXEC, "no-object", "subchannel 1, which has no object bound");
	cr_expect(strstr(r->overall.diagnosis, "method 2 of entry 0"), "%s", r->overall.diagnosis);
	cs_report_free(r);
}

Test(judge, pb_malformed)
{
	seq s = { 0 };
	prelude(&s);
	cs_event *e = add(&s, CS_EV_CHANNEL_STOP, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->method_index = 2;
	e->addr = 0x200000010;
	e->detail = "malformed pushbuffer header 0x00010001";
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_FE_EXEC, "pb-malformed", "malformed at 0x200000010 (after 2 methods)");
	cr_expect(strstr(r->overall.rows[5].evidence, "malformed header"), "%s",
		  r->overall.rows[5].evidence);
	cs_report_free(r);
}

Test(judge, bad_class)
{
	seq s = { 0 };
	prelude(&s);
	cs_event *e = add(&s, CS_EV_CHANNEL_STOP, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->method_index = 0;
	e->subch = 1;
	e->cls = 0xC56F;
	e->method = 0;
	e->value = 0xCBC0; /* Hopper compute on an Ampere channel */
	e->detail = "SET_OBJECT on subchannel 1: class CBC0 belongs to another generation";
	cs_report *r = judge(&s, CS_ARCH_AMPERE, false);
	expect_break(r, CS_STAGE_FE_EXEC, "bad-class", "0xCBC0");
	cr_expect(strstr(r->overall.diagnosis, "not valid for ampere"), "%s", r->overall.diagnosis);
	cs_report_free(r);
}

Test(judge, inline_qmd_incomplete)
{
	seq s = { 0 };
	prelude(&s);
	entry_done(&s, 40);
	cs_event *e = add(&s, CS_EV_INLINE_QMD_SHORT, CS_STAGE_QMD_INSTALL, CS_UNIT_FE);
	e->addr = 0x200001000;
	e->value = 40;
	e->aux = 96;
	e->gp_entry = 0;
	e->method_index = 1;
	judged_break(&s, CS_STAGE_QMD_INSTALL, "inline-qmd-incomplete", "got 40 of its 96 dwords");
}

Test(judge, qmd_addr_unmapped)
{
	seq s = { 0 };
	prelude(&s);
	cs_event *e = launch_rec(&s, CS_EV_FAULT, CS_STAGE_QMD_INSTALL, CS_NONE32);
	e->addr = 0x7d0000000;
	e->value = CS_ACCESS_WRITE;
	e->detail = "the inline QMD install of 384 bytes to 0x7d0000000 faulted";
	e = add(&s, CS_EV_CHANNEL_STOP, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->method_index = 5;
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_QMD_INSTALL, "qmd-addr-unmapped", "0x7d0000000 is not mapped");
	cr_expect_eq(r->overall.rows[5].status, CS_STAGE_FIRED);
	cs_report_free(r);
}

Test(judge, qmd_addr_unset)
{
	seq s = { 0 };
	prelude(&s);
	cs_event *e = add(&s, CS_EV_CHANNEL_STOP, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE);
	e->gp_entry = 0;
	e->method_index = 1;
	e->cls = 0xCBC0;
	e->method = 0x2c0;
	e->detail = "SEND_SIGNALING_PCAS2_B schedules a QMD, but SEND_PCAS_A never named one";
	e->cause = CS_CAUSE_QMD_ADDR_UNMAPPED;
	e = add(&s, CS_EV_CHANNEL_STOP, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->method_index = 1;
	judged_break(&s, CS_STAGE_QMD_INSTALL, "qmd-addr-unmapped", "QMD address is unset");
}

Test(judge, no_schedule)
{
	seq s = { 0 };
	prelude(&s);
	cs_event *e = launch_rec(&s, CS_EV_QMD_INSTALL, CS_STAGE_QMD_INSTALL, CS_NONE32);
	e->addr = 0x200001000;
	e->value = 384;
	e->aux = 1;
	entry_done(&s, 3);
	wait_fail(&s, 0x200003000, 1, 0);
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_QMD_READ, "no-schedule", "never scheduled");
	cr_expect(strstr(r->overall.diagnosis, "0x200001000"));
	cr_expect_eq(r->nlaunches, 0); /* never numbered */
	uint64_t launches = 99;
	cr_expect(cs_report_counter(r, "launches", &launches));
	cr_expect_eq(launches, r->nlaunches, "the header's count and the counter agree");
	cs_report_free(r);
}

Test(judge, qmd_rejected_names_field)
{
	seq s = { 0 };
	prelude(&s);
	entry_done(&s, 3);
	cs_event *e = launch_rec(&s, CS_EV_QMD_INSTALL, CS_STAGE_QMD_INSTALL, 0);
	e->addr = 0x200001000;
	e->value = 384;
	e = launch_rec(&s, CS_EV_QMD_REJECT, CS_STAGE_QMD_READ, 0);
	e->addr = 0x200001000;
	e->detail = "block dim 0 = 0 (must be 1..1024)";
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_QMD_READ, "qmd-rejected", "block dim 0 = 0");
	cr_expect_eq(r->nlaunches, 1);
	cr_expect_eq(r->launches[0].first_break, CS_STAGE_QMD_READ);
	cs_report_free(r);
}

Test(judge, program_unmapped_rejection_is_code_unmapped)
{
	seq s = { 0 };
	prelude(&s);
	entry_done(&s, 3);
	cs_event *e = launch_rec(&s, CS_EV_QMD_INSTALL, CS_STAGE_QMD_INSTALL, 0);
	e->addr = 0x200001000;
	e = launch_rec(&s, CS_EV_QMD_REJECT, CS_STAGE_QMD_READ, 0);
	e->detail = "program address 0x7f0000000 is not mapped";
	e->cause = CS_CAUSE_CODE_UNMAPPED;
	judged_break(&s, CS_STAGE_QMD_READ, "code-unmapped", "program address 0x7f0000000");
}

Test(judge, ctx_invalid)
{
	seq s = { 0 };
	one_launch_ran(&s);
	/* Turn the context load into a refusal, and drop what followed it. */
	for (size_t i = 0; i < s.n; i++)
		if (s.ev[i].kind == CS_EV_CTX_LOAD) {
			s.ev[i].kind = CS_EV_CTX_BAD;
			s.ev[i].detail = "local memory window unset";
			s.n = i + 1;
		}
	judged_break(&s, CS_STAGE_CTX_LOAD, "ctx-invalid", "local memory window unset");
}

static void grid_not_run(seq *s, cs_cause cause, const char *why)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ev[i].kind == CS_EV_GRID_DONE) {
			s->ev[i].kind = CS_EV_GRID_NOT_RUN;
			s->ev[i].cause = cause;
			s->ev[i].detail = why;
		}
}

Test(judge, code_unknown_is_not_execution)
{
	seq s = { 0 };
	one_launch_ran(&s);
	grid_not_run(&s, CS_CAUSE_CODE_UNKNOWN,
		     "dispatched, not executed: the 16 bytes at 0x200002000 match no loaded kernel");
	release(&s, 0, 0x200003000, 1); /* even a release does not make it run */
	wait_ok(&s, 0x200003000, 1);
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_GR_DISPATCH, "code-unknown", "match no loaded kernel");
	cr_expect(strstr(r->overall.diagnosis, "not a kernel that ran"));
	cs_report_free(r);
}

Test(judge, no_executor)
{
	seq s = { 0 };
	one_launch_ran(&s);
	grid_not_run(&s, CS_CAUSE_NO_EXECUTOR, "no executor wired");
	cs_report *r = judge(&s, CS_ARCH_HOPPER, true);
	expect_break(r, CS_STAGE_GR_DISPATCH, "no-executor", "execution is unproven");
	cr_expect_eq(r->overall.rows[8].status, CS_STAGE_FIRED);
	cs_report_free(r);
}

Test(judge, code_unmapped)
{
	seq s = { 0 };
	one_launch_ran(&s);
	s.n--; /* no grid outcome: a fault instead */
	cs_event *e = launch_rec(&s, CS_EV_FAULT, CS_STAGE_GR_DISPATCH, 0);
	e->unit = CS_UNIT_SM;
	e->addr = 0x200002000;
	e->value = CS_ACCESS_FETCH;
	judged_break(&s, CS_STAGE_GR_DISPATCH, "code-unmapped", "program 0x200002000");
}

Test(judge, release_fault)
{
	seq s = { 0 };
	prelude(&s);
	launch_ran(&s, 0, 0x200001000);
	cs_event *e = launch_rec(&s, CS_EV_FAULT, CS_STAGE_ENGINE_RELEASE, 0);
	e->addr = 0x7e0000000;
	e->value = CS_ACCESS_WRITE;
	e->detail = "QMD release 0: the 4-byte semaphore write to 0x7e0000000 faulted";
	e = add(&s, CS_EV_CHANNEL_STOP, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->method_index = 5;
	judged_break(&s, CS_STAGE_ENGINE_RELEASE, "release-fault", "0x7e0000000 faulted");
}

Test(judge, release_disabled)
{
	seq s = { 0 };
	one_launch_ran(&s);
	wait_fail(&s, 0x200003000, 1, 0);
	judged_break(&s, CS_STAGE_ENGINE_RELEASE, "release-disabled", "wrote no release");
}

/* A host release after the grid: without RELEASE_WFI the front end may write
 * it before the grid completes, so it proves nothing. */
Test(judge, host_release_without_wfi_does_not_prove_execution)
{
	seq s = { 0 };
	one_launch_ran(&s);
	cs_event *e = add(&s, CS_EV_SEM_RELEASE, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->addr = 0x200003000;
	e->value = 1;
	e->aux = 4;
	wait_ok(&s, 0x200003000, 1);
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_ENGINE_RELEASE, "release-unordered", "without RELEASE_WFI");
	cr_expect_eq(r->overall.rows[11].status, CS_STAGE_FIRED);
	cs_report_free(r);
}

/* With RELEASE_WFI the front end waits for idle first: the release is ordered
 * after the grid and proves its completion (tinygrad signals this way). */
Test(judge, host_release_after_wfi_proves_completion)
{
	seq s = { 0 };
	one_launch_ran(&s);
	cs_event *e = add(&s, CS_EV_SEM_RELEASE, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->addr = 0x200003000;
	e->value = 1;
	e->aux = 4 | CS_SEM_RELEASE_AFTER_WFI;
	wait_ok(&s, 0x200003000, 1);
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	cr_expect_eq(r->overall.first_break, CS_STAGE_NONE, "%s: %s", cs_cause_key(r->overall.cause),
		     r->overall.diagnosis);
	cr_expect_eq(r->overall.rows[10].status, CS_STAGE_FIRED);
	cr_expect_eq(r->overall.rows[10].author, CS_AUTHOR_HOST);
	cr_expect(strstr(r->overall.rows[10].evidence, "RELEASE_WFI"), "%s",
		  r->overall.rows[10].evidence);
	cs_report_free(r);
}

/* A launch whose QMD scheduled a dependent QMD on completion: the engine acted
 * on its completion, which proves it, with no release of its own. */
Test(judge, dependent_qmd_proves_its_parent_completed)
{
	seq s = { 0 };
	one_launch_ran(&s);
	cs_event *e = launch_rec(&s, CS_EV_DEPENDENT_QMD, CS_STAGE_QMD_INSTALL, 0);
	e->addr = 0x200001200;
	e->aux = 2;
	launch_ran(&s, 1, 0x200001200);
	release(&s, 1, 0x200003000, 1);
	wait_ok(&s, 0x200003000, 1);
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	cr_expect_eq(r->overall.first_break, CS_STAGE_NONE, "%s: %s", cs_cause_key(r->overall.cause),
		     r->overall.diagnosis);
	cr_assert_eq(r->nlaunches, 2);
	cr_expect_eq(r->launches[0].rows[10].status, CS_STAGE_FIRED);
	cr_expect(strstr(r->launches[0].rows[10].evidence, "dependent QMD 0x200001200"), "%s",
		  r->launches[0].rows[10].evidence);
	cs_report_free(r);
}

/* Code the executor cannot run is a limit of the simulator: stage 9 (and the
 * release that depends on it) is not observable, and nothing is the guest's
 * break. */
Test(judge, unsupported_code_is_not_observable)
{
	seq s = { 0 };
	one_launch_ran(&s);
	grid_not_run(&s, CS_CAUSE_CODE_UNSUPPORTED,
		     "kernel mm has no PTX the executor can run: line 40: 'mma.sync' is not supported");
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	cr_expect_eq(r->overall.rows[9].status, CS_STAGE_NOT_OBSERVABLE);
	cr_expect_eq(r->overall.rows[10].status, CS_STAGE_NOT_OBSERVABLE);
	cr_expect_neq(r->overall.first_break, CS_STAGE_GR_DISPATCH);
	cs_report_free(r);
}

Test(judge, wait_unmet_names_the_release)
{
	seq s = { 0 };
	one_launch_ran(&s);
	release(&s, 0, 0x200003000, 1);
	wait_fail(&s, 0x200004000, 1, 0);
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_GUEST_WAKE, "wait-unmet", "a value nobody writes");
	cr_expect(strstr(r->overall.diagnosis, "0x200003000"), "%s", r->overall.diagnosis);
	cs_report_free(r);
}

Test(judge, no_wait)
{
	seq s = { 0 };
	one_launch_ran(&s);
	release(&s, 0, 0x200003000, 1);
	judged_break(&s, CS_STAGE_GUEST_WAKE, "no-wait", "never waits");
}

Test(judge, deadlock)
{
	seq s = { 0 };
	prelude(&s);
	cs_event *e = add(&s, CS_EV_SEM_BLOCK, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->method_index = 4;
	e->addr = 0x200005000;
	e->value = 2;
	e->aux = 0;
	wait_fail(&s, 0x200003000, 1, 0);
	e = add(&s, CS_EV_DEADLOCK, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->method_index = 4;
	e->addr = 0x200005000;
	e->value = 2;
	e->aux = 0;
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_FE_EXEC, "deadlock", "[0x200005000] == 2 (current value 0)");
	cr_expect(strstr(r->overall.diagnosis, "channel ch0"), "%s", r->overall.diagnosis);
	cs_report_free(r);
}

Test(judge, earlier_fault_names_method_and_entry)
{
	seq s = { 0 };
	prelude(&s);
	cs_event *e = add(&s, CS_EV_FAULT, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE);
	e->gp_entry = 0;
	e->method_index = 3;
	e->addr = 0x7d0000000;
	e->value = CS_ACCESS_WRITE;
	e->detail = "the inline-to-memory write of 8 bytes to 0x7d0000000 faulted";
	e = add(&s, CS_EV_CHANNEL_STOP, CS_STAGE_FE_EXEC, CS_UNIT_FE);
	e->gp_entry = 0;
	e->method_index = 3;
	e->cls = 0xCBC0;
	e->method = 0x1b0;
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	expect_break(r, CS_STAGE_FE_EXEC, "earlier-fault", "method 3 of entry 0");
	cr_expect(strstr(r->overall.diagnosis, "LAUNCH_DMA"), "%s", r->overall.diagnosis);
	cr_expect(strstr(r->overall.diagnosis, "the channel stopped"));
	cs_report_free(r);
}

Test(judge, per_launch_chains)
{
	seq s = { 0 };
	prelude(&s);
	entry_done(&s, 6);
	launch_ran(&s, 0, 0x200001000);
	release(&s, 0, 0x200003000, 1);
	cs_event *e = launch_rec(&s, CS_EV_QMD_INSTALL, CS_STAGE_QMD_INSTALL, 1);
	e->addr = 0x200001200;
	e = launch_rec(&s, CS_EV_QMD_REJECT, CS_STAGE_QMD_READ, 1);
	e->detail = "grid width = 0";
	wait_ok(&s, 0x200003000, 1);
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	cr_assert_eq(r->nlaunches, 2);
	cr_expect_eq(r->launches[0].launch, 0);
	cr_expect_eq(r->launches[0].first_break, CS_STAGE_NONE, "%s", r->launches[0].diagnosis);
	cr_expect_eq(r->launches[1].launch, 1);
	cr_expect_eq(r->launches[1].first_break, CS_STAGE_QMD_READ);
	expect_break(r, CS_STAGE_QMD_READ, "qmd-rejected", "grid width = 0");
	cs_report_free(r);
}

Test(judge, assumptions_listed_once)
{
	seq s = { 0 };
	prelude(&s);
	for (int i = 0; i < 3; i++) {
		cs_event *e = add(&s, CS_EV_ASSUMPTION, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE);
		e->detail = i == 1 ? "other" : "inline path: scheduled at the last dword";
	}
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	cr_assert_eq(r->nassumptions, 2);
	cr_expect_str_eq(r->assumptions[0], "inline path: scheduled at the last dword");
	cr_expect_str_eq(r->assumptions[1], "other");
	cs_report_free(r);
}

Test(judge, exit_status_follows_expectations)
{
	seq s = { 0 };
	prelude(&s);
	entry_done(&s, 9);
	launch_ran(&s, 0, 0x200001000);
	release(&s, 0, 0x200003000, 1);
	wait_ok(&s, 0x200003000, 1);
	cs_report *r = judge(&s, CS_ARCH_HOPPER, false);
	cs_report_expect ex[2] = { { 3, "expect break 5", false, "no break" },
				   { 4, "expect stage 9 fired", true, "" } };
	cs_report_meta meta = { .file = "x.chain", .expects = ex, .nexpects = 2 };
	cr_expect_str_eq(cs_report_result(r, &meta), "complete", "the chain's own verdict");
	cr_expect_eq(cs_report_exit_status(r, &meta), 1, "an expectation failed");
	meta.nexpects = 1;
	ex[0].held = true;
	cr_expect_eq(cs_report_exit_status(r, &meta), 0);
	meta.nexpects = 0;
	cr_expect_eq(cs_report_exit_status(r, &meta), 0, "complete, no expectations");
	meta.error = true;
	cr_expect_str_eq(cs_report_result(r, &meta), "error");
	cr_expect_eq(cs_report_exit_status(r, &meta), 2);
	cs_report_free(r);
}

/* Any record sequence, however unlikely, is judged without a crash, and the
 * break is always the first not-fired row (run under ASan in CI). */
Test(judge, random_sequences_are_judged_consistently)
{
	uint64_t state = 0x1234;
	for (int round = 0; round < 2000; round++) {
		seq s = { 0 };
		size_t n = 1 + (size_t)(cs_scenario_rand_next(&state) % 60);
		for (size_t i = 0; i < n; i++) {
			uint64_t r = cs_scenario_rand_next(&state);
			cs_event *e = add(&s, (cs_event_kind)(1 + r % (CS_EV_KIND_COUNT - 1)),
					  (cs_stage)((r >> 8) % 12), (cs_unit)((r >> 12) % CS_UNIT_COUNT));
			e->launch = (r >> 16) & 1 ? (uint32_t)((r >> 17) % 4) : CS_NONE32;
			e->gp_entry = (r >> 20) & 1 ? (uint32_t)((r >> 21) % 3) : CS_NONE32;
			e->method_index = (r >> 24) & 1 ? (uint32_t)((r >> 25) % 9) : CS_NONE32;
			e->method = (r >> 30) & 1 ? (uint32_t)(((r >> 31) % 0x800) * 4) : CS_NONE32;
			e->cls = (r >> 42) & 1 ? 0xCBC0 : CS_NONE32;
			e->subch = (uint32_t)((r >> 43) % 8);
			e->addr = (r >> 46) & 1 ? 0x200000000 : 0;
			e->value = (r >> 47) % 5;
			e->aux = (r >> 50) % 5;
			e->detail = (r >> 53) & 1 ? "detail text" : NULL;
		}
		cs_report *r = judge(&s, (cs_arch)(round % CS_ARCH_COUNT), round & 1);
		cs_stage first = CS_STAGE_NONE;
		for (int st = 1; st <= CS_STAGE_COUNT && !first; st++)
			if (r->overall.rows[st].status == CS_STAGE_NOT_FIRED)
				first = (cs_stage)st;
		cr_assert_eq(r->overall.first_break, first, "round %d", round);
		cr_assert(first == CS_STAGE_NONE || cs_cause_key(r->overall.cause), "round %d: no cause", round);
		for (size_t k = 0; k < r->nlaunches; k++)
			cr_assert_neq(r->launches[k].launch, CS_NONE32);
		cs_report_free(r);
	}
}

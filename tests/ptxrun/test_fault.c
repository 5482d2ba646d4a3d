/* SPDX-License-Identifier: MIT */
/* Faults name the CTA, thread, PTX line and address; the trace gets a fault
 * record; nothing past the fault runs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *fault_ptx =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k(.param .u64 o, .param .u64 bad)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [o];\n\tld.param.u64 %rd2, [bad];\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n"
	"\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
	"\tst.global.u32 [%rd4], 1;\n"
	"\tsetp.eq.u32 %p1, %r1, 5;\n\tsetp.eq.u32 %p2, %r2, 1;\n\tand.pred %p3, %p1, %p2;\n"
	"\t@%p3 mov.b64 %rd4, %rd2;\n"
	"\tst.global.u32 [%rd4+8], 2;\n" /* line 20 */
	"\tret;\n}\n";

Test(fault, unmapped_store_names_cta_thread_line_address)
{
	cs_diag d;
	cs_ptx_program *p = h_parse(fault_ptx, &d);
	cr_assert(p);
	h_env e;
	h_init(&e);
	uint64_t vo = h_alloc(&e, 4096);
	uint64_t args[] = { vo, 0xdead0000ull };
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 3, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
				 args, 2);
	cr_assert_eq(r.outcome, CS_GRID_FAULT, "%d %s", r.outcome, r.diag.msg);
	cr_expect_eq(r.fault_va, 0xdead0008ull);
	cr_expect_eq(r.diag.status, CS_ERR_FAULT);
	cr_expect_eq(r.diag.line, 20);
	cr_expect(strstr(r.diag.msg, "CTA (1,0,0)"), "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "thread (5,0,0)"), "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "line 20"), "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "0xdead0008"), "%s", r.diag.msg);
	cr_expect_eq(r.ctas_executed, 1);
	/* the trace: CTAs [0,1) ran, then the fault */
	cr_assert_eq(e.tb.trace.n, 2);
	cr_expect_eq(e.tb.trace.recs[0].ev.kind, CS_EV_CTA_RANGE);
	cr_expect_eq(e.tb.trace.recs[0].ev.aux, 1);
	cr_expect_eq(e.tb.trace.recs[1].ev.kind, CS_EV_FAULT);
	cr_expect_eq(e.tb.trace.recs[1].ev.addr, 0xdead0008ull);
	cr_expect_eq(e.tb.trace.recs[1].ev.value, CS_ACCESS_WRITE);
	cr_expect_eq(e.tb.trace.recs[1].ev.unit, CS_UNIT_SM);
	cr_expect_eq(e.tb.trace.recs[1].ev.launch, 7);
	/* lanes 0..4 of the faulting warp stored before lane 5 faulted; CTA 2 never ran */
	uint32_t out[1024];
	h_read(&e, vo, out, sizeof(out));
	cr_expect_eq(out[2], 2);
	h_fini(&e);
	cs_ptx_program_free(p);
}

static cs_grid_result run_body_expect_fault(const char *decls, const char *body)
{
	uint32_t out[64];
	return h_run_body(decls, body, 32, NULL, 0, out, sizeof(out));
}

Test(fault, misaligned_and_out_of_bounds)
{
	cs_grid_result r = run_body_expect_fault("", "\tld.global.u32 %r3, [%rd4+2];\n");
	cr_assert_eq(r.outcome, CS_GRID_FAULT);
	cr_expect(strstr(r.diag.msg, "misaligned"), "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "thread (0,0,0)"), "%s", r.diag.msg);
	r = run_body_expect_fault(".shared .align 4 .b8 s[64];",
				  "\tmov.u32 %r3, s;\n\tld.shared.u32 %r4, [%r3+64];\n");
	cr_assert_eq(r.outcome, CS_GRID_FAULT);
	cr_expect(strstr(r.diag.msg, "shared"), "%s", r.diag.msg);
	/* a read fault records a read; the address of the first unmapped byte */
	r = run_body_expect_fault("", "\tmov.u64 %rd9, 0x500000000;\n\tld.global.v4.u32 {%r3,%r4,%r5,%r6}, [%rd9];\n");
	cr_assert_eq(r.outcome, CS_GRID_FAULT);
	cr_expect_eq(r.fault_va, 0x500000000ull);
	cr_expect(strstr(r.diag.msg, "0x500000000"), "%s", r.diag.msg);
	/* trap is the kernel stopping itself: an error naming it, not a fetch fault */
	r = run_body_expect_fault("", "\ttrap;\n");
	cr_assert_eq(r.outcome, CS_GRID_ERROR, "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "the kernel executed trap"), "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "PTX line"), "%s", r.diag.msg);
}

Test(fault, bad_launches_are_errors)
{
	cs_diag d;
	cs_ptx_program *p = h_parse(fault_ptx, &d);
	cr_assert(p);
	h_env e;
	h_init(&e);
	cs_ptx_launch l;
	memset(&l, 0, sizeof(l));
	l.grid[0] = l.grid[1] = l.grid[2] = 1;
	l.block[0] = 2048;
	l.block[1] = l.block[2] = 1;
	cs_grid_result r;
	cs_ptx_run(p, 0, &l, &e.tb.bus, &r);
	cr_expect_eq(r.outcome, CS_GRID_ERROR);
	l.block[0] = 32;
	cs_ptx_run(p, 0, &l, &e.tb.bus, &r); /* no params for a kernel that takes 16 bytes */
	cr_expect_eq(r.outcome, CS_GRID_ERROR);
	cr_expect(strstr(r.diag.msg, "parameter"), "%s", r.diag.msg);
	cs_ptx_run(p, 5, &l, &e.tb.bus, &r);
	cr_expect_eq(r.outcome, CS_GRID_ERROR);
	uint8_t params[16] = { 0 };
	l.params = params;
	l.param_bytes = sizeof(params);
	l.dynamic_shared_bytes = 64u << 20; /* beyond the model's limit */
	cs_ptx_run(p, 0, &l, &e.tb.bus, &r);
	cr_expect_eq(r.outcome, CS_GRID_ERROR);
	cr_expect(strstr(r.diag.msg, "shared memory"), "%s", r.diag.msg);
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(fault, huge_register_file_is_an_error)
{
	const char *src = ".version 9.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry k()\n{\n\t.reg .b32 %r<1000000>;\n\tret;\n}\n";
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	cr_assert(p, "%s", d.msg);
	h_env e;
	h_init(&e);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 1024, 1, 1 }, 0,
				 NULL, 0);
	cr_expect_eq(r.outcome, CS_GRID_ERROR);
	cr_expect(strstr(r.diag.msg, "register file"), "%s", r.diag.msg);
	h_fini(&e);
	cs_ptx_program_free(p);
}

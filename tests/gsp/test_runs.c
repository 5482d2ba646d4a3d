/* SPDX-License-Identifier: MIT */
/* How runs end (issue 11): faults at the faulting instruction, wfi, trap
 * storms and no-retire loops under the wall-clock guard, and batch mode's
 * exit status, on fixtures/firmware/fault.S. */
#include <string.h>
#include <time.h>

#include "cli.h"
#include "gsp_test_util.h"

#define FAULT_FW "fault.elf"

static void start_at(gsp_fx *fx, const char *entry)
{
	gsp_fx_open(fx, FAULT_FW);
	cr_assert_eq(cs_gsp_reg_write(fx->m, CS_GSP_REG_PC, gsp_sym(fx, entry), NULL), CS_OK);
}

static uint64_t reg(gsp_fx *fx, const char *name)
{
	unsigned r;
	uint64_t v = 0;
	cr_assert(cs_gsp_reg_lookup(name, &r));
	cs_gsp_reg_read(fx->m, r, &v, NULL);
	return v;
}

static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

Test(gsp_runs, fault_is_reported_at_the_faulting_instruction)
{
	const struct {
		const char *entry, *insn, *detail;
	} cases[] = {
		{ "store_to_rom", "faulting_store", "store of 4 bytes at 0x1000" },
		{ "load_unmapped", "faulting_load", "load of 8 bytes at 0x40000000" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gsp_fx fx;
		start_at(&fx, cases[i].entry);
		cs_gsp_stop st;
		cr_assert_eq(cs_gsp_continue(fx.m, 0, &st, NULL), CS_OK);
		cr_assert_eq(st.reason, CS_GSP_STOP_FAULT, "%s: reason %d", cases[i].entry, st.reason);
		cr_assert_eq(st.pc, gsp_sym(&fx, cases[i].insn), "%s: stop at 0x%lx", cases[i].entry, (unsigned long)st.pc);
		cr_assert_eq(cs_gsp_pc(fx.m), st.pc, "the machine is left at the faulting instruction");
		cr_assert(strstr(st.detail, cases[i].detail), "%s", st.detail);
		cr_assert_eq(reg(&fx, "t1"), 1, "the instruction before the fault ran");
		cr_assert_eq(reg(&fx, "t2"), 0, "the instructions after the fault did not");
		char desc[512];
		cs_gsp_stop_describe(fx.m, &st, desc, sizeof(desc));
		cr_assert(strstr(desc, cases[i].insn), "%s", desc);
		gsp_fx_close(&fx);
	}
}

Test(gsp_runs, wfi_with_an_enabled_interrupt_pending_falls_through)
{
	gsp_fx fx;
	start_at(&fx, "wfi_pending");
	cs_gsp_stop st;
	cr_assert_eq(cs_gsp_continue(fx.m, 1000, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_IDLE, "reason %d: %s", st.reason, st.detail);
	cr_assert_eq(reg(&fx, "t1"), 0x77, "the code after the first wfi ran");
	/* the idle stop names the wfi that waits, not the instruction after it */
	char desc[512];
	cs_gsp_stop_describe(fx.m, &st, desc, sizeof(desc));
	char *want = g_strdup_printf("idle: wfi at 0x%lx <wfi_idle_at>", (unsigned long)gsp_sym(&fx, "wfi_idle_at"));
	cr_assert(strstr(desc, want), "%s", desc);
	g_free(want);
	gsp_fx_close(&fx);
}

Test(gsp_runs, trap_storms_and_no_retire_loops_end, .timeout = 60)
{
	/* every ecall handled, forever: the guard covers the whole run, not one trap */
	gsp_fx fx;
	start_at(&fx, "ecall_storm");
	cs_gsp_set_guard_ms(fx.m, 300);
	cs_gsp_stop st;
	double t0 = seconds();
	cr_assert_eq(cs_gsp_continue(fx.m, 0, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_GUARD, "reason %d: %s", st.reason, st.detail);
	cr_assert_lt(seconds() - t0, 5.0, "the 300 ms guard ended the storm");
	gsp_fx_close(&fx);
	/* the trap vector itself traps: nothing retires, with or without a budget */
	for (int budgeted = 0; budgeted < 2; budgeted++) {
		start_at(&fx, "dead_vector");
		cs_gsp_set_guard_ms(fx.m, 20000);
		t0 = seconds();
		cr_assert_eq(cs_gsp_continue(fx.m, budgeted ? 100000000 : 0, &st, NULL), CS_OK);
		cr_assert_eq(st.reason, CS_GSP_STOP_FAULT, "reason %d: %s", st.reason, st.detail);
		cr_assert(strstr(st.detail, "trap storm: 1000 traps in a row with no instruction retired"), "%s", st.detail);
		cr_assert_eq(st.pc, gsp_sym(&fx, "illegal_word"));
		cr_assert_lt(seconds() - t0, 5.0);
		gsp_fx_close(&fx);
	}
}

/* gsp-cli FAULT_FW --map gsp-fixture.map ARGS, run in the test's own folder. */
static test_cli_out cli(const char *const *args)
{
	char *elf = gsp_fixture(FAULT_FW), *map = gsp_fixture("gsp-fixture.map");
	GPtrArray *argv = g_ptr_array_new();
	g_ptr_array_add(argv, elf);
	g_ptr_array_add(argv, "--map");
	g_ptr_array_add(argv, map);
	for (size_t i = 0; args[i]; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, NULL);
	static const test_cli_opts gsp_cli = { .program = "tests/gsp/gsp-cli" };
	test_cli_out r = test_cli_run_opts(NULL, &gsp_cli, NULL, (const char *const *)argv->pdata);
	g_ptr_array_free(argv, TRUE);
	g_free(elf);
	g_free(map);
	return r;
}

Test(gsp_runs, batch_exits_1_when_a_run_ends_in_a_fault_guard_or_budget, .timeout = 60)
{
	const struct {
		const char *args[8];
		const char *stderr_has;
	} cases[] = {
		{ { "-ex", "continue", NULL }, "-ex:1:1: the run stopped: fault at 0x8000000c <faulting_store>" },
		{ { "-ex", "set $pc = ecall_storm", "-ex", "continue 100", NULL },
		  "-ex:2:1: the run stopped: instruction budget exhausted" },
		{ { "--guard-ms", "200", "-ex", "set $pc = ecall_storm", "-ex", "continue", NULL },
		  "-ex:2:1: the run stopped: still running at" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		test_cli_out r = cli(cases[i].args);
		cr_assert_eq(r.status, 1, "case %zu: exit %d\n%s\n%s", i, r.status, r.out, r.err);
		cr_assert(strstr(r.err, cases[i].stderr_has), "case %zu: %s", i, r.err);
		test_cli_free(&r);
	}
	/* a run that ends idle is a good run */
	const char *idle[] = { "-ex", "set $pc = wfi_idle", "-ex", "continue 100", NULL };
	test_cli_out r = cli(idle);
	cr_assert_eq(r.status, 0, "%s", r.err);
	test_cli_free(&r);
}

static long peak_rss_kib(void)
{
	gchar *status = NULL;
	cr_assert(g_file_get_contents("/proc/self/status", &status, NULL, NULL));
	const char *hwm = strstr(status, "VmHWM:");
	long kib = hwm ? strtol(hwm + 6, NULL, 10) : -1;
	g_free(status);
	return kib;
}

Test(gsp_runs, first_breakpoint_watchpoint_and_step_are_cheap, .timeout = 60)
{
	/* Unicorn 2.0.1's full translation flush clears its 1 GiB code buffer */
	gsp_fx fx;
	gsp_fx_open(&fx, "gsp-fixture.elf");
	cs_gsp_stop st;
	cr_assert_eq(cs_gsp_continue(fx.m, 0, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_IDLE);
	long before = peak_rss_kib();
	double t0 = seconds();
	int id;
	/* the second instruction: a call does not stop where it starts */
	cr_assert_eq(cs_gsp_break_add(fx.m, gsp_sym(&fx, "busy_loop") + 2, false, &id, NULL), CS_OK);
	uint64_t args[1] = { 5 }, ret;
	cr_assert_eq(cs_gsp_call(fx.m, gsp_sym(&fx, "busy_loop"), args, 1, 0, &ret, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_BREAK);
	double first_break_ms = (seconds() - t0) * 1000;
	cr_assert_eq(cs_gsp_stepi(fx.m, 3, &st, NULL), CS_OK);
	cr_assert_eq(cs_gsp_watch_add(fx.m, 0x90000000, 4, CS_GSP_WATCH_WRITE, &id, NULL), CS_OK);
	cr_assert_eq(cs_gsp_continue(fx.m, 1000, &st, NULL), CS_OK);
	cr_assert_eq(cs_gsp_continue(fx.m, 0, &st, NULL), CS_OK);
	long grown = peak_rss_kib() - before;
	cr_assert_lt(grown, 64 * 1024, "the first breakpoint, step and watchpoint grew the peak RSS by %ld KiB", grown);
	cr_assert_lt(first_break_ms, 500.0, "first breakpoint: %.1f ms", first_break_ms);
	gsp_fx_close(&fx);
}

Test(gsp_runs, mmio_log_logs_unmodelled_accesses_that_read_as_zero)
{
	gsp_fx fx;
	start_at(&fx, "unmodelled");
	cs_gsp_stop st;
	/* without the log an unmapped load is a fault */
	cr_assert_eq(cs_gsp_continue(fx.m, 100, &st, NULL), CS_OK);
	cr_assert_eq(st.reason, CS_GSP_STOP_FAULT);
	cr_assert_eq(st.pc, gsp_sym(&fx, "unmodelled_load"));
	gsp_fx_close(&fx);

	start_at(&fx, "unmodelled");
	char *log = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&log, &len);
	cs_gsp_unmodelled_log(fx.m, out);
	cr_assert_eq(cs_gsp_continue(fx.m, 100, &st, NULL), CS_OK);
	fclose(out);
	cr_assert_eq(st.reason, CS_GSP_STOP_IDLE, "reason %d: %s", st.reason, st.detail);
	char *want[4];
	want[0] = g_strdup_printf("unmodelled read 0x20000024 size 4 = 0x0 by 0x%lx <unmodelled_load>\n",
				  (unsigned long)gsp_sym(&fx, "unmodelled_load"));
	want[1] = g_strdup_printf("unmodelled write 0x20000028 size 4 = 0x5a by 0x%lx <unmodelled_store>\n",
				  (unsigned long)gsp_sym(&fx, "unmodelled_store"));
	want[2] = g_strdup_printf("unmodelled csr 0x7c0 read = 0x0 by 0x%lx <unmodelled_csr_read>\n",
				  (unsigned long)gsp_sym(&fx, "unmodelled_csr_read"));
	want[3] = g_strdup_printf("unmodelled csr 0x7c1 write 0x5a by 0x%lx <unmodelled_csr_write>\n",
				  (unsigned long)gsp_sym(&fx, "unmodelled_csr_write"));
	for (int i = 0; i < 4; i++) {
		cr_assert(strstr(log, want[i]), "missing '%s' in:\n%s", want[i], log);
		g_free(want[i]);
	}
	cr_assert_eq(reg(&fx, "a2"), 0, "the unmodelled load read zero");
	cr_assert_eq(reg(&fx, "a5"), 0, "the unmodelled CSR read zero");
	free(log);
	gsp_fx_close(&fx);
}

Test(gsp_runs, firmware_container_loads_its_fwimage)
{
	char *container = gsp_fixture("fault-container.bin");
	cs_gsp_image *img = NULL, *elf = NULL;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_image_load(container, 0x80000000, &img, &d), CS_OK, "%s", d.msg);
	char *elf_path = gsp_fixture(FAULT_FW);
	cr_assert_eq(cs_gsp_image_load(elf_path, 0, &elf, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(img->nseg, 1);
	cr_assert_eq(img->seg[0].addr, 0x80000000);
	cr_assert_eq(img->entry, 0x80000000);
	cr_assert_geq(img->seg[0].filesz, elf->seg[0].filesz);
	cr_assert_eq(memcmp(img->seg[0].data, elf->seg[0].data, elf->seg[0].filesz), 0, "the .fwimage bytes");
	/* a relocatable ELF without .fwimage, and a cut one: located errors */
	gchar *bytes = NULL;
	gsize len = 0;
	cr_assert(g_file_get_contents(container, &bytes, &len, NULL));
	gchar *name = memmem(bytes, len, ".fwimage", 8);
	cr_assert(name);
	name[1] = 'x';
	cs_gsp_image *bad = NULL;
	cr_assert_eq(cs_gsp_image_from_container((uint8_t *)bytes, len, "c.bin", 0, &bad, &d), CS_ERR_INPUT);
	cr_assert(strstr(d.msg, "without a .fwimage section"), "%s", d.msg);
	cr_assert(d.has_offset);
	cr_assert_eq(cs_gsp_image_from_container((uint8_t *)bytes, 100, "c.bin", 0, &bad, &d), CS_ERR_INPUT);
	cr_assert(strstr(d.msg, "do not fit"), "%s", d.msg);
	g_free(bytes);
	cs_gsp_image_free(img);
	cs_gsp_image_free(elf);
	g_free(container);
	g_free(elf_path);
}

/* Stepped runs (stepi N, next N) are one run under the wall-clock guard, not
 * N unguarded runs: a large N ends when the guard does. */
Test(gsp_runs, stepped_runs_end_at_the_wall_clock_guard, .timeout = 60)
{
	for (int via_next = 0; via_next < 2; via_next++) {
		gsp_fx fx;
		gsp_fx_open(&fx, "gsp-fixture.elf");
		cr_assert_eq(cs_gsp_reg_write(fx.m, CS_GSP_REG_PC, gsp_sym(&fx, "busy_loop"), NULL), CS_OK);
		unsigned a0;
		cr_assert(cs_gsp_reg_lookup("a0", &a0));
		cr_assert_eq(cs_gsp_reg_write(fx.m, a0, UINT64_MAX / 2, NULL), CS_OK);
		unsigned sp;
		cr_assert(cs_gsp_reg_lookup("sp", &sp));
		cr_assert_eq(cs_gsp_reg_write(fx.m, sp, 0x800F0000, NULL), CS_OK);
		cs_gsp_set_guard_ms(fx.m, 300);
		double t0 = seconds();
		if (via_next) {
			char *out = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&out, &len);
			cs_gsp_dbg_set_batch(fx.m, false);
			cr_assert_eq(cs_gsp_dbg_exec(fx.m, "next 100000000000", f, NULL), CS_OK);
			fclose(f);
			cr_expect(strstr(out, "wall-clock guard of 300 ms after"), "%s", out);
			free(out);
		} else {
			cs_gsp_stop st;
			cr_assert_eq(cs_gsp_stepi(fx.m, UINT64_MAX / 4, &st, NULL), CS_OK);
			cr_expect_eq(st.reason, CS_GSP_STOP_GUARD, "reason %d", st.reason);
			cr_expect(strstr(st.detail, "wall-clock guard of 300 ms after"), "%s", st.detail);
		}
		cr_expect_lt(seconds() - t0, 5.0, "the guard ended the stepped run");
		gsp_fx_close(&fx);
	}
}

/* Snapshots are capped in count and in bytes, before any copy is made. */
Test(gsp_runs, snapshots_are_capped_in_count_and_bytes)
{
	gsp_fx fx;
	gsp_fx_open(&fx, "gsp-fixture.elf");
	cs_diag d;
	char name[16];
	for (unsigned i = 0; i < CS_GSP_SNAPSHOTS_MAX; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		cr_assert_eq(cs_gsp_snapshot_save(fx.m, name, &d), CS_OK, "%s", d.msg);
	}
	cs_diag_clear(&d);
	cr_expect_eq(cs_gsp_snapshot_save(fx.m, "one-more", &d), CS_ERR_INPUT);
	cr_expect(strstr(d.msg, "64 snapshots is the limit"), "%s", d.msg);
	cr_expect_eq(cs_gsp_snapshot_save(fx.m, "s5", &d), CS_OK, "replacing one is fine: %s", d.msg);
	gsp_fx_close(&fx);

	/* a map whose RAM alone is above the byte limit: refused before copying */
	const char *text = "[ram]\nbase=0x80000000\nsize=0x28000000\nkind=ram\n";
	cs_gsp_map map;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_map_parse(text, strlen(text), "big.map", &map, &d), CS_OK, "%s", d.msg);
	char *path = gsp_fixture("gsp-fixture.elf");
	cs_gsp_image *img;
	cr_assert_eq(cs_gsp_image_load(path, 0, &img, &d), CS_OK, "%s", d.msg);
	cs_gsp *m;
	cr_assert_eq(cs_gsp_create(&map, img, &m, &d), CS_OK, "%s", d.msg);
	cs_diag_clear(&d);
	cr_expect_eq(cs_gsp_snapshot_save(m, "big", &d), CS_ERR_INPUT);
	cr_expect(strstr(d.msg, "would pass the limit of 512 MiB"), "%s", d.msg);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
	g_free(path);
}

/* Each stop reason that names only where the hart stopped reads as its own
 * words before the address; some add the detail, always or when given. */
Test(gsp_runs, stops_at_a_pc_describe_themselves)
{
	gsp_fx fx;
	gsp_fx_open(&fx, "gsp-fixture.elf");
	uint64_t pc = gsp_sym(&fx, "busy_loop");
	static const struct {
		cs_gsp_stop_reason reason;
		const char *detail;
		const char *want;
	} stops[] = {
		{ CS_GSP_STOP_NONE, "", "at 0x%llx <busy_loop>" },
		{ CS_GSP_STOP_STEP, "", "0x%llx <busy_loop>" },
		{ CS_GSP_STOP_BUDGET, "", "instruction budget exhausted at 0x%llx <busy_loop>" },
		{ CS_GSP_STOP_EBREAK, "", "firmware ebreak at 0x%llx <busy_loop>" },
		{ CS_GSP_STOP_RETURNED, "", "returned to 0x%llx <busy_loop>" },
		{ CS_GSP_STOP_FAULT, "no trap vector", "fault at 0x%llx <busy_loop>: no trap vector" },
		{ CS_GSP_STOP_FAULT, "", "fault at 0x%llx <busy_loop>: " },
		{ CS_GSP_STOP_INTERRUPTED, "SIGINT", "interrupted at 0x%llx <busy_loop>: SIGINT" },
		{ CS_GSP_STOP_INTERRUPTED, "", "interrupted at 0x%llx <busy_loop>" },
		{ CS_GSP_STOP_REPLY, "", "reply arrived; firmware at 0x%llx <busy_loop>" },
		{ CS_GSP_STOP_GUARD, "guard 5 ms", "still running at 0x%llx <busy_loop>: guard 5 ms" },
		{ CS_GSP_STOP_SHUTDOWN, "SBI", "shut down at 0x%llx <busy_loop>: SBI" },
		{ CS_GSP_STOP_SHUTDOWN, "", "shut down at 0x%llx <busy_loop>: " },
	};
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		cs_gsp_stop st = { .reason = stops[i].reason, .pc = pc };
		snprintf(st.detail, sizeof(st.detail), "%s", stops[i].detail);
		char got[512], want[512];
		cs_gsp_stop_describe(fx.m, &st, got, sizeof(got));
		snprintf(want, sizeof(want), stops[i].want, (unsigned long long)pc);
		cr_expect_str_eq(got, want, "stop %zu", i);
	}
	gsp_fx_close(&fx);
}

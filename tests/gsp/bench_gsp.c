/* SPDX-License-Identifier: MIT */
/* Benchmarks: the fixture's busy loop on bare Unicorn and under the debugger
 * with 16 breakpoints and 4 watchpoints armed outside the loop; the
 * single-step rate against bare Unicorn stepping. One BENCH line per figure,
 * baselines measured in the same process. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unicorn/unicorn.h>

#include "chainsim/gsp.h"

#define PAD 0xFFFFFFFFFFFFE000ull

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

_Noreturn static void die(const char *what, const cs_diag *d)
{
	fprintf(stderr, "bench: %s: %s\n", what, d ? d->msg : "");
	exit(1);
}

/* Instructions one call of busy_loop(n) executes, counted by stepping. */
static uint64_t count_insns(cs_gsp *m, uint64_t fn, uint64_t n)
{
	uint64_t pc = cs_gsp_pc(m), ra = 0, sp = 0, a0 = 0;
	cs_gsp_reg_read(m, 1, &ra, NULL);
	cs_gsp_reg_read(m, 2, &sp, NULL);
	cs_gsp_reg_read(m, 10, &a0, NULL);
	cs_gsp_reg_write(m, 10, n, NULL);
	cs_gsp_reg_write(m, 2, 0x800F0000, NULL);
	cs_gsp_reg_write(m, 1, PAD, NULL);
	cs_gsp_reg_write(m, CS_GSP_REG_PC, fn, NULL);
	uint64_t steps = 0;
	cs_gsp_stop st;
	while (cs_gsp_pc(m) != PAD && steps < 100000000) {
		if (cs_gsp_stepi(m, 1, &st, NULL) != CS_OK || (st.reason != CS_GSP_STOP_STEP && st.reason != CS_GSP_STOP_RETURNED))
			die("step", NULL);
		steps++;
	}
	cs_gsp_reg_write(m, 1, ra, NULL);
	cs_gsp_reg_write(m, 2, sp, NULL);
	cs_gsp_reg_write(m, 10, a0, NULL);
	cs_gsp_reg_write(m, CS_GSP_REG_PC, pc, NULL);
	return steps;
}

static uc_engine *bare_open(const cs_gsp_image *img)
{
	uc_engine *uc;
	uc_open(UC_ARCH_RISCV, UC_MODE_RISCV64, &uc);
	uc_mem_map(uc, 0x80000000, 0x100000, UC_PROT_ALL);
	uc_mem_map(uc, PAD, 0x1000, UC_PROT_ALL);
	for (size_t i = 0; i < img->nseg; i++)
		uc_mem_write(uc, img->seg[i].addr, img->seg[i].data, img->seg[i].filesz);
	return uc;
}

static double bare_run(uc_engine *uc, uint64_t fn, uint64_t n, uint64_t *ret)
{
	double best = 1e30;
	for (int r = 0; r < 1; r++) {
		uint64_t sp = 0x800F0000, ra = PAD;
		uc_reg_write(uc, UC_RISCV_REG_SP, &sp);
		uc_reg_write(uc, UC_RISCV_REG_RA, &ra);
		uc_reg_write(uc, UC_RISCV_REG_A0, &n);
		double t0 = now();
		uc_err e = uc_emu_start(uc, fn, PAD, 0, 0);
		double t = now() - t0;
		if (e != UC_ERR_OK)
			die(uc_strerror(e), NULL);
		if (t < best)
			best = t;
		uc_reg_read(uc, UC_RISCV_REG_A0, ret);
	}
	return best;
}

static double bare_steps(const cs_gsp_image *img, uint64_t fn, uint64_t steps)
{
	uc_engine *uc;
	uc_open(UC_ARCH_RISCV, UC_MODE_RISCV64, &uc);
	uc_mem_map(uc, 0x80000000, 0x100000, UC_PROT_ALL);
	uc_mem_map(uc, PAD, 0x1000, UC_PROT_ALL);
	for (size_t i = 0; i < img->nseg; i++)
		uc_mem_write(uc, img->seg[i].addr, img->seg[i].data, img->seg[i].filesz);
	uint64_t sp = 0x800F0000, ra = PAD, n = UINT64_MAX / 2, pc = fn;
	uc_reg_write(uc, UC_RISCV_REG_SP, &sp);
	uc_reg_write(uc, UC_RISCV_REG_RA, &ra);
	uc_reg_write(uc, UC_RISCV_REG_A0, &n);
	double t0 = now();
	for (uint64_t i = 0; i < steps; i++) {
		uc_emu_start(uc, pc, PAD, 0, 1);
		uc_reg_read(uc, UC_RISCV_REG_PC, &pc);
	}
	double t = now() - t0;
	uc_close(uc);
	return t;
}

static double rss_mib(void)
{
	gchar *status = NULL;
	if (!g_file_get_contents("/proc/self/status", &status, NULL, NULL))
		return -1;
	const char *rss = strstr(status, "VmRSS:");
	double mib = rss ? (double)strtol(rss + 6, NULL, 10) / 1024.0 : -1;
	g_free(status);
	return mib;
}

/* From arming the first breakpoint of a session whose firmware has run (its
 * blocks are translated) to the stop there, and the process's resident set
 * after it: the first thing this process does, so the figure is one machine's. */
static void first_break(cs_gsp *m, uint64_t fn)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_stop st;
	if (cs_gsp_continue(m, 0, &st, &d) != CS_OK || st.reason != CS_GSP_STOP_IDLE)
		die("boot", &d);
	uint64_t args[1] = { 1000 }, ret;
	if (cs_gsp_call(m, fn, args, 1, 0, &ret, &st, &d) != CS_OK)
		die("warm-up call", &d);
	int id;
	double t0 = now();
	/* the loop's second instruction: a call does not stop where it starts */
	if (cs_gsp_break_add(m, fn + 2, false, &id, &d) != CS_OK ||
	    cs_gsp_call(m, fn, args, 1, 0, &ret, &st, &d) != CS_OK || st.reason != CS_GSP_STOP_BREAK)
		die("first breakpoint", &d);
	double ms = (now() - t0) * 1000;
	cs_gsp_point_delete(m, id, &d);
	printf("BENCH name=gsp.first_break value=%.2f unit=ms\n", ms);
	printf("BENCH name=gsp.rss_after_break value=%.1f unit=MiB\n", rss_mib());
}

int main(void)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	if (!root) {
		fprintf(stderr, "bench: CHAINSIM_SOURCE_ROOT is not set (run through meson test --benchmark)\n");
		return 1;
	}
	char *elf = g_build_filename(root, "fixtures", "firmware", "gsp-fixture.elf", NULL);
	char *mapf = g_build_filename(root, "fixtures", "firmware", "gsp-fixture.map", NULL);
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_map map;
	cs_gsp_image *img;
	cs_gsp *m;
	if (cs_gsp_map_load(mapf, &map, &d) || cs_gsp_image_load(elf, 0, &img, &d) || cs_gsp_create(&map, img, &m, &d))
		die("setup", &d);
	const cs_gsp_symbol *bl = cs_gsp_image_symbol(img, "busy_loop");
	if (!bl)
		die("no busy_loop", NULL);
	uint64_t fn = bl->addr;
	first_break(m, fn);
	/* instructions per iteration, from two stepped runs */
	uint64_t c10 = count_insns(m, fn, 10), c20 = count_insns(m, fn, 20);
	uint64_t per_iter = (c20 - c10) / 10, fixed = c10 - 10 * per_iter;
	uint64_t n = 60000000;
	uint64_t insns = fixed + n * per_iter;
	uc_engine *bare = bare_open(img);

	/* 16 breakpoints on other functions and 4 watchpoints on data the loop never touches */
	int armed = 0;
	for (size_t i = 0; i < img->nsym && armed < 16; i++) {
		const cs_gsp_symbol *s = &img->sym[i];
		if (!s->func || s->addr == fn)
			continue;
		if (cs_gsp_break_add(m, s->addr, false, NULL, &d) != CS_OK)
			die("break", &d);
		armed++;
	}
	for (uint64_t a = 0x90001000; armed < 16; a += 4) {
		cs_gsp_break_add(m, a, false, NULL, &d);
		armed++;
	}
	uint64_t watches[4] = { 0x90001010, 0x90001020, 0x90041010, 0x90041020 };
	for (int i = 0; i < 4; i++)
		if (cs_gsp_watch_add(m, watches[i], 4, CS_GSP_WATCH_ACCESS, NULL, &d) != CS_OK)
			die("watch", &d);
	/* interleaved repetitions, best of each: the machine may be shared */
	double t_armed = 1e30, t_bare = 1e30;
	for (int r = 0; r < 5; r++) {
		uint64_t args[1] = { n }, ret, bare_ret = 0;
		double tb = bare_run(bare, fn, n, &bare_ret);
		if (tb < t_bare)
			t_bare = tb;
		cs_gsp_stop st;
		double t0 = now();
		if (cs_gsp_call(m, fn, args, 1, 0, &ret, &st, &d) != CS_OK || st.reason != CS_GSP_STOP_RETURNED) {
			char desc[512];
			cs_gsp_stop_describe(m, &st, desc, sizeof(desc));
			fprintf(stderr, "bench: armed call stopped: %s\n", desc);
			die("armed call", &d);
		}
		double t = now() - t0;
		if (t < t_armed)
			t_armed = t;
		if (ret != bare_ret)
			die("the armed run computed a different result", NULL);
	}
	uc_close(bare);
	double mips_bare = (double)insns / t_bare / 1e6, mips_armed = (double)insns / t_armed / 1e6;
	printf("BENCH name=gsp.bare value=%.0f unit=MIPS baseline=gsp.bare ratio=1.00\n", mips_bare);
	printf("BENCH name=gsp.armed value=%.0f unit=MIPS baseline=gsp.bare ratio=%.2f\n", mips_armed,
	       mips_armed / mips_bare);

	/* single-stepping inside the loop on bare Unicorn, then through the debugger
	 * with the 16 + 4 points still armed, then with none */
	uint64_t steps = 1000000;
	double t_bare_step = bare_steps(img, fn, steps);
	double r_bare = (double)steps / t_bare_step;
	printf("BENCH name=gsp.bare_step value=%.0f unit=steps/s baseline=gsp.bare_step ratio=1.00\n", r_bare);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			cs_gsp_point_delete_all(m);
		cs_gsp_reg_write(m, 10, UINT64_MAX / 2, NULL);
		cs_gsp_reg_write(m, 2, 0x800F0000, NULL);
		cs_gsp_reg_write(m, 1, PAD, NULL);
		cs_gsp_reg_write(m, CS_GSP_REG_PC, fn, NULL);
		cs_gsp_stop st;
		double t0 = now();
		if (cs_gsp_stepi(m, steps, &st, &d) != CS_OK || st.reason != CS_GSP_STOP_STEP)
			die("step", &d);
		double r_step = (double)steps / (now() - t0);
		printf("BENCH name=%s value=%.0f unit=steps/s baseline=gsp.bare_step ratio=%.2f\n",
		       pass ? "gsp.step" : "gsp.step_armed", r_step, r_step / r_bare);
	}
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
	g_free(elf);
	g_free(mapf);
	return 0;
}

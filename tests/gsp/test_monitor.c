/* SPDX-License-Identifier: MIT */
/* The monitor model: SBI base and shutdown, and NVIDIA's vendor extension
 * as the GSP firmware uses it (partition registration and switches, windows,
 * every call in the --mmio-log stream). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/gsp.h"

static const char map_text[] = "[ram]\nbase=0x80000000\nsize=0x10000\nkind=ram\n";

typedef struct monitored {
	cs_gsp *m;
	cs_gsp_image *img;
	char *log;
	size_t log_len;
	FILE *log_file;
} monitored;

/* A machine in S-mode with the monitor on and the log in memory, running
 * the little-endian words `code` at 0x80000000. */
static void monitored_on(monitored *t, const uint32_t *code, size_t nwords)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_map map;
	cr_assert_eq(cs_gsp_map_parse(map_text, strlen(map_text), "test.map", &map, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(cs_gsp_image_from_raw((const uint8_t *)code, nwords * 4, 0x80000000, &t->img, &d), CS_OK, "%s",
		     d.msg);
	cr_assert_eq(cs_gsp_create(&map, t->img, &t->m, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(cs_gsp_reg_write(t->m, CS_GSP_REG_PRIV, 1, &d), CS_OK, "%s", d.msg);
	t->log_file = open_memstream(&t->log, &t->log_len);
	cs_gsp_unmodelled_log(t->m, t->log_file);
	cs_gsp_monitor_on(t->m);
}

static cs_gsp_stop run(monitored *t)
{
	cs_gsp_stop st;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_continue(t->m, 1000, &st, &d), CS_OK, "%s", d.msg);
	fflush(t->log_file);
	return st;
}

static uint64_t reg(monitored *t, const char *name)
{
	unsigned regno;
	uint64_t v = 0;
	cr_assert(cs_gsp_reg_lookup(name, &regno));
	cr_assert_eq(cs_gsp_reg_read(t->m, regno, &v, NULL), CS_OK);
	return v;
}

static void monitored_free(monitored *t)
{
	cs_gsp_destroy(t->m);
	cs_gsp_image_free(t->img);
	fclose(t->log_file);
	free(t->log);
}

/* Partition 0 registers partition 1 (FID 7) and itself, sets sscratch and
 * switches to 1 (FID 0) with a message; 1 sends back what it saw (its
 * sscratch, sp, the message, the caller's number) and switches to 0, which
 * is entered at its registered re-entry and reads its own sscratch back. */
Test(gsp_monitor, a_switch_enters_the_target_at_its_entry_with_the_message)
{
	static const uint32_t code[] = {
		0x090008b7, 0x1eb8889b, 0x00700813, 0x00100513, 0x00000597, 0x04458593, 0x00000073,
		0x00700813, 0x00000513, 0x00000597, 0x05c58593, 0x00000073, 0x000012b7, 0x2342829b,
		0x14029073, 0x00000813, 0x05500513, 0x06600593, 0x00100793, 0x00000073, 0x00100073,
		/* part1 (0x80000054): a1 = sscratch, a2 = sp, a3 = a0, a4 = a5, switch to 0 with 0x77 */
		0x140025f3, 0x00010613, 0x00050693, 0x00078713, 0x090008b7, 0x1eb8889b, 0x00000813,
		0x07700513, 0x00000793, 0x00000073, 0x00100073,
		/* reentry (0x80000080): t2 = sscratch; ebreak */
		0x140023f3, 0x00100073,
	};
	monitored t;
	monitored_on(&t, code, sizeof(code) / 4);
	cs_gsp_stop st = run(&t);
	cr_assert_eq(st.reason, CS_GSP_STOP_EBREAK, "stopped (%d): %s", st.reason, st.detail);
	cr_expect_eq(st.pc, 0x80000084, "pc 0x%lx", (unsigned long)st.pc);
	cr_expect_eq(reg(&t, "a0"), 0x77, "the message");
	cr_expect_eq(reg(&t, "a5"), 1, "the caller's number");
	cr_expect_eq(reg(&t, "a1"), 0, "partition 1 saw no sscratch of partition 0");
	cr_expect_eq(reg(&t, "a2"), 0, "partition 1 was entered with sp zero");
	cr_expect_eq(reg(&t, "a3"), 0x55, "partition 1 got the message");
	cr_expect_eq(reg(&t, "a4"), 0, "partition 1 saw the caller 0");
	cr_expect_eq(reg(&t, "t2"), 0x1234, "partition 0's sscratch came back");
	cr_expect_eq(reg(&t, "priv"), 1);
	cr_expect(strstr(t.log, "sbi 0x90001eb 7 0x1 0x80000054 0x0 0x0 0x0 0x0 -> 0 0x0\n"), "%s", t.log);
	cr_expect(strstr(t.log, "sbi 0x90001eb 0 0x55 0x66 0x0 0x0 0x0 0x1 -> 0 0x0\npartition switch 0 -> 1\n"), "%s",
		  t.log);
	cr_expect(strstr(t.log, "partition switch 1 -> 0\n"), "%s", t.log);
	monitored_free(&t);
}

/* A switch to a partition no FID 7 call registered stops the run. */
Test(gsp_monitor, a_switch_to_an_unregistered_partition_stops)
{
	/* li a7, 0x090001EB; li a6, 0; li a5, 3; ecall */
	static const uint32_t code[] = { 0x090008b7, 0x1eb8889b, 0x00000813, 0x00300793, 0x00000073 };
	monitored t;
	monitored_on(&t, code, 5);
	cs_gsp_stop st = run(&t);
	cr_assert_eq(st.reason, CS_GSP_STOP_FAULT, "stopped (%d): %s", st.reason, st.detail);
	cr_expect(strstr(st.detail, "partition switch to 3, which no FID 7 call registered"), "%s", st.detail);
	cr_expect(strstr(t.log, "-> -3 0x0\n"), "%s", t.log);
	monitored_free(&t);
}

/* SBI base: the spec version and a probe; an unknown function is
 * SBI_ERR_NOT_SUPPORTED; legacy shutdown stops the run. */
Test(gsp_monitor, base_extension_answers_and_shutdown_stops)
{
	/* li a7, 0x10; li a6, 0; ecall; mv s0, a1; li a6, 3; li a0, 8; ecall; mv s1, a1;
	 * li a7, 0x090001EB; li a6, 5; ecall; mv s2, a0; li a7, 8; ecall */
	static const uint32_t code[] = { 0x01000893, 0x00000813, 0x00000073, 0x00058413, 0x00300813, 0x00800513,
					 0x00000073, 0x00058493, 0x090008b7, 0x1eb8889b, 0x00500813, 0x00000073,
					 0x00050913, 0x00800893, 0x00000073 };
	monitored t;
	monitored_on(&t, code, sizeof(code) / 4);
	cs_gsp_stop st = run(&t);
	cr_assert_eq(st.reason, CS_GSP_STOP_SHUTDOWN, "stopped (%d): %s", st.reason, st.detail);
	cr_expect_eq(st.pc, 0x80000038);
	cr_expect_eq(reg(&t, "s0"), 2, "SBI 0.2");
	cr_expect_eq(reg(&t, "s1"), 1, "the legacy shutdown is there");
	cr_expect_eq(reg(&t, "s2"), (uint64_t)-2, "FID 5 is not one the firmware uses");
	cr_expect(strstr(t.log, "sbi 0x90001eb 5 "), "%s", t.log);
	cr_expect(strstr(t.log, "\nsbi 0x8 5 0xfffffffffffffffe "), "%s", t.log);
	monitored_free(&t);
}

/* With the monitor off, an ecall is the firmware's own trap, as before. */
Test(gsp_monitor, off_the_ecall_is_the_firmwares_trap)
{
	static const uint32_t code[] = { 0x00800893, 0x00000073 };
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_map map;
	cs_gsp_image *img;
	cs_gsp *m;
	cr_assert_eq(cs_gsp_map_parse(map_text, strlen(map_text), "test.map", &map, &d), CS_OK);
	cr_assert_eq(cs_gsp_image_from_raw((const uint8_t *)code, 8, 0x80000000, &img, &d), CS_OK);
	cr_assert_eq(cs_gsp_create(&map, img, &m, &d), CS_OK);
	cr_assert_eq(cs_gsp_reg_write(m, CS_GSP_REG_PRIV, 1, &d), CS_OK);
	cs_gsp_stop st;
	cr_assert_eq(cs_gsp_continue(m, 100, &st, &d), CS_OK);
	cr_expect_eq(st.reason, CS_GSP_STOP_FAULT);
	cr_expect(strstr(st.detail, "trap (cause 9) at 0x80000004 with no trap vector"), "%s", st.detail);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
}

/* FIDs 8 and 9 grant a partition a window (partition a0, base a4, size a5,
 * access a3); a partition number the model does not hold is refused. */
Test(gsp_monitor, windows_are_granted_to_partitions_it_holds)
{
	/* FID 9 (2, 4, 4, 3, 0x100, 0x1000); s0 = a0; FID 8 with a0 = 16; s1 = a0; ebreak */
	static const uint32_t code[] = { 0x090008b7, 0x1eb8889b, 0x00900813, 0x00200513, 0x00400593, 0x00400613,
					 0x00300693, 0x10000713, 0x000017b7, 0x00000073, 0x00050413, 0x00800813,
					 0x01000513, 0x00000073, 0x00050493, 0x00100073 };
	monitored t;
	monitored_on(&t, code, sizeof(code) / 4);
	cs_gsp_stop st = run(&t);
	cr_assert_eq(st.reason, CS_GSP_STOP_EBREAK, "stopped (%d): %s", st.reason, st.detail);
	cr_expect_eq(reg(&t, "s0"), 0);
	cr_expect_eq(reg(&t, "s1"), (uint64_t)-3);
	cr_expect(strstr(t.log, "sbi 0x90001eb 9 0x2 0x4 0x4 0x3 0x100 0x1000 -> 0 0x0\n"), "%s", t.log);
	monitored_free(&t);
}

/* The MPU model: entry 1 maps virtual 0x40000000 to the RAM at 0x80002000
 * (index 0x5ca, physical base 0x5cc, size 0x5ce, virtual base | valid
 * 0x5cb); a load there reads the RAM; once invalid, nothing is there (with
 * the log on, an unmodelled page that reads as zero). */
Test(gsp_monitor, an_mpu_entry_maps_a_virtual_range_until_it_goes)
{
	static const uint32_t code[] = { 0x00100293, 0x5ca29073, 0x000402b7, 0x0012829b, 0x00d29293, 0x5cc29073,
					 0x000012b7, 0x5ce29073, 0x400002b7, 0x0012829b, 0x5cb29073, 0x40000337,
					 0x01032503, 0x5cb025f3, 0x5cb01073, 0x01032603, 0x00100073 };
	monitored t;
	monitored_on(&t, code, sizeof(code) / 4);
	uint32_t seed = 0x5EED5EED;
	cr_assert_eq(cs_gsp_mem_write(t.m, 0x80002010, &seed, 4, NULL), CS_OK);
	cs_gsp_stop st = run(&t);
	cr_assert_eq(st.reason, CS_GSP_STOP_EBREAK, "stopped (%d): %s", st.reason, st.detail);
	cr_expect_eq(reg(&t, "a0"), 0x5EED5EED, "the first load read the RAM behind the entry");
	cr_expect_eq(reg(&t, "a2"), 0, "the second, after the entry went, read nothing");
	cr_expect(strstr(t.log, "unmodelled read 0x40000010 size 4 = 0x0 by 0x8000003c"), "%s", t.log);
	cr_expect_eq(reg(&t, "a1"), 0x40000001, "0x5cb reads back");
	cr_expect(strstr(t.log, "mpu csr 0x5cb write 0x40000001 (was 0x0)\n"), "%s", t.log);
	monitored_free(&t);
}

/* An entry whose virtual range lies over a region of the map is refused
 * with a stop that says so, at the CSR write. */
Test(gsp_monitor, an_mpu_entry_over_the_map_stops)
{
	/* entry 0: virtual 0x80008000 (inside the RAM region) -> 0x80002000, 4 KiB */
	static const uint32_t code[] = { 0x000402b7, 0x0012829b, 0x00d29293, 0x5cc29073, 0x000012b7, 0x5ce29073,
					 0x000102b7, 0x0012829b, 0x00f29293, 0x00128293, 0x5cb29073, 0x00100073 };
	monitored t;
	monitored_on(&t, code, sizeof(code) / 4);
	cs_gsp_stop st = run(&t);
	cr_assert_eq(st.reason, CS_GSP_STOP_FAULT, "stopped (%d): %s", st.reason, st.detail);
	cr_expect_eq(st.pc, 0x80000028);
	cr_expect(strstr(st.detail, "MPU entry maps region 'ram' at 0x80008000+0x1000, which overlaps the map"), "%s",
		  st.detail);
	monitored_free(&t);
}

/* Unicorn has no time source: under the monitor model `rdtime` reads its
 * virtual clock, 1000 more at each read. */
Test(gsp_monitor, time_reads_the_virtual_clock)
{
	/* rdtime a0; rdtime a1; ebreak */
	static const uint32_t code[] = { 0xc0102573, 0xc01025f3, 0x00100073 };
	monitored t;
	monitored_on(&t, code, 3);
	cs_gsp_stop st = run(&t);
	cr_assert_eq(st.reason, CS_GSP_STOP_EBREAK, "stopped (%d): %s", st.reason, st.detail);
	cr_expect_eq(reg(&t, "a0"), 1000);
	cr_expect_eq(reg(&t, "a1"), 2000);
	cr_expect(strstr(t.log, "time read = 2000 by 0x80000004\n"), "%s", t.log);
	monitored_free(&t);
}

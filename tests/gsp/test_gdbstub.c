/* SPDX-License-Identifier: MIT */
/* The GDB stub's packet table (gsp/gdbstub.c): every row reachable and
 * described, unknown packets answered empty, `monitor help` the debugger's
 * own help, and read-watchpoint stops at the load through gdb's packets. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gsp_internal.h"
#include "gsp_test_util.h"

Test(gsp_gdbstub, packet_table_is_consistent)
{
	size_t n = 0;
	const gsp_gdb_packet *t = gsp_gdb_packets(&n);
	cr_assert_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		cr_assert(t[i].name && t[i].name[0], "row %zu has no name", i);
		cr_assert(t[i].answer, "%s has no handler", t[i].name);
		cr_assert(t[i].usage && t[i].what && t[i].what[0], "%s is not described", t[i].name);
		cr_assert(!strncmp(t[i].usage, t[i].name, strlen(t[i].name)), "%s: usage '%s' is of another packet",
			  t[i].name, t[i].usage);
		/* the first match answers: an earlier prefix would take this row's packets */
		for (size_t j = 0; j < i; j++) {
			cr_assert(strcmp(t[j].name, t[i].name), "%s is in the table twice", t[i].name);
			cr_assert(t[j].whole || strncmp(t[i].name, t[j].name, strlen(t[j].name)),
				  "%s (row %zu) is never reached: %s (row %zu) matches its packets first", t[i].name, i,
				  t[j].name, j);
		}
	}
	/* the rows that run the target are the ones acked before they are answered */
	char resuming[64] = "";
	for (size_t i = 0; i < n; i++)
		if (t[i].resumes)
			snprintf(resuming + strlen(resuming), sizeof(resuming) - strlen(resuming), "%s ",
				 t[i].name);
	cr_assert_str_eq(resuming, "c s vCont; ");
}

Test(gsp_gdbstub, unknown_packets_get_the_empty_reply)
{
	gsp_fx fx;
	gsp_fx_open(&fx, "gsp-fixture.elf");
	static const char *const unknown[] = { "vMustReplyEmpty", "qOffsets", "QNonStop:0", "X80000000,0:", "vCont",
					       "qCRC:80000000,4", "qAttachedX", "C05" };
	char reply[2 * CS_GDB_PACKET_MAX + 64];
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		strcpy(reply, "x");
		cr_assert_eq(cs_gdb_handle(fx.m, unknown[i], strlen(unknown[i]), reply, sizeof(reply), NULL), CS_OK);
		cr_assert_str_empty(reply, "%s: '%s'", unknown[i], reply);
	}
	gsp_fx_close(&fx);
}

static char *unhex(const char *hex)
{
	size_t n = strlen(hex) / 2;
	char *s = g_malloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned b;
		cr_assert_eq(sscanf(hex + 2 * i, "%2x", &b), 1, "reply not hex: %s", hex);
		s[i] = (char)b;
	}
	s[n] = 0;
	return s;
}

Test(gsp_gdbstub, monitor_help_is_the_debuggers_help)
{
	gsp_fx fx;
	gsp_fx_open(&fx, "gsp-fixture.elf");
	char *help = NULL;
	size_t help_len = 0;
	FILE *out = open_memstream(&help, &help_len);
	cr_assert_eq(cs_gsp_dbg_exec(fx.m, "help", out, NULL), CS_OK);
	fclose(out);
	cr_assert(strstr(help, "snapshot"), "%s", help);
	char reply[2 * CS_GDB_PACKET_MAX + 64];
	const char *pkt = "qRcmd,68656c70"; /* "help" */
	cr_assert_eq(cs_gdb_handle(fx.m, pkt, strlen(pkt), reply, sizeof(reply), NULL), CS_OK);
	char *text = unhex(reply);
	cr_assert_str_eq(text, help);
	g_free(text);
	free(help);
	gsp_fx_close(&fx);
}

/* One packet through the stub; its reply (static: valid until the next). */
static const char *gdb_packet(cs_gsp *m, const char *pkt)
{
	static char reply[2 * CS_GDB_PACKET_MAX + 64];
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gdb_handle(m, pkt, strlen(pkt), reply, sizeof(reply), &d), CS_OK, "%s: %s", pkt, d.msg);
	return reply;
}

static void gdb_monitor(cs_gsp *m, const char *line)
{
	GString *pkt = g_string_new("qRcmd,");
	for (const char *c = line; *c; c++)
		g_string_append_printf(pkt, "%02x", (unsigned char)*c);
	gdb_packet(m, pkt->str);
	g_string_free(pkt, TRUE);
}

static uint64_t gdb_pc(cs_gsp *m)
{
	const char *hex = gdb_packet(m, "p20");
	uint64_t pc = 0;
	for (int i = 7; i >= 0; i--) {
		unsigned b;
		cr_assert_eq(sscanf(hex + 2 * i, "%2x", &b), 1, "pc reply '%s'", hex);
		pc = pc << 8 | b;
	}
	return pc;
}

/* gdb's own sequence over a read watchpoint (the stub leaves it before the
 * access; gdb lifts the watchpoint, runs to a breakpoint after the access,
 * inserts the watchpoint again and continues). The second hit is a load in
 * a block entered by chained jumps, where Unicorn's pc inside the memory
 * hook is still that of an earlier block (the return point of msg_checksum
 * in statq_send): the stop is at the load itself. */
Test(gsp_gdbstub, read_watch_stops_at_the_load_of_a_chained_block)
{
	gsp_fx fx;
	gsp_fx_open(&fx, "gsp-fixture-defect.elf");
	fx.m->watch_stop_before = true; /* as cs_gdb_session sets it */
	gdb_monitor(fx.m, "msgq init");
	cr_assert_str_eq(gdb_packet(fx.m, "vCont;c"), "S05", "the firmware waits for the host");
	gdb_monitor(fx.m, "rpc recv");
	gdb_monitor(fx.m, "rpc post GET_GSP_STATIC_INFO 24");
	const char *fns[] = { "cmdq_receive", "statq_free_slots", "cmdq_advance" };
	for (size_t i = 0; i < 3; i++) {
		cr_assert_str_eq(gdb_packet(fx.m, "Z3,90041020,4"), "OK");
		cr_assert_str_eq(gdb_packet(fx.m, "vCont;c"), "T05rwatch:90041020;", "hit %zu", i + 1);
		uint64_t pc = gdb_pc(fx.m);
		const cs_gsp_symbol *fn = cs_gsp_image_symbolize(fx.img, pc);
		cr_assert(fn && !strcmp(fn->name, fns[i]), "hit %zu at 0x%" PRIx64 " <%s>, not in %s", i + 1, pc,
			  fn ? fn->name : "?", fns[i]);
		uint8_t b[4];
		cs_rv_insn in;
		cr_assert_eq(cs_gsp_mem_read(fx.m, pc, b, 4, NULL), CS_OK);
		cr_assert(cs_rv_decode(b, 4, pc, &in));
		cr_assert_eq(in.memop, CS_RV_MEM_LOAD, "hit %zu at 0x%" PRIx64 ": %s is no load", i + 1, pc,
			     in.mnemonic);
		cr_assert_str_eq(gdb_packet(fx.m, "z3,90041020,4"), "OK");
		char pkt[64];
		snprintf(pkt, sizeof(pkt), "Z0,%" PRIx64 ",2", pc + in.len);
		cr_assert_str_eq(gdb_packet(fx.m, pkt), "OK");
		cr_assert_str_eq(gdb_packet(fx.m, "vCont;c:1"), "T05swbreak:;");
		pkt[0] = 'z';
		cr_assert_str_eq(gdb_packet(fx.m, pkt), "OK");
	}
	gsp_fx_close(&fx);
}

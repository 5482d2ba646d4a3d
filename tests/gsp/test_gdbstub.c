/* SPDX-License-Identifier: MIT */
/* The GDB stub's packet table (gsp/gdbstub.c): every row reachable and
 * described, unknown packets answered empty, and `monitor help` the
 * debugger's own help. */
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

/* SPDX-License-Identifier: MIT */
/* `chainsim repl` (docs/repl.md): scripted sessions against their transcripts,
 * `why` against `chainsim run`'s diagnosis, `channel` on deadlocks, and bad
 * input answered with located errors. Runs the built binary. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "source.h"

/* Runs chainsim with args in tests/DIR; args end with NULL. */
static test_cli_out run_in(const char *dir_name, const char *const *args)
{
	char *dir = test_source_file("tests", dir_name);
	test_cli_out o = test_cli_run_opts(dir, NULL, NULL, args);
	g_free(dir);
	return o;
}

static char *read_expected(const char *name)
{
	char *path = test_source_file("tests/repl", name);
	char *text = test_read_file(path, NULL);
	cr_assert(text, "cannot read %s", path);
	g_free(path);
	return text;
}

/* The first line of text that starts with prefix (malloc'd), or NULL. */
static char *line_starting(const char *text, const char *prefix)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (!strncmp(p, prefix, strlen(prefix)))
			return g_strndup(p, len);
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static void transcript(const char *chain, const char *script, const char *expected)
{
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", chain, "--script", script, NULL });
	char *want = read_expected(expected);
	cr_expect_eq(o.status, 0, "stderr: %s", o.err);
	cr_expect_str_eq(o.out, want, "the transcript of %s changed:\n%s", script, o.out);
	free(want);
	test_cli_free(&o);
}

Test(repl, acceptance_pcas_session)
{
	/* break at SEND_PCAS_A, the QMD by field name, step to the release,
	 * stage 10 fires */
	transcript("pcas.chain", "pcas.script", "pcas.expected");
}

Test(repl, acceptance_pcas_session_content)
{
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", "pcas.chain", "--script",
							       "pcas.script", NULL });
	cr_expect(strstr(o.out, "breakpoint 1, method SEND_PCAS_A\nnext: #3 ch0 entry 0 method 2 subch 1 "
				"HOPPER_COMPUTE_A.SEND_PCAS_A"), "%s", o.out);
	cr_expect(strstr(o.out, "  RELEASE0_ADDRESS                     0x200005000 <L.sem>\n"), "%s", o.out);
	cr_expect(strstr(o.out, "  PROGRAM_ADDRESS                      0x200000000 <m.vadd>\n"), "%s", o.out);
	cr_expect(strstr(o.out, "  CTA_THREAD_DIMENSION0                0x20 (32)"), "%s", o.out);
	cr_expect(strstr(o.out, "0x200005000 <L.sem>: 0x00000000\n"), "%s", o.out);
	cr_expect(strstr(o.out, "stage 10 (engine-release) fired: release L.sem = 1\n"), "%s", o.out);
	test_cli_free(&o);
}

Test(repl, watch_and_stepping_session)
{
	transcript("cross.chain", "watch.script", "watch.expected");
}

/* On broken scenarios `why` after `continue` prints chainsim run's break line. */
Test(repl, why_is_chainsim_runs_diagnosis)
{
	static const char *const broken[] = {
		"deadlock.chain", "qmd-rejected.chain", "channel-stop.chain", "no-schedule.chain",
		"pb-malformed.chain", "grid-fault.chain", "inline-qmd-incomplete.chain",
		"release-disabled.chain", "no-object.chain", "qmd-addr-unmapped.chain",
	};
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		test_cli_out run = run_in("conformance", (const char *const[]){ "run", broken[i], NULL });
		test_cli_out repl = run_in("conformance", (const char *const[]){ "repl", broken[i], "-ex",
									      "continue", "-ex", "why", NULL });
		char *want = line_starting(run.out, "break at stage");
		char *got = line_starting(repl.out, "break at stage");
		cr_assert(want, "%s: chainsim run shows no break:\n%s", broken[i], run.out);
		cr_expect(got && !strcmp(got, want), "%s:\nrun:  %s\nrepl: %s\n%s", broken[i], want,
			  got ? got : "(none)", repl.err);
		cr_expect_eq(repl.status, 0, "%s: %s", broken[i], repl.err);
		g_free(want);
		g_free(got);
		test_cli_free(&run);
		test_cli_free(&repl);
	}
}

Test(repl, channel_on_deadlock_names_the_releases)
{
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", "cross-deadlock.chain", "-ex",
							       "continue", "-ex", "channel", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.out, "  blocked at entry 0 method 4: acquire [gate] == 0x1, value is 0x0\n"
				"  releases that could unblock it:\n"
				"    ch0 'default' entry 0 method 9: release [gate] = 0x1, not run: behind "
				"this channel's own blocked acquire at entry 0 method 4\n"),
		  "%s", o.out);
	cr_expect(strstr(o.out, "    ch1 'a' entry 0 method 9: release [gate2] = 0x1, not run"), "%s", o.out);
	test_cli_free(&o);
	o = run_in("conformance", (const char *const[]){ "repl", "deadlock.chain", "-ex", "until break",
							 "-ex", "channel 0", NULL });
	cr_expect(strstr(o.out, "record 11 (sem-block, ch0)"), "%s", o.out);
	cr_expect(strstr(o.out, "    none: no channel's stream has a release of [gate] left to run\n"),
		  "%s", o.out);
	test_cli_free(&o);
}

/* Over the whole command list as `help` prints it: each command and alias
 * has a usage (an alias the same as its command), and each one is a command
 * the session runs (bare, it may want arguments, but it is never unknown). */
Test(repl, help_for_every_command)
{
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", "cross.chain", "-ex", "help", NULL });
	cr_assert_eq(o.status, 0, "%s", o.err);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	gchar **lines = g_strsplit(o.out, "\n", -1);
	for (gchar **l = lines; *l; l++)
		if (g_str_has_prefix(*l, "  ") && (*l)[2] != ' ')
			g_ptr_array_add(names, g_strndup(*l + 2, strcspn(*l + 2, " ")));
	g_strfreev(lines);
	cr_assert_geq(names->len, 19, "help lists %u commands:\n%s", names->len, o.out);
	static const char *const must[] = { "step", "next", "continue", "until", "break", "delete",
					    "stages", "why", "channel", "qmd", "x", "set", "list",
					    "trace", "restart", "help", "complete", "quit", "echo" };
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		bool found = false;
		for (guint k = 0; k < names->len; k++)
			found |= !strcmp(g_ptr_array_index(names, k), must[i]);
		cr_expect(found, "help lacks %s", must[i]);
	}
	size_t checked = 0;
	for (guint k = 0; k < names->len; k++) {
		const char *name = g_ptr_array_index(names, k);
		char *line = g_strdup_printf("help %s", name);
		test_cli_out h = run_in("repl", (const char *const[]){ "repl", "cross.chain", "-ex", line, NULL });
		cr_expect_eq(h.status, 0, "%s: %s", line, h.err);
		cr_expect(strstr(h.out, "\nusage: "), "%s:\n%s", line, h.out);
		checked++;
		const char *also = strstr(h.out, "  also: ");
		if (also) {
			gchar *words = g_strndup(also + 8, strcspn(also + 8, "\n"));
			gchar **aliases = g_strsplit(words, " ", -1);
			for (gchar **al = aliases; *al; al++) {
				char *aline = g_strdup_printf("help %s", *al);
				test_cli_out ah = run_in("repl", (const char *const[]){ "repl", "cross.chain", "-ex", aline,
										        NULL });
				const char *usage = strstr(h.out, "usage: "), *ausage = strstr(ah.out, "usage: ");
				cr_expect(ausage && !strcmp(usage, ausage), "%s differs from %s:\n%s", aline, line,
					  ah.out);
				checked++;
				test_cli_free(&ah);
				g_free(aline);
			}
			g_strfreev(aliases);
			g_free(words);
		}
		test_cli_free(&h);
		test_cli_out bare = run_in("repl", (const char *const[]){ "repl", "cross.chain", "-ex", name, NULL });
		cr_expect_null(strstr(bare.err, "unknown command"), "%s: %s", name, bare.err);
		test_cli_free(&bare);
		g_free(line);
	}
	cr_expect_geq(checked, 23, "only %zu names checked", checked);
	g_ptr_array_free(names, TRUE);
	test_cli_free(&o);
}

/* A step over the method whose fault stops the channel says so where it
 * happens, not only that the program ended. */
Test(repl, a_step_over_a_faulting_method_prints_the_stop)
{
	test_cli_out o = run_in("conformance", (const char *const[]){ "repl", "earlier-fault.chain",
								      "-ex", "step 5", "-ex", "step",
								      NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	const char *stop = strstr(o.out, "(chainsim) step\nchannel 'default' stopped (record 14): "
					 "channel 0, GPFIFO entry 0, method 5 at 0x20000702c: the "
					 "HOPPER_COMPUTE_A engine stopped the channel: the "
					 "inline-to-memory write of 8 bytes to 0x7d0000000 faulted");
	cr_expect(stop, "%s", o.out);
	cr_expect(stop && strstr(stop, "\nthe program ended after 6 methods\n"), "%s", o.out);
	test_cli_free(&o);
}

/* gdb's habits: print and info work; other gdb words say what to type here. */
Test(repl, gdb_habits_work_or_say_what_to_type)
{
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", "pcas.chain", "-ex", "print L.sem",
							       "-ex", "p L.sem+4", "-ex", "print 0x10",
							       "-ex", "break method SEND_PCAS_A", "-ex",
							       "info breakpoints", "-ex", "info stages",
							       "-ex", "i channels", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.out, "(chainsim) print L.sem\nL.sem = 0x200005000 <L.sem>\n"), "%s", o.out);
	cr_expect(strstr(o.out, "L.sem+4 = 0x200005004 <L.sem+0x4>\n"), "%s", o.out);
	cr_expect(strstr(o.out, "0x10 = 0x10\n"), "%s", o.out);
	cr_expect(strstr(o.out, "(chainsim) info breakpoints\n1  method SEND_PCAS_A  hits 0\n"), "%s",
		  o.out);
	cr_expect(strstr(o.out, "(chainsim) info stages\n #  stage"), "%s", o.out);
	cr_expect(strstr(o.out, "(chainsim) i channels\nchannel 0 'default': ready\n"), "%s", o.out);
	test_cli_free(&o);
	static const struct {
		const char *cmd, *msg;
	} instead[] = {
		{ "info registers", "a method stream has no registers or frames: 'channel' shows" },
		{ "info frobs", "info frobs: not here; info breakpoints, info stages and info channels" },
		{ "watch L.sem", "unknown command 'watch': here, 'break write ADDR[,LEN]'" },
		{ "run", "unknown command 'run': here, 'restart'" },
		{ "bt", "unknown command 'bt': here, 'trace'" },
		{ "print", "print ADDR: give an address" },
		{ "print nosuch", "'nosuch' is not an address" },
	};
	for (size_t i = 0; i < sizeof(instead) / sizeof(instead[0]); i++) {
		o = run_in("repl", (const char *const[]){ "repl", "pcas.chain", "-ex", instead[i].cmd, NULL });
		cr_expect_eq(o.status, 2, "%s: status %d", instead[i].cmd, o.status);
		cr_expect(strstr(o.err, instead[i].msg), "%s: stderr %s", instead[i].cmd, o.err);
		test_cli_free(&o);
	}
}

/* An -ex error is named as the gsp REPL names it: -ex:N:1, N counting the -ex
 * options, and the batch ends there. */
Test(repl, an_ex_error_is_located_by_its_position)
{
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", "cross.chain", "-ex", "step",
							       "-ex", "frobnicate", "-ex", "step", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect_str_eq(o.err, "chainsim repl: -ex:2:1: unknown command 'frobnicate' (help lists "
				"them)\n");
	const char *bad = strstr(o.out, "(chainsim) frobnicate\n");
	cr_assert(bad, "%s", o.out);
	cr_expect_null(strstr(bad, "(chainsim) step"), "the batch ran on after the error: %s", o.out);
	test_cli_free(&o);
}

/* -ex commands run before --script, in order, as chainsim gsp takes them; a
 * quit among them ends the batch before the script. */
Test(repl, ex_runs_before_the_script)
{
	char *path = NULL;
	int fd = g_file_open_tmp("repl-order-XXXXXX.script", &path, NULL);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert(g_file_set_contents(path, "echo from the script\n", -1, NULL));
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", "cross.chain", "--script", path, "-ex",
							       "echo from ex 1", "-ex", "echo from ex 2", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.out, "(chainsim) echo from ex 1\nfrom ex 1\n(chainsim) echo from ex 2\nfrom ex 2\n"
				"(chainsim) echo from the script\nfrom the script\n"), "%s", o.out);
	test_cli_free(&o);
	o = run_in("repl", (const char *const[]){ "repl", "cross.chain", "--script", path, "-ex", "quit", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.out, "(chainsim) quit\n"), "%s", o.out);
	cr_expect_null(strstr(o.out, "from the script"), "%s", o.out);
	test_cli_free(&o);
	g_unlink(path);
	g_free(path);
}

Test(repl, memory_commands)
{
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", "cross.chain", "-ex",
							       "set mem gate u32 7 9", "-ex", "x/2dw gate",
							       "-ex", "x/4xb gate+4", "-ex", "set mem done u8 65",
							       "-ex", "x/s done", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.out, "wrote 2 x u32 at gate\n"), "%s", o.out);
	cr_expect(strstr(o.out, "0x200000000 <gate>: 7 9\n"), "%s", o.out);
	cr_expect(strstr(o.out, "0x200000004 <gate+0x4>: 0x09 0x00 0x00 0x00\n"), "%s", o.out);
	cr_expect(strstr(o.out, "<done>: \"A\"\n"), "%s", o.out);
	test_cli_free(&o);
}

/* Bad input: a located message on stderr, exit 2, never an abort. */
Test(repl, bad_input_is_a_located_error)
{
	static const struct {
		const char *cmd, *msg;
	} bad[] = {
		{ "frobnicate", "unknown command 'frobnicate'" },
		{ "step -1", "step N: N must be a positive number" },
		{ "step 0", "step N: N must be a positive number" },
		{ "until stage 12", "'12' is not a stage" },
		{ "until method NOPE", "no method named 'NOPE'" },
		{ "until", "until what?" },
		{ "break method NOPE", "no method named 'NOPE'" },
		{ "break method SEM_EXECUTE 9", "subchannel 0..7" },
		{ "break write nowhere", "'nowhere' is not an address" },
		{ "break write gate,0", "LEN is 1..64 bytes" },
		{ "break write 0xffffffffffffffff,8", "wraps around" },
		{ "break sideways 1", "expected 'method', 'stage' or 'write'" },
		{ "delete 7", "no breakpoint 7" },
		{ "x/4q gate", "unknown letter 'q'" },
		{ "x/4xw 0x10", "0x10 is not mapped" },
		{ "x/4xw gate+zz", "offset after '+' is not a number" },
		{ "set mem gate u8 300", "'300' is not a u8" },
		{ "set mem gate i7 1", "type 'i7'" },
		{ "set reg 1", "only 'set mem' exists" },
		{ "channel 9", "no channel '9'" },
		{ "qmd 0x10", "not readable" },
		{ "stages now", "stages takes no arguments" },
		{ "help nothing", "no command 'nothing'" },
		{ "list x", "list [N]" },
		{ "trace -3", "trace [N]" },
		/* a word after the last one a command takes is refused, never ignored */
		{ "step 1 2", "step [N] takes one argument (extra '2')" },
		{ "next 1", "next takes no arguments (got '1')" },
		{ "continue 1", "continue takes no arguments (got '1')" },
		{ "until break 1", "until break takes no arguments (got '1')" },
		{ "until stage 3 4", "until stage takes one argument (extra '4')" },
		{ "restart now", "restart takes no arguments (got 'now')" },
		{ "why now", "why takes no arguments (got 'now')" },
		{ "delete 1 2", "delete [ID] takes one argument (extra '2')" },
		{ "list 1 2", "list [N] takes one argument (extra '2')" },
		{ "trace 1 2", "trace [N] takes one argument (extra '2')" },
		{ "channel 0 1", "channel [N|NAME] takes one argument (extra '1')" },
		{ "info channels 0 1", "channel [N|NAME] takes one argument (extra '1')" },
		{ "info breakpoints 1", "info breakpoints takes no arguments (got '1')" },
		{ "qmd gate 1", "qmd [ADDR] takes one argument (extra '1')" },
		{ "x/4xw gate gate", "x/FMT ADDR takes one argument (extra 'gate')" },
		{ "print gate 1", "one address, not '1' after it" },
		{ "help step 2", "help [CMD] takes one argument (extra '2')" },
		{ "quit now", "quit takes no arguments (got 'now')" },
		{ "q now", "q takes no arguments (got 'now')" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		test_cli_out o = run_in("repl", (const char *const[]){ "repl", "cross.chain", "-ex", bad[i].cmd,
								       NULL });
		cr_expect_eq(o.status, 2, "%s: status %d", bad[i].cmd, o.status);
		cr_expect(strstr(o.err, bad[i].msg), "%s: stderr %s", bad[i].cmd, o.err);
		test_cli_free(&o);
	}
	/* a script names the failing line */
	char *path = g_build_filename(g_get_tmp_dir(), "chainsim-repl-bad.script", NULL);
	cr_assert(g_file_set_contents(path, "step\n# fine so far\nbreak stage zero\nstep\n", -1, NULL));
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", "cross.chain", "--script", path, NULL });
	cr_expect_eq(o.status, 2);
	char *want = g_strdup_printf("%s:3:1: ", path);
	cr_expect(strstr(o.err, want), "stderr: %s", o.err);
	cr_expect(strstr(o.err, "'zero' is not a stage"), "stderr: %s", o.err);
	g_free(want);
	test_cli_free(&o);
	g_unlink(path);
	g_free(path);
	/* a bad scenario is located too */
	o = run_in("repl", (const char *const[]){ "repl", "no-such.chain", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "no-such.chain"), "%s", o.err);
	test_cli_free(&o);
}

/* Tab's candidates, through `complete` as in gdb: commands, then the
 * scenario's names and the arch's method names. */
Test(repl, completion_of_commands_names_and_methods)
{
	test_cli_out o = run_in("repl", (const char *const[]){ "repl", "cross.chain", "-ex", "complete brea", "-ex",
							       "complete break method SEM_E", "-ex",
							       "complete x/4xw ga", "-ex", "complete until method SEND_PCAS", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.out, "(chainsim) complete brea\nbreak\n"), "%s", o.out);
	cr_expect(strstr(o.out, "(chainsim) complete break method SEM_E\nSEM_EXECUTE\n"), "%s", o.out);
	cr_expect(strstr(o.out, "(chainsim) complete x/4xw ga\ngate\n(chainsim)"), "%s", o.out);
	cr_expect(strstr(o.out, "SEND_PCAS_A\n") && strstr(o.out, "SEND_PCAS_B\n"), "%s", o.out);
	test_cli_free(&o);
}

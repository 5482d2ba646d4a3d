/* SPDX-License-Identifier: MIT */
/* `chainsim gsp` end to end: the batch script that finds the planted defect,
 * gdb-multiarch against the GDB stub, and the CLI's errors. */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "gsp_test_util.h"

/* gsp-cli ARGS, run in the test's own folder. */
static test_cli_out run_cli(const char *const *args)
{
	static const test_cli_opts gsp_cli = { .program = "tests/gsp/gsp-cli" };
	return test_cli_run_opts(NULL, &gsp_cli, NULL, args);
}

static test_cli_out run_script(const char *fw)
{
	char *elf = gsp_fixture(fw), *map = gsp_fixture("gsp-fixture.map");
	char *script = test_source_path("tests/gsp/find-desync.gsp");
	const char *args[] = { elf, "--map", map, "--script", script, NULL };
	test_cli_out r = run_cli(args);
	g_free(elf);
	g_free(map);
	g_free(script);
	return r;
}

#define HAS(r, s) cr_assert(strstr((r).out, (s)), "missing '%s' in:\n%s\nstderr:\n%s", (s), (r).out, (r).err)
/* gdb writes monitor and console output to stderr when stdout is a pipe */
#define HAS_ANY(r, s) cr_assert(strstr((r).out, (s)) || strstr((r).err, (s)), "missing '%s' in:\n%s\nstderr:\n%s", (s), (r).out, (r).err)
#define HASNT(r, s) cr_assert_null(strstr((r).out, (s)), "unexpected '%s' in:\n%s", (s), (r).out)

Test(gsp_cli, script_finds_the_planted_defect)
{
	test_cli_out r = run_script("gsp-fixture-defect.elf");
	/* the free-space check reads the GSP's own command read position... */
	HAS(r, "stopped: watchpoint 3: read of 4 bytes at 0x90041020 = 0x0 by 0x80000566 <statq_free_slots+0x10>");
	HAS(r, "address 0x90041020 is msgq.cmd.read");
	HAS(r, "0x80000566 <statq_free_slots+0x10>:\tlw\ta0,32(a5)");
	/* ...at this source line (issue 15: the source-level finding) */
	HAS(r, "  access:\nfw.c:160:\n=>160  \tuint32_t rd = statq->read_ptr; /* planted: our own command-queue read "
	       "position */\n   0x80000566 <statq_free_slots+0x10>:\tlw\ta0,32(a5)");
	HASNT(r, "is msgq.stat.read");
	/* ...so the reply ring overruns under load */
	HAS(r, "stopped: msgq desync: status queue overrun: the GSP moved msgq.stat.write 61 -> 1 (3 elements) "
	       "while 60 elements were unread (msgq.stat.read 1, room for 2)");
	HAS(r, "by the instruction at 0x80000702 <statq_send+0x184>");
	HAS(r, "cursors: msgq.cmd.write=24 msgq.cmd.read=20 msgq.stat.write=1 msgq.stat.read=1");
	cr_assert(strstr(r.err, "find-desync.gsp:22:1: status element at slot 1: seqNum 22, expected 1: the status ring is desynchronized"),
		  "stderr: %s", r.err);
	cr_assert_eq(r.status, 1, "a desynchronized ring is a broken run (exit 1), got %d", r.status);
	test_cli_free(&r);
}

Test(gsp_cli, script_on_the_good_firmware_shows_no_desync)
{
	test_cli_out r = run_script("gsp-fixture.elf");
	HAS(r, "stopped: watchpoint 2: read of 4 bytes at 0x90001020 = 0x1 by 0x80000566 <statq_free_slots+0x10>");
	HAS(r, "address 0x90001020 is msgq.stat.read");
	HAS(r, "0x80000566 <statq_free_slots+0x10>:\tlw\ta0,32(a4)");
	HAS(r, "stopped: idle: wfi at 0x8000018a <wait_for_host+0x6>, no interrupt pending");
	HAS(r, "msgq.stat.write  61  @0x90041010 (GSP write pointer)");
	HAS(r, "reply GET_GSP_STATIC_INFO(65) sequence 24 seqNum 24 elems 3 result 0x0");
	HAS(r, "drained 24 replies; 0 outstanding");
	HASNT(r, "desync");
	HASNT(r, "is msgq.cmd.read");
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	/* batch output is stable: a second run prints the same bytes */
	test_cli_out again = run_script("gsp-fixture.elf");
	cr_assert_str_eq(again.out, r.out);
	test_cli_free(&again);
	test_cli_free(&r);
}

Test(gsp_cli, clear_errors)
{
	char *elf = gsp_fixture("gsp-fixture.elf");
	gchar *tmp = g_build_filename(g_get_tmp_dir(), "gsp-bad-XXXXXX.map", NULL);
	int fd = g_mkstemp(tmp);
	cr_assert(fd >= 0);
	const char *bad = "[ram]\nbase=0x80000000\nsize=0x100000\nkind=ram\n[dup]\nbase=0x80080000\nsize=0x1000\nkind=ram\n";
	cr_assert_eq(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
	close(fd);
	const char *a1[] = { elf, "--map", tmp, "-ex", "info map", NULL };
	test_cli_out r = run_cli(a1);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, ":5:1: region 'dup' [0x80080000, 0x80081000) overlaps region 'ram'"), "%s", r.err);
	test_cli_free(&r);
	unlink(tmp);
	g_free(tmp);
	const char *a2[] = { "/nonexistent/fw.elf", NULL };
	r = run_cli(a2);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "/nonexistent/fw.elf"), "%s", r.err);
	test_cli_free(&r);
	const char *a3[] = { elf, "-ex", "break", NULL };
	r = run_cli(a3);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "-ex:1:1: usage: break LOCATION"), "%s", r.err);
	test_cli_free(&r);
	const char *a4[] = { elf, "--gdb", "localhost:x", NULL };
	r = run_cli(a4);
	cr_assert_eq(r.status, 2);
	test_cli_free(&r);
	g_free(elf);
}

/* A count of 0 steps once, as stepi does: never a stop record that was not
 * filled in. */
Test(gsp_cli, a_count_of_zero_steps_once)
{
	char *elf = gsp_fixture("gsp-fixture.elf");
	static const char *const cmds[] = { "step", "next", "nexti" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char zero[16];
		snprintf(zero, sizeof(zero), "%s 0", cmds[i]);
		const char *a0[] = { elf, "-ex", zero, NULL }, *a1[] = { elf, "-ex", cmds[i], NULL };
		test_cli_out r0 = run_cli(a0), r1 = run_cli(a1);
		cr_expect_eq(r0.status, 0, "%s: %s", zero, r0.err);
		/* past the echoed command line, the same stop */
		const char *s0 = strchr(r0.out, '\n'), *s1 = strchr(r1.out, '\n');
		cr_assert(s0 && s1, "%s: %s", zero, r0.out);
		cr_expect_str_eq(s0, s1, "%s", zero);
		test_cli_free(&r0);
		test_cli_free(&r1);
	}
	g_free(elf);
}

/* A command given a word it does not take refuses it with its usage, located
 * (exit 2, bad input), and the batch stops there: nexti 1 2 as stepi 1 2, and
 * every command that takes a count or nothing. */
Test(gsp_cli, a_word_a_command_does_not_take_is_refused)
{
	char *elf = gsp_fixture("gsp-fixture.elf"), *map = gsp_fixture("gsp-fixture.map");
	static const struct {
		const char *line, *usage;
	} cases[] = {
		{ "nexti 1 2", "usage: nexti [N]" }, { "ni 1 2", "usage: nexti [N]" },
		{ "stepi 1 2", "usage: stepi [N]" }, { "step 1 2", "usage: step [N]" },
		{ "next 1 2", "usage: next [N]" }, { "continue 10 20", "usage: continue [BUDGET]" },
		{ "finish now", "usage: finish" }, { "regs pc", "usage: regs" },
		{ "bt full", "usage: backtrace" }, { "log all", "usage: log" },
		{ "info locals x", "usage: info locals" }, { "info map all", "usage: info map" },
		{ "info all-registers x", "usage: info all-registers" },
		{ "info snapshots all", "usage: info snapshots" }, { "info breakpoints 1", "usage: info breakpoints" },
		{ "msgq init again", "usage: msgq [init | monitor on|off]" },
		{ "msgq monitor maybe", "usage: msgq [init | monitor on|off]" },
		{ "mmio trace maybe", "usage: mmio trace on|off" }, { "rpc init now", "usage: rpc init" },
		{ "rpc recv all", "usage: rpc recv" }, { "rpc drain 1000 2", "usage: rpc drain [BUDGET]" },
		{ "rpc post GET_GSP_STATIC_INFO 1 2", "usage: rpc post NAME [COUNT]" },
		{ "quit now", "quit takes no arguments (got 'now')" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { elf, "--map", map, "-ex", cases[i].line, "-ex", "info registers pc", NULL };
		test_cli_out r = run_cli(args);
		char want[128];
		snprintf(want, sizeof(want), "-ex:1:1: %s\n", cases[i].usage);
		cr_expect_eq(r.status, 2, "%s: exit %d", cases[i].line, r.status);
		cr_expect(strstr(r.err, want) != NULL, "%s: wanted '%s' in:\n%s", cases[i].line, want, r.err);
		cr_expect(!strstr(r.out, "info registers pc"), "%s: the batch went on:\n%s", cases[i].line, r.out);
		test_cli_free(&r);
	}
	/* the same line in a script, at its line */
	char *script = NULL;
	int fd = g_file_open_tmp("gsp-extra-words-XXXXXX.gsp", &script, NULL);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert(g_file_set_contents(script, "info registers pc\nnexti 1 2\ninfo registers pc\n", -1, NULL));
	char *base = g_path_get_basename(script), *located = g_strdup_printf("%s:2:1: usage: nexti [N]\n", base);
	const char *args[] = { elf, "--map", map, "--script", script, NULL };
	test_cli_out r = run_cli(args);
	cr_expect_eq(r.status, 2, "exit %d", r.status);
	cr_expect(strstr(r.err, located) != NULL, "wanted '%s' in:\n%s", located, r.err);
	HAS(r, "(gsp) info registers pc\npc       0x0000000080000000\n(gsp) nexti 1 2\n");
	test_cli_free(&r);
	remove(script);
	g_free(located);
	g_free(base);
	g_free(script);
	g_free(elf);
	g_free(map);
}

/* -ex commands run before --script, in order, as chainsim repl takes them;
 * a quit among them ends the batch before the script. */
Test(gsp_cli, ex_runs_before_the_script)
{
	char *elf = gsp_fixture("gsp-fixture.elf"), *script = NULL;
	int fd = g_file_open_tmp("gsp-order-XXXXXX.gsp", &script, NULL);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert(g_file_set_contents(script, "echo from the script\n", -1, NULL));
	const char *args[] = { elf, "--script", script, "-ex", "echo from ex 1", "-ex", "echo from ex 2", NULL };
	test_cli_out r = run_cli(args);
	cr_expect_eq(r.status, 0, "%s", r.err);
	HAS(r, "(gsp) echo from ex 1\nfrom ex 1\n(gsp) echo from ex 2\nfrom ex 2\n(gsp) echo from the script\n"
	       "from the script\n");
	test_cli_free(&r);
	const char *quits[] = { elf, "--script", script, "-ex", "echo from ex", "-ex", "quit", NULL };
	r = run_cli(quits);
	cr_expect_eq(r.status, 0, "%s", r.err);
	HAS(r, "(gsp) quit\n");
	HASNT(r, "from the script");
	test_cli_free(&r);
	remove(script);
	g_free(script);
	g_free(elf);
}

/* The RPC names rpc send and rpc post take: help rpc lists them, and an
 * unknown one is answered with the list. */
Test(gsp_cli, help_rpc_lists_the_rpc_names)
{
	char *elf = gsp_fixture("gsp-fixture.elf");
	static const char names[] = "GET_GSP_STATIC_INFO (65), SET_SYSTEM_INFO (72), SET_REGISTRY "
				    "(73), GSP_RM_CONTROL (76), GSP_RM_ALLOC (103), or a function "
				    "number";
	const char *a1[] = { elf, "-ex", "help rpc", NULL };
	test_cli_out r = run_cli(a1);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "  NAME (send, post): "), "%s", r.out);
	cr_expect(strstr(r.out, names), "%s", r.out);
	cr_expect_null(strstr(r.out, "LIBOS_PRINT"), "an event is not sent: %s", r.out);
	test_cli_free(&r);
	const char *a2[] = { elf, "-ex", "rpc post NOPE", NULL };
	r = run_cli(a2);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "-ex:1:1: rpc post: unknown function 'NOPE': give "), "%s", r.err);
	cr_expect(strstr(r.err, names), "%s", r.err);
	test_cli_free(&r);
	g_free(elf);
}

Test(gsp_cli, gdb_multiarch_against_the_stub)
{
	char *cli = test_build_path("tests/gsp/gsp-cli");
	char *elf = gsp_fixture("gsp-fixture.elf");
	char *argv[] = { cli, elf, "--gdb", "127.0.0.1:0", NULL };
	GPid pid;
	gint out_fd;
	GError *e = NULL;
	cr_assert(g_spawn_async_with_pipes(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd,
					   NULL, &e),
		  "cannot start the stub: %s", e ? e->message : "?");
	/* the stub picks a free loopback port and prints it */
	char line[256] = { 0 };
	size_t n = 0;
	while (n < sizeof(line) - 1) {
		ssize_t k = read(out_fd, line + n, 1);
		if (k <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = 0;
	unsigned port = 0;
	cr_assert_eq(sscanf(line, "gdb stub listening on port %u", &port), 1, "stub said '%s'", line);
	char *target = g_strdup_printf("target remote 127.0.0.1:%u", port);
	char *file = g_strdup_printf("file %s", elf);
	char *gdb_argv[] = { "gdb-multiarch", "-batch", "-nx",
			     "-ex", "set architecture riscv:rv64",
			     "-ex", file,
			     "-ex", target,
			     "-ex", "break statq_init",
			     "-ex", "continue",
			     "-ex", "info registers pc ra mtvec",
			     "-ex", "x/2xw 0x80000000",
			     "-ex", "stepi",
			     "-ex", "print $pc",
			     "-ex", "set $a5 = 0x1234",
			     "-ex", "print/x $a5",
			     "-ex", "set {int}0x800f0000 = 0x5a5a",
			     "-ex", "x/1xw 0x800f0000",
			     "-ex", "step",
			     "-ex", "watch fw_traps",
			     "-ex", "continue",
			     "-ex", "print fw_traps",
			     "-ex", "kill",
			     NULL };
	gchar *gout = NULL, *gerr = NULL;
	gint status = 0;
	gboolean ok = g_spawn_sync(NULL, gdb_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &gout, &gerr, &status, &e);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	g_spawn_close_pid(pid);
	close(out_fd);
	cr_assert(ok, "cannot run gdb-multiarch (scripts/setup.sh installs it): %s", e ? e->message : "?");
	test_cli_out r = { .out = gout, .err = gerr };
	HAS(r, "Breakpoint 1, statq_init () at fw.c:");
	HAS(r, "pc             0x80000194\t0x80000194 <statq_init>");
	HAS(r, "mtvec          0x8000003c");
	HAS(r, "0x80000000 <_start>:\t0x00100117\t0x00010113");
	HAS(r, "$1 = (void (*)()) 0x80000196 <statq_init+2>");
	HAS(r, "$2 = 0x1234");
	HAS(r, "0x800f0000:\t0x00005a5a");
	HAS(r, "Hardware watchpoint 2: fw_traps");
	HAS(r, "Old value = 0");
	HAS(r, "New value = 1");
	HAS(r, "trap_handler (cause=11");
	HAS(r, "$3 = 1");
	test_cli_free(&r);
	g_free(target);
	g_free(file);
	g_free(cli);
	g_free(elf);
}

/* ---- the stub over a raw socket: interrupts and malformed packets ---- */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static void send_raw(int fd, const char *s, size_t n)
{
	cr_assert_eq(send(fd, s, n, 0), (ssize_t)n);
}

static void send_pkt(int fd, const char *payload)
{
	unsigned sum = 0;
	for (const char *c = payload; *c; c++)
		sum = (sum + (unsigned char)*c) & 0xff;
	char *p = g_strdup_printf("$%s#%02x", payload, sum);
	send_raw(fd, p, strlen(p));
	g_free(p);
}

/* The next reply payload, skipping acks; '-' comes back as "-". */
static char *read_reply(int fd)
{
	GString *g = g_string_new(NULL);
	char c;
	bool in = false;
	while (recv(fd, &c, 1, 0) == 1) {
		if (!in) {
			if (c == '-') {
				g_string_append_c(g, '-');
				break;
			}
			if (c == '$')
				in = true;
			continue;
		}
		if (c == '#') {
			char cs[2];
			cr_assert_eq(recv(fd, cs, 2, MSG_WAITALL), 2);
			break;
		}
		g_string_append_c(g, c);
	}
	return g_string_free(g, FALSE);
}

static char *le64(uint64_t v)
{
	char *s = g_malloc(17);
	for (int i = 0; i < 8; i++)
		snprintf(s + 2 * i, 3, "%02x", (unsigned)((v >> (8 * i)) & 0xff));
	return s;
}

/* A stub on the fixture with extra arguments; returns the port, the pid and
 * the stub's stderr. */
static unsigned start_stub(const char *const *extra, GPid *pid, gint *err_fd)
{
	char *cli = test_build_path("tests/gsp/gsp-cli");
	char *elf = gsp_fixture("gsp-fixture.elf");
	GPtrArray *argv = g_ptr_array_new();
	const char *head[] = { cli, elf, "--gdb", "127.0.0.1:0" };
	for (size_t i = 0; i < 4; i++)
		g_ptr_array_add(argv, (gpointer)head[i]);
	for (; extra && *extra; extra++)
		g_ptr_array_add(argv, (gpointer)*extra);
	g_ptr_array_add(argv, NULL);
	gint out_fd;
	cr_assert(g_spawn_async_with_pipes(NULL, (char **)argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
					   NULL, NULL, pid, NULL, &out_fd, err_fd, NULL));
	char line[128] = { 0 };
	for (size_t n = 0; n < sizeof(line) - 1 && read(out_fd, line + n, 1) == 1 && line[n] != '\n'; n++)
		;
	close(out_fd);
	unsigned port = 0;
	cr_assert_eq(sscanf(line, "gdb stub listening on port %u", &port), 1, "stub said '%s'", line);
	g_ptr_array_free(argv, TRUE);
	g_free(cli);
	g_free(elf);
	return port;
}

static int connect_stub(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	/* a deaf stub fails the test instead of hanging it */
	struct timeval tv = { .tv_sec = 10 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

Test(gsp_cli, gdb_stub_interrupt_and_bad_packets)
{
	char *elf = gsp_fixture("gsp-fixture.elf");
	GPid pid;
	int fd = connect_stub(start_stub(NULL, &pid, NULL));

	send_raw(fd, "$g#00", 5); /* bad checksum: NAK */
	char *r = read_reply(fd);
	cr_assert_str_eq(r, "-");
	g_free(r);
	GString *huge = g_string_new("$");
	for (int i = 0; i < CS_GDB_PACKET_MAX + 100; i++)
		g_string_append_c(huge, 'm');
	g_string_append(huge, "#00");
	send_raw(fd, huge->str, huge->len);
	g_string_free(huge, TRUE);
	r = read_reply(fd);
	cr_assert_str_eq(r, "-", "an overlong packet is refused");
	g_free(r);

	/* run busy_loop(huge) and stop it with 0x03 */
	cs_gsp_image *img;
	cr_assert_eq(cs_gsp_image_load(elf, 0, &img, NULL), CS_OK);
	uint64_t fn = cs_gsp_image_symbol(img, "busy_loop")->addr;
	cs_gsp_image_free(img);
	char *v = le64(fn), *big = le64(UINT64_MAX / 2), *sp = le64(0x800F0000);
	char *p1 = g_strdup_printf("P20=%s", v), *p2 = g_strdup_printf("Pa=%s", big), *p3 = g_strdup_printf("P2=%s", sp);
	const char *sets[] = { p1, p2, p3 };
	for (int i = 0; i < 3; i++) {
		send_pkt(fd, sets[i]);
		r = read_reply(fd);
		cr_assert_str_eq(r, "OK", "%s", sets[i]);
		g_free(r);
	}
	send_pkt(fd, "c");
	g_usleep(300000);
	send_raw(fd, "\x03", 1);
	r = read_reply(fd);
	cr_assert_str_eq(r, "S02", "0x03 stops a running target with SIGINT");
	g_free(r);
	send_pkt(fd, "p20");
	r = read_reply(fd);
	uint64_t pc = 0;
	for (int i = 7; i >= 0; i--)
		pc = pc << 8 | (uint64_t)strtoul((char[]){ r[2 * i], r[2 * i + 1], 0 }, NULL, 16);
	cr_assert(pc >= fn && pc < fn + 0x40, "stopped inside busy_loop, pc 0x%lx", (unsigned long)pc);
	g_free(r);
	send_pkt(fd, "k");
	int status = 0;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the stub exits after k");
	g_spawn_close_pid(pid);
	close(fd);
	g_free(v);
	g_free(big);
	g_free(sp);
	g_free(p1);
	g_free(p2);
	g_free(p3);
	g_free(elf);
}

/* busy_loop(huge) started with `c`: the target runs until stopped. */
static void run_busy_loop(int fd)
{
	char *elf = gsp_fixture("gsp-fixture.elf");
	cs_gsp_image *img;
	cr_assert_eq(cs_gsp_image_load(elf, 0, &img, NULL), CS_OK);
	uint64_t fn = cs_gsp_image_symbol(img, "busy_loop")->addr;
	cs_gsp_image_free(img);
	char *v = le64(fn), *big = le64(UINT64_MAX / 2), *sp = le64(0x800F0000);
	char *sets[] = { g_strdup_printf("P20=%s", v), g_strdup_printf("Pa=%s", big),
			 g_strdup_printf("P2=%s", sp) };
	for (int i = 0; i < 3; i++) {
		send_pkt(fd, sets[i]);
		char *r = read_reply(fd);
		cr_assert_str_eq(r, "OK", "%s", sets[i]);
		g_free(r);
		g_free(sets[i]);
	}
	send_pkt(fd, "c");
	g_free(v);
	g_free(big);
	g_free(sp);
	g_free(elf);
}

/* The stub's exit status within `seconds`, or -1 (it is then killed). */
static int wait_stub(GPid pid, double seconds)
{
	int status = 0;
	for (int i = 0; i < (int)(seconds * 50); i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			g_spawn_close_pid(pid);
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		g_usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	g_spawn_close_pid(pid);
	return -1;
}

/* A stray byte while the target runs is read, not left in front of the
 * 0x03 after it (the watcher used to only peek, and went deaf). */
Test(gsp_cli, gdb_stub_hears_0x03_after_a_stray_byte)
{
	GPid pid;
	gint err_fd;
	int fd = connect_stub(start_stub(NULL, &pid, &err_fd));
	run_busy_loop(fd);
	g_usleep(200000);
	send_raw(fd, "x", 1);
	g_usleep(200000);
	send_raw(fd, "\x03", 1);
	char *r = read_reply(fd);
	cr_expect_str_eq(r, "S02", "0x03 after a stray byte still stops the target");
	g_free(r);
	send_pkt(fd, "k");
	cr_expect_eq(wait_stub(pid, 10), 0, "the stub exits after k");
	close(fd);
	close(err_fd);
}

/* A connection closed while the target runs ends the stub, stray byte or not. */
Test(gsp_cli, gdb_stub_notices_a_closed_connection_while_running)
{
	GPid pid;
	gint err_fd;
	int fd = connect_stub(start_stub(NULL, &pid, &err_fd));
	run_busy_loop(fd);
	g_usleep(200000);
	send_raw(fd, "x", 1);
	g_usleep(100000);
	close(fd);
	cr_expect_neq(wait_stub(pid, 10), -1, "the stub is still running after its client left");
	close(err_fd);
}

Test(gsp_cli, gdb_stub_drops_a_silent_client)
{
	GPid pid;
	gint err_fd;
	int fd = connect_stub(start_stub((const char *const[]){ "--gdb-idle-ms", "300", NULL }, &pid,
					 &err_fd));
	int st = wait_stub(pid, 10);
	cr_expect_eq(st, 2, "a silent client is dropped with exit 2 (got %d)", st);
	char err[512] = { 0 };
	ssize_t n = read(err_fd, err, sizeof(err) - 1);
	cr_expect(n > 0 && strstr(err, "the GDB client sent nothing for 300 ms"), "%s", err);
	close(fd);
	close(err_fd);
}

Test(gsp_cli, gdb_host_that_is_not_ipv4_is_refused_as_such)
{
	char *elf = gsp_fixture("gsp-fixture.elf");
	const char *hosts[] = { "[::]:0", "::1:0", "localhost:0" };
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		test_cli_out r = run_cli((const char *const[]){ elf, "--gdb", hosts[i], "--gdb-allow-remote", NULL });
		cr_expect_eq(r.status, 2, "%s", hosts[i]);
		cr_expect(strstr(r.err, "is not an IPv4 address"), "%s: %s", hosts[i], r.err);
		cr_expect(!strstr(r.err, "loopback"), "%s: %s", hosts[i], r.err);
		test_cli_free(&r);
		r = run_cli((const char *const[]){ elf, "--gdb", hosts[i], NULL });
		cr_expect(strstr(r.err, "is not an IPv4 address"), "%s without --gdb-allow-remote: %s", hosts[i], r.err);
		test_cli_free(&r);
	}
	g_free(elf);
}

Test(gsp_cli, gdb_beyond_loopback_needs_allow_remote_and_warns, .timeout = 30)
{
	char *elf = gsp_fixture("gsp-fixture.elf");
	test_cli_out r = run_cli((const char *const[]){ elf, "--gdb", "0.0.0.0:0", NULL });
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "listens beyond loopback: add --gdb-allow-remote"), "%s", r.err);
	test_cli_free(&r);
	char *cli = test_build_path("tests/gsp/gsp-cli");
	char *argv[] = { cli, elf, "--gdb", "0.0.0.0:0", "--gdb-allow-remote", NULL };
	GPid pid;
	gint out_fd, err_fd;
	cr_assert(g_spawn_async_with_pipes(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid,
					   NULL, &out_fd, &err_fd, NULL));
	char line[256] = { 0 };
	for (size_t n = 0; n < sizeof(line) - 1 && read(err_fd, line + n, 1) == 1 && line[n] != '\n'; n++)
		;
	char ready[128] = { 0 };
	for (size_t n = 0; n < sizeof(ready) - 1 && read(out_fd, ready + n, 1) == 1 && ready[n] != '\n'; n++)
		;
	unsigned port = 0;
	cr_assert_eq(sscanf(ready, "gdb stub listening on port %u", &port), 1, "%s", ready);
	cr_expect_neq(port, 0);
	char *warning = g_strdup_printf("warning: the GDB stub on 0.0.0.0:%u accepts anyone", port);
	cr_expect(strstr(line, warning), "the warning names the bound port %u: %s", port, line);
	g_free(warning);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	g_spawn_close_pid(pid);
	close(out_fd);
	close(err_fd);
	g_free(cli);
	g_free(elf);
}

/* `rpc init` in a gdb session: the queues set up with monitor, the firmware
 * run by gdb's own continue (so gdb sees where it stops), the reply read. */
#define GDB_RPC_INIT "monitor msgq init", "continue", "monitor rpc recv"

/* Starts the stub on fw (with the memory map `map` when not NULL) and runs
 * gdb-multiarch in batch mode with the -ex commands. */
static test_cli_out gdb_batch_map(const char *fw, const char *map, const char *const *commands)
{
	char *cli = test_build_path("tests/gsp/gsp-cli");
	char *elf = gsp_fixture(fw);
	char *map_path = map ? gsp_fixture(map) : NULL;
	char *argv[] = { cli, elf, "--gdb", "127.0.0.1:0", NULL, NULL, NULL };
	if (map_path) {
		argv[4] = "--map";
		argv[5] = map_path;
	}
	GPid pid;
	gint out_fd;
	GError *e = NULL;
	cr_assert(g_spawn_async_with_pipes(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd,
					   NULL, &e),
		  "cannot start the stub: %s", e ? e->message : "?");
	char line[256] = { 0 };
	for (size_t n = 0; n < sizeof(line) - 1 && read(out_fd, line + n, 1) == 1 && line[n] != '\n'; n++)
		;
	unsigned port = 0;
	cr_assert_eq(sscanf(line, "gdb stub listening on port %u", &port), 1, "stub said '%s'", line);
	char *target = g_strdup_printf("target remote 127.0.0.1:%u", port);
	char *file = g_strdup_printf("file %s", elf);
	GPtrArray *gdb_argv = g_ptr_array_new();
	const char *head[] = { "gdb-multiarch", "-batch", "-nx", "-ex", "set architecture riscv:rv64", "-ex", file,
			       "-ex", target };
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		g_ptr_array_add(gdb_argv, (gpointer)head[i]);
	for (size_t i = 0; commands[i]; i++) {
		g_ptr_array_add(gdb_argv, "-ex");
		g_ptr_array_add(gdb_argv, (gpointer)commands[i]);
	}
	g_ptr_array_add(gdb_argv, "-ex");
	g_ptr_array_add(gdb_argv, "kill");
	g_ptr_array_add(gdb_argv, NULL);
	test_cli_out r = { 0 };
	gint status = 0;
	gboolean ok = g_spawn_sync(NULL, (gchar **)gdb_argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &r.out,
				   &r.err, &status, &e);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	g_spawn_close_pid(pid);
	close(out_fd);
	cr_assert(ok, "cannot run gdb-multiarch (scripts/setup.sh installs it): %s", e ? e->message : "?");
	g_ptr_array_free(gdb_argv, TRUE);
	g_free(target);
	g_free(file);
	g_free(cli);
	g_free(elf);
	g_free(map_path);
	return r;
}

static test_cli_out gdb_batch(const char *fw, const char *const *commands)
{
	return gdb_batch_map(fw, NULL, commands);
}

Test(gsp_cli, gdb_follows_a_u_mode_trap_into_the_handler)
{
	const char *cmds[] = { "break u_ecall", "continue", "info registers priv mtvec", "break m_trap", "continue",
			       "info registers mcause mepc mstatus priv", NULL };
	test_cli_out r = gdb_batch("priv.elf", cmds);
	HAS(r, "Breakpoint 1, u_ecall");
	HAS(r, "priv           0x0\tprv:0 [User/Application]");
	HAS(r, "mtvec          0x800000c8");
	HAS(r, "Breakpoint 2, m_trap");
	HAS(r, "mcause         0x8\t8");
	HAS(r, "mepc           0x80000042\t2147483714");
	HAS(r, "mstatus        0x2000\t");
	HAS(r, "priv           0x3\tprv:3 [Machine]");
	test_cli_free(&r);
}

Test(gsp_cli, gdb_stub_answers_without_delay)
{
	GPid pid;
	int fd = connect_stub(start_stub(NULL, &pid, NULL));
	int one = 1; /* as gdb's own TCP transport does */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* 200 register reads, each acked by the client like gdb does: with the
	 * ack and the reply in separate writes each one took about 40 ms */
	gint64 t0 = g_get_monotonic_time();
	for (int i = 0; i < 200; i++) {
		send_pkt(fd, "p20");
		char *r = read_reply(fd);
		cr_assert_eq(strlen(r), 16, "%s", r);
		g_free(r);
		send_raw(fd, "+", 1);
	}
	double ms = (double)(g_get_monotonic_time() - t0) / 1000.0;
	cr_assert_lt(ms, 2000.0, "200 packets took %.0f ms", ms);
	cr_log_info("200 packets: %.1f ms", ms);
	/* breakpoint insertion and removal, the packets gdb timed out on
	 * ("Ignoring packet error") */
	t0 = g_get_monotonic_time();
	for (int i = 0; i < 100; i++) {
		send_pkt(fd, i % 2 ? "z0,80000194,2" : "Z0,80000194,2");
		char *r = read_reply(fd);
		cr_assert_str_eq(r, "OK");
		g_free(r);
		send_raw(fd, "+", 1);
	}
	ms = (double)(g_get_monotonic_time() - t0) / 1000.0;
	cr_assert_lt(ms, 1000.0, "100 Z0/z0 packets took %.0f ms", ms);
	send_pkt(fd, "k");
	waitpid(pid, NULL, 0);
	g_spawn_close_pid(pid);
	close(fd);
}

Test(gsp_cli, gdb_watchpoint_on_an_amo_stops_where_gdb_expects)
{
	const char *cmds[] = { "watch *(int *)&amo_word", "continue", "print/x $pc", "print $a2", "print *(int *)&amo_word",
			       "delete", "rwatch *(int *)&lr_word", "continue", "print/x $pc", "delete", "continue", NULL };
	test_cli_out r = gdb_batch("atomics.elf", cmds);
	HAS(r, "Old value = 10");
	HAS(r, "New value = 15");
	HAS(r, "$1 = 0x8000000e"); /* after_amo: gdb stepped the amoadd.w itself, once */
	HAS(r, "$2 = 10");
	HAS(r, "$3 = 15");
	HAS(r, "Value = 100");
	HAS(r, "$4 = 0x8000001a"); /* right after the lr.w */
	HASNT(r, "Program received signal SIGSEGV");
	test_cli_free(&r);
}

/* NVIDIA's own GSP firmware (firmware-nvidia-gsp, which scripts/setup.sh
 * installs from bookworm's non-free-firmware component): the batch session of
 * tests/gsp/gsp-ga10x.gsp runs it from its entry to where the model stops. */
/* NVIDIA's GSP firmware (firmware-nvidia-gsp), or NULL when it is missing
 * and CHAINSIM_NO_GSP_FIRMWARE_OK says that is fine (the test then says it
 * checked nothing). */
static const char *nvidia_firmware(void)
{
	const char *fw = getenv("CHAINSIM_GSP_FIRMWARE");
	if (!fw)
		fw = "/lib/firmware/nvidia/535.261.03/gsp_ga10x.bin";
	if (!g_file_test(fw, G_FILE_TEST_EXISTS)) {
		cr_assert(getenv("CHAINSIM_NO_GSP_FIRMWARE_OK"),
			  "%s is missing: install firmware-nvidia-gsp (scripts/setup.sh does) or set "
			  "CHAINSIM_NO_GSP_FIRMWARE_OK=1 to check nothing", fw);
		cr_log_warn("%s is missing: this test checked nothing (CHAINSIM_NO_GSP_FIRMWARE_OK)", fw);
		return NULL;
	}
	return fw;
}

Test(gsp_cli, nvidia_gsp_firmware_session)
{
	const char *fw = nvidia_firmware();
	if (!fw)
		return;
	char *map = gsp_fixture("gsp-ga10x.map");
	char *script = test_source_path("tests/gsp/gsp-ga10x.gsp");
	const char *args[] = { "--image", fw, "--raw-base", "0", "--map", map, "--mmio-log", "--script", script, NULL };
	test_cli_out r = run_cli(args);
	HAS(r, "mmio R riscv-local+0xa00 size 4 = 0x17000000");
	HAS(r, "unmodelled read 0x20000000001fa824 size 4 = 0x0 by 0x734");
	HAS(r, "stopped: fault at 0x2dee <0x2dee>: trap (cause 11) at 0x2dee with no trap vector");
	cr_assert_eq(r.status, 1, "the run ends in a fault: exit 1, got %d", r.status);
	cr_assert(strstr(r.err, "gsp-ga10x.gsp:10:1: the run stopped"), "%s", r.err);
	test_cli_free(&r);
	g_free(map);
	g_free(script);
}

/* The image under --boot ga10x, as far as the model goes (docs/gsp.md,
 * "How far NVIDIA's image runs"): the root partition registers itself and
 * the init partition, serves its requests, spawns partition 2 and switches
 * into it; the LibOS kernel there programs its MPU, runs at its virtual
 * addresses, finds the falcon's DMA idle, panics and hands the root a
 * CrashCat report, which the root signals to the host and waits on. */
Test(gsp_cli, nvidia_gsp_firmware_boots_into_the_spawned_partition)
{
	const char *fw = nvidia_firmware();
	if (!fw)
		return;
	const char *args[] = { "--image", fw, "--boot", "ga10x", "--mmio-log", "-ex", "continue 600000", NULL };
	test_cli_out r = run_cli(args);
	HAS(r, "mmio R bar0+0xa00 size 4 = 0x172a1000");
	HAS(r, "mmio R gsp-falcon+0x040 size 4 = 0x10000000");
	HAS(r, "sbi 0x90001eb 7 0x1 0x606000001d982d90 ");
	HAS(r, "sbi 0x90001eb 0 0x20 0xffffffff 0x606000001d985110 0x0 0x0 0x1 -> 0 0x0\npartition switch 0 -> 1\n");
	HAS(r, "sbi 0x90001eb 0 0x25 0x2 0x606000001d9b6000 0x606000001ce00000 0xa00000 0x1 -> 0 0x0");
	HAS(r, "partition switch 1 -> 2\nmpu csr 0x5d0 write 0x0 (was 0x0)\n");
	HAS(r, "mpu csr 0x5cb write 0xffffffff93000001 (was 0x0)\n");
	HAS(r, "time read = 1000 by 0xffffffff930010ba\n");
	HAS(r, "mmio R gsp-falcon+0x118 size 4 = 0x2\nsbi 0x90001eb 0 0x2f 0x606000001ce09008 0x1c8 0x0 0x0 0x1 -> 0 0x0\n"
	       "partition switch 2 -> 1\nmmio W gsp-falcon+0x040 size 4 = 0xcb\n");
	HAS(r, "mmio W gsp-falcon+0x094 size 4 = 0x11dead\n");
	HAS(r, "stopped: instruction budget exhausted at 0x606000001d98161");
	cr_assert_eq(r.status, 1, "the run ends on its budget: exit 1, got %d", r.status);
	test_cli_free(&r);
}

Test(gsp_cli, boot_refuses_a_map_of_its_own)
{
	char *elf = gsp_fixture("gsp-fixture.elf");
	char *map = gsp_fixture("gsp-fixture.map");
	const char *args[] = { "--image", elf, "--boot", "ga10x", "--map", map, "-ex", "info registers", NULL };
	test_cli_out r = run_cli(args);
	cr_expect_eq(r.status, 2, "exit %d", r.status);
	cr_expect(strstr(r.err, "--boot builds its own map and start state"), "%s", r.err);
	test_cli_free(&r);
	g_free(elf);
	g_free(map);
}

/* The acceptance session of issue 15 through gdb-multiarch: a source
 * breakpoint, `print` of the 32 KiB firmware state (m packets as large as the
 * PacketSize the stub advertises), monitor commands, a watchpoint on the
 * status queue's write cursor. */
Test(gsp_cli, gdb_prints_a_32k_struct_and_speaks_monitor)
{
	const char *cmds[] = { GDB_RPC_INIT, "monitor rpc post GET_GSP_STATIC_INFO 24", "break fw.c:160",
			       "continue", "print sizeof(fw)", "print fw", "monitor msgq",
			       "watch *(unsigned int *)0x90041010", "continue", "monitor snapshot save a",
			       "monitor bogus", NULL };
	gint64 t0 = g_get_monotonic_time();
	test_cli_out r = gdb_batch_map("gsp-fixture-defect.elf", "gsp-fixture.map", cmds);
	double s = (double)(g_get_monotonic_time() - t0) / 1e6;
	HAS_ANY(r, "reply GSP_INIT_DONE(4097) sequence 0 seqNum 0");
	HAS_ANY(r, "posted 24 x GET_GSP_STATIC_INFO; 24 outstanding");
	HAS(r, "Breakpoint 1, statq_free_slots () at fw.c:160");
	HAS(r, "$1 = 32920");
	HAS(r, "$2 = {stat_seq = 2, cmd_seq = 1, served = 0, errors = 0, nobjects = 0, objects = {0 <repeats 32 times>}");
	HASNT(r, "Cannot access memory");
	HASNT(r, "Ignoring packet error");
	HAS_ANY(r, "  msgq.stat.write   1  @0x90041010 (GSP write pointer)");
	HAS_ANY(r, "    slot 23: seqNum 23 elems 1 GET_GSP_STATIC_INFO(65)");
	HAS(r, "Hardware watchpoint 2: *(unsigned int *)0x90041010");
	HAS(r, "Old value = 1\nNew value = 4\n");
	HAS_ANY(r, "snapshot 'a' saved at 0x");
	HAS_ANY(r, "error: unknown command 'bogus'");
	cr_expect_lt(s, 10.0, "the session took %.2f s", s);
	test_cli_free(&r);
}

/* The figures: x/1024xw (1024 m packets) took about a minute at 45 ms
 * a packet; a 32 KiB dump (gdb reads it in packets as large as the PacketSize
 * allows: before, anything over 4 KiB was E03) must take well under a second.
 * Both measured over a session that reads one word. */
Test(gsp_cli, gdb_dumps_32k_well_under_a_second)
{
	char *bin = g_build_filename(g_get_tmp_dir(), "chainsim-gdb-dump32k.bin", NULL);
	char *dump_cmd = g_strdup_printf("dump binary memory %s &fw (char*)&fw+32768", bin);
	const char *warm[] = { "x/1xw &fw", NULL };
	const char *words[] = { "x/1024xw &fw", NULL };
	const char *dump[] = { dump_cmd, NULL };
	/* best of three sessions each: one session's start varies by more than
	 * the dump takes on a loaded machine (a single try once printed -0.05 s) */
	const char *const *sessions[] = { warm, words, dump };
	test_cli_out res[3];
	double best[3] = { 1e9, 1e9, 1e9 };
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 3; i++) {
			gint64 t0 = g_get_monotonic_time();
			test_cli_out one = gdb_batch("gsp-fixture.elf", sessions[k]);
			double s = (double)(g_get_monotonic_time() - t0) / 1e6;
			if (s < best[k])
				best[k] = s;
			if (i)
				test_cli_free(&one);
			else
				res[k] = one;
		}
	test_cli_out w = res[0], x = res[1], r = res[2];
	double base = best[0], x1024 = best[1] - base, d32k = best[2] - base;
	HAS(x, "0x800019e0 <fw+4080>:\t0x00000000");
	HASNT(r, "Cannot access memory");
	gchar *data = NULL;
	gsize len = 0;
	cr_assert(g_file_get_contents(bin, &data, &len, NULL), "gdb wrote no %s:\n%s\n%s", bin, r.out, r.err);
	cr_expect_eq(len, 32768);
	cr_expect_lt(x1024, 1.0, "x/1024xw took %.3f s over a one-word session", x1024);
	cr_expect_lt(d32k, 1.0, "the 32 KiB dump took %.3f s over a one-word session", d32k);
	/* whole sessions against a session that reads one word: the difference is
	 * what the reads cost, within the noise of a session's start */
	printf("BENCH name=gsp.gdb_x1024xw value=%.3f unit=s baseline=gdb-one-word baseline_value=%.3f ratio=%.2f\n",
	       best[1], base, best[1] / base);
	printf("BENCH name=gsp.gdb_dump32k value=%.3f unit=s baseline=gdb-one-word baseline_value=%.3f ratio=%.2f\n",
	       best[2], base, best[2] / base);
	g_free(data);
	unlink(bin);
	g_free(bin);
	g_free(dump_cmd);
	test_cli_free(&w);
	test_cli_free(&x);
	test_cli_free(&r);
}

/* The debugger's own stop (the message-queue monitor's overrun) in words as
 * console output, and the firmware's log forwarded the same way. */
Test(gsp_cli, gdb_shows_the_monitor_stop_and_the_firmware_log)
{
	const char *cmds[] = { GDB_RPC_INIT, "monitor msgq monitor on",
			       "monitor rpc post GET_GSP_STATIC_INFO 24", "continue", NULL };
	test_cli_out r = gdb_batch_map("gsp-fixture-defect.elf", "gsp-fixture.map", cmds);
	HAS_ANY(r, "chainsim: msgq desync: status queue overrun: the GSP moved msgq.stat.write 61 -> 1 (3 elements) "
	       "while 60 elements were unread");
	test_cli_free(&r);
	const char *boot[] = { "break fw.c:430", "continue", NULL };
	r = gdb_batch("gsp-fixture.elf", boot);
	HAS_ANY(r, "gsp fixture: boot\n");
	HAS(r, "Breakpoint 1, main () at fw.c:430");
	test_cli_free(&r);
}

/* The planted defect at source level: with the queues set up and the
 * firmware booting under a read watchpoint on the GSP's own command-queue
 * read position, the first stop is in statq_free_slots (sending
 * GSP_INIT_DONE), which must read the host's status-queue position instead
 * (gdb reports the line after the load it stepped over); the next is
 * cmdq_receive's own read. */
Test(gsp_cli, gdb_finds_the_planted_defect_at_source_level)
{
	const char *cmds[] = { "monitor msgq init", "rwatch *(unsigned int *)0x90041020", "continue",
			       "info line *($pc - 4)", "continue", NULL };
	test_cli_out r = gdb_batch_map("gsp-fixture-defect.elf", "gsp-fixture.map", cmds);
	HAS(r, "statq_free_slots () at fw.c:164");
	HAS(r, "Line 160 of \"fw.c\"");
	HAS(r, "in cmdq_receive (elems=elems@entry=");
	test_cli_free(&r);
}

/* The same watchpoint set after the boot, with 24 requests posted: gdb's
 * second stop is statq_free_slots' load too, reached from statq_send through
 * chained blocks (not statq_send's return point from msg_checksum). */
Test(gsp_cli, gdb_read_watch_after_the_boot_stops_after_each_load)
{
	const char *cmds[] = { GDB_RPC_INIT, "monitor rpc post GET_GSP_STATIC_INFO 24",
			       "rwatch *(unsigned int *)0x90041020", "continue", "continue", "info line *($pc - 4)",
			       "continue", NULL };
	test_cli_out r = gdb_batch_map("gsp-fixture-defect.elf", "gsp-fixture.map", cmds);
	HAS(r, "in cmdq_receive (elems=elems@entry=");
	HAS(r, "statq_free_slots () at fw.c:164");
	HAS(r, "Line 160 of \"fw.c\"");
	HAS(r, "in cmdq_advance (elems=1) at fw.c:264");
	HASNT(r, "in statq_send");
	test_cli_free(&r);
}

/* "NAME = VALUE" lines of one frame's section of a transcript, as a table
 * NAME -> the first word of VALUE (gdb prints no type; ours is "(TYPE) "
 * before the value, and "(arg) " before a parameter). */
static GHashTable *frame_vars(const char *text, const char *start, const char *end)
{
	GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	const char *p = strstr(text, start), *stop = p ? strstr(p + strlen(start), end) : NULL;
	cr_assert(p, "no '%s' in:\n%s", start, text);
	gchar *part = g_strndup(p, stop ? (size_t)(stop - p) : strlen(p));
	gchar **lines = g_strsplit(part, "\n", -1);
	for (gchar **l = lines; *l; l++) {
		const char *s = g_str_has_prefix(*l, "(arg) ") ? *l + 6 : *l;
		const char *eq = strstr(s, " = ");
		if (!eq || strchr(s, ' ') != eq)
			continue;
		const char *v = eq + 3;
		if (*v == '(' && strstr(v, ") "))
			v = strstr(v, ") ") + 2;
		g_hash_table_replace(t, g_strndup(s, (size_t)(eq - s)), g_strndup(v, strcspn(v, " ")));
	}
	g_strfreev(lines);
	g_free(part);
	return t;
}

/* The locals of outer frames as `frame N` / `info locals` print them are the
 * values gdb-multiarch shows for the same stop through the stub: the same
 * names, the same numbers, the same <optimized out>. */
Test(gsp_cli, gdb_agrees_on_outer_frame_locals)
{
	const char *gdb_cmds[] = { GDB_RPC_INIT, "monitor rpc post GET_GSP_STATIC_INFO 1", "break statq_free_slots",
				   "continue", "frame 1", "info locals", "info args", "frame 2", "info locals", "info args",
				   "frame 3", "info locals", "info args", NULL };
	test_cli_out g = gdb_batch_map("gsp-fixture.elf", "gsp-fixture.map", gdb_cmds);
	char *elf = gsp_fixture("gsp-fixture.elf"), *map = gsp_fixture("gsp-fixture.map");
	const char *args[] = { elf, "--map", map, "-ex", "rpc init", "-ex", "rpc post GET_GSP_STATIC_INFO 1", "-ex",
			       "break statq_free_slots", "-ex", "continue", "-ex", "frame 1", "-ex", "info locals", "-ex",
			       "frame 2", "-ex", "info locals", "-ex", "frame 3", "-ex", "info locals", NULL };
	test_cli_out r = run_cli(args);
	cr_assert_eq(r.status, 0, "%s", r.err);
	static const char *const frames[][4] = {
		{ "#1  0x", "#2  0x", "(gsp) frame 1", "(gsp) frame 2" },
		{ "#2  0x", "#3  0x", "(gsp) frame 2", "(gsp) frame 3" },
		{ "#3  0x", "Kill the program", "(gsp) frame 3", "\n\n" },
	};
	size_t compared = 0;
	for (size_t f = 0; f < 3; f++) {
		GHashTable *theirs = frame_vars(g.out, frames[f][0], frames[f][1]);
		GHashTable *ours = frame_vars(r.out, frames[f][2], frames[f][3]);
		cr_assert_gt(g_hash_table_size(theirs), 0, "gdb shows no locals in frame %zu:\n%s", f + 1, g.out);
		GHashTableIter it;
		gpointer name, value;
		g_hash_table_iter_init(&it, theirs);
		while (g_hash_table_iter_next(&it, &name, &value)) {
			const char *mine = g_hash_table_lookup(ours, name);
			cr_expect(mine && !strcmp(mine, value), "frame %zu: %s is %s for gdb, %s here\n%s", f + 1,
				  (char *)name, (char *)value, mine ? mine : "missing", r.out);
			compared++;
		}
		g_hash_table_destroy(theirs);
		g_hash_table_destroy(ours);
	}
	cr_assert_geq(compared, 15, "compared %zu values", compared);
	test_cli_free(&g);
	test_cli_free(&r);
	g_free(elf);
	g_free(map);
}

/* A watchpoint or breakpoint of the debugger's own (set with monitor, not by
 * gdb) stops gdb as a SIGTRAP with the stop in words before it; the access
 * has run, so the next continue goes on (gdb's own watchpoints stop before
 * the access, for gdb to step it). Before, gdb took the stop for one of its
 * watchpoints, stepped, resumed and lost the target. */
Test(gsp_cli, gdb_shows_the_debuggers_own_stops_in_words)
{
	const char *cmds[] = { GDB_RPC_INIT, "monitor rpc post GET_GSP_STATIC_INFO 2", "monitor watch msgq.stat.write",
			       "continue", "print *(unsigned int *)0x90041010", "continue", "print *(unsigned int *)0x90041010",
			       "monitor delete", "monitor rpc post GET_GSP_STATIC_INFO 1", "monitor break statq_free_slots",
			       "continue", "print $pc", NULL };
	test_cli_out r = gdb_batch_map("gsp-fixture-defect.elf", "gsp-fixture.map", cmds);
	HAS_ANY(r, "chainsim: watchpoint 1: write of 4 bytes at 0x90041010: 0x1 -> 0x4 by 0x80000702 <statq_send+0x184>");
	HAS_ANY(r, "chainsim: watchpoint 1: write of 4 bytes at 0x90041010: 0x4 -> 0x7 by 0x80000702 <statq_send+0x184>");
	HAS(r, "Program received signal SIGTRAP");
	HAS(r, "$1 = 4\n");
	HAS(r, "$2 = 7\n");
	HAS_ANY(r, "chainsim: breakpoint 2 at 0x80000556 <statq_free_slots>");
	HAS(r, "$3 = (void (*)()) 0x80000556 <statq_free_slots>");
	HASNT(r, "Cannot execute this command while the target is running");
	test_cli_free(&r);
}

/* Issue 15's source-level items in one scripted session through the CLI,
 * against its whole transcript: list, break FILE:LINE, step and next by
 * line, bt with FILE:LINE, print with types (fw.stat_seq, *msgq.stat.write,
 * an array), an expression with spaces, x/s, info locals, frame/up/down with
 * the outer frames' locals, casts, help. */
Test(gsp_cli, source_level_session_through_the_cli)
{
	char *elf = gsp_fixture("gsp-fixture.elf"), *map = gsp_fixture("gsp-fixture.map");
	char *script = test_source_path("tests/gsp/source-tour.gsp");
	char *expected = test_read_source("tests/gsp/source-tour.expected", NULL);
	cr_assert(expected, "cannot read tests/gsp/source-tour.expected");
	const char *args[] = { elf, "--map", map, "--script", script, NULL };
	test_cli_out r = run_cli(args);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, expected, "the transcript of source-tour.gsp changed:\n%s", r.out);
	/* the expression with spaces is pc + 2, as its own line says */
	HAS(r, "$pc = 0x8000009e (2147483806) <mmio_write32>\n(gsp) print $pc + 2\n$pc + 2 = 0x800000a0 (2147483808)");
	test_cli_free(&r);
	free(expected);
	g_free(script);
	g_free(elf);
	g_free(map);
}

/* Every command, each alias and the usage errors in one interactive session
 * on standard input, against its whole transcript: what each prints on stdout,
 * the errors on stderr, and the exit status a session with failures ends in. */
Test(gsp_cli, every_command_through_an_interactive_session)
{
	char *elf = gsp_fixture("gsp-fixture.elf"), *map = gsp_fixture("gsp-fixture.map");
	char *script = test_source_path("tests/gsp/command-tour.gsp");
	char *out = test_read_source("tests/gsp/command-tour.expected", NULL);
	char *err = test_read_source("tests/gsp/command-tour.errors", NULL);
	cr_assert(out, "cannot read tests/gsp/command-tour.expected");
	cr_assert(err, "cannot read tests/gsp/command-tour.errors");
	const test_cli_opts opts = { .program = "tests/gsp/gsp-cli", .stdin_path = script };
	const char *args[] = { elf, "--map", map, NULL };
	test_cli_out r = test_cli_run_opts(NULL, &opts, NULL, args);
	cr_expect_str_eq(r.out, out, "the transcript of command-tour.gsp changed:\n%s", r.out);
	cr_expect_str_eq(r.err, err, "the errors of command-tour.gsp changed:\n%s", r.err);
	cr_expect_eq(r.status, 1, "a session with failed commands exits 1, got %d", r.status);
	test_cli_free(&r);
	free(out);
	free(err);
	g_free(script);
	g_free(elf);
	g_free(map);
}

/* A monitor command that would run the firmware (or write a register) moves
 * the hart where gdb does not look: gdb kept showing the old pc. The stub
 * refuses it, naming what to type instead, and the firmware stays where gdb
 * saw it; the gdb way (monitor msgq init, continue, monitor rpc recv) shows
 * the new pc, the one the debugger itself has. */
/* monitor snapshot restore would put back every register under gdb's cached
 * ones: refused with the way that works, and gdb's pc stays the debugger's. */
Test(gsp_cli, gdb_monitor_refuses_snapshot_restore)
{
	const char *cmds[] = { "monitor snapshot save start", "stepi", "stepi", "print $pc",
			       "monitor snapshot restore start", "print $pc", "monitor info registers pc",
			       "monitor info snapshots", NULL };
	test_cli_out r = gdb_batch("gsp-fixture.elf", cmds);
	HAS_ANY(r, "snapshot 'start' saved at 0x80000000");
	HAS_ANY(r, "error: 'monitor snapshot restore start' would move the hart behind gdb's back (gdb keeps "
		   "showing the registers it read, the old pc): use 'snapshot restore' in chainsim-gsp's own "
		   "debugger, a session without --gdb");
	HASNT(r, "snapshot 'start' restored");
	const char *p2 = strstr(r.out, "$1 = (void (*)()) "), *p3 = strstr(r.out, "$2 = (void (*)()) ");
	cr_assert(p2 && p3, "%s\n%s", r.out, r.err);
	char pc[64] = "", pc2[64] = "";
	cr_assert_eq(sscanf(p2, "$1 = (void (*)()) 0x%63[0-9a-f]", pc), 1, "%s", p2);
	cr_assert_eq(sscanf(p3, "$2 = (void (*)()) 0x%63[0-9a-f]", pc2), 1, "%s", p3);
	cr_expect_str_eq(pc, pc2, "gdb's pc moved");
	cr_expect_str_neq(pc, "80000000", "the two stepi did not move the pc");
	char *reg = g_strdup_printf("pc       0x%016" G_GINT64_MODIFIER "x", (gint64)g_ascii_strtoull(pc, NULL, 16));
	HAS_ANY(r, reg);
	g_free(reg);
	test_cli_free(&r);
}

Test(gsp_cli, gdb_monitor_refuses_what_would_move_the_hart_behind_gdb)
{
	const char *cmds[] = { "print $pc", "monitor rpc init", "print $pc", "monitor info registers pc",
			       "monitor c", "monitor si 3", "monitor set $pc = 0x80000010",
			       "monitor rpc send GET_GSP_STATIC_INFO", "monitor info registers pc",
			       GDB_RPC_INIT, "print $pc", "monitor info registers pc", NULL };
	test_cli_out r = gdb_batch("gsp-fixture.elf", cmds);
	HAS(r, "$1 = (void (*)()) 0x80000000 <_start>");
	HAS_ANY(r, "error: 'monitor rpc init' would move the hart behind gdb's back (gdb keeps showing the "
		   "registers it read, the old pc): use 'monitor msgq init', then gdb's 'continue' (the firmware "
		   "initializes until it idles), then 'monitor rpc recv' for GSP_INIT_DONE");
	HAS_ANY(r, "error: 'monitor c' would move the hart behind gdb's back");
	HAS_ANY(r, "use gdb's 'continue'");
	HAS_ANY(r, "error: 'monitor si 3' would move the hart behind gdb's back");
	HAS_ANY(r, "use gdb's 'stepi'");
	HAS_ANY(r, "use gdb's 'set $REG = VALUE'");
	HAS_ANY(r, "use 'monitor rpc post NAME', then gdb's 'continue', then 'monitor rpc recv'");
	/* nothing ran: the debugger's pc is the one gdb shows */
	HAS(r, "$2 = (void (*)()) 0x80000000 <_start>");
	HASNT(r, "GSP_INIT_DONE received");
	const char *first = strstr(r.out, "pc       0x0000000080000000");
	const char *err_first = strstr(r.err, "pc       0x0000000080000000");
	cr_expect(first || err_first, "the debugger's pc moved:\n%s\n%s", r.out, r.err);
	HAS_ANY(r, "reply GSP_INIT_DONE(4097) sequence 0 seqNum 0");
	HAS(r, "$3 = (void (*)()) 0x8000018e <wait_for_host+10>");
	HAS_ANY(r, "pc       0x000000008000018e");
	test_cli_free(&r);
}

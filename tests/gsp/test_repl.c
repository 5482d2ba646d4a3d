/* SPDX-License-Identifier: MIT */
/* The REPL engine alone (no Unicorn): batch lines, scripts, completion. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chainsim/repl.h"

static const char *const cmds[] = { "break", "backtrace", "continue", "call", NULL };

static cs_status exec_cb(void *ctx, const char *line, FILE *out, cs_diag *d)
{
	int *calls = ctx;
	(*calls)++;
	if (!strcmp(line, "fail")) {
		cs_diag_set(d, CS_ERR_INPUT, "this command fails");
		return CS_ERR_INPUT;
	}
	fprintf(out, "ran [%s]\n", line);
	return CS_OK;
}

static const char *words_cb(void *ctx, size_t i)
{
	(void)ctx;
	static const char *const w[] = { "main", "msg_checksum", "busy_loop", NULL };
	return w[i];
}

static void add(const char *w, void *arg)
{
	g_string_append_printf(arg, "%s,", w);
}

Test(gsp_repl, lines_scripts_completion)
{
	int calls = 0;
	cs_repl_config cfg = { "test", "(t) ", cmds, words_cb, exec_cb, &calls, NULL, false };
	cs_repl *r = cs_repl_new(&cfg);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	bool quit = false;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_repl_line(r, "  # a comment", true, out, &quit, &d), CS_OK);
	cr_assert_eq(cs_repl_line(r, "echo hello there", true, out, &quit, &d), CS_OK);
	cr_assert_eq(cs_repl_line(r, "break main  \n", true, out, &quit, &d), CS_OK);
	cr_assert_eq(cs_repl_line(r, "fail", true, out, &quit, &d), CS_ERR_INPUT);
	cr_assert_str_eq(d.msg, "this command fails");
	cr_assert_not(quit);
	cr_assert_eq(cs_repl_line(r, "quit", true, out, &quit, &d), CS_OK);
	cr_assert(quit);
	fflush(out);
	cr_assert_str_eq(buf, "(t) echo hello there\nhello there\n(t) break main\nran [break main]\n(t) fail\n(t) quit\n");
	cr_assert_eq(calls, 2);

	/* a script stops at its first failing line and names it */
	char path[] = "/tmp/gsp-repl-XXXXXX";
	int fd = mkstemp(path);
	const char *text = "echo one\n\ncontinue\nfail\necho never\n";
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	cr_assert_eq(cs_repl_script(r, path, out, &d), CS_ERR_INPUT);
	cr_assert_eq(d.line, 4);
	cr_assert_str_eq(d.file, path);
	fclose(out);
	cr_assert_null(strstr(buf, "never"));
	free(buf);
	unlink(path);

	GString *g = g_string_new(NULL);
	cr_assert_eq(cs_repl_complete(r, "b", add, g), 2);
	cr_assert_str_eq(g->str, "break,backtrace,");
	g_string_truncate(g, 0);
	cr_assert_eq(cs_repl_complete(r, "  con", add, g), 1);
	cr_assert_str_eq(g->str, "continue,");
	g_string_truncate(g, 0);
	cr_assert_eq(cs_repl_complete(r, "break m", add, g), 2, "symbols after the command");
	cr_assert_str_eq(g->str, "main,msg_checksum,");
	cr_assert_eq(cs_repl_complete(r, "zz", NULL, NULL), 0);
	g_string_free(g, TRUE);
	cs_repl_free(r);
}

/* SPDX-License-Identifier: MIT */
/* The REPL engine: libedit line editing, history and completion for an
 * interactive session, and the same commands read from a script or given one
 * by one (batch mode), with stable output. Free of Unicorn: the GSP debugger
 * and the method-stream REPL both sit on it. */
#ifndef CHAINSIM_REPL_H
#define CHAINSIM_REPL_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "chainsim/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cs_repl cs_repl;

/* Runs one command line; errors are returned, not printed. */
typedef cs_status (*cs_repl_exec_fn)(void *ctx, const char *line, FILE *out, cs_diag *d);
/* Extra completion words after the first (e.g. symbols): the i-th, NULL at the end. */
typedef const char *(*cs_repl_word_fn)(void *ctx, size_t i);

typedef struct cs_repl_config {
	const char *prog;           /* libedit program name */
	const char *prompt;         /* "(gsp) " */
	const char *const *commands; /* NULL-terminated command names for completion and help */
	cs_repl_word_fn words;      /* may be NULL */
	cs_repl_exec_fn exec;
	void *ctx;
	const char *history_file;   /* may be NULL */
	bool own_help;              /* "help" goes to exec (per-command help) */
} cs_repl_config;

CS_API cs_repl *cs_repl_new(const cs_repl_config *cfg);
CS_API void cs_repl_free(cs_repl *r);

/* One line: blank lines and '#' comments are skipped, "echo TEXT" prints TEXT,
 * "quit"/"exit" set *quit. In batch mode the line is echoed after the prompt
 * first, so a transcript reads like the session. */
CS_API cs_status cs_repl_line(cs_repl *r, const char *line, bool echo, FILE *out, bool *quit,
		cs_diag *d);
/* Runs a script; stops at the first failing line, whose diag then names
 * path:line. */
CS_API cs_status cs_repl_script(cs_repl *r, const char *path, FILE *out, cs_diag *d);
/* Runs the commands given on the command line with -ex, in order, each echoed
 * as in batch mode; stops at the first failing one, whose diag then names it
 * as "-ex:N:1" (N counts the -ex options from 1), the way a script's line is
 * named. Both REPLs report an -ex error so. */
CS_API cs_status cs_repl_ex(cs_repl *r, const char *const *cmds, size_t n, FILE *out, bool *quit,
			    cs_diag *d);
/* Interactive session on the terminal (libedit); when stdin is not a
 * terminal, reads plain lines. Returns the number of failed commands. */
CS_API int cs_repl_interactive(cs_repl *r, FILE *out, FILE *err);
/* Completion candidates for `line` (the word at its end): calls emit for each. */
CS_API size_t cs_repl_complete(cs_repl *r, const char *line, void (*emit)(const char *word,
		void *arg),
			void *arg);

#ifdef __cplusplus
}
#endif

#endif

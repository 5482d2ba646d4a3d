/* SPDX-License-Identifier: MIT */
/* The chainsim CLI's subcommands, one file each. Each returns the process exit
 * status of docs/chain.md: 0 ok, 1 break or failed expect, 2 bad input or
 * usage, 3 backend not available, 4 internal error. */
#ifndef CHAINSIM_TOOLS_COMMANDS_H
#define CHAINSIM_TOOLS_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	CS_EXIT_OK = 0,
	CS_EXIT_BROKEN = 1,
	CS_EXIT_INPUT = 2,
	CS_EXIT_UNAVAILABLE = 3,
	CS_EXIT_INTERNAL = 4,
};

int cs_cmd_run(int argc, char **argv);     /* tools/cmd_run.c */
int cs_cmd_disasm(int argc, char **argv);  /* tools/cmd_disasm.c */
int cs_cmd_battery(int argc, char **argv); /* tools/cmd_battery.c */
int cs_cmd_gsp(int argc, char **argv);     /* tools/cmd_gsp.c (-Dgsp) */
int cs_cmd_repl(int argc, char **argv);    /* tools/cmd_repl.c, repl_stream.c */
int cs_cmd_export(int argc, char **argv);  /* tools/cmd_export.c */
/* tools/cmd_capture.c: run FILE.cap, given by its path, or as bytes already
 * read (bytes not NULL) from the file that path names */
typedef struct cs_run_capture_opts {
	bool json;
	const struct cs_run_opts *exec; /* the executor's options (chainsim/run.h) */
	const char *results_out; /* NULL: no results file */
} cs_run_capture_opts;
int cs_cmd_run_capture(const char *path, const uint8_t *bytes, size_t len,
		       const cs_run_capture_opts *o);
int cs_cmd_diff(int argc, char **argv);    /* tools/cmd_diff.c */
int cs_cmd_conform(int argc, char **argv); /* tools/cmd_conform.c */
int cs_cmd_reduce(int argc, char **argv);  /* tools/cmd_reduce.c */

#endif

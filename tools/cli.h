/* SPDX-License-Identifier: MIT */
/* What every chainsim command shares about its command line: getopt_long's
 * setup, the messages for a bad option, --version. */
#ifndef CHAINSIM_TOOLS_CLI_H
#define CHAINSIM_TOOLS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The long option every command takes besides its own; its getopt value. */
enum { CS_CLI_VERSION = 0x100 };
#define CS_CLI_VERSION_OPTION { "version", no_argument, NULL, CS_CLI_VERSION }

/* Before a command's getopt_long loop: start at argv[1], no messages from
 * getopt itself (the command prints its own, naming itself). */
void cs_cli_begin(void);

/* Prints "chainsim VERSION" on stdout; returns exit status 0. */
int cs_cli_version(void);

/* After getopt_long returned '?' (an unknown option, or a value where none is
 * taken) or ':' (a value missing; the option string must begin with ':'):
 * says which on stderr as "chainsim CMD: ...", prints the usage, returns 2. */
int cs_cli_bad_option(const char *cmd, int got, char **argv, void (*usage)(FILE *out));

/* This program's own path (/proc/self/exe) in buf; "" and false when it
 * cannot be read. The installed files beside it are found from there. */
bool cs_cli_self_path(char *buf, size_t len);

#endif

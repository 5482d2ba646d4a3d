/* SPDX-License-Identifier: MIT */
/* chainsim-hw: replay a capture on a GPU through an RM layer (hw/rm.h) and
 * record the observables into a results file (docs/capture.md). The command
 * line is shared by the real binary (hw/main.c) and the fake-RM one
 * (hwfake/main.c), so everything above the ioctl layer runs in CI. */
#ifndef CHAINSIM_HW_HW_H
#define CHAINSIM_HW_HW_H

#include "chainsim/capture.h"
#include "chainsim/results.h"
#include "rm.h"

enum {
	CS_HW_EXIT_OK = 0,          /* replayed to the end: every wait met, no channel error */
	CS_HW_EXIT_BROKEN = 1,      /* replayed to the end: a wait unmet or a channel error */
	CS_HW_EXIT_INPUT = 2,       /* bad capture or usage */
	CS_HW_EXIT_UNAVAILABLE = 3, /* no device, or a driver this layer does not know */
	CS_HW_EXIT_INTERNAL = 4,    /* an RM call failed, the overall timeout passed, or -o could not be written */
};

typedef struct cs_hw_limits {
	uint64_t wait_ns;   /* the most one wait polls before it is recorded unmet */
	uint64_t settle_ns; /* after a submission: the most to wait for GP_GET to reach GP_PUT */
	uint64_t total_ns;  /* the whole replay; past it the replay stops and cleans up */
} cs_hw_limits;

/* Replay c through ops/rm into res (initialized here). Returns an exit status
 * above; why says what failed. Every object allocated is freed before it
 * returns, whatever the path; a blocked SIGINT/SIGTERM/SIGHUP/SIGQUIT that
 * arrives is answered the same way and *signal_out set to it. */
int cs_hw_replay(const cs_capture *c, const cs_hw_rm_ops *ops, void *rm,
		 const cs_hw_limits *lim, cs_results *res, int *signal_out, char *why);

/* The command line: chainsim-hw CAPTURE -o RESULTS [--timeout S] [--wait-timeout S]. */
int cs_hw_main(int argc, char **argv, const cs_hw_rm_ops *ops, void *rm);

#endif

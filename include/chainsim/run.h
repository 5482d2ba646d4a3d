/* SPDX-License-Identifier: MIT */
/* One run of a scenario on a fresh simulated device with the executor's
 * options (sim/run.c): the device made and set up, the scenario executed, the
 * chain judged as asked. The commands and the reducer run scenarios through
 * it; the options are chainsim run's (docs/chain.md, "Executor options"). */
#ifndef CHAINSIM_RUN_H
#define CHAINSIM_RUN_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/device.h"
#include "chainsim/diag.h"
#include "chainsim/ptx.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The race detector as --races names it. */
typedef enum cs_run_races {
	CS_RUN_RACES_SHARED = 0, /* shared-memory races are findings */
	CS_RUN_RACES_GLOBAL,     /* global memory within the grid too */
	CS_RUN_RACES_ERROR,      /* a shared-memory race breaks stage 9 */
	CS_RUN_RACES_OFF,
} cs_run_races;

/* The executor's options; all zero is every default. */
typedef struct cs_run_opts {
	bool no_exec;             /* wire no executor: grids are dispatched, not executed */
	bool trace_methods;       /* record every executed method (CS_TRACE_ALL) */
	cs_ptx_approx approx;
	cs_run_races races;
	cs_ptx_schedule schedule;
	uint64_t schedule_seed;   /* CS_PTX_SCHEDULE_RANDOM's */
	unsigned threads;         /* host threads for a grid's CTAs; 0: one per core */
	uint64_t budget_instructions, budget_ns; /* the scenario's, in all; 0: the defaults */
} cs_run_opts;

/* A device for arch with the options o (NULL: the defaults) applied. NULL
 * with d set when it cannot be made. */
CS_API cs_device *cs_run_device(cs_arch arch, const cs_run_opts *o, cs_diag *d);

/* What cs_run_scenario judges after the scenario ran. */
typedef enum cs_run_judge {
	CS_RUN_JUDGE_NONE,   /* nothing: the caller reads the device */
	CS_RUN_JUDGE_ALWAYS, /* the chain, also of a run that stopped on an error */
	CS_RUN_JUDGE_WHOLE,  /* the chain of a run that ended and whose trace is whole */
} cs_run_judge;

typedef struct cs_run {
	cs_device *dev;    /* NULL when the device could not be made */
	cs_report *report; /* as judge asked; NULL there when out of memory */
	bool executed;     /* the scenario ran to its end */
} cs_run;

/* Makes s's device with o (NULL: the defaults), executes s on it and judges
 * as asked, into *r (cs_run_clear frees it; s stays the caller's). True when
 * the scenario ran to its end (and, for CS_RUN_JUDGE_WHOLE, the trace is
 * whole); false with d saying why: r->dev NULL when the device could not be
 * made. */
CS_API bool cs_run_scenario(cs_scenario *s, const cs_run_opts *o, cs_run_judge judge, cs_run *r,
			    cs_diag *d);
CS_API void cs_run_clear(cs_run *r);

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: MIT */
/* Two finished runs compared (sim/diff.c): their chains launch by launch and
 * stage by stage, their traces record by record within each stage, and the
 * first divergence. What produced the runs (two scenarios, one scenario under
 * two rewrites) does not matter: the diff reads only each device's trace and
 * its judged report. */
#ifndef CHAINSIM_DIFF_H
#define CHAINSIM_DIFF_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/device.h"
#include "chainsim/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One finished run: the device it ran on and the report judged from it. */
typedef struct cs_diff_run {
	const char *label;        /* shown as the run's name ("good.chain") */
	const cs_device *dev;
	const cs_report *report;
} cs_diff_run;

/* One side's record at the divergence. */
typedef struct cs_diff_point {
	bool present;             /* false: this run has no record there */
	size_t event;             /* index in the device's trace */
	cs_event ev;              /* the record (detail points into the device's trace) */
	char addr_name[CS_REGION_NAME_MAX + 32]; /* ev.addr as the scenario names it */
} cs_diff_point;

typedef struct cs_diff {
	bool diverged;
	/* Per stage (1..11): the overall chain's statuses, and whether the stage's
	 * records differ. */
	bool stage_differs[CS_STAGE_COUNT + 1];
	/* The first divergence: the lowest stage whose records differ (the chain is
	 * causal: what a stage does follows from the stages before it), at the
	 * first record of that stage that differs. Records are compared in trace
	 * order within their stage; addresses by the name the scenario gives them
	 * when both runs name them, else by value. */
	cs_stage stage;
	/* Stage 3's forwarding edits are matched by what they target (the name
	 * their detail opens with, in the same entry), not by position: edit is
	 * true when the divergence is one, index is then its position among its
	 * run's edits (A's, or B's when only B makes it), and field is "missing"
	 * (the run without a record makes no such edit), "edit" (the kinds of
	 * edit differ: a relocation against a copy), or the field that differs. */
	bool edit;
	size_t index;             /* the record's position among the stage's records */
	const char *field;        /* what differs: "kind", "value", "addr", "count", ... */
	cs_diff_point a, b;
	/* launches whose chains differ (first break stage or cause) */
	size_t launches_differ;
} cs_diff;

/* Compare two finished runs. Never fails on two well-formed runs. */
CS_API void cs_diff_runs(const cs_diff_run *a, const cs_diff_run *b, cs_diff *out);

/* The two chains side by side, each launch that differs, then the first
 * divergence with both records (docs/diff.md). */
CS_API void cs_diff_print_text(const cs_diff_run *a, const cs_diff_run *b, const cs_diff *df,
			       FILE *out);
/* The --json object (docs/json.md, "chainsim diff --json"), pretty printed,
 * NUL-terminated, malloc'd; NULL when out of memory. */
CS_API char *cs_diff_json(const cs_diff_run *a, const cs_diff_run *b, const cs_diff *df);

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: MIT */
/* Scenario reduction by delta debugging (sim/reduce.c, docs/reduce.md): shrink
 * a scenario's text to a small one that still breaks the way asked, or find
 * the fewest differences from a good scenario that reproduce a bad one's
 * break. Every candidate runs in this process on a fresh device; a candidate
 * that does not parse or stops on an error does not keep the property. */
#ifndef CHAINSIM_REDUCE_H
#define CHAINSIM_REDUCE_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>

#include "chainsim/cause.h"
#include "chainsim/diag.h"
#include "chainsim/run.h"
#include "chainsim/stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The property a candidate must keep: its overall chain's first break is at
 * stage (CS_STAGE_NONE: any stage) with cause (CS_CAUSE_NONE: any cause); at
 * least one of the two is set. */
typedef struct cs_reduce_goal {
	cs_stage stage;
	cs_cause cause;
	/* asked for less: any stage ("break any") or any cause ("cause any"). Without
	 * them, the part of the input's break a goal leaves out is kept as well: a
	 * reduction never slides to another bug that shares the named part. */
	bool any_stage, any_cause;
} cs_reduce_goal;

/* "break N" (N a stage number or name), "cause KEY" (cause.def), or both
 * ("break 7 cause no-schedule"); "any" for either asks for less. False with d
 * naming the bad word. */
CS_API bool cs_reduce_goal_parse(const char *text, cs_reduce_goal *goal, cs_diag *d);

/* The wall time a reduction may take in all, unless cs_reduce_opts says. */
#define CS_REDUCE_TIME_BUDGET_DEFAULT_NS (300ull * 1000 * 1000 * 1000)

typedef struct cs_reduce_opts {
	cs_reduce_goal goal;      /* cs_reduce_scenario only; between takes BAD's break */
	const char *name;         /* the input's name for diagnostics */
	const char *base_dir;     /* where the input's relative paths resolve; NULL = "." */
	/* where the output will live: relative `module` and `load` paths are
	 * rewritten to resolve from there; NULL = left as written */
	const char *out_dir;
	/* wall time the whole reduction may take (0: CS_REDUCE_TIME_BUDGET_DEFAULT_NS):
	 * no candidate starts past it, and a candidate's kernels get at most the
	 * time left. The input's own runs are not bounded by it. */
	uint64_t time_budget_ns;
	/* the executor's options every run takes; a candidate's kernels get at
	 * most the time left of time_budget_ns when that is less than their
	 * budget_ns */
	cs_run_opts run;
	/* called after every run: runs so far, lines the candidate kept */
	void (*progress)(void *ctx, size_t runs, size_t lines);
	void *progress_ctx;
} cs_reduce_opts;

typedef struct cs_reduce_result {
	bool held;                /* the input (or BAD) had the property; else nothing was reduced */
	cs_reduce_goal goal;      /* the property kept */
	char *text;               /* the reduced scenario, runnable as is; malloc'd */
	size_t runs;              /* simulator runs it took */
	/* the time budget ran out: text keeps the property, but a smaller
	 * scenario may too (the candidate the budget cut short is not taken) */
	bool budget_reached;
	uint64_t time_budget_ns;  /* the budget it ran under */
	size_t units_before, units_after; /* lines (or, between, differences) */
	/* between: the differences kept, one line each ("good.chain:17: - inc 1 ...",
	 * "bad.chain:9: + ..."); malloc'd, NULL otherwise */
	char *differences;
} cs_reduce_result;

/* Shrink text (a scenario) by ddmin over its lines in phases: methods (push
 * lines), rewrite lines, entries (gpfifo, gpfifo-raw, submit, wait), data
 * (data, fill, load, random), then the rest (alloc, qmd, module, channel, map,
 * whole push and rewrite blocks),
 * repeated until a round removes nothing. Comments and expect lines are
 * dropped; the goal's own expect lines end the output. False with d set only
 * for bad input (text that does not parse or stops on an error while it runs,
 * a goal with neither part). */
CS_API bool cs_reduce_scenario(const char *text, size_t len, const cs_reduce_opts *o,
			       cs_reduce_result *out, cs_diag *d);

/* The fewest line differences from good (a line diff of the two, comments,
 * blank and expect lines aside) that reproduce bad's break, stage and cause.
 * Candidates run from o->base_dir (good's directory). False with d set when
 * either input does not parse or stops on an error.
 * held is false when bad does not break (goal.stage is then CS_STAGE_NONE),
 * when good already breaks that way (units_before 0), or when bad's lines,
 * resolved from o->base_dir, do not break the way bad did. */
CS_API bool cs_reduce_between(const char *good, size_t good_len, const char *good_name,
			      const char *bad, size_t bad_len, const char *bad_name,
			      const cs_reduce_opts *o, cs_reduce_result *out, cs_diag *d);

CS_API void cs_reduce_result_clear(cs_reduce_result *r);

#ifdef __cplusplus
}
#endif

#endif

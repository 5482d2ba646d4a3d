/* SPDX-License-Identifier: MIT */
/* chainsim conform: the conformance runner's shared types. The runner
 * (cmd_conform.c) selects and runs cases; conform_results.c writes and reads
 * their results (JSON, JUnit XML) and merges shards. */
#ifndef CHAINSIM_TOOLS_CONFORM_H
#define CHAINSIM_TOOLS_CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum conform_outcome {
	CONFORM_PENDING = 0,
	CONFORM_PASS,
	CONFORM_FAIL,
	CONFORM_CRASHED,
	CONFORM_TIMEOUT,
	CONFORM_UNAVAILABLE,
	CONFORM_UNOBSERVABLE, /* every expectation held, but the chain was not judged to its
				 end (a grid stopped at its budget, code it cannot run) */
} conform_outcome;

/* A worker's answer for an unobservable case (beside the CS_EXIT_* statuses). */
enum { CONFORM_RC_UNOBSERVABLE = 5 };

enum { CONFORM_REASON_MAX = 768 };

typedef struct conform_case {
	char *path;
	conform_outcome outcome;
	int exit_code;      /* the case's status; -1 when a signal ended its worker */
	int signal;         /* the signal that ended it, 0 when none */
	double seconds;     /* wall time, from its worker taking the case to the answer */
	long peak_rss_kib;  /* its worker's peak resident set while it ran */
	char reason[CONFORM_REASON_MAX];
} conform_case;

typedef struct conform_summary {
	size_t cases, pass, fail, crashed, timeout, unavailable, unobservable;
} conform_summary;

/* Where a result came from: which slice of which selection. */
typedef struct conform_meta {
	const char *backend;
	unsigned shard_index, shard_count; /* 1-based K of N; 1/1 when unsharded */
	const char *filter;                /* NULL when none */
	char *const *selection;            /* every case the filter chose, before sharding */
	size_t nselection;
	bool allow_unavailable, allow_unobservable;
} conform_meta;

const char *conform_outcome_name(conform_outcome o);
conform_summary conform_summarize(const conform_case *cases, size_t n);
void conform_print_summary(FILE *out, const conform_summary *s);
/* 0 when the run is green, 1 when a case failed, crashed, timed out, was
 * unavailable or unobservable (each unless allowed), 3 when nothing could run
 * at all. */
int conform_exit_status(const conform_summary *s, bool allow_unavailable,
			bool allow_unobservable);

/* Writes text to path through path.tmp and a rename, so that a crash
 * mid-write leaves no file a merge could take for a finished shard. False
 * with errno-style text in err. */
bool conform_write_atomically(const char *path, const char *text, char *err, size_t errlen);

/* Both write to PATH.tmp and rename, so a reader never sees half a file.
 * False with errno-style text in err. */
bool conform_write_json(const char *path, const conform_meta *m, const conform_case *cases,
			size_t n, char *err, size_t errlen);
bool conform_write_junit(const char *path, const conform_case *cases, size_t n, char *err,
			 size_t errlen);

/* chainsim conform merge FILE...: each file read through the bounded reader
 * (- is standard input); NULL outputs are not written. */
typedef struct conform_merge_opts {
	const char *json_out, *junit_out;
	bool allow_unavailable, allow_unobservable;
} conform_merge_opts;
int conform_merge(const conform_merge_opts *o, char *const *files, size_t nfiles);

/* --costs FILE: each case's seconds, by path, from the runs that wrote it. */
typedef struct conform_costs conform_costs;
/* Reads path into *out (free it with conform_costs_free, also after a
 * failure); a path that does not exist holds no cost. False with the reason,
 * located (FILE:LINE), in err. */
bool conform_costs_read(const char *path, conform_costs **out, char *err, size_t errlen);
/* The order to take the n cases in, into order[n] (indices into cases): the
 * cases without a cost first, then the longest first; ties in the cases'
 * order. */
void conform_costs_order(const conform_costs *c, const conform_case *cases, size_t n,
			 uint32_t *order);
/* The costs of c, each case of this run given its seconds, written to path
 * (through path.tmp); the standard input's case is left out. */
bool conform_costs_write(const char *path, const conform_costs *c, const conform_case *cases,
			 size_t n, char *err, size_t errlen);
void conform_costs_free(conform_costs *c);

#endif

/* SPDX-License-Identifier: MIT */
/* Results files: the observables one replay of a capture produced, on the
 * simulator or on a GPU (docs/capture.md, "Results"). A text format, one
 * record a line; the codec (sim/capture/results.c) is libc only, for chainsim-hw. */
#ifndef CHAINSIM_RESULTS_H
#define CHAINSIM_RESULTS_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CS_RESULTS_VERSION = 1, CS_RESULTS_NOT_OBSERVABLE = -1 };

typedef enum cs_results_kind {
	CS_RES_SUBMIT = 1, /* a: channel, b: GP_PUT written, c: GP_GET after (or -1), ns */
	CS_RES_WAIT,       /* va, a: width, b: wanted, c: seen, met */
	CS_RES_ERROR,      /* a: channel, b: RC code */
	CS_RES_READ,       /* va, a: length, b: read-back kind, bytes (NULL: not mapped) */
} cs_results_kind;

typedef struct cs_results_rec {
	cs_results_kind kind;
	uint64_t va;
	uint64_t a, b;
	int64_t c;
	uint64_t ns;
	bool met;
	uint8_t *bytes;
	uint32_t line; /* where it was read from, 0 when built */
} cs_results_rec;

typedef struct cs_results {
	char backend[64];       /* "sim", "fake-rm", "nvidia" */
	char driver[64];        /* the driver version, "-" when none */
	uint32_t capture_crc;   /* the capture replayed (cs_capture.crc) */
	unsigned arch_code;     /* cs_capture_arch_code */
	uint32_t ran;           /* submissions that reached the device; 0 = nothing ran */
	cs_results_rec *recs;
	size_t nrecs, cap;
} cs_results;

CS_API void cs_results_init(cs_results *r, const char *backend, const char *driver, uint32_t crc,
		     unsigned arch_code);
CS_API void cs_results_clear(cs_results *r);
/* Append; bytes (READ) are copied. False on out of memory. */
CS_API bool cs_results_add(cs_results *r, const cs_results_rec *rec, const uint8_t *bytes);
CS_API bool cs_results_write(const cs_results *r, FILE *out);
/* Parse a results file; NULL-free: false with d set (file:line) on bad input. */
CS_API bool cs_results_load(const char *path, cs_results *r, cs_diag *d);

#ifdef __cplusplus
}
#endif

#endif

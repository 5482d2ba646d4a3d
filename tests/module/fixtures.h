/* SPDX-License-Identifier: MIT */
/* Helpers shared by the module tests: fixture paths and file reading. */
#ifndef CHAINSIM_TESTS_MODULE_FIXTURES_H
#define CHAINSIM_TESTS_MODULE_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"

/* $CHAINSIM_SOURCE_ROOT/fixtures/kernels/out/<name> (static buffer per call site
 * is not used: the result is malloc'd, free it). */
char *fx_path(const char *name);
/* Whole file; NULL when it cannot be read. */
uint8_t *fx_read(const char *path, size_t *len);
uint8_t *fx_read_fixture(const char *name, size_t *len);

/* The kernel sources and the SMs the fixtures are built for. */
extern const char *const fx_sources[];
extern const size_t fx_nsources;
extern const unsigned fx_sms[];
extern const size_t fx_nsms;
cs_arch fx_arch_for_sm(unsigned sm);

#endif

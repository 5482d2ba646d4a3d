/* SPDX-License-Identifier: MIT */
/* Helpers shared by the module tests: the fixture kernels they load (paths
 * and reading: tests/common/source.h). */
#ifndef CHAINSIM_TESTS_MODULE_FIXTURES_H
#define CHAINSIM_TESTS_MODULE_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h> /* g_free for tests/common/source.h's paths */

#include "chainsim/arch.h"
#include "source.h"

/* The kernel sources and the SMs the fixtures are built for. */
extern const char *const fx_sources[];
extern const size_t fx_nsources;
extern const unsigned fx_sms[];
extern const size_t fx_nsms;
cs_arch fx_arch_for_sm(unsigned sm);

#endif

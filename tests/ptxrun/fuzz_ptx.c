/* SPDX-License-Identifier: MIT */
/* libFuzzer entry point for the PTX parser (built only with clang). */
#include <stddef.h>
#include <stdint.h>

#include "chainsim/ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse((const char *)data, size, "fuzz.ptx", &d);
	cs_ptx_program_free(p);
	return 0;
}

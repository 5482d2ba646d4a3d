/* SPDX-License-Identifier: MIT */
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fx_sources[] = { "vadd", "matmul", "softmax", "attention", "ffn", "reduce",
				   "bounds", "local", "noparams", "mixed", "bf16", "warpsize",
				   "intops", "halfatomic", "structparam", "approx", "deviceio",
				   "racy", "tensorcore", "idioms", "wmma", "tcgemm", "warpmask", "cubblock",
				   "asyncbar", "coopgrid", "cubload" };
const size_t fx_nsources = sizeof(fx_sources) / sizeof(fx_sources[0]);
const unsigned fx_sms[] = { 80, 90, 100 };
const size_t fx_nsms = sizeof(fx_sms) / sizeof(fx_sms[0]);

cs_arch fx_arch_for_sm(unsigned sm)
{
	return sm == 80 ? CS_ARCH_AMPERE : sm == 90 ? CS_ARCH_HOPPER : CS_ARCH_BLACKWELL;
}

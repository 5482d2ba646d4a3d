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

char *fx_path(const char *name)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	if (!root)
		root = ".";
	size_t n = strlen(root) + strlen(name) + 32;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/fixtures/kernels/out/%s", root, name);
	return p;
}

uint8_t *fx_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0) {
		fclose(f);
		return NULL;
	}
	long sz = ftell(f);
	if (sz < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return NULL;
	}
	uint8_t *b = malloc((size_t)sz + 1);
	if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b)
		*len = (size_t)sz;
	return b;
}

uint8_t *fx_read_fixture(const char *name, size_t *len)
{
	char *p = fx_path(name);
	uint8_t *b = p ? fx_read(p, len) : NULL;
	free(p);
	return b;
}

/* SPDX-License-Identifier: MIT */
/* libFuzzer entry point for the ELF loader (built only with clang). */
#include <stddef.h>
#include <stdint.h>

#include "chainsim/gsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cs_gsp_image *img = NULL;
	if (cs_gsp_image_from_elf(data, size, "fuzz", &img, NULL) == CS_OK)
		cs_gsp_image_free(img);
	return 0;
}

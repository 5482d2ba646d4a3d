/* SPDX-License-Identifier: MIT */
/* libFuzzer: bytes written to a file and loaded through the real reader
 * (cs_file_read via cs_module_load_file): cubins, fatbins, their zstd entries,
 * for every architecture. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "chainsim/ptxrun.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/chainsim-fuzz-module-%d.bin", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	static const cs_arch archs[] = { CS_ARCH_AMPERE, CS_ARCH_ADA, CS_ARCH_HOPPER,
					 CS_ARCH_BLACKWELL };
	for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++) {
		cs_diag d;
		cs_diag_clear(&d);
		cs_module *m = cs_module_load_file(path, archs[i], &d);
		if (m) {
			for (size_t k = 0; k < cs_module_kernel_count(m); k++)
				(void)cs_module_kernel(m, k);
			cs_module_free(m);
		}
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* libFuzzer entry point for the GDB packet parser (built only with clang). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "chainsim/gsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[CS_GDB_PACKET_MAX + 1];
	size_t off = 0;
	while (off < size) {
		size_t used = 0, olen = 0;
		if (cs_gdb_parse(data + off, size - off, &used, out, &olen, NULL) == CS_GDB_PKT_NONE || used == 0)
			break;
		if (used > size - off)
			abort();
		off += used;
	}
	return 0;
}

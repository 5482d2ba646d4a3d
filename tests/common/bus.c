/* SPDX-License-Identifier: MIT */
/* tests/common/bus.h */
#include "bus.h"

#include <stdlib.h>
#include <string.h>

void test_bus_init(test_bus *b, unsigned va_bits, cs_trace_level level)
{
	memset(b, 0, sizeof(*b));
	b->mem = cs_mem_new(va_bits);
	if (!b->mem)
		abort();
	test_trace_init(&b->trace, &b->now);
	b->bus.mem = cs_mem_port_of(b->mem);
	b->bus.trace = test_trace_sink(&b->trace, level);
	b->bus.now_ns = &b->now;
}

void test_bus_fini(test_bus *b)
{
	test_trace_fini(&b->trace);
	cs_mem_free(b->mem);
	b->mem = NULL;
}

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

static void access_or_abort(test_bus *b, uint64_t va, void *buf, size_t len, bool write)
{
	uint64_t fault_va;
	if (!(write ? cs_mem_write(b->mem, va, buf, len, &fault_va)
		    : cs_mem_read(b->mem, va, buf, len, &fault_va)))
		abort();
}

uint32_t test_bus_read32(test_bus *b, uint64_t va)
{
	uint32_t v = 0;
	access_or_abort(b, va, &v, 4, false);
	return v;
}

uint64_t test_bus_read64(test_bus *b, uint64_t va)
{
	uint64_t v = 0;
	access_or_abort(b, va, &v, 8, false);
	return v;
}

void test_bus_write32(test_bus *b, uint64_t va, uint32_t v)
{
	access_or_abort(b, va, &v, 4, true);
}

void test_bus_write64(test_bus *b, uint64_t va, uint64_t v)
{
	access_or_abort(b, va, &v, 8, true);
}

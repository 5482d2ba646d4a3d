/* SPDX-License-Identifier: MIT */
/* The one memory bus of the test suites: a real sparse VA space (sim/mem.c)
 * behind the memory port, the trace recorder behind the trace sink, and a
 * clock the test moves by hand. */
#ifndef CS_TESTS_BUS_H
#define CS_TESTS_BUS_H

#include "chainsim/mem.h"
#include "chainsim/ports.h"
#include "trace_rec.h"

typedef struct test_bus {
	cs_mem *mem;
	cs_bus bus;         /* what the module under test is given */
	uint64_t now;       /* the bus's clock, in ns */
	test_trace trace;   /* every record emitted on the bus */
} test_bus;

/* Wires b; it must not move afterwards (the bus points into it). Aborts when
 * the VA space cannot be had. */
void test_bus_init(test_bus *b, unsigned va_bits, cs_trace_level level);
void test_bus_fini(test_bus *b);

/* Memory on the bus by guest address; each aborts on an address that is not
 * mapped (a test's own mistake, not the module's). */
uint32_t test_bus_read32(test_bus *b, uint64_t va);
uint64_t test_bus_read64(test_bus *b, uint64_t va);
void test_bus_write32(test_bus *b, uint64_t va, uint32_t v);
void test_bus_write64(test_bus *b, uint64_t va, uint64_t v);

#endif

/* SPDX-License-Identifier: MIT */
/* Benchmarks of the live device, each against a baseline run in the same
 * process (these machines are noisy: only the ratios mean anything):
 *   BENCH name=live.kick     doorbell to idle for one entry of one method,
 *                            baseline the scenario path (gpfifo push + submit)
 *                            on the same stream; ratio = live cost / scenario cost
 *   BENCH name=live.methods  host methods per second through the live API,
 *                            baseline fe.methods (the front end alone on the same
 *                            stream); ratio = live rate / fe rate */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chainsim/device.h"
#include "chainsim/fe.h"
#include "chainsim/live.h"
#include "chainsim/pushbuf.h"

enum {
	ROUNDS = 5,
	KICKS = 20000,
	RING = 1024,
	STREAM_METHODS = 1u << 16, /* one entry: SET_REFERENCE, a host method with no record */
};

#define ARENA_VA 0x10000000ull
#define ARENA_BYTES (1u << 20)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const cs_diag *d)
{
	fprintf(stderr, "bench_live: %s: %s\n", what, d ? d->msg : "failed");
	exit(1);
}

/* n SET_REFERENCE methods, one header each (a method per two dwords, as the
 * scenario's streams are). */
static uint32_t *reference_stream(uint32_t n, uint32_t *ndw)
{
	uint32_t *w = malloc((size_t)n * 8);
	if (!w)
		die("out of memory", NULL);
	for (uint32_t i = 0; i < n; i++) {
		w[2 * i] = (1u << 29) | (1u << 16) | (CS_FE_M_SET_REFERENCE >> 2);
		w[2 * i + 1] = i;
	}
	*ndw = 2 * n;
	return w;
}

typedef struct live_client {
	cs_live *lv;
	uint8_t *mem;
	uint64_t ring, userd, pb;
	uint32_t put;
} live_client;

static void live_client_new(live_client *c, const uint32_t *dw, uint32_t ndw)
{
	cs_diag d;
	cs_live_config cfg = { .arch = CS_ARCH_HOPPER };
	c->lv = cs_live_new(&cfg, &d);
	c->mem = aligned_alloc(4096, ARENA_BYTES);
	if (!c->lv || !c->mem)
		die("live device", &d);
	memset(c->mem, 0, ARENA_BYTES);
	if (!cs_live_map(c->lv, c->mem, ARENA_BYTES, ARENA_VA, "arena", &d))
		die("map", &d);
	c->ring = ARENA_VA;
	c->userd = ARENA_VA + RING * 8;
	c->pb = ARENA_VA + 0x4000;
	if ((size_t)ndw * 4 > ARENA_BYTES - 0x4000)
		die("stream too long", NULL);
	memcpy(c->mem + 0x4000, dw, (size_t)ndw * 4);
	uint32_t ch;
	if (!cs_live_channel_new(c->lv, c->ring, RING, c->userd, 1, &ch, &d))
		die("channel", &d);
	c->put = 0;
}

static void live_kick(live_client *c, uint32_t ndw)
{
	cs_gp_entry ge = { .addr = c->pb, .length = ndw };
	uint32_t w[2];
	cs_gp_encode(&ge, &w[0], &w[1]);
	memcpy(c->mem + (c->ring - ARENA_VA) + 8u * c->put, w, 8);
	c->put = (c->put + 1) % RING;
	memcpy(c->mem + (c->userd - ARENA_VA) + CS_USERD_GP_PUT, &c->put, 4);
	cs_diag d;
	if (!cs_live_doorbell(c->lv, 1, &d))
		die("doorbell", &d);
	cs_live_run(c->lv, 0);
}

static void live_client_free(live_client *c)
{
	cs_live_free(c->lv);
	free(c->mem);
}

/* live.kick: KICKS doorbells of one one-method entry, each run to idle. */
static double kick_live(void)
{
	uint32_t ndw;
	uint32_t *dw = reference_stream(1, &ndw);
	double best = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		live_client c;
		live_client_new(&c, dw, ndw);
		double t0 = now_s();
		for (int k = 0; k < KICKS; k++)
			live_kick(&c, ndw);
		double t = now_s() - t0;
		cs_live_counters n;
		cs_live_counters_get(c.lv, &n);
		if (n.methods != KICKS)
			die("live.kick ran the wrong number of methods", NULL);
		live_client_free(&c);
		best = t < best ? t : best;
	}
	free(dw);
	return best / KICKS;
}

/* The scenario path on the same stream: push the entry, submit (which runs). */
static double kick_scenario(void)
{
	uint32_t ndw;
	uint32_t *dw = reference_stream(1, &ndw);
	double best = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		cs_diag d;
		cs_device_config cfg = { .arch = CS_ARCH_HOPPER, .trace_ring = true,
					 .trace_max_records = CS_LIVE_TRACE_WINDOW };
		cs_device *dev = cs_device_new(&cfg, &d);
		uint64_t pb;
		if (!dev || !cs_mem_alloc(cs_device_mem(dev), "pb", (uint64_t)ndw * 4, 4096, &pb, &d) ||
		    !cs_mem_write(cs_device_mem(dev), pb, dw, (size_t)ndw * 4, NULL))
			die("scenario device", &d);
		cs_gp_entry ge = { .addr = pb, .length = ndw };
		uint32_t w[2];
		cs_gp_encode(&ge, &w[0], &w[1]);
		double t0 = now_s();
		for (int k = 0; k < KICKS; k++)
			if (!cs_device_gpfifo_push(dev, 0, w[0], w[1], &d) || !cs_device_submit(dev, 0, &d))
				die("submit", &d);
		double t = now_s() - t0;
		cs_fe_counters c = cs_fe_counters_total(cs_device_fe(dev));
		if (c.methods != KICKS)
			die("the scenario path ran the wrong number of methods", NULL);
		cs_device_free(dev);
		best = t < best ? t : best;
	}
	free(dw);
	return best / KICKS;
}

/* fe.methods: the front end alone, its engine port empty (host methods only). */
static double methods_fe(const uint32_t *dw, uint32_t ndw)
{
	double best = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		cs_mem *mem = cs_mem_new(57);
		uint64_t now = 0;
		cs_bus bus = { .mem = cs_mem_port_of(mem), .now_ns = &now };
		cs_fe *fe = cs_fe_new(CS_ARCH_HOPPER, &bus, NULL);
		cs_diag d;
		uint32_t ch;
		if (!fe || !cs_mem_map(mem, "ring", ARENA_VA, RING * 8, &d) ||
		    !cs_mem_map(mem, "userd", ARENA_VA + RING * 8, 4096, &d) ||
		    !cs_mem_map(mem, "pb", ARENA_VA + 0x4000, (uint64_t)ndw * 4, &d) ||
		    !cs_mem_write(mem, ARENA_VA + 0x4000, dw, (size_t)ndw * 4, NULL) ||
		    !cs_fe_channel_new(fe, ARENA_VA, RING, ARENA_VA + RING * 8, &ch, &d))
			die("fe", &d);
		cs_gp_entry ge = { .addr = ARENA_VA + 0x4000, .length = ndw };
		uint32_t w[2], put = 1;
		cs_gp_encode(&ge, &w[0], &w[1]);
		cs_mem_write(mem, ARENA_VA, w, 8, NULL);
		double t0 = now_s();
		cs_mem_write(mem, ARENA_VA + RING * 8 + CS_USERD_GP_PUT, &put, 4, NULL);
		cs_fe_doorbell(fe, ch);
		cs_fe_run(fe, 0);
		double t = now_s() - t0;
		if (cs_fe_counters_total(fe).methods != ndw / 2)
			die("the front end ran the wrong number of methods", NULL);
		cs_fe_free(fe);
		cs_mem_free(mem);
		best = t < best ? t : best;
	}
	return (double)(ndw / 2) / best;
}

static double methods_live(const uint32_t *dw, uint32_t ndw)
{
	double best = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		live_client c;
		live_client_new(&c, dw, ndw);
		double t0 = now_s();
		live_kick(&c, ndw);
		double t = now_s() - t0;
		cs_live_counters n;
		cs_live_counters_get(c.lv, &n);
		if (n.methods != ndw / 2)
			die("the live device ran the wrong number of methods", NULL);
		live_client_free(&c);
		best = t < best ? t : best;
	}
	return (double)(ndw / 2) / best;
}

int main(void)
{
	double scenario = kick_scenario();
	double live = kick_live();
	printf("# best of %d rounds of %d kicks; host methods only (no engine work)\n", ROUNDS,
	       KICKS);
	printf("BENCH name=live.kick.scenario value=%.3f unit=us/kick baseline=live.kick.scenario "
	       "ratio=1.000\n", scenario * 1e6);
	printf("BENCH name=live.kick value=%.3f unit=us/kick baseline=live.kick.scenario "
	       "ratio=%.3f target<=1.2\n", live * 1e6, live / scenario);

	uint32_t ndw;
	uint32_t *dw = reference_stream(STREAM_METHODS, &ndw);
	double fe_rate = methods_fe(dw, ndw);
	double live_rate = methods_live(dw, ndw);
	free(dw);
	printf("BENCH name=fe.methods value=%.0f unit=methods/s baseline=fe.methods ratio=1.000\n",
	       fe_rate);
	printf("BENCH name=live.methods value=%.0f unit=methods/s baseline=fe.methods ratio=%.3f "
	       "target>=0.8\n", live_rate, live_rate / fe_rate);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* The host side of the GSP message queues in shared memory (OpenRM 535+:
 * open-gpu-kernel-modules src/common/shared/msgq; docs/hardware.md): the CPU writes the command queue and reads the status
 * queue; with swap RX each side's read position lives in the other queue's
 * header page. Everything the firmware writes is validated: a bad checksum,
 * sequence number, element count or cursor is an error, never absorbed.
 * The host rings QUEUE_HEAD(0) after posting and after consuming replies, so a
 * firmware that waits (wfi) for room in the status queue wakes up. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gsp_internal.h"

#define N CS_GSP_MSGQ_COUNT
#define ELEM CS_GSP_MSGQ_ELEM
#define HDR_VERSION 0x03000000u
#define SIGNATURE 0x43505256u
#define PENDING 0xFFFFFFFFu
#define ELEM_HDR 48u
#define RPC_HDR 32u

/* header fields */
#define Q_VERSION 0x00
#define Q_SIZE 0x04
#define Q_MSGSIZE 0x08
#define Q_MSGCOUNT 0x0C
#define Q_WRITE 0x10
#define Q_FLAGS 0x14
#define Q_RXHDR 0x18
#define Q_ENTRY 0x1C
#define Q_READ 0x20

static const struct {
	uint32_t fn;
	const char *name;
} rpc_names[] = {
	{ CS_GSP_RPC_GET_GSP_STATIC_INFO, "GET_GSP_STATIC_INFO" },
	{ CS_GSP_RPC_SET_SYSTEM_INFO, "SET_SYSTEM_INFO" },
	{ CS_GSP_RPC_SET_REGISTRY, "SET_REGISTRY" },
	{ CS_GSP_RPC_GSP_RM_CONTROL, "GSP_RM_CONTROL" },
	{ CS_GSP_RPC_GSP_RM_ALLOC, "GSP_RM_ALLOC" },
	{ CS_GSP_EVENT_INIT_DONE, "GSP_INIT_DONE" },
	{ CS_GSP_EVENT_RUN_CPU_SEQUENCER, "RUN_CPU_SEQUENCER" },
	{ CS_GSP_EVENT_LIBOS_PRINT, "LIBOS_PRINT" },
};

const char *cs_gsp_rpc_name(uint32_t fn)
{
	for (size_t i = 0; i < sizeof(rpc_names) / sizeof(rpc_names[0]); i++)
		if (rpc_names[i].fn == fn)
			return rpc_names[i].name;
	return "?";
}

const char *cs_gsp_rpc_known(size_t i, uint32_t *fn)
{
	for (size_t k = 0; k < sizeof(rpc_names) / sizeof(rpc_names[0]); k++) {
		if (rpc_names[k].fn >= CS_GSP_EVENT_INIT_DONE)
			continue;
		if (i-- == 0) {
			*fn = rpc_names[k].fn;
			return rpc_names[k].name;
		}
	}
	return NULL;
}

bool cs_gsp_rpc_lookup(const char *name, uint32_t *fn)
{
	for (size_t i = 0; i < sizeof(rpc_names) / sizeof(rpc_names[0]); i++)
		if (!g_ascii_strcasecmp(rpc_names[i].name, name)) {
			*fn = rpc_names[i].fn;
			return true;
		}
	char *end = NULL;
	unsigned long v = strtoul(name, &end, 0);
	if (end && end != name && !*end && v <= 0xFFFFFFFFul) {
		*fn = (uint32_t)v;
		return true;
	}
	return false;
}

static uint64_t cmd_page(const cs_gsp *m)
{
	return m->q.base + CS_GSP_MSGQ_CMD_OFF;
}

static uint64_t stat_page(const cs_gsp *m)
{
	return m->q.base + CS_GSP_MSGQ_STAT_OFF;
}

static uint32_t rd32(cs_gsp *m, uint64_t addr)
{
	uint32_t v = 0;
	uc_mem_read(m->uc, addr, &v, 4);
	return v;
}

static void wr32(cs_gsp *m, uint64_t addr, uint32_t v)
{
	uc_mem_write(m->uc, addr, &v, 4);
}

bool cs_gsp_msgq_cursor(cs_gsp *m, const char *name, uint64_t *addr)
{
	if (!m->q.ready)
		return false;
	if (!strcmp(name, "msgq.cmd.write"))
		*addr = cmd_page(m) + Q_WRITE;
	else if (!strcmp(name, "msgq.cmd.read"))
		*addr = stat_page(m) + Q_READ;
	else if (!strcmp(name, "msgq.stat.write"))
		*addr = stat_page(m) + Q_WRITE;
	else if (!strcmp(name, "msgq.stat.read"))
		*addr = cmd_page(m) + Q_READ;
	else
		return false;
	return true;
}

static const char *cursor_name(cs_gsp *m, uint64_t addr)
{
	static const char *const names[] = { "msgq.cmd.write", "msgq.cmd.read", "msgq.stat.write",
					     "msgq.stat.read" };
	for (size_t i = 0; i < 4; i++) {
		uint64_t a;
		if (cs_gsp_msgq_cursor(m, names[i], &a) && a == addr)
			return names[i];
	}
	return NULL;
}

static uint32_t checksum(const uint8_t *p, size_t len)
{
	uint64_t x = 0;
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		x ^= w;
	}
	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

/* The status-queue monitor: a write hook on the GSP's write pointer that
 * checks each advance against what the host has read. */
static void monitor_cb(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value,
		       void *user)
{
	(void)uc;
	(void)type;
	cs_gsp *m = user;
	if (!m->q.monitor || m->hit.set || m->watch_suppress || size != 4)
		return;
	uint32_t old = rd32(m, addr), nw = (uint32_t)value;
	uint32_t r = rd32(m, cmd_page(m) + Q_READ);
	if (nw >= N || old >= N || r >= N) {
		gsp_hit_from_mem(m, CS_GSP_STOP_DESYNC, 0, addr, size, true, value);
		snprintf(m->hit.detail, sizeof(m->hit.detail),
			 "status write pointer %u -> %u, host read position %u: a cursor is out of range (msgCount %u)",
			 old, nw, r, N);
		m->q.desynced = true;
		return;
	}
	uint32_t delta = (nw + N - old) % N;
	uint32_t unread = (old + N - r) % N;
	if (unread + delta > N - 1) {
		gsp_hit_from_mem(m, CS_GSP_STOP_DESYNC, 0, addr, size, true, value);
		snprintf(m->hit.detail, sizeof(m->hit.detail),
			 "status queue overrun: the GSP moved msgq.stat.write %u -> %u (%u elements) while %u "
			 "elements were unread (msgq.stat.read %u, room for %u)",
			 old, nw, delta, unread, r, N - 1 - unread);
		m->q.desynced = true;
	}
}

void gsp_msgq_arm_monitor(cs_gsp *m)
{
	if (m->q.mon_hook)
		return;
	uint64_t a = stat_page(m) + Q_WRITE;
	if (uc_hook_add(m->uc, &m->q.mon_hook, UC_HOOK_MEM_WRITE, GSP_CB(monitor_cb), m, a, a + 3) == UC_ERR_OK)
		gsp_mem_hook_added(m);
}

void cs_gsp_msgq_monitor(cs_gsp *m, bool on)
{
	m->q.monitor = on;
}

cs_status cs_gsp_msgq_init(cs_gsp *m, cs_diag *d)
{
	const cs_gsp_region *r = NULL;
	for (size_t i = 0; i < m->map.count; i++)
		if (m->map.region[i].kind == CS_GSP_SHARED) {
			r = &m->map.region[i];
			break;
		}
	if (!r) {
		cs_diag_set(d, CS_ERR_INPUT, "the memory map has no region of kind 'shared' for the message queues");
		return CS_ERR_INPUT;
	}
	return gsp_msgq_init_dma(m, r, r->base, d);
}

cs_status gsp_msgq_init_dma(cs_gsp *m, const cs_gsp_region *r, uint64_t dma_base, cs_diag *d)
{
	if (r->size < CS_GSP_MSGQ_SHARED_SIZE) {
		cs_diag_set(d, CS_ERR_INPUT, "shared region '%s' is 0x%" PRIx64 " bytes; the queues need 0x%x",
			    r->name, r->size, CS_GSP_MSGQ_SHARED_SIZE);
		return CS_ERR_INPUT;
	}
	uc_hook mon = m->q.mon_hook;
	memset(&m->q, 0, sizeof(m->q));
	m->q.mon_hook = mon;
	m->q.base = r->base;
	uint8_t *zero = calloc(1, CS_GSP_MSGQ_SHARED_SIZE);
	if (!zero)
		return CS_ERR_NOMEM;
	uc_mem_write(m->uc, r->base, zero, CS_GSP_MSGQ_SHARED_SIZE);
	free(zero);
	/* page-address table: one 64-bit address per page of the shared area */
	for (uint64_t i = 0; i < CS_GSP_MSGQ_SHARED_SIZE / ELEM; i++) {
		uint64_t pa = dma_base + i * ELEM;
		uc_mem_write(m->uc, r->base + i * 8, &pa, 8);
	}
	uint64_t c = r->base + CS_GSP_MSGQ_CMD_OFF;
	wr32(m, c + Q_VERSION, 0);
	wr32(m, c + Q_SIZE, 0x40000);
	wr32(m, c + Q_MSGSIZE, ELEM);
	wr32(m, c + Q_MSGCOUNT, N);
	wr32(m, c + Q_WRITE, 0);
	wr32(m, c + Q_FLAGS, 1);
	wr32(m, c + Q_RXHDR, 0x20);
	wr32(m, c + Q_ENTRY, ELEM);
	wr32(m, c + Q_READ, 0);
	m->q.rpc_seq = 1;
	m->q.ready = true;
	m->q.monitor = true;
	gsp_msgq_arm_monitor(m);
	return CS_OK;
}

static cs_status need_ready(cs_gsp *m, cs_diag *d)
{
	if (m->q.ready)
		return CS_OK;
	cs_diag_set(d, CS_ERR_INPUT, "message queues not initialized (msgq init)");
	return CS_ERR_INPUT;
}

cs_status cs_gsp_rpc_post(cs_gsp *m, uint32_t fn, const void *payload, uint32_t len,
			  uint32_t *sequence, cs_diag *d)
{
	if (need_ready(m, d) != CS_OK)
		return CS_ERR_INPUT;
	if (len > CS_GSP_MSGQ_MAX_PAYLOAD) {
		cs_diag_set(d, CS_ERR_INPUT, "payload of %u bytes (limit %u)", len, CS_GSP_MSGQ_MAX_PAYLOAD);
		return CS_ERR_INPUT;
	}
	if (m->q.outstanding >= GSP_OUTSTANDING_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "%u RPCs already outstanding", m->q.outstanding);
		return CS_ERR_INPUT;
	}
	uint32_t total = ELEM_HDR + RPC_HDR + len;
	uint32_t count = (total + ELEM - 1) / ELEM;
	uint32_t w = rd32(m, cmd_page(m) + Q_WRITE), r = rd32(m, stat_page(m) + Q_READ);
	if (w >= N || r >= N) {
		cs_diag_at_offset(d, CS_ERR_FAULT, "shared", CS_GSP_MSGQ_STAT_OFF + Q_READ,
				  "command queue cursors out of range: host write %u, GSP read %u (msgCount %u)", w, r, N);
		return CS_ERR_FAULT;
	}
	uint32_t room = (r + N - w - 1) % N;
	if (count > room) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "command queue full: the message needs %u elements, %u free (host write %u, GSP read %u)",
			    count, room, w, r);
		return CS_ERR_INPUT;
	}
	uint8_t *msg = calloc(count, ELEM);
	if (!msg)
		return CS_ERR_NOMEM;
	uint32_t hdr[4] = { 0, m->q.cmd_seq, count, 0 };
	memcpy(msg + 0x20, hdr, sizeof(hdr));
	uint32_t rpc[8] = { HDR_VERSION, SIGNATURE, RPC_HDR + len, fn, PENDING, 0, m->q.rpc_seq, 0 };
	memcpy(msg + ELEM_HDR, rpc, sizeof(rpc));
	if (len)
		memcpy(msg + ELEM_HDR + RPC_HDR, payload, len);
	uint32_t sum = checksum(msg, (total + 7u) & ~7u);
	memcpy(msg + 0x20, &sum, 4);
	for (uint32_t i = 0; i < count; i++)
		uc_mem_write(m->uc, cmd_page(m) + ELEM + (uint64_t)((w + i) % N) * ELEM, msg + (size_t)i * ELEM,
			     ELEM);
	free(msg);
	wr32(m, cmd_page(m) + Q_WRITE, (w + count) % N);
	if (sequence)
		*sequence = m->q.rpc_seq;
	m->q.out_seq[m->q.outstanding] = m->q.rpc_seq;
	m->q.out_fn[m->q.outstanding] = fn;
	m->q.outstanding++;
	m->q.rpc_seq++;
	m->q.cmd_seq++;
	cs_gsp_ring_doorbell(m, 0);
	return CS_OK;
}

uint32_t cs_gsp_rpc_outstanding(cs_gsp *m)
{
	return m->q.outstanding;
}

cs_status cs_gsp_rpc_receive(cs_gsp *m, cs_gsp_reply *rep, bool *got, cs_diag *d)
{
	*got = false;
	if (need_ready(m, d) != CS_OK)
		return CS_ERR_INPUT;
	uint32_t r = rd32(m, cmd_page(m) + Q_READ), w = rd32(m, stat_page(m) + Q_WRITE);
	if (w >= N) {
		cs_diag_at_offset(d, CS_ERR_FAULT, "shared", CS_GSP_MSGQ_STAT_OFF + Q_WRITE,
				  "status queue write pointer %u out of range (msgCount %u)", w, N);
		return CS_ERR_FAULT;
	}
	if (r >= N) {
		cs_diag_at_offset(d, CS_ERR_FAULT, "shared", CS_GSP_MSGQ_CMD_OFF + Q_READ,
				  "host read position %u out of range", r);
		return CS_ERR_FAULT;
	}
	if (r == w)
		return CS_OK;
	uint32_t avail = (w + N - r) % N;
	uint64_t off = CS_GSP_MSGQ_STAT_OFF + ELEM + (uint64_t)r * ELEM;
	uint32_t eh[4];
	uc_mem_read(m->uc, m->q.base + off + 0x20, eh, sizeof(eh));
	uint32_t seq = eh[1], count = eh[2];
	if (count == 0 || count > avail) {
		cs_diag_at_offset(d, CS_ERR_FAULT, "shared", off + 0x28,
				  "status element at slot %u: elemCount %u but %u elements are written (GSP write %u)",
				  r, count, avail, w);
		return CS_ERR_FAULT;
	}
	if (seq != m->q.stat_seq) {
		cs_diag_at_offset(d, CS_ERR_FAULT, "shared", off + 0x24,
				  "status element at slot %u: seqNum %u, expected %u: the status ring is desynchronized",
				  r, seq, m->q.stat_seq);
		return CS_ERR_FAULT;
	}
	uint8_t *msg = malloc((size_t)count * ELEM);
	if (!msg)
		return CS_ERR_NOMEM;
	for (uint32_t i = 0; i < count; i++)
		uc_mem_read(m->uc, stat_page(m) + ELEM + (uint64_t)((r + i) % N) * ELEM, msg + (size_t)i * ELEM,
			    ELEM);
	uint32_t rpc[8];
	memcpy(rpc, msg + ELEM_HDR, sizeof(rpc));
	cs_status st = CS_OK;
	if (rpc[0] != HDR_VERSION || rpc[1] != SIGNATURE) {
		cs_diag_at_offset(d, CS_ERR_FAULT, "shared", off + ELEM_HDR,
				  "status element at slot %u: RPC header version 0x%08x signature 0x%08x (expected 0x%08x, 0x%08x)",
				  r, rpc[0], rpc[1], HDR_VERSION, SIGNATURE);
		st = CS_ERR_FAULT;
	} else if (rpc[2] < RPC_HDR || (uint64_t)ELEM_HDR + rpc[2] > (uint64_t)count * ELEM ||
		   rpc[2] - RPC_HDR > sizeof(rep->payload)) {
		cs_diag_at_offset(d, CS_ERR_FAULT, "shared", off + ELEM_HDR + 8,
				  "status element at slot %u: RPC length %u does not fit %u elements", r, rpc[2], count);
		st = CS_ERR_FAULT;
	} else {
		uint32_t total = ELEM_HDR + rpc[2];
		uint32_t sum = checksum(msg, (total + 7u) & ~7u);
		if (sum != 0) {
			cs_diag_at_offset(d, CS_ERR_FAULT, "shared", off + 0x20,
					  "status element at slot %u (seq %u, %s): checksum residue 0x%08x, expected 0",
					  r, seq, cs_gsp_rpc_name(rpc[3]), sum);
			st = CS_ERR_FAULT;
		}
	}
	bool event = st == CS_OK && rpc[3] >= 0x1000;
	if (st == CS_OK && !event) {
		if (m->q.outstanding == 0) {
			cs_diag_at_offset(d, CS_ERR_FAULT, "shared", off + ELEM_HDR + 24,
					  "status element at slot %u: reply to %s sequence %u, but no RPC is outstanding",
					  r, cs_gsp_rpc_name(rpc[3]), rpc[6]);
			st = CS_ERR_FAULT;
		} else if (rpc[6] != m->q.out_seq[0] || rpc[3] != m->q.out_fn[0]) {
			cs_diag_at_offset(d, CS_ERR_FAULT, "shared", off + ELEM_HDR + 24,
					  "status element at slot %u: reply to %s sequence %u, expected %s sequence %u",
					  r, cs_gsp_rpc_name(rpc[3]), rpc[6], cs_gsp_rpc_name(m->q.out_fn[0]),
					  m->q.out_seq[0]);
			st = CS_ERR_FAULT;
		}
	}
	if (st != CS_OK) {
		free(msg);
		return st;
	}
	if (!event) {
		memmove(m->q.out_seq, m->q.out_seq + 1, (m->q.outstanding - 1) * sizeof(uint32_t));
		memmove(m->q.out_fn, m->q.out_fn + 1, (m->q.outstanding - 1) * sizeof(uint32_t));
		m->q.outstanding--;
	} else if (rpc[3] == CS_GSP_EVENT_INIT_DONE)
		m->q.init_done = true;
	rep->function = rpc[3];
	rep->result = rpc[4];
	rep->sequence = rpc[6];
	rep->seq_num = seq;
	rep->elems = count;
	rep->payload_len = rpc[2] - RPC_HDR;
	memcpy(rep->payload, msg + ELEM_HDR + RPC_HDR, rep->payload_len);
	free(msg);
	m->q.stat_seq++;
	wr32(m, cmd_page(m) + Q_READ, (r + count) % N);
	cs_gsp_ring_doorbell(m, 0);
	*got = true;
	return CS_OK;
}

static bool stop_is_final(const cs_gsp_stop *st)
{
	return st->reason != CS_GSP_STOP_IDLE && st->reason != CS_GSP_STOP_BUDGET;
}

cs_status cs_gsp_msgq_wait_init(cs_gsp *m, uint64_t budget, cs_gsp_stop *st, cs_diag *d)
{
	memset(st, 0, sizeof(*st));
	if (need_ready(m, d) != CS_OK)
		return CS_ERR_INPUT;
	cs_gsp_reply *rep = malloc(sizeof(*rep));
	if (!rep)
		return CS_ERR_NOMEM;
	cs_status s = CS_OK;
	for (int round = 0; round < 64 && !m->q.init_done; round++) {
		bool got = false;
		s = cs_gsp_rpc_receive(m, rep, &got, d);
		if (s != CS_OK || m->q.init_done)
			break;
		if (got)
			continue;
		s = gsp_run(m, budget, 0, false, st, d);
		if (s != CS_OK || stop_is_final(st))
			break;
		if (st->reason == CS_GSP_STOP_BUDGET) {
			bool g2 = false;
			s = cs_gsp_rpc_receive(m, rep, &g2, d);
			if (s == CS_OK && !m->q.init_done) {
				cs_diag_set(d, CS_ERR_FAULT, "no GSP_INIT_DONE within %" PRIu64 " instructions", budget);
				s = CS_ERR_FAULT;
			}
			break;
		}
	}
	free(rep);
	if (s == CS_OK && m->q.init_done)
		st->reason = CS_GSP_STOP_REPLY;
	else if (s == CS_OK && !stop_is_final(st)) {
		cs_diag_set(d, CS_ERR_FAULT, "the firmware went idle without sending GSP_INIT_DONE");
		s = CS_ERR_FAULT;
	}
	return s;
}

cs_status cs_gsp_rpc_call(cs_gsp *m, uint32_t fn, const void *payload, uint32_t len, uint64_t budget,
			  cs_gsp_reply *rep, cs_gsp_stop *st, cs_diag *d)
{
	memset(st, 0, sizeof(*st));
	uint32_t seq;
	cs_status s = cs_gsp_rpc_post(m, fn, payload, len, &seq, d);
	if (s != CS_OK)
		return s;
	for (int round = 0; round < 100000; round++) {
		bool got = false;
		s = cs_gsp_rpc_receive(m, rep, &got, d);
		if (s != CS_OK)
			return s;
		if (got) {
			if (rep->function < 0x1000 && rep->sequence == seq) {
				st->reason = CS_GSP_STOP_REPLY;
				st->pc = cs_gsp_pc(m);
				return CS_OK;
			}
			continue;
		}
		s = gsp_run(m, budget, 0, false, st, d);
		if (s != CS_OK || stop_is_final(st))
			return s;
		if (st->reason == CS_GSP_STOP_BUDGET || st->reason == CS_GSP_STOP_IDLE) {
			bool g2 = false;
			s = cs_gsp_rpc_receive(m, rep, &g2, d);
			if (s != CS_OK)
				return s;
			if (g2 && rep->function < 0x1000 && rep->sequence == seq) {
				st->reason = CS_GSP_STOP_REPLY;
				return CS_OK;
			}
			if (g2)
				continue;
			cs_diag_set(d, CS_ERR_FAULT, "no reply to %s (sequence %u): the firmware %s",
				    cs_gsp_rpc_name(fn), seq,
				    st->reason == CS_GSP_STOP_IDLE ? "went idle" : "ran out of its instruction budget");
			return CS_ERR_FAULT;
		}
	}
	cs_diag_set(d, CS_ERR_FAULT, "no reply to %s (sequence %u)", cs_gsp_rpc_name(fn), seq);
	return CS_ERR_FAULT;
}

static void print_queue(cs_gsp *m, FILE *out, bool is_cmd)
{
	uint64_t page = is_cmd ? cmd_page(m) : stat_page(m);
	uint32_t h[9];
	uc_mem_read(m->uc, page, h, sizeof(h));
	uint64_t wa = page + Q_WRITE;
	uint64_t ra = is_cmd ? stat_page(m) + Q_READ : cmd_page(m) + Q_READ;
	uint32_t w = rd32(m, wa), r = rd32(m, ra);
	fprintf(out, "%s queue @0x%" PRIx64 ": version %u size 0x%x msgSize 0x%x msgCount %u flags 0x%x rxHdrOff 0x%x entryOff 0x%x\n",
		is_cmd ? "command" : "status", page, h[0], h[1], h[2], h[3], h[5], h[6], h[7]);
	fprintf(out, "  %-16s %2u  @0x%" PRIx64 " (%s write pointer)\n", is_cmd ? "msgq.cmd.write" : "msgq.stat.write", w,
		wa, is_cmd ? "host" : "GSP");
	fprintf(out, "  %-16s %2u  @0x%" PRIx64 " (%s read position)\n", is_cmd ? "msgq.cmd.read" : "msgq.stat.read", r,
		ra, is_cmd ? "GSP" : "host");
	if (w >= N || r >= N) {
		fprintf(out, "  cursors out of range (msgCount %u)\n", N);
		return;
	}
	uint32_t avail = (w + N - r) % N;
	fprintf(out, "  pending: %u elements\n", avail);
	uint32_t at = r, expect = is_cmd ? 0 : m->q.stat_seq;
	for (uint32_t done = 0; done < avail;) {
		uint64_t ea = page + ELEM + (uint64_t)at * ELEM;
		uint32_t eh[4], rpc[8];
		uc_mem_read(m->uc, ea + 0x20, eh, sizeof(eh));
		uc_mem_read(m->uc, ea + ELEM_HDR, rpc, sizeof(rpc));
		uint32_t count = eh[2];
		bool sum_ok = false;
		if (count >= 1 && count <= avail - done && rpc[2] >= RPC_HDR &&
		    (uint64_t)ELEM_HDR + rpc[2] <= (uint64_t)count * ELEM) {
			uint8_t *msg = malloc((size_t)count * ELEM);
			if (msg) {
				for (uint32_t i = 0; i < count; i++)
					uc_mem_read(m->uc, page + ELEM + (uint64_t)((at + i) % N) * ELEM,
						    msg + (size_t)i * ELEM, ELEM);
				sum_ok = checksum(msg, (ELEM_HDR + rpc[2] + 7u) & ~7u) == 0;
				free(msg);
			}
		}
		fprintf(out, "    slot %2u: seqNum %u elems %u %s(%u) rpc seq %u result 0x%x length %u checksum %s",
			at, eh[1], count, cs_gsp_rpc_name(rpc[3]), rpc[3], rpc[6], rpc[4], rpc[2],
			sum_ok ? "ok" : "BAD");
		if (!is_cmd && eh[1] != expect)
			fprintf(out, " (host expects seqNum %u)", expect);
		fputc('\n', out);
		expect = eh[1] + 1;
		if (count == 0 || count > avail - done) {
			fprintf(out, "    slot %2u: elemCount %u does not fit the %u pending elements; stopping\n", at,
				count, avail - done);
			break;
		}
		done += count;
		at = (at + count) % N;
	}
}

void cs_gsp_msgq_print(cs_gsp *m, FILE *out)
{
	if (!m->q.ready) {
		fprintf(out, "message queues not initialized\n");
		return;
	}
	print_queue(m, out, true);
	print_queue(m, out, false);
	fprintf(out, "host: next command seqNum %u, next rpc sequence %u, expects status seqNum %u, %u outstanding",
		m->q.cmd_seq, m->q.rpc_seq, m->q.stat_seq, m->q.outstanding);
	for (uint32_t i = 0; i < m->q.outstanding && i < 8; i++)
		fprintf(out, "%s%s#%u", i ? ", " : " (", cs_gsp_rpc_name(m->q.out_fn[i]), m->q.out_seq[i]);
	if (m->q.outstanding > 8)
		fprintf(out, ", ...");
	fprintf(out, "%s; monitor %s%s\n", m->q.outstanding ? ")" : "", m->q.monitor ? "on" : "off",
		m->q.desynced ? ", DESYNC seen" : "");
	(void)cursor_name;
}

const char *gsp_msgq_cursor_name(cs_gsp *m, uint64_t addr)
{
	return cursor_name(m, addr);
}

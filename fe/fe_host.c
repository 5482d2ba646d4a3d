/* SPDX-License-Identifier: MIT */
/* The host class: methods below 0x100 on every subchannel (SET_OBJECT, NOP,
 * MEM_OP, SET_REFERENCE, WFI, semaphores). Semantics from clc56f.h; C86F and
 * C96F keep them (include/chainsim/hostclass.def; docs/hardware.md). */
#include "fe_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- semaphore arithmetic ------------------------------------------------ */

static uint64_t width_mask(bool is64) { return is64 ? UINT64_MAX : 0xffffffffull; }

/* A sign-extended view of a 32- or 64-bit value. */
static int64_t as_signed(uint64_t v, bool is64)
{
	return is64 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
}

bool fe_acquire_met(uint32_t op, uint64_t cur, uint64_t want, bool is64)
{
	uint64_t mask = width_mask(is64);
	cur &= mask;
	want &= mask;
	switch (op) {
	case CS_FE_SEM_ACQUIRE: return cur == want;
	case CS_FE_SEM_ACQ_STRICT_GEQ: return cur >= want;
	case CS_FE_SEM_ACQ_CIRC_GEQ: return as_signed((cur - want) & mask, is64) >= 0;
	case CS_FE_SEM_ACQ_AND: return (cur & want) != 0;
	case CS_FE_SEM_ACQ_NOR: return (~(cur | want) & mask) != 0;
	default: return false;
	}
}

/* SEMAPHORED_D.OPERATION's codes (one bit each) and the SEM_EXECUTE operation
 * each one runs as. */
static const struct {
	uint32_t code;
	cs_fe_sem_op op;
} semd_ops[] = {
	{ 1, CS_FE_SEM_ACQUIRE },      { 2, CS_FE_SEM_RELEASE },  { 4, CS_FE_SEM_ACQ_CIRC_GEQ },
	{ 8, CS_FE_SEM_ACQ_AND },      { 16, CS_FE_SEM_REDUCTION },
};

const char *fe_acquire_name(uint32_t op, bool legacy)
{
	if (!legacy)
		return cs_fe_sem_op_name(op);
	for (size_t i = 0; i < sizeof(semd_ops) / sizeof(semd_ops[0]); i++)
		if (semd_ops[i].op == op)
			return cs_fe_semd_op_name(semd_ops[i].code);
	return "?";
}

/* Each operation code and its name, SEM_EXECUTE's (0 to 6) or SEMAPHORED's
 * (one bit each), from the class table. */
static const char *sem_op_list(char *buf, size_t len, bool legacy)
{
	size_t n = 0;
	buf[0] = 0;
	unsigned count = legacy ? sizeof(semd_ops) / sizeof(semd_ops[0]) : CS_FE_SEM_REDUCTION + 1;
	for (unsigned i = 0; i < count && n < len; i++) {
		uint32_t code = legacy ? semd_ops[i].code : i;
		int k = snprintf(buf + n, len - n, "%s%u %s", i ? ", " : "", code,
				 legacy ? cs_fe_semd_op_name(code) : cs_fe_sem_op_name(code));
		n += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

const char *fe_acquire_relation(uint32_t op)
{
	switch (op) {
	case CS_FE_SEM_ACQUIRE: return "==";
	case CS_FE_SEM_ACQ_STRICT_GEQ: return ">=";
	case CS_FE_SEM_ACQ_CIRC_GEQ: return ">= (circular)";
	case CS_FE_SEM_ACQ_AND: return "having a bit in common with";
	case CS_FE_SEM_ACQ_NOR: return "having a zero bit in common with";
	default: return "?";
	}
}

/* The value a reduction leaves in memory (red <= CS_FE_RED_DEC). */
static uint64_t reduce(uint32_t red, bool is_signed, bool is64, uint64_t cur, uint64_t pay)
{
	uint64_t mask = width_mask(is64);
	cur &= mask;
	pay &= mask;
	int64_t sc = as_signed(cur, is64), sp = as_signed(pay, is64);
	bool less = is_signed ? sc < sp : cur < pay;
	bool greater = is_signed ? sc > sp : cur > pay;
	switch (red) {
	case CS_FE_RED_IMIN: return less ? cur : pay;
	case CS_FE_RED_IMAX: return greater ? cur : pay;
	case CS_FE_RED_IXOR: return cur ^ pay;
	case CS_FE_RED_IAND: return cur & pay;
	case CS_FE_RED_IOR: return cur | pay;
	case CS_FE_RED_IADD: return (cur + pay) & mask;
	case CS_FE_RED_INC: return !less ? 0 : (cur + 1) & mask;
	case CS_FE_RED_DEC: return (cur == 0 || greater) ? pay : (cur - 1) & mask;
	default: return cur;
	}
}

/* ---- records --------------------------------------------------------------- */

static void host_op(cs_fe *fe, fe_chan *c, const cs_pb_item *it, const cs_method_desc *md,
		    bool with_fields)
{
	if (!fe->tracing)
		return;
	cs_event ev = fe_item_event(fe, c, CS_EV_HOST_OP, CS_STAGE_FE_EXEC, it);
	if (with_fields) {
		int n = snprintf(fe->detail, sizeof(fe->detail), "%s ", md->name);
		if (n > 0 && (size_t)n < sizeof(fe->detail))
			cs_method_format_fields(md, it->data, fe->detail + n, sizeof(fe->detail) - (size_t)n);
		ev.detail = fe->detail;
	} else {
		ev.detail = md->name;
	}
	fe_emit(fe, &ev);
}

static void note_assumption(cs_fe *fe, fe_chan *c, const cs_pb_item *it, const char *text)
{
	cs_event ev = fe_item_event(fe, c, CS_EV_ASSUMPTION, CS_STAGE_FE_EXEC, it);
	ev.detail = text;
	fe_emit(fe, &ev);
}

/* ---- SET_OBJECT ------------------------------------------------------------- */

static fe_exec set_object(cs_fe *fe, fe_chan *c, const cs_pb_item *it)
{
	uint32_t cls = CS_FE_GET(set_object, NVCLASS, it->data);
	const char *arch = cs_arch_get(fe->arch)->name;
	char compute[96], copy[96];
	cs_class_list_for(fe->arch, CS_CLASS_COMPUTE, compute, sizeof(compute));
	cs_class_list_for(fe->arch, CS_CLASS_COPY, copy, sizeof(copy));
	cs_class_kind kind = cs_class_kind_of(cls);
	const char *name = cs_class_name(cls);
	if (kind == CS_CLASS_NONE) {
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_INPUT, it,
			"SET_OBJECT on subchannel %u: class 0x%04X is not a class chainsim knows; %s "
			"accepts compute %s and copy %s",
			it->subch, cls, arch, compute, copy);
		return FE_EXEC_STOP;
	}
	if (kind == CS_CLASS_HOST) {
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_INPUT, it,
			"SET_OBJECT on subchannel %u: class %04X (%s) is a host channel class, which "
			"is the channel itself and is never bound on a subchannel; %s accepts compute "
			"%s and copy %s",
			it->subch, cls, name, arch, compute, copy);
		return FE_EXEC_STOP;
	}
	if (!cs_class_valid_for(cls, fe->arch)) {
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_INPUT, it,
			"SET_OBJECT on subchannel %u: class %04X (%s) belongs to another generation and "
			"is not valid for %s; %s accepts compute %s and copy %s",
			it->subch, cls, name, arch, arch, compute, copy);
		return FE_EXEC_STOP;
	}
	if (kind == CS_CLASS_UNMODELLED) {
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_UNSUPPORTED, it,
			"SET_OBJECT on subchannel %u: class %04X (%s) is a real %s class that chainsim "
			"does not model; it models compute %s and copy %s",
			it->subch, cls, name, arch, compute, copy);
		return FE_EXEC_STOP;
	}
	if (fe->has_eng && fe->eng.bind) {
		cs_diag why;
		why.status = CS_OK;
		why.msg[0] = '\0';
		if (fe->eng.bind(fe->eng.ctx, c->id, it->subch, cls, &why) != CS_ENGINE_OK) {
			fe_stop(fe, c, CS_STAGE_FE_EXEC, why.status != CS_OK ? why.status : CS_ERR_INPUT,
				it, "SET_OBJECT on subchannel %u: the engine refused class %04X (%s): %s",
				it->subch, cls, name, why.msg[0] ? why.msg : "(no reason given)");
			return FE_EXEC_STOP;
		}
	}
	c->bound[it->subch] = cls;
	if (fe->tracing) {
		cs_event ev = fe_item_event(fe, c, CS_EV_BIND, CS_STAGE_FE_EXEC, it);
		ev.cls = cls;
		ev.detail = name;
		fe_emit(fe, &ev);
	}
	return FE_EXEC_OK;
}

/* ---- semaphores ------------------------------------------------------------ */

typedef struct sem_req {
	uint32_t op;        /* cs_fe_sem_op */
	uint64_t addr;
	uint64_t payload;
	bool is64, timestamp, is_signed, legacy;
	bool wfi;           /* RELEASE_WFI: the front end waits for idle before releasing */
	uint32_t red;
} sem_req;

static const char *sem_text(cs_fe *fe, const sem_req *q)
{
	if (!q->legacy && q->op != CS_FE_SEM_REDUCTION) {
		snprintf(fe->detail, sizeof(fe->detail), "SEM_EXECUTE operation=%s%s%s",
			 cs_fe_sem_op_name(q->op), q->is64 ? " payload_size=64BIT" : "",
			 q->timestamp ? " timestamp" : "");
		return fe->detail;
	}
	if (!q->legacy) {
		snprintf(fe->detail, sizeof(fe->detail),
			 "SEM_EXECUTE operation=%s reduction=%s %s%s%s",
			 cs_fe_sem_op_name(CS_FE_SEM_REDUCTION), cs_fe_red_op_name(q->red), q->is_signed ? "signed" : "unsigned",
			 q->is64 ? " payload_size=64BIT" : "", q->timestamp ? " timestamp" : "");
		return fe->detail;
	}
	if (q->op == CS_FE_SEM_REDUCTION)
		snprintf(fe->detail, sizeof(fe->detail), "SEMAPHORED operation=%s reduction=%s %s%s",
			 fe_acquire_name(CS_FE_SEM_REDUCTION, true), cs_fe_red_op_name(q->red),
			 q->is_signed ? "signed" : "unsigned",
			 q->timestamp ? " release_size=16BYTE" : "");
	else if (q->op == CS_FE_SEM_RELEASE)
		snprintf(fe->detail, sizeof(fe->detail), "SEMAPHORED operation=%s%s",
			 fe_acquire_name(CS_FE_SEM_RELEASE, true),
			 q->timestamp ? " release_size=16BYTE" : "");
	else
		snprintf(fe->detail, sizeof(fe->detail), "SEMAPHORED operation=%s%s",
			 fe_acquire_name(q->op, true),
			 q->op == CS_FE_SEM_ACQ_CIRC_GEQ ? " (compared as circular, assumed)" : "");
	return fe->detail;
}

static fe_exec sem_acquire(cs_fe *fe, fe_chan *c, const cs_pb_item *it, const sem_req *q)
{
	uint64_t cur = 0, fva;
	if (!fe_read(fe, q->addr, &cur, q->is64 ? 8 : 4, &fva)) {
		fe_fault(fe, c, CS_STAGE_FE_EXEC, it, fva, CS_ACCESS_READ, "semaphore acquire");
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_FAULT, it,
			"the semaphore acquire at 0x%" PRIx64 " faulted (0x%" PRIx64 " not mapped)",
			q->addr, fva);
		return FE_EXEC_STOP;
	}
	if (fe_acquire_met(q->op, cur, q->payload, q->is64)) {
		c->ctr.acquires++;
		if (fe->tracing) {
			cs_event ev = fe_item_event(fe, c, CS_EV_SEM_ACQUIRE, CS_STAGE_FE_EXEC, it);
			ev.addr = q->addr;
			ev.value = q->payload;
			ev.aux = q->op;
			ev.detail = sem_text(fe, q);
			fe_emit(fe, &ev);
		}
		return FE_EXEC_OK;
	}
	c->blocked = true;
	c->block_legacy = q->legacy;
	c->ctr.blocks++;
	c->block = (cs_fe_block_info){
		.addr = q->addr,
		.wanted = q->payload,
		.current = cur,
		.op = q->op,
		.is64 = q->is64,
		.gp_entry = c->slot,
		.method_index = c->method_index,
	};
	c->block_item = *it;
	if (fe->tracing) {
		cs_event ev = fe_item_event(fe, c, CS_EV_SEM_BLOCK, CS_STAGE_FE_EXEC, it);
		ev.addr = q->addr;
		ev.value = q->payload;
		ev.aux = cur;
		snprintf(fe->detail, sizeof(fe->detail),
			 "%s operation=%s waits for [0x%" PRIx64 "] %s 0x%" PRIx64 ", value is 0x%" PRIx64,
			 q->legacy ? "SEMAPHORED" : "SEM_EXECUTE", fe_acquire_name(q->op, q->legacy),
			 q->addr, fe_acquire_relation(q->op), q->payload, cur);
		ev.detail = fe->detail;
		fe_emit(fe, &ev);
	}
	return FE_EXEC_BLOCK;
}

static fe_exec sem_release(cs_fe *fe, fe_chan *c, const cs_pb_item *it, const sem_req *q)
{
	unsigned size = q->is64 ? 8 : 4;
	unsigned span = q->timestamp ? 16 : size;
	uint64_t fva;
	cs_access acc = q->op == CS_FE_SEM_REDUCTION ? CS_ACCESS_ATOMIC : CS_ACCESS_WRITE;
	if (q->addr + span < q->addr || !fe->bus->mem.mapped(fe->bus->mem.ctx, q->addr, span)) {
		fva = q->addr;
		for (unsigned i = 0; i < span; i++)
			if (!fe->bus->mem.mapped(fe->bus->mem.ctx, q->addr + i, 1)) {
				fva = q->addr + i;
				break;
			}
		fe_fault(fe, c, CS_STAGE_FE_EXEC, it, fva, acc,
			 q->op == CS_FE_SEM_REDUCTION ? "semaphore reduction" : "semaphore release");
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_FAULT, it,
			"the semaphore %s of %u bytes at 0x%" PRIx64 " faulted (0x%" PRIx64 " not mapped)",
			q->op == CS_FE_SEM_REDUCTION ? "reduction" : "release", span, q->addr, fva);
		return FE_EXEC_STOP;
	}
	uint64_t val = q->payload & width_mask(q->is64);
	if (q->op == CS_FE_SEM_REDUCTION) {
		uint64_t cur = 0;
		fe_read(fe, q->addr, &cur, size, &fva);
		val = reduce(q->red, q->is_signed, q->is64, cur, q->payload);
	}
	fe_write(fe, q->addr, &val, size, &fva);
	if (q->timestamp) {
		uint64_t ts = *fe->now;
		fe_write(fe, q->addr + 8, &ts, 8, &fva);
	}
	c->ctr.releases++;
	if (fe->tracing) {
		cs_event ev = fe_item_event(fe, c, CS_EV_SEM_RELEASE, CS_STAGE_FE_EXEC, it);
		ev.addr = q->addr;
		ev.value = val;
		ev.aux = span | (q->wfi ? CS_SEM_RELEASE_AFTER_WFI : 0);
		ev.detail = sem_text(fe, q);
		fe_emit(fe, &ev);
	}
	return FE_EXEC_OK;
}

static fe_exec sem_run(cs_fe *fe, fe_chan *c, const cs_pb_item *it, const sem_req *q)
{
	unsigned align = (q->is64 || q->timestamp) ? 8 : 4;
	if (q->addr & (align - 1)) {
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_INPUT, it,
			"%s: semaphore address 0x%" PRIx64 " is not %u-byte aligned (%s)",
			q->legacy ? "SEMAPHORED" : "SEM_EXECUTE", q->addr, align,
			q->is64 ? "64-bit payload" : "16-byte release with timestamp");
		return FE_EXEC_STOP;
	}
	if (q->op == CS_FE_SEM_RELEASE || q->op == CS_FE_SEM_REDUCTION)
		return sem_release(fe, c, it, q);
	return sem_acquire(fe, c, it, q);
}

static fe_exec sem_execute(cs_fe *fe, fe_chan *c, const cs_pb_item *it)
{
	uint32_t d = it->data;
	sem_req q = {
		.op = CS_FE_GET(sem_execute, OPERATION, d),
		.addr = c->sem_addr,
		.is64 = CS_FE_GET(sem_execute, PAYLOAD_SIZE, d),            /* 64BIT */
		.timestamp = CS_FE_GET(sem_execute, RELEASE_TIMESTAMP, d),
		.is_signed = CS_FE_GET(sem_execute, REDUCTION_FORMAT, d) == 0, /* SIGNED */
		.red = CS_FE_GET(sem_execute, REDUCTION, d),
		.wfi = CS_FE_GET(sem_execute, RELEASE_WFI, d),
	};
	q.payload = q.is64 ? ((uint64_t)c->payload_hi << 32) | c->payload_lo : c->payload_lo;
	if (q.op > CS_FE_SEM_REDUCTION) {
		char ops[128];
		fe_stop_for(fe, c, CS_STAGE_FE_EXEC, CS_CAUSE_SEM_OP_RESERVED, CS_ERR_INPUT, it,
			"SEM_EXECUTE operation %u is not defined (%s)", q.op,
			sem_op_list(ops, sizeof(ops), false));
		return FE_EXEC_STOP;
	}
	if (q.op == CS_FE_SEM_REDUCTION && q.red > CS_FE_RED_DEC) {
		fe_stop_for(fe, c, CS_STAGE_FE_EXEC, CS_CAUSE_SEM_OP_RESERVED, CS_ERR_INPUT, it,
			"SEM_EXECUTE reduction %u is not defined (0 IMIN .. 7 DEC)", q.red);
		return FE_EXEC_STOP;
	}
	if (!cs_class_has(fe->host_cls, CS_CF_SEM_OPS_PUBLIC) && q.op != CS_FE_SEM_ACQUIRE && q.op != CS_FE_SEM_RELEASE &&
	    !(c->assumed_semops & (1u << q.op))) {
		c->assumed_semops |= (uint8_t)(1u << q.op);
		snprintf(fe->detail, sizeof(fe->detail),
			 "SEM_EXECUTE operation=%s on %04X: its public header lists only %s and %s; "
			 "executed with clc56f.h's meaning",
			 cs_fe_sem_op_name(q.op), fe->host_cls, cs_fe_sem_op_name(CS_FE_SEM_ACQUIRE),
			 cs_fe_sem_op_name(CS_FE_SEM_RELEASE));
		note_assumption(fe, c, it, fe->detail);
	}
	return sem_run(fe, c, it, &q);
}

static fe_exec semaphored(cs_fe *fe, fe_chan *c, const cs_pb_item *it)
{
	uint32_t d = it->data;
	sem_req q = {
		.addr = c->legacy_addr,
		.payload = c->legacy_c,
		.timestamp = CS_FE_GET(semaphored, RELEASE_SIZE, d) == 0, /* 16BYTE */
		.is_signed = CS_FE_GET(semaphored, FORMAT, d) == 0,        /* SIGNED */
		.red = CS_FE_GET(semaphored, REDUCTION, d),
		.legacy = true,
		.wfi = CS_FE_GET(semaphored, RELEASE_WFI, d) == 0,         /* EN */
	};
	uint32_t op = CS_FE_GET(semaphored, OPERATION, d);
	size_t k = 0;
	while (k < sizeof(semd_ops) / sizeof(semd_ops[0]) && semd_ops[k].code != op)
		k++;
	if (k == sizeof(semd_ops) / sizeof(semd_ops[0])) {
		char ops[128];
		fe_stop_for(fe, c, CS_STAGE_FE_EXEC, CS_CAUSE_SEM_OP_RESERVED, CS_ERR_INPUT, it,
			"SEMAPHORED operation 0x%x is not one of %s", op,
			sem_op_list(ops, sizeof(ops), true));
		return FE_EXEC_STOP;
	}
	q.op = semd_ops[k].op;
	if (q.op != CS_FE_SEM_RELEASE && q.op != CS_FE_SEM_REDUCTION)
		q.timestamp = false; /* an acquire writes nothing */
	if (q.op == CS_FE_SEM_REDUCTION && q.red > CS_FE_RED_DEC) {
		fe_stop_for(fe, c, CS_STAGE_FE_EXEC, CS_CAUSE_SEM_OP_RESERVED, CS_ERR_INPUT, it,
			"SEMAPHORED reduction %u is not defined (0 MIN .. 7 DEC)", q.red);
		return FE_EXEC_STOP;
	}
	return sem_run(fe, c, it, &q);
}

/* ---- dispatch --------------------------------------------------------------- */

/* addr with the part a semaphore address method carries replaced by data's,
 * by the class table's field (its width differs per host class). */
static inline uint64_t addr_latch(const cs_method_desc *md, uint64_t addr, uint32_t data)
{
	return cs_field_addr_merge(cs_method_addr_field(md), addr, data);
}

fe_exec fe_host_method(cs_fe *fe, fe_chan *c, const cs_pb_item *it)
{
	uint32_t m = it->method;
	uint32_t slot = m >> 2;
	const cs_method_desc *md = fe->host_method[slot];
	c->ctr.host_methods++;
	if (!md) {
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_INPUT, it,
			"host method 0x%03x is not a method of %04X (%s, %s)", m, fe->host_cls,
			fe->host->name, fe->host->source);
		return FE_EXEC_STOP;
	}
	if (((fe->host_assumed >> slot) & 1u) && !((c->assumed_noted >> slot) & 1u)) {
		c->assumed_noted |= 1ull << slot;
		snprintf(fe->detail, sizeof(fe->detail),
			 "%s (0x%03x) is not in %04X's public header; executed with clc56f.h's offset "
			 "and meaning",
			 md->name, m, fe->host_cls);
		note_assumption(fe, c, it, fe->detail);
	}
	switch (m) {
	case CS_FE_M_SET_OBJECT:
		return set_object(fe, c, it);
	case CS_FE_M_ILLEGAL:
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_INPUT, it,
			"the ILLEGAL method (0x004, data 0x%08x) was executed", it->data);
		return FE_EXEC_STOP;
	case CS_FE_M_NOP:
		/* a NOP is evidence of nothing: recorded only with every method */
		if (fe->trace_all)
			host_op(fe, c, it, md, false);
		return FE_EXEC_OK;
	case CS_FE_M_NON_STALL_INTERRUPT:
	case CS_FE_M_FB_FLUSH:
		host_op(fe, c, it, md, false);
		return FE_EXEC_OK;
	case CS_FE_M_WFI:
	case CS_FE_M_YIELD:
	case CS_FE_M_CLEAR_FAULTED:
		host_op(fe, c, it, md, true);
		return FE_EXEC_OK;
	case CS_FE_M_MEM_OP_A:
	case CS_FE_M_MEM_OP_B:
	case CS_FE_M_MEM_OP_C:
	case CS_FE_M_MEM_OP_D:
		c->mem_op[(m - CS_FE_M_MEM_OP_A) >> 2] = it->data;
		host_op(fe, c, it, md, true);
		return FE_EXEC_OK;
	case CS_FE_M_SET_REFERENCE:
		c->reference = it->data;
		if (fe->trace_all) /* the value stays in the channel state */
			host_op(fe, c, it, md, false);
		return FE_EXEC_OK;
	case CS_FE_M_SEM_ADDR_LO:
	case CS_FE_M_SEM_ADDR_HI:
		c->sem_addr = addr_latch(md, c->sem_addr, it->data);
		return FE_EXEC_OK;
	case CS_FE_M_SEM_PAYLOAD_LO:
		c->payload_lo = it->data;
		return FE_EXEC_OK;
	case CS_FE_M_SEM_PAYLOAD_HI:
		c->payload_hi = it->data;
		return FE_EXEC_OK;
	case CS_FE_M_SEM_EXECUTE:
		return sem_execute(fe, c, it);
	case CS_FE_M_SEMAPHOREA:
	case CS_FE_M_SEMAPHOREB:
		c->legacy_addr = addr_latch(md, c->legacy_addr, it->data);
		return FE_EXEC_OK;
	case CS_FE_M_SEMAPHOREC:
		c->legacy_c = it->data;
		return FE_EXEC_OK;
	case CS_FE_M_SEMAPHORED:
		return semaphored(fe, c, it);
	default:
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_INTERNAL, it,
			"host method %s (0x%03x) is in the table but has no handler", md->name, m);
		return FE_EXEC_STOP;
	}
}

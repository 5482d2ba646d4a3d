/* SPDX-License-Identifier: MIT */
/* The M-mode monitor model: what answers an ecall that reaches M when the
 * firmware runs above a separation kernel of its own (NVIDIA's ships
 * encrypted and cannot run). SBI base and legacy shutdown as the SBI
 * specification defines them; NVIDIA's vendor extension as the firmware's own
 * use of it shows (docs/gsp.md, "The monitor model"). Every call is one line
 * of the --mmio-log stream. */
#include <inttypes.h>
#include <string.h>

#include "gsp_internal.h"

enum {
	SBI_EID_LEGACY_SHUTDOWN = 8,
	SBI_EID_BASE = 0x10,
	SBI_EID_NVIDIA = 0x090001EB,
};

/* SBI error codes */
enum {
	SBI_SUCCESS = 0,
	SBI_ERR_FAILED = -1,
	SBI_ERR_NOT_SUPPORTED = -2,
	SBI_ERR_INVALID_PARAM = -3,
};

/* NVIDIA's vendor functions, named by what the firmware's use shows */
enum {
	NV_FID_SWITCH = 0,
	NV_FID_REGISTER = 7,
	NV_FID_WINDOW_RANGE = 8,
	NV_FID_WINDOW = 9,
	NV_FID_MESSAGE_AREA = 10,
};

/* SBI specification version the model implements: 0.2, where the base
 * extension begins (major in bits 30:24, minor in 23:0). */
#define SBI_SPEC_VERSION 2u

typedef struct sbi_result {
	int64_t error;
	uint64_t value;
} sbi_result;

static sbi_result base_call(cs_gsp *m, uint64_t fid, uint64_t a0)
{
	switch (fid) {
	case 0: /* get_spec_version */
		return (sbi_result){ SBI_SUCCESS, SBI_SPEC_VERSION };
	case 1: /* get_impl_id: no public number names this monitor; 0 is BBL's, so the model says
		 * "not an implementation the registry knows" with the highest id */
		return (sbi_result){ SBI_SUCCESS, UINT32_MAX };
	case 2: /* get_impl_version */
		return (sbi_result){ SBI_SUCCESS, 0 };
	case 3: /* probe_extension */
		return (sbi_result){ SBI_SUCCESS, a0 == SBI_EID_BASE || a0 == SBI_EID_LEGACY_SHUTDOWN || a0 == SBI_EID_NVIDIA };
	case 4:
		return (sbi_result){ SBI_SUCCESS, gsp_csr(m, UC_RISCV_REG_MVENDORID) };
	case 5:
		return (sbi_result){ SBI_SUCCESS, gsp_csr(m, UC_RISCV_REG_MARCHID) };
	case 6:
		return (sbi_result){ SBI_SUCCESS, gsp_csr(m, UC_RISCV_REG_MIMPID) };
	default:
		return (sbi_result){ SBI_ERR_NOT_SUPPORTED, 0 };
	}
}

/* The S-mode CSRs a partition switch saves and restores. */
static const int partition_csrs[GSP_PARTITION_CSRS] = {
	UC_RISCV_REG_SATP, UC_RISCV_REG_STVEC, UC_RISCV_REG_SSCRATCH, UC_RISCV_REG_SEPC,
	UC_RISCV_REG_SCAUSE, UC_RISCV_REG_STVAL, UC_RISCV_REG_SSTATUS, UC_RISCV_REG_SIE,
};

/* FID 7, as the firmware uses it: a0 a partition number, a1 its entry; the
 * partition is entered there at every switch into it. */
static sbi_result register_partition(cs_gsp *m, const uint64_t *a)
{
	if (a[0] >= GSP_PARTITIONS_MAX)
		return (sbi_result){ SBI_ERR_INVALID_PARAM, 0 };
	gsp_partition *p = &m->mon.part[a[0]];
	p->registered = true;
	p->entry = a[1];
	memcpy(p->args, a + 2, sizeof(p->args));
	return (sbi_result){ SBI_SUCCESS, 0 };
}

/* FIDs 8 and 9, as the firmware uses them: a window of partition a0,
 * a4 base, a5 size, a3 access (1 R, 2 W, 4 X); a1 and a2 entry numbers. The
 * root calls 9 for power-of-two sizes and 8 for the others (two entries, a
 * range): the model keeps the window as given. */
static sbi_result grant_window(cs_gsp *m, const uint64_t *a)
{
	if (a[0] >= GSP_PARTITIONS_MAX)
		return (sbi_result){ SBI_ERR_INVALID_PARAM, 0 };
	gsp_partition *p = &m->mon.part[a[0]];
	if (p->nwindows == GSP_PMP_WINDOWS_MAX)
		return (sbi_result){ SBI_ERR_FAILED, 0 };
	p->window[p->nwindows++] = (gsp_pmp_window){ a[4], a[5], a[3], { a[1], a[2] } };
	return (sbi_result){ SBI_SUCCESS, 0 };
}

static sbi_result vendor_call(cs_gsp *m, uint64_t fid, const uint64_t *a)
{
	switch (fid) {
	case NV_FID_REGISTER:
		return register_partition(m, a);
	case NV_FID_WINDOW_RANGE:
	case NV_FID_WINDOW:
		return grant_window(m, a);
	case NV_FID_MESSAGE_AREA:
		/* the root gives it, while it onlines memory, the first 128 KiB of
		 * that memory (a0 base, a1 64, a2 0x20000): kept, not used */
		memcpy(m->mon.message_area, a, sizeof(m->mon.message_area));
		return (sbi_result){ SBI_SUCCESS, 0 };
	default:
		return (sbi_result){ SBI_ERR_NOT_SUPPORTED, 0 };
	}
}

/* Unicorn 2.0.1 has no time source behind the `time` CSR (its read is an
 * illegal instruction). Under the monitor model a read of it (csrr rd,
 * time) is answered as an M-mode SBI implementation emulates it: with the
 * model's virtual clock, which starts at 0 and advances GSP_TIME_STEP a read
 * (a model choice: no public source gives the GSP's timer rate). */
#define GSP_TIME_STEP 1000u

bool gsp_monitor_time(cs_gsp *m, uint32_t insn, uint64_t epc)
{
	unsigned f3 = (insn >> 12) & 7, csr = insn >> 20, rd = (insn >> 7) & 31, rs1 = (insn >> 15) & 31;
	if (!m->mon.on || (insn & 0x7F) != 0x73 || csr != 0xC01 || rs1 || (f3 != 2 && f3 != 3 && f3 != 6 && f3 != 7))
		return false;
	m->mon.time += GSP_TIME_STEP;
	if (m->unmodelled_log)
		fprintf(m->unmodelled_log, "time read = %" PRIu64 " by 0x%" PRIx64 "\n", m->mon.time, epc);
	if (rd)
		gsp_set_reg(m, UC_RISCV_REG_X0 + (int)rd, m->mon.time);
	gsp_set_reg(m, UC_RISCV_REG_PC, epc + 4);
	return true;
}

void cs_gsp_monitor_on(cs_gsp *m)
{
	m->mon.on = true;
}

static void log_call(cs_gsp *m, uint64_t eid, uint64_t fid, const uint64_t *a, sbi_result r)
{
	if (!m->unmodelled_log)
		return;
	fprintf(m->unmodelled_log,
		"sbi 0x%" PRIx64 " %" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
		" 0x%" PRIx64 " -> %" PRId64 " 0x%" PRIx64 "\n",
		eid, fid, a[0], a[1], a[2], a[3], a[4], a[5], r.error, r.value);
}

/* FID 0, as the firmware uses it: a5 the partition to enter, a0..a4 the
 * message. The call does not return: the target is entered at its
 * registered entry in S-mode with the message in a0..a4 and the caller's
 * number in a5, every other register zero; the caller's S-mode CSRs are
 * saved and the target's put back. */
static gsp_monitor_action switch_partition(cs_gsp *m, const uint64_t *a, uint64_t fid, cs_gsp_stop *st)
{
	uint64_t target = a[5];
	if (target >= GSP_PARTITIONS_MAX || !m->mon.part[target].registered) {
		sbi_result r = { SBI_ERR_INVALID_PARAM, 0 };
		log_call(m, SBI_EID_NVIDIA, fid, a, r);
		st->reason = CS_GSP_STOP_FAULT;
		st->pc = cs_gsp_pc(m);
		snprintf(st->detail, sizeof(st->detail),
			 "partition switch to %" PRIu64 ", which no FID 7 call registered", target);
		return GSP_MONITOR_STOP;
	}
	log_call(m, SBI_EID_NVIDIA, fid, a, (sbi_result){ SBI_SUCCESS, 0 });
	gsp_monitor *mon = &m->mon;
	gsp_partition *from = &mon->part[mon->current], *to = &mon->part[target];
	for (int i = 0; i < GSP_PARTITION_CSRS; i++)
		from->csr[i] = gsp_csr(m, partition_csrs[i]);
	from->saved = true;
	for (int i = 0; i < GSP_PARTITION_CSRS; i++)
		gsp_set_csr(m, partition_csrs[i], to->saved ? to->csr[i] : 0);
	for (int r = 1; r < 32; r++)
		gsp_set_reg(m, UC_RISCV_REG_X0 + r, 0);
	for (int i = 0; i < 5; i++)
		gsp_set_reg(m, UC_RISCV_REG_A0 + i, a[i]);
	gsp_set_reg(m, UC_RISCV_REG_A5, mon->current);
	if (m->unmodelled_log)
		fprintf(m->unmodelled_log, "partition switch %u -> %" PRIu64 "\n", mon->current, target);
	gsp_mpu_leave(m);
	mon->current = (unsigned)target;
	if (!gsp_mpu_enter(m, st->detail, sizeof(st->detail))) {
		st->reason = CS_GSP_STOP_FAULT;
		st->pc = to->entry;
		gsp_set_reg(m, UC_RISCV_REG_PC, to->entry);
		return GSP_MONITOR_STOP;
	}
	gsp_set_priv(m, GSP_PRIV_S);
	gsp_set_reg(m, UC_RISCV_REG_PC, to->entry);
	return GSP_MONITOR_RETURNED;
}

gsp_monitor_action gsp_monitor_ecall(cs_gsp *m, uint64_t cause, uint64_t epc, cs_gsp_stop *st)
{
	bool reaches_m = cause == 9 || (cause == 8 && !(gsp_csr(m, UC_RISCV_REG_MEDELEG) & (1u << 8)));
	if (!m->mon.on || !reaches_m)
		return GSP_MONITOR_NOT_MINE;
	uint64_t a[6];
	for (int i = 0; i < 6; i++)
		a[i] = gsp_reg(m, UC_RISCV_REG_A0 + i);
	uint64_t fid = gsp_reg(m, UC_RISCV_REG_A6), eid = gsp_reg(m, UC_RISCV_REG_A7);
	sbi_result r = { SBI_ERR_NOT_SUPPORTED, 0 };
	if (eid == SBI_EID_LEGACY_SHUTDOWN) {
		log_call(m, eid, fid, a, (sbi_result){ SBI_SUCCESS, 0 });
		gsp_set_reg(m, UC_RISCV_REG_PC, epc);
		st->reason = CS_GSP_STOP_SHUTDOWN;
		st->pc = epc;
		snprintf(st->detail, sizeof(st->detail), "the firmware called the monitor's shutdown (SBI EID 8)");
		return GSP_MONITOR_STOP;
	}
	if (eid == SBI_EID_BASE)
		r = base_call(m, fid, a[0]);
	if (eid == SBI_EID_NVIDIA) {
		if (fid == NV_FID_SWITCH)
			return switch_partition(m, a, fid, st);
		r = vendor_call(m, fid, a);
	}
	log_call(m, eid, fid, a, r);
	gsp_set_reg(m, UC_RISCV_REG_A0, (uint64_t)r.error);
	gsp_set_reg(m, UC_RISCV_REG_A1, r.value);
	gsp_set_reg(m, UC_RISCV_REG_PC, epc + 4);
	return GSP_MONITOR_RETURNED;
}

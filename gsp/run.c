/* SPDX-License-Identifier: MIT */
/* The GSP machine's run loop: continue, step, next, finish and calls, with
 * instruction budgets, one wall-clock guard per run, trap entry per the
 * privileged spec (Unicorn 2.0.1 has none), doorbell interrupts at
 * instruction boundaries, and the recovery of stops raised inside a memory
 * access (docs/gsp.md). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "gsp_internal.h"

#define INSN_WFI 0x10500073u
#define INSN_CEBREAK 0x9002u
#define MSTATUS_SIE (1ull << 1)
#define MSTATUS_MIE (1ull << 3)
#define MSTATUS_SPIE (1ull << 5)
#define MSTATUS_MPIE (1ull << 7)
#define MSTATUS_SPP (1ull << 8)
#define MSTATUS_MPP_SHIFT 11
#define MSTATUS_MPP (3ull << MSTATUS_MPP_SHIFT)
#define MIE_MEIE (1ull << 11)
#define CAUSE_INTERRUPT (1ull << 63)

/* ---- traps and interrupts ---- */

/* Takes a trap as the privileged spec says: to S when the hart is in U or S
 * and medeleg/mideleg delegates the cause, else to M; xEPC, xCAUSE, xTVAL;
 * xPP from the mode the trap came from, xPIE from xIE, xIE cleared; pc to
 * the vector (vectored mode for interrupts). False, with nothing changed,
 * when the vector is 0: the firmware has no handler yet. */
static bool trap_enter(cs_gsp *m, uint64_t cause, uint64_t epc, uint64_t tval)
{
	unsigned from = gsp_priv_raise(m);
	bool interrupt = cause & CAUSE_INTERRUPT;
	uint64_t code = cause & ~CAUSE_INTERRUPT;
	uint64_t deleg = gsp_reg(m, interrupt ? UC_RISCV_REG_MIDELEG : UC_RISCV_REG_MEDELEG);
	bool to_s = from != GSP_PRIV_M && code < 64 && ((deleg >> code) & 1);
	uint64_t tvec = gsp_reg(m, to_s ? UC_RISCV_REG_STVEC : UC_RISCV_REG_MTVEC);
	if (tvec == 0) {
		gsp_priv_lower(m, from);
		return false;
	}
	uint64_t ms = gsp_reg(m, UC_RISCV_REG_MSTATUS);
	if (to_s) {
		ms = (ms & ~(MSTATUS_SPIE | MSTATUS_SPP | MSTATUS_SIE)) | ((ms & MSTATUS_SIE) ? MSTATUS_SPIE : 0) |
		     (from == GSP_PRIV_S ? MSTATUS_SPP : 0);
		gsp_set_reg(m, UC_RISCV_REG_SEPC, epc);
		gsp_set_reg(m, UC_RISCV_REG_SCAUSE, cause);
		gsp_set_reg(m, UC_RISCV_REG_STVAL, tval);
	} else {
		ms = (ms & ~(MSTATUS_MPIE | MSTATUS_MPP | MSTATUS_MIE)) | ((ms & MSTATUS_MIE) ? MSTATUS_MPIE : 0) |
		     ((uint64_t)from << MSTATUS_MPP_SHIFT);
		gsp_set_reg(m, UC_RISCV_REG_MEPC, epc);
		gsp_set_reg(m, UC_RISCV_REG_MCAUSE, cause);
		gsp_set_reg(m, UC_RISCV_REG_MTVAL, tval);
	}
	gsp_set_reg(m, UC_RISCV_REG_MSTATUS, ms);
	uint64_t target = tvec & ~3ull;
	if ((tvec & 3) == 1 && interrupt)
		target += 4 * code;
	gsp_set_reg(m, UC_RISCV_REG_PC, target);
	if (to_s)
		gsp_set_priv(m, GSP_PRIV_S);
	return true;
}

/* An enabled, pending external interrupt (a doorbell) is taken at this
 * instruction boundary: M-level interrupts are enabled below M whatever
 * mstatus.MIE says. */
static bool irq_inject(cs_gsp *m)
{
	if (!m->irq_pending)
		return false;
	unsigned was = gsp_priv_raise(m);
	uint64_t ms = gsp_reg(m, UC_RISCV_REG_MSTATUS), mie = gsp_reg(m, UC_RISCV_REG_MIE);
	gsp_priv_lower(m, was);
	if ((was == GSP_PRIV_M && !(ms & MSTATUS_MIE)) || !(mie & MIE_MEIE))
		return false;
	return trap_enter(m, CAUSE_INTERRUPT | 11, cs_gsp_pc(m), 0);
}

static uint32_t insn_at(cs_gsp *m, uint64_t pc, bool *ok)
{
	uint32_t w = 0;
	*ok = gsp_read_code(m, pc, &w, 4);
	if (!*ok) {
		uint16_t h = 0;
		*ok = gsp_read_code(m, pc, &h, 2);
		w = h;
	}
	return w;
}

/* The exception Unicorn raised, numbered as the spec numbers it. Unicorn
 * reports every ecall as 8 (the mode says which it is) and a misaligned AMO
 * or SC as a misaligned load; it keeps the fault address in badaddr. */
static void exception_of(cs_gsp *m, uint32_t intno, uint64_t epc, uint64_t *cause, uint64_t *tval)
{
	*cause = intno;
	*tval = 0;
	bool ok;
	switch (intno) {
	case 8:
		*cause = 8 + gsp_priv(m); /* U 8, S 9, M 11 */
		break;
	case 2:
		*tval = insn_at(m, epc, &ok);
		if ((*tval & 3) != 3)
			*tval &= 0xFFFF;
		break;
	case 4: {
		uint8_t b[4] = { 0 };
		cs_rv_insn in;
		if (gsp_read_code(m, epc, b, 4) && cs_rv_decode(b, 4, epc, &in) &&
		    in.memop != CS_RV_MEM_NONE && in.memop != CS_RV_MEM_LOAD)
			*cause = 6;
		*tval = m->trap_badaddr;
		break;
	}
	case 0: case 1: case 5: case 6: case 7: case 12: case 13: case 15:
		*tval = m->trap_badaddr;
		break;
	default:
		break;
	}
}

/* The instruction budget of a run, stepping included: a global code hook,
 * present only while budgeted runs and steps follow each other (it slows
 * every block it is translated into), so the count is exact across traps
 * and wakeups. */
static void count_cb(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	(void)addr;
	(void)size;
	cs_gsp *m = user;
	if (m->budget_left == 0) {
		if (!m->hit.set) {
			m->hit.set = true;
			m->hit.from_mem = false;
			m->hit.reason = CS_GSP_STOP_BUDGET;
		}
		uc_emu_stop(uc);
		return;
	}
	m->budget_left--;
}

static cs_status counting_mode(cs_gsp *m, bool on)
{
	if (m->counting == on)
		return CS_OK;
	if (on) {
		if (uc_hook_add(m->uc, &m->count_hook, UC_HOOK_CODE, GSP_CB(count_cb), m, 1, 0) != UC_ERR_OK)
			return CS_ERR_INTERNAL;
	} else
		uc_hook_del(m->uc, m->count_hook);
	gsp_drop_code_translations(m);
	m->counting = on;
	return CS_OK;
}

static bool is_sc(const cs_rv_insn *in)
{
	return (in->raw & 0x7F) == 0x2F && in->memop == CS_RV_MEM_STORE;
}

/* With the unmodelled-access log on, a CSR instruction on a CSR Unicorn
 * does not have (the custom ranges, the debug and trigger CSRs) and that the
 * mode may access reads as zero, drops its write and is logged, instead of
 * being an illegal instruction. True when it was one (pc is past it). */
/* A CSR instruction (its word w at epc) on an MPU CSR, done by the MPU
 * model (mpu.c); a mapping it cannot make stops the run (st). */
static bool mpu_csr(cs_gsp *m, uint64_t epc, uint32_t w, cs_gsp_stop *st)
{
	unsigned f3 = (w >> 12) & 7, csr = w >> 20, rd = (w >> 7) & 31, rs1 = (w >> 15) & 31;
	uint64_t operand = f3 >= 5 ? rs1 : gsp_reg(m, UC_RISCV_REG_X0 + (int)rs1);
	unsigned op = (f3 & 3) == 1 ? 1 : rs1 ? (f3 & 3) : 0;
	uint64_t old;
	char why[160] = "";
	gsp_mpu_result r = gsp_mpu_csr(m, csr, op, operand, &old, why, sizeof(why));
	if (r == GSP_MPU_NOT_MINE)
		return false;
	if (m->unmodelled_log && op) {
		static const char *const name[4] = { "", "write", "set", "clear" };
		fprintf(m->unmodelled_log, "mpu csr 0x%03x %s 0x%" PRIx64 " (was 0x%" PRIx64 ")\n", csr, name[op], operand,
			old);
	}
	if (r == GSP_MPU_REFUSED) {
		m->mpu_refused = true;
		snprintf(st->detail, sizeof(st->detail), "%s", why);
		return true;
	}
	if (rd)
		gsp_set_reg(m, UC_RISCV_REG_X0 + (int)rd, old);
	gsp_set_reg(m, UC_RISCV_REG_PC, epc + 4);
	return true;
}

static bool unmodelled_csr(cs_gsp *m, uint64_t epc, cs_gsp_stop *st)
{
	static const uint16_t ranges[][2] = {
		{ 0x5C0, 0x5FF }, { 0x6C0, 0x6FF }, { 0x7A0, 0x7FF }, { 0x800, 0x8FF }, { 0x9C0, 0x9FF }, { 0xAC0, 0xAFF },
		{ 0xBC0, 0xBFF }, { 0xCC0, 0xCFF }, { 0xDC0, 0xDFF }, { 0xEC0, 0xEFF }, { 0xFC0, 0xFFF },
	};
	bool ok;
	uint32_t w = insn_at(m, epc, &ok);
	unsigned f3 = (w >> 12) & 7, csr = w >> 20, rd = (w >> 7) & 31, rs1 = (w >> 15) & 31;
	if (!ok || (w & 0x7F) != 0x73 || f3 == 0 || f3 == 4 || ((csr >> 8) & 3) > gsp_priv(m))
		return false;
	if (mpu_csr(m, epc, w, st) || gsp_monitor_time(m, w, epc))
		return true;
	if (!m->unmodelled_log)
		return false;
	bool unmodelled = false;
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		unmodelled |= csr >= ranges[i][0] && csr <= ranges[i][1];
	if (!unmodelled)
		return false;
	uint64_t operand = f3 >= 5 ? rs1 : gsp_reg(m, UC_RISCV_REG_X0 + (int)rs1);
	static const char *const op[4] = { "", "write", "set", "clear" };
	char what[96];
	int n = snprintf(what, sizeof(what), "csr 0x%03x", csr);
	if (rd)
		n += snprintf(what + n, sizeof(what) - (size_t)n, " read = 0x0");
	if ((f3 & 3) == 1 || rs1)
		snprintf(what + n, sizeof(what) - (size_t)n, "%s%s 0x%" PRIx64, rd ? ", " : " ", op[f3 & 3], operand);
	gsp_log_unmodelled(m, what, epc);
	if (rd)
		gsp_set_reg(m, UC_RISCV_REG_X0 + (int)rd, 0);
	gsp_set_reg(m, UC_RISCV_REG_PC, epc + 4);
	return true;
}

/* After a stop inside a memory access (a watchpoint's hook, or a fault),
 * with the instructions of the block before the access already done: finds
 * the instruction of the block starting at block_pc that accessed
 * [addr, addr + size) by decoding and effective address. */
bool gsp_find_access(cs_gsp *m, uint64_t block_pc, uint64_t addr, uint32_t size, bool is_write,
		     uint64_t *insn_pc, cs_rv_insn *in)
{
	uint64_t pc = block_pc;
	for (int n = 0; n < 256; n++) {
		uint8_t b[4];
		if (!gsp_read_code(m, pc, b, 4) && !gsp_read_code(m, pc, b, 2))
			return false;
		if (!cs_rv_decode(b, 4, pc, in))
			return false;
		if (in->memop != CS_RV_MEM_NONE) {
			/* Unicorn's sc reads the word it compares: a read hook fires */
			bool kind_ok = is_write ? in->memop != CS_RV_MEM_LOAD : in->memop != CS_RV_MEM_STORE || is_sc(in);
			uint64_t ea = gsp_reg(m, UC_RISCV_REG_X0 + in->mem_base) + (uint64_t)in->mem_imm;
			if (kind_ok && ea < addr + (size ? size : 1) && addr < ea + in->mem_size) {
				*insn_pc = pc;
				return true;
			}
		}
		if (in->has_target || in->is_ret || !strcmp(in->mnemonic, "jr") || !strcmp(in->mnemonic, "jalr"))
			return false;
		pc += in->len;
	}
	return false;
}

/* Runs the one instruction at pc with the watchpoints off (reads only, or
 * all); true when a watchpoint still stopped it. */
static bool run_one_unwatched(cs_gsp *m, uint64_t pc, bool reads_only)
{
	gsp_set_reg(m, UC_RISCV_REG_PC, pc);
	if (reads_only)
		m->watch_reads_suppressed = true;
	else
		m->watch_suppress = true;
	bool skip = m->skip_armed;
	uint64_t budget = m->budget_left;
	gsp_hit first = m->hit;
	m->skip_armed = true;
	m->skip_pc = pc;
	m->hit.set = false;
	if (counting_mode(m, true) == CS_OK) {
		m->budget_left = 1;
		uc_emu_start(m->uc, pc, m->pad, 0, 0);
	}
	bool stopped = m->hit.set && m->hit.reason != CS_GSP_STOP_BUDGET;
	if (!stopped)
		m->hit = first;
	m->budget_left = budget;
	m->skip_armed = skip;
	m->watch_suppress = false;
	m->watch_reads_suppressed = false;
	return stopped;
}

static uint64_t sized(uint64_t v, unsigned size)
{
	return size >= 8 ? v : v & ((1ull << (8 * size)) - 1);
}

/* A watchpoint stop raised inside a memory hook, in the block starting at
 * hit.block_pc. By default the machine is left right after the access: a store
 * is done; a load, LR or an AMO's read is run once more unwatched; an AMO's
 * or SC's write is done but its rd (and an SC's reservation) is not, so the
 * model writes them. With watch_stop_before (the GDB stub: gdb treats RISC-V
 * watchpoints as non-steppable and steps the access itself) the machine is
 * left at the access with its write undone, for the watchpoints gdb inserted;
 * the debugger's own (monitor watch) stop after the access as in the REPL. False when the hit was no access
 * of the program (the read inside Unicorn's sc) and the run goes on. */
static bool recover_mem_stop(cs_gsp *m, cs_gsp_stop *st)
{
	uint64_t pc;
	cs_rv_insn in;
	st->access_pc = 0;
	if (!gsp_find_access(m, m->hit.block_pc, m->hit.addr, m->hit.size, m->hit.is_write, &pc, &in))
		return true;
	if (!m->hit.is_write && is_sc(&in)) {
		if (!run_one_unwatched(m, pc, true))
			return false;
		/* the sc's write is watched too */
		if (!gsp_find_access(m, pc, m->hit.addr, m->hit.size, m->hit.is_write, &pc, &in))
			return true;
	}
	st->access_pc = pc;
	unsigned rd = (in.raw >> 7) & 31;
	if (m->watch_stop_before && gsp_point_by_gdb(m, m->hit.id)) {
		if (m->hit.is_write && m->hit.size && m->hit.size <= 8)
			uc_mem_write(m->uc, m->hit.addr, &m->hit.old_value, m->hit.size);
		gsp_set_reg(m, UC_RISCV_REG_PC, pc);
		return true;
	}
	if (!m->hit.is_write) {
		/* the read has not completed */
		run_one_unwatched(m, pc, false);
		return true;
	}
	if (in.memop == CS_RV_MEM_AMO && rd) {
		uint64_t old = sized(m->hit.old_value, in.mem_size);
		if (in.mem_size == 4)
			old = (uint64_t)(int64_t)(int32_t)old;
		gsp_set_reg(m, UC_RISCV_REG_X0 + (int)rd, old);
	}
	if (is_sc(&in)) {
		uint64_t expected = sized(gsp_reservation_value(m), in.mem_size);
		if (rd)
			gsp_set_reg(m, UC_RISCV_REG_X0 + (int)rd, sized(m->hit.old_value, in.mem_size) == expected ? 0 : 1);
		gsp_reservation_clear(m);
	}
	gsp_set_reg(m, UC_RISCV_REG_PC, pc + in.len);
	return true;
}

/* A fault stop: pc at the faulting instruction, described with the access. */
static void fault_stop(cs_gsp *m, cs_gsp_stop *st, uc_err e)
{
	const gsp_bad_access *b = &m->bad_access;
	uint64_t npc = cs_gsp_pc(m);
	bool is_write = b->type == UC_MEM_WRITE_UNMAPPED || b->type == UC_MEM_WRITE_PROT;
	bool is_fetch = b->type == UC_MEM_FETCH_UNMAPPED || b->type == UC_MEM_FETCH_PROT;
	uint64_t pc;
	cs_rv_insn in;
	if (b->set && !is_fetch && gsp_find_access(m, gsp_block_pc(m), b->addr, b->size, is_write, &pc, &in)) {
		gsp_set_reg(m, UC_RISCV_REG_PC, pc);
		st->access_pc = pc;
	}
	st->reason = CS_GSP_STOP_FAULT;
	st->pc = cs_gsp_pc(m);
	if (b->set) {
		st->addr = b->addr;
		st->size = b->size;
		st->is_write = is_write;
		st->value = is_write ? b->value : 0;
		snprintf(st->detail, sizeof(st->detail), "%s of %u bytes at 0x%" PRIx64 ": %s",
			 is_fetch ? "fetch" : is_write ? "store" : "load", b->size, b->addr,
			 b->why[0] ? b->why : uc_strerror(e));
	} else
		snprintf(st->detail, sizeof(st->detail), "unicorn: %s (pc 0x%" PRIx64 ")", uc_strerror(e), npc);
}

static void fill_stop(cs_gsp *m, cs_gsp_stop *st, cs_gsp_stop_reason r)
{
	st->reason = r;
	st->pc = cs_gsp_pc(m);
}

static cs_status run_segments(cs_gsp *m, uint64_t until, bool step_mode, cs_gsp_stop *st);

cs_status gsp_run(cs_gsp *m, uint64_t budget, uint64_t until, bool step_mode, cs_gsp_stop *st,
		  cs_diag *d)
{
	if (step_mode && !budget)
		budget = 1;
	if (counting_mode(m, budget != 0) != CS_OK) {
		cs_diag_set(d, CS_ERR_INTERNAL, "cannot add the instruction counter");
		return CS_ERR_INTERNAL;
	}
	m->budget_left = budget;
	cs_status s = run_segments(m, until, step_mode, st);
	if (budget)
		st->executed = budget - m->budget_left;
	return s;
}

/* The wall-clock guard of a run: one thread for the whole run, however many
 * segments traps and wakeups cut it into. When the time is up it stops the
 * emulation, and again every 10 ms: a stop that lands between two segments
 * is lost. */
typedef struct run_guard {
	cs_gsp *m;
	uint64_t ms;
	pthread_mutex_t lock;
	pthread_cond_t finished_cv;
	bool finished;
	atomic_bool expired;
	pthread_t thread;
	bool running;
} run_guard;

static struct timespec deadline_after(uint64_t ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += (time_t)(ms / 1000);
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static void *run_guard_main(void *arg)
{
	run_guard *g = arg;
	struct timespec deadline = deadline_after(g->ms);
	pthread_mutex_lock(&g->lock);
	while (!g->finished) {
		if (pthread_cond_timedwait(&g->finished_cv, &g->lock, &deadline) == ETIMEDOUT && !g->finished) {
			atomic_store(&g->expired, true);
			uc_emu_stop(g->m->uc);
			deadline = deadline_after(10);
		}
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

static void run_guard_start(run_guard *g, cs_gsp *m, uint64_t ms)
{
	memset(g, 0, sizeof(*g));
	g->m = m;
	g->ms = ms;
	atomic_init(&g->expired, false);
	if (!ms)
		return;
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&g->finished_cv, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&g->lock, NULL);
	g->running = pthread_create(&g->thread, NULL, run_guard_main, g) == 0;
	if (!g->running) {
		pthread_cond_destroy(&g->finished_cv);
		pthread_mutex_destroy(&g->lock);
	}
}

static void run_guard_stop(run_guard *g)
{
	if (!g->running)
		return;
	pthread_mutex_lock(&g->lock);
	g->finished = true;
	pthread_cond_signal(&g->finished_cv);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	pthread_cond_destroy(&g->finished_cv);
	pthread_mutex_destroy(&g->lock);
}

static cs_status run_loop(cs_gsp *m, uint64_t until, bool step_mode, run_guard *guard, cs_gsp_stop *st);

static cs_status run_segments(cs_gsp *m, uint64_t until, bool step_mode, cs_gsp_stop *st)
{
	memset(st, 0, sizeof(*st));
	/* a single step ends by itself; every other run is guarded */
	run_guard guard;
	run_guard_start(&guard, m, step_mode ? 0 : m->guard_ms);
	cs_status s = run_loop(m, until, step_mode, &guard, st);
	run_guard_stop(&guard);
	return s;
}

/* Traps in a row whose trapping instruction was the first of its segment
 * (nothing retired between them) before the run calls it a trap storm. */
enum { TRAP_STORM_LIMIT = 1000 };

static bool guard_expired(cs_gsp *m, run_guard *guard, cs_gsp_stop *st)
{
	if (!atomic_load(&guard->expired))
		return false;
	fill_stop(m, st, CS_GSP_STOP_GUARD);
	snprintf(st->detail, sizeof(st->detail), "wall-clock guard of %" PRIu64 " ms", guard->ms);
	return true;
}

/* Enters the trap a segment ended with; false (with the stop filled) when
 * the run must stop instead. */
static bool take_trap(cs_gsp *m, uint64_t cause, uint64_t epc, uint64_t tval, uint64_t segment_pc,
		      uint64_t *storm, cs_gsp_stop *st)
{
	*storm = epc == segment_pc ? *storm + 1 : 0;
	if (*storm >= TRAP_STORM_LIMIT) {
		gsp_set_reg(m, UC_RISCV_REG_PC, epc);
		fill_stop(m, st, CS_GSP_STOP_FAULT);
		snprintf(st->detail, sizeof(st->detail),
			 "trap storm: %" PRIu64 " traps in a row with no instruction retired (cause %" PRIu64
			 " at 0x%" PRIx64 ")",
			 *storm, cause, epc);
		return false;
	}
	if (!trap_enter(m, cause, epc, tval)) {
		gsp_set_reg(m, UC_RISCV_REG_PC, epc);
		fill_stop(m, st, cause == 3 ? CS_GSP_STOP_EBREAK : CS_GSP_STOP_FAULT);
		snprintf(st->detail, sizeof(st->detail),
			 cause == 3 ? "firmware ebreak with no trap vector"
				    : "trap (cause %" PRIu64 ") at 0x%" PRIx64 " with no trap vector",
			 cause, epc);
		return false;
	}
	return true;
}

/* Whether an interrupt is pending and enabled in mie (Unicorn's own mip, and
 * the doorbell the model keeps): wfi does not wait then, even with the
 * interrupt masked by mstatus. */
static bool wfi_wakes(cs_gsp *m)
{
	unsigned was = gsp_priv_raise(m);
	uint64_t mip = gsp_reg(m, UC_RISCV_REG_MIP), mie = gsp_reg(m, UC_RISCV_REG_MIE);
	gsp_priv_lower(m, was);
	if (m->irq_pending)
		mip |= MIE_MEIE;
	return (mip & mie) != 0;
}

static cs_status run_loop(cs_gsp *m, uint64_t until, bool step_mode, run_guard *guard, cs_gsp_stop *st)
{
	uint64_t storm = 0;
	bool first = true;
	for (;;) {
		if (atomic_exchange(&m->interrupt_req, 0)) {
			fill_stop(m, st, CS_GSP_STOP_INTERRUPTED);
			return CS_OK;
		}
		if (guard_expired(m, guard, st))
			return CS_OK;
		if (!first || !step_mode)
			irq_inject(m);
		uint64_t pc = cs_gsp_pc(m);
		if (until && pc == until && !first) {
			fill_stop(m, st, CS_GSP_STOP_RETURNED);
			return CS_OK;
		}
		m->hit.set = false;
		m->hit.detail[0] = 0;
		m->trap_pending = false;
		m->bad_access.set = false;
		m->placeholder_retry = false;
		if (first) {
			m->skip_armed = true;
			m->skip_pc = pc;
		}
		uc_err e = uc_emu_start(m->uc, pc, until ? until : m->pad, 0, 0);
		m->skip_armed = false;
		first = false;
		uint64_t npc = cs_gsp_pc(m);
		if (atomic_exchange(&m->interrupt_req, 0)) {
			fill_stop(m, st, CS_GSP_STOP_INTERRUPTED);
			return CS_OK;
		}
		if (m->placeholder_retry) {
			m->placeholder_retry = false;
			if (gsp_map_placeholder(m, m->placeholder_va))
				continue;
			fill_stop(m, st, CS_GSP_STOP_FAULT);
			snprintf(st->detail, sizeof(st->detail), "cannot map the translation placeholder at 0x%" PRIx64,
				 m->placeholder_va);
			return CS_OK;
		}
		if (m->hit.set) {
			if (m->hit.from_mem && !recover_mem_stop(m, st))
				continue;
			fill_stop(m, st, step_mode && m->hit.reason == CS_GSP_STOP_BUDGET ? CS_GSP_STOP_STEP : m->hit.reason);
			st->id = m->hit.id;
			st->addr = m->hit.addr;
			st->size = m->hit.size;
			st->is_write = m->hit.is_write;
			st->value = m->hit.value;
			st->old_value = m->hit.old_value;
			if (m->hit.detail[0])
				snprintf(st->detail, sizeof(st->detail), "%s", m->hit.detail);
			if (m->hit.reason == CS_GSP_STOP_BREAK)
				gsp_point_retire_temporary(m, m->hit.id);
			return CS_OK;
		}
		if (m->trap_pending) {
			/* Unicorn reports the pc after the trapping instruction, +4 always */
			uint64_t epc = npc - 4, cause, tval;
			exception_of(m, m->trap_intno, epc, &cause, &tval);
			if (cause == 2 && unmodelled_csr(m, epc, st)) {
				if (m->mpu_refused) {
					m->mpu_refused = false;
					gsp_set_reg(m, UC_RISCV_REG_PC, epc);
					char why[sizeof(st->detail)];
					snprintf(why, sizeof(why), "%s", st->detail);
					fill_stop(m, st, CS_GSP_STOP_FAULT);
					snprintf(st->detail, sizeof(st->detail), "%s", why);
					return CS_OK;
				}
				if (step_mode) {
					fill_stop(m, st, CS_GSP_STOP_STEP);
					return CS_OK;
				}
				continue;
			}
			gsp_monitor_action mon = gsp_monitor_ecall(m, cause, epc, st);
			if (mon == GSP_MONITOR_STOP)
				return CS_OK;
			if (mon == GSP_MONITOR_NOT_MINE && !take_trap(m, cause, epc, tval, pc, &storm, st))
				return CS_OK;
			if (step_mode) {
				fill_stop(m, st, CS_GSP_STOP_STEP);
				return CS_OK;
			}
			continue;
		}
		if (e == UC_ERR_INSN_INVALID || e == UC_ERR_EXCEPTION) {
			bool ok;
			uint32_t w = insn_at(m, npc, &ok);
			if (npc == m->pad) {
				fill_stop(m, st, CS_GSP_STOP_RETURNED);
				return CS_OK;
			}
			if (ok && (w == GSP_INSN_EBREAK || (w & 0xFFFF) == INSN_CEBREAK)) {
				/* The firmware's own ebreak (a debugger breakpoint there
				 * would have stopped before it): a breakpoint exception. */
				if (!take_trap(m, 3, npc, npc, pc, &storm, st))
					return CS_OK;
				if (step_mode) {
					fill_stop(m, st, CS_GSP_STOP_STEP);
					return CS_OK;
				}
				continue;
			}
			fill_stop(m, st, CS_GSP_STOP_FAULT);
			snprintf(st->detail, sizeof(st->detail), "unicorn: %s at 0x%" PRIx64, uc_strerror(e), npc);
			return CS_OK;
		}
		if (e != UC_ERR_OK) {
			fault_stop(m, st, e);
			return CS_OK;
		}
		storm = 0;
		if (npc == (until ? until : m->pad)) {
			fill_stop(m, st, CS_GSP_STOP_RETURNED);
			return CS_OK;
		}
		if (step_mode) {
			st->reason = CS_GSP_STOP_STEP;
			st->pc = npc;
			return CS_OK;
		}
		bool ok;
		uint32_t prev = insn_at(m, npc - 4, &ok);
		if (ok && prev == INSN_WFI && !atomic_load(&guard->expired)) {
			if (wfi_wakes(m))
				continue; /* taken at the next boundary if enabled, else wfi falls through */
			fill_stop(m, st, CS_GSP_STOP_IDLE);
			st->access_pc = npc - 4;
			snprintf(st->detail, sizeof(st->detail), "wfi with no interrupt pending");
			return CS_OK;
		}
		if (guard_expired(m, guard, st))
			return CS_OK;
	}
}

uint64_t gsp_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

bool gsp_guard_passed(cs_gsp *m, uint64_t t0_ms, cs_gsp_stop *st, uint64_t done)
{
	if (!m->guard_ms || gsp_now_ms() - t0_ms < m->guard_ms)
		return false;
	fill_stop(m, st, CS_GSP_STOP_GUARD);
	snprintf(st->detail, sizeof(st->detail),
		 "wall-clock guard of %" PRIu64 " ms after %" PRIu64 " steps", m->guard_ms, done);
	return true;
}

cs_status cs_gsp_continue(cs_gsp *m, uint64_t budget, cs_gsp_stop *st, cs_diag *d)
{
	return gsp_run(m, budget, 0, false, st, d);
}

cs_status cs_gsp_stepi(cs_gsp *m, uint64_t n, cs_gsp_stop *st, cs_diag *d)
{
	memset(st, 0, sizeof(*st));
	if (n == 0)
		n = 1;
	/* each step is too short for a guard of its own: the whole count is
	 * under the wall-clock guard, checked between steps */
	uint64_t t0 = gsp_now_ms();
	for (uint64_t i = 0; i < n; i++) {
		cs_status s = gsp_run(m, 1, 0, true, st, d);
		if (s != CS_OK)
			return s;
		if (st->reason != CS_GSP_STOP_STEP && st->reason != CS_GSP_STOP_BUDGET)
			return CS_OK;
		if (n > 1 && gsp_guard_passed(m, t0, st, i + 1))
			return CS_OK;
	}
	st->reason = CS_GSP_STOP_STEP;
	return CS_OK;
}

cs_status cs_gsp_next(cs_gsp *m, cs_gsp_stop *st, cs_diag *d)
{
	uint64_t pc = cs_gsp_pc(m);
	uint8_t b[4] = { 0 };
	cs_rv_insn in;
	if (uc_mem_read(m->uc, pc, b, 4) != UC_ERR_OK)
		uc_mem_read(m->uc, pc, b, 2);
	if (!cs_rv_decode(b, 4, pc, &in) || !in.is_call)
		return cs_gsp_stepi(m, 1, st, d);
	cs_status s = gsp_run(m, 0, pc + in.len, false, st, d);
	if (s == CS_OK && st->reason == CS_GSP_STOP_RETURNED)
		st->reason = CS_GSP_STOP_STEP;
	return s;
}

cs_status cs_gsp_finish(cs_gsp *m, uint64_t budget, cs_gsp_stop *st, cs_diag *d)
{
	gsp_frame f[2];
	int n = gsp_unwind(m, f, 2);
	if (n < 1 || !f[0].ra_valid) {
		cs_diag_set(d, CS_ERR_INPUT, "cannot find the return address of the current function");
		return CS_ERR_INPUT;
	}
	return gsp_run(m, budget, f[0].ra, false, st, d);
}

cs_status cs_gsp_call(cs_gsp *m, uint64_t addr, const uint64_t *args, size_t nargs, uint64_t guard_ms,
		      uint64_t *ret, cs_gsp_stop *st, cs_diag *d)
{
	if (nargs > 8) {
		cs_diag_set(d, CS_ERR_INPUT, "at most 8 arguments (a0-a7), got %zu", nargs);
		return CS_ERR_INPUT;
	}
	uc_context *ctx = NULL;
	if (uc_context_alloc(m->uc, &ctx) != UC_ERR_OK || uc_context_save(m->uc, ctx) != UC_ERR_OK) {
		if (ctx)
			uc_context_free(ctx);
		cs_diag_set(d, CS_ERR_INTERNAL, "cannot save the register context");
		return CS_ERR_INTERNAL;
	}
	uint32_t irq = m->irq_pending;
	m->irq_pending = 0;
	for (size_t i = 0; i < nargs; i++)
		gsp_set_reg(m, UC_RISCV_REG_A0 + (int)i, args[i]);
	uint64_t sp = (gsp_reg(m, UC_RISCV_REG_SP) - 256) & ~15ull;
	const cs_gsp_region *sr = gsp_region_of(m, sp - 4096, 4096);
	if (!sr || sr->kind == CS_GSP_MMIO || sr->kind == CS_GSP_ROM) {
		/* no usable stack yet (before boot): the top of the first ram region */
		for (size_t i = 0; i < m->map.count; i++)
			if (m->map.region[i].kind == CS_GSP_RAM) {
				sp = (m->map.region[i].base + m->map.region[i].size - 256) & ~15ull;
				break;
			}
	}
	gsp_set_reg(m, UC_RISCV_REG_SP, sp);
	gsp_set_reg(m, UC_RISCV_REG_RA, m->pad);
	gsp_set_reg(m, UC_RISCV_REG_PC, addr);
	uint64_t saved_guard = m->guard_ms;
	m->guard_ms = guard_ms;
	cs_status s = gsp_run(m, 0, 0, false, st, d);
	m->guard_ms = saved_guard;
	*ret = gsp_reg(m, UC_RISCV_REG_A0);
	uc_context_restore(m->uc, ctx);
	uc_context_free(ctx);
	m->irq_pending |= irq;
	return s;
}

/* ---- describing stops ---- */

/* How a stop at st->pc reads: the words before the address, and whether
 * st->detail follows it. */
typedef struct stop_phrase {
	const char *before;
	enum { STOP_NO_DETAIL, STOP_DETAIL, STOP_DETAIL_IF_ANY } detail;
} stop_phrase;

static const stop_phrase stop_phrases[] = {
	[CS_GSP_STOP_NONE] = { "at ", STOP_NO_DETAIL },
	[CS_GSP_STOP_STEP] = { "", STOP_NO_DETAIL },
	[CS_GSP_STOP_BUDGET] = { "instruction budget exhausted at ", STOP_NO_DETAIL },
	[CS_GSP_STOP_EBREAK] = { "firmware ebreak at ", STOP_NO_DETAIL },
	[CS_GSP_STOP_RETURNED] = { "returned to ", STOP_NO_DETAIL },
	[CS_GSP_STOP_FAULT] = { "fault at ", STOP_DETAIL },
	[CS_GSP_STOP_INTERRUPTED] = { "interrupted at ", STOP_DETAIL_IF_ANY },
	[CS_GSP_STOP_REPLY] = { "reply arrived; firmware at ", STOP_NO_DETAIL },
	[CS_GSP_STOP_GUARD] = { "still running at ", STOP_DETAIL },
	[CS_GSP_STOP_SHUTDOWN] = { "shut down at ", STOP_DETAIL },
};

void cs_gsp_stop_describe(cs_gsp *m, const cs_gsp_stop *st, char *buf, size_t len)
{
	char where[128];
	cs_gsp_symbolize(m, st->pc, where, sizeof(where));
	switch (st->reason) {
	case CS_GSP_STOP_BREAK:
		snprintf(buf, len, "breakpoint %d at 0x%" PRIx64 " <%s>", st->id, st->pc, where);
		break;
	case CS_GSP_STOP_WATCH:
	case CS_GSP_STOP_DESYNC: {
		char acc[128] = "?";
		if (st->access_pc)
			cs_gsp_symbolize(m, st->access_pc, acc, sizeof(acc));
		if (st->reason == CS_GSP_STOP_DESYNC)
			snprintf(buf, len, "msgq desync: %s; by the instruction at 0x%" PRIx64 " <%s>", st->detail,
				 st->access_pc, acc);
		else if (st->is_write)
			snprintf(buf, len,
				 "watchpoint %d: write of %u bytes at 0x%" PRIx64 ": 0x%" PRIx64 " -> 0x%" PRIx64
				 " by 0x%" PRIx64 " <%s>",
				 st->id, st->size, st->addr, st->old_value, st->value, st->access_pc, acc);
		else
			snprintf(buf, len,
				 "watchpoint %d: read of %u bytes at 0x%" PRIx64 " = 0x%" PRIx64 " by 0x%" PRIx64 " <%s>",
				 st->id, st->size, st->addr, st->value, st->access_pc, acc);
		break;
	}
	case CS_GSP_STOP_IDLE: {
		char wfi[128];
		cs_gsp_symbolize(m, st->access_pc, wfi, sizeof(wfi));
		snprintf(buf, len, "idle: wfi at 0x%" PRIx64 " <%s>, no interrupt pending", st->access_pc, wfi);
		break;
	}
	default: {
		const stop_phrase *w = &stop_phrases[st->reason];
		bool detail = w->detail == STOP_DETAIL || (w->detail == STOP_DETAIL_IF_ANY && st->detail[0]);
		snprintf(buf, len, "%s0x%" PRIx64 " <%s>%s%s", w->before, st->pc, where,
			 detail ? ": " : "", detail ? st->detail : "");
		break;
	}
	}
}

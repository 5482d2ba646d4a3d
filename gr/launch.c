/* SPDX-License-Identifier: MIT */
/* One launch, from the QMD in memory to its releases: install (stage 6), read
 * and accept (7), context (8), dispatch through the executor port (9), QMD
 * releases (10), then the dependent QMD, iteratively. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gr_internal.h"

static const char *path_name(cs_gr_launch_path p)
{
	switch (p) {
	case CS_GR_PATH_INLINE: return "inline";
	case CS_GR_PATH_PCAS: return "SEND_PCAS";
	case CS_GR_PATH_DEPENDENT: return "dependent QMD";
	}
	return "?";
}

static void fill_grid(const gr_subch *s, const cs_method_call *c, uint32_t launch,
		      uint64_t qmd_va, const cs_qmd_info *in, cs_grid_launch *g)
{
	memset(g, 0, sizeof(*g));
	g->channel = c->channel;
	g->launch = launch;
	g->qmd_addr = qmd_va;
	g->program = in->program;
	memcpy(g->grid, in->grid, sizeof(g->grid));
	memcpy(g->block, in->block, sizeof(g->block));
	g->shared_bytes = in->shared_bytes;
	g->regs = in->regs;
	g->barriers = in->barriers;
	g->cbank_valid = in->cbank_valid;
	memcpy(g->cbank_addr, in->cbank_addr, sizeof(g->cbank_addr));
	memcpy(g->cbank_size, in->cbank_size, sizeof(g->cbank_size));
	g->local_base = s->c.local_set ? s->c.local_addr : 0;
	g->local_bytes_per_thread = in->local_bytes_per_thread;
	g->shared_window = s->c.shared_window;
	g->local_window = s->c.local_window;
}

/* Stage 10: the QMD's release semaphores, after an executed grid only. */
static cs_engine_result qmd_releases(cs_gr *gr, const cs_method_call *c, uint32_t launch,
				     const cs_qmd_info *in, cs_diag *why)
{
	for (unsigned i = 0; i < CS_QMD_RELEASES; i++) {
		const cs_qmd_release *r = &in->release[i];
		if (!r->enable)
			continue;
		/* One word writes 32 bits, or 64 with PAYLOAD64B; two words the 64-bit
		 * payload; four words the payload and the timestamp. */
		unsigned bytes = r->words == 4 ? 16u : r->words == 2 ? 8u : (r->payload64 ? 8u : 4u);
		char what[64];
		snprintf(what, sizeof(what), "QMD release %u of launch %" PRIu32, i, launch);
		if (gr_release(gr, c, CS_UNIT_COMPUTE, launch, r->addr, r->payload, bytes, what,
			       why) != CS_ENGINE_OK)
			return CS_ENGINE_STOP;
	}
	return CS_ENGINE_OK;
}

typedef enum launch_end {
	END_STOP,     /* the channel stops */
	END_DONE,     /* the grid ran; no dependent to follow */
	END_NOT_RUN,  /* dispatched, not executed */
	END_FOLLOW,   /* the grid ran; follow the dependent QMD */
} launch_end;

/* The address a rejected QMD names that the memory does not map, in the order
 * cs_qmd_check looks: a valid constant bank, then (code-unmapped) the program;
 * 0 when the rejection is about no address. */
static uint64_t unmapped_target(const cs_qmd_info *in, cs_cause refused, const cs_mem_port *m)
{
	for (unsigned i = 0; i < CS_CBANK_COUNT; i++)
		if ((in->cbank_valid & (1u << i)) && in->cbank_size[i] &&
		    !m->mapped(m->ctx, in->cbank_addr[i], 1))
			return in->cbank_addr[i];
	return refused == CS_CAUSE_CODE_UNMAPPED ? in->program : 0;
}

/* An assumption record for each valid bank that runs past mapped memory. */
static void note_cbank_overhang(cs_gr *gr, const cs_method_call *c, uint32_t id,
				const cs_qmd_info *in)
{
	const cs_mem_port *m = &gr->bus->mem;
	for (unsigned i = 0; i < CS_CBANK_COUNT; i++) {
		if (!(in->cbank_valid & (1u << i)) || !in->cbank_size[i] ||
		    m->mapped(m->ctx, in->cbank_addr[i], in->cbank_size[i]))
			continue;
		uint64_t end = gr_first_unmapped(gr, in->cbank_addr[i], in->cbank_size[i]);
		cs_event ev = gr_event(CS_EV_ASSUMPTION, CS_STAGE_QMD_READ, CS_UNIT_COMPUTE, c, id);
		ev.addr = in->cbank_addr[i];
		ev.value = in->cbank_size[i];
		gr_emit(gr, &ev,
			"constant buffer %u at 0x%" PRIx64 " size 0x%" PRIx32 " runs past mapped "
			"memory at 0x%" PRIx64 ": bound as it is; a read past that faults",
			i, in->cbank_addr[i], in->cbank_size[i], end);
	}
}

/* Stage 6: the QMD is in memory (or is not); the launch gets its id. */
static bool install_qmd(cs_gr *gr, const cs_method_call *c, uint64_t qmd_va,
			const cs_qmd_layout *l, cs_gr_launch_path path, uint32_t action,
			const char *how, uint32_t *launch_out, cs_diag *why)
{
	const cs_mem_port *m = &gr->bus->mem;
	if (!m->mapped(m->ctx, qmd_va, l->bytes)) {
		uint64_t bad = gr_first_unmapped(gr, qmd_va, l->bytes);
		gr_fault(gr, c, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, CS_NONE32, bad,
			 CS_ACCESS_READ, why,
			 "%s names a QMD at 0x%" PRIx64 ", but 0x%" PRIx64
			 " is not mapped (no QMD is installed there)",
			 how, qmd_va, bad);
		return false;
	}
	uint32_t id = gr->next_launch++;
	if (gr->next_launch == CS_NONE32)
		gr->next_launch = 0; /* ids wrap past 2^32 - 1 launches; CS_NONE32 means none */
	*launch_out = id;
	gr->counters.launches++;
	if (path == CS_GR_PATH_DEPENDENT)
		gr->counters.dependent_launches++;
	cs_event ev = gr_event(CS_EV_QMD_INSTALL, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, c, id);
	ev.addr = qmd_va;
	ev.value = l->bytes;
	ev.aux = path;
	gr_emit(gr, &ev, "QMD %s at 0x%" PRIx64 " (%s path: %s)", l->name, qmd_va,
		path_name(path), how);
	ev = gr_event(CS_EV_QMD_SCHEDULE, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, c, id);
	ev.addr = qmd_va;
	ev.value = action;
	ev.aux = path;
	gr_emit(gr, &ev, "%s", how);
	gr_advance(gr, CS_GR_NS_PER_LAUNCH);
	return true;
}

/* Stage 7: read the QMD now, from memory, whatever was built earlier, and
 * accept it (or reject it, and the channel stops). */
static bool read_qmd(cs_gr *gr, const cs_method_call *c, uint32_t id, uint64_t qmd_va,
		     unsigned major, const cs_qmd_layout *l, cs_qmd_info *in, cs_diag *why)
{
	const cs_mem_port *m = &gr->bus->mem;
	cs_qmd q;
	uint64_t fva = qmd_va;
	if (!cs_qmd_read_mem(&q, major, m, qmd_va, &fva)) {
		gr_fault(gr, c, CS_STAGE_QMD_READ, CS_UNIT_COMPUTE, id, fva, CS_ACCESS_READ, why,
			 "reading QMD %s at 0x%" PRIx64 " faulted at 0x%" PRIx64, l->name, qmd_va,
			 fva);
		return false;
	}
	cs_qmd_decode(&q, in);
	char reason[256];
	cs_event ev;
	cs_cause refused = cs_qmd_check(in, c->cls, m, reason, sizeof(reason));
	if (refused != CS_CAUSE_NONE) {
		gr->counters.qmds_rejected++;
		ev = gr_event(CS_EV_QMD_REJECT, CS_STAGE_QMD_READ, CS_UNIT_COMPUTE, c, id);
		ev.cause = refused;
		ev.addr = qmd_va;
		ev.value = in->major;
		ev.aux = unmapped_target(in, refused, m);
		gr_emit(gr, &ev, "%s", reason);
		gr_stop(gr, c, CS_STAGE_QMD_READ, CS_UNIT_COMPUTE, id, CS_ERR_INPUT, why,
			"the compute engine rejected the QMD at 0x%" PRIx64 " (launch %" PRIu32
			"): %s",
			qmd_va, id, reason);
		return false;
	}
	note_cbank_overhang(gr, c, id, in);
	ev = gr_event(CS_EV_QMD_READ, CS_STAGE_QMD_READ, CS_UNIT_COMPUTE, c, id);
	ev.addr = qmd_va;
	ev.value = in->major;
	gr_emit(gr, &ev,
		"QMD %s: grid %" PRIu32 "x%" PRIu32 "x%" PRIu32 ", block %" PRIu32 "x%" PRIu32
		"x%" PRIu32 ", shared %" PRIu32 ", regs %" PRIu32 ", program 0x%" PRIx64
		", cbank0 0x%" PRIx64 "+0x%" PRIx32,
		l->name, in->grid[0], in->grid[1], in->grid[2], in->block[0], in->block[1],
		in->block[2], in->shared_bytes, in->regs, in->program, in->cbank_addr[0],
		in->cbank_size[0]);
	return true;
}

/* Stage 8: the channel's context at dispatch. */
static bool load_context(cs_gr *gr, const gr_subch *s, const cs_method_call *c, uint32_t id,
			 const cs_qmd_info *in, cs_diag *why)
{
	cs_event ev;
	uint64_t local = s->c.local_addr;
	if (in->local_bytes_per_thread && !s->c.local_set) {
		ev = gr_event(CS_EV_CTX_BAD, CS_STAGE_CTX_LOAD, CS_UNIT_COMPUTE, c, id);
		ev.value = in->local_bytes_per_thread;
		gr_emit(gr, &ev,
			"local memory: the QMD asks %" PRIu64 " bytes per thread but "
			"SET_SHADER_LOCAL_MEMORY_A/B was never set on this channel (compute "
			"object %04X)",
			in->local_bytes_per_thread, c->cls);
		gr_stop(gr, c, CS_STAGE_CTX_LOAD, CS_UNIT_COMPUTE, id, CS_ERR_INPUT, why,
			"launch %" PRIu32 ": local memory: the QMD asks %" PRIu64 " bytes per "
			"thread but SET_SHADER_LOCAL_MEMORY_A/B was never set on this channel",
			id, in->local_bytes_per_thread);
		return false;
	}
	ev = gr_event(CS_EV_CTX_LOAD, CS_STAGE_CTX_LOAD, CS_UNIT_COMPUTE, c, id);
	ev.addr = local;
	uint64_t lwin = s->c.local_window;
	uint64_t swin = s->c.shared_window;
	char windows[96] = "";
	if (lwin || swin)
		snprintf(windows, sizeof(windows),
			 ", local window 0x%" PRIx64 ", shared window 0x%" PRIx64, lwin, swin);
	if (s->c.local_set && in->local_bytes_per_thread) {
		uint64_t threads = (uint64_t)in->grid[0] * in->grid[1] * in->grid[2] *
				   in->block[0] * in->block[1] * in->block[2];
		ev.value = in->local_bytes_per_thread;
		gr_emit(gr, &ev, "compute object %04X bound on subchannel %" PRIu32
			", local memory at 0x%" PRIx64 ": the QMD asks %" PRIu64
			" bytes per thread, %" PRIu64 " threads%s", c->cls, c->subch, local,
			in->local_bytes_per_thread, threads, windows);
	} else if (s->c.local_set) {
		gr_emit(gr, &ev, "compute object %04X bound on subchannel %" PRIu32
			", local memory 0x%" PRIx64 " set%s", c->cls, c->subch, local, windows);
	} else {
		gr_emit(gr, &ev, "compute object %04X bound on subchannel %" PRIu32
			", local memory not set (the QMD needs none)%s", c->cls, c->subch, windows);
	}
	return true;
}

/* Stage 9: a grid the executor did not run, with its outcome's verdict. */
static launch_end grid_not_run(cs_gr *gr, const cs_method_call *c, uint32_t id,
			       const cs_qmd_info *in, const cs_grid_result *r)
{
	static const char *const what[] = {
		[CS_GRID_NO_EXECUTOR] = "no executor",
		[CS_GRID_UNKNOWN_CODE] = "unknown code",
		[CS_GRID_ERROR] = "executor error",
		[CS_GRID_UNSUPPORTED] = "beyond the simulator",
		[CS_GRID_BUDGET] = "stopped at the executor's budget",
	};
	static const cs_cause cause[] = {
		[CS_GRID_NO_EXECUTOR] = CS_CAUSE_NO_EXECUTOR,
		[CS_GRID_UNKNOWN_CODE] = CS_CAUSE_CODE_UNKNOWN,
		[CS_GRID_ERROR] = CS_CAUSE_GRID_NOT_RUN,
		[CS_GRID_UNSUPPORTED] = CS_CAUSE_CODE_UNSUPPORTED,
		[CS_GRID_BUDGET] = CS_CAUSE_GRID_BUDGET,
	};
	unsigned o = (unsigned)r->outcome;
	const char *w = o < sizeof(what) / sizeof(what[0]) && what[o] ? what[o] : "unknown outcome";
	/* The executor's own reason may already open with the verdict. */
	static const char verdict[] = "dispatched, not executed: ";
	const char *why_msg = r->diag.msg;
	if (strncmp(why_msg, verdict, sizeof(verdict) - 1) == 0)
		why_msg += sizeof(verdict) - 1;
	gr->counters.grids_not_run++;
	cs_event ev = gr_event(CS_EV_GRID_NOT_RUN, CS_STAGE_GR_DISPATCH, CS_UNIT_COMPUTE, c, id);
	ev.addr = in->program;
	ev.value = o;
	ev.cause = o < sizeof(cause) / sizeof(cause[0]) && cause[o] ? cause[o] : CS_CAUSE_GRID_NOT_RUN;
	gr_emit(gr, &ev, "%s%s for code at 0x%" PRIx64 "%s%s", verdict, w, in->program,
		why_msg[0] ? ": " : "", why_msg);
	return END_NOT_RUN;
}

/* Stage 9: dispatch through the executor port. */
static launch_end dispatch_grid(cs_gr *gr, const gr_subch *s, const cs_method_call *c,
				uint32_t id, uint64_t qmd_va, const cs_qmd_info *in, cs_diag *why)
{
	uint64_t ctas = (uint64_t)in->grid[0] * in->grid[1] * in->grid[2];
	cs_event ev = gr_event(CS_EV_DISPATCH, CS_STAGE_GR_DISPATCH, CS_UNIT_COMPUTE, c, id);
	ev.addr = in->program;
	ev.value = ctas;
	ev.aux = (uint64_t)in->block[0] * in->block[1] * in->block[2];
	gr_emit(gr, &ev, "grid of %" PRIu64 " CTAs x %" PRIu64 " threads, program 0x%" PRIx64,
		ctas, ev.aux, in->program);
	if (!gr->has_exec) {
		gr->counters.grids_not_run++;
		ev = gr_event(CS_EV_GRID_NOT_RUN, CS_STAGE_GR_DISPATCH, CS_UNIT_COMPUTE, c, id);
		ev.addr = in->program;
		ev.value = CS_GRID_NO_EXECUTOR;
		ev.cause = CS_CAUSE_NO_EXECUTOR;
		gr_emit(gr, &ev, "dispatched, not executed: no executor for code at 0x%" PRIx64,
			in->program);
		return END_NOT_RUN;
	}
	cs_grid_launch g;
	fill_grid(s, c, id, qmd_va, in, &g);
	cs_grid_result r;
	memset(&r, 0, sizeof(r));
	r.outcome = CS_GRID_ERROR;
	cs_diag_clear(&r.diag);
	gr->exec.run_grid(gr->exec.ctx, gr->bus, &g, &r);
	r.kernel[sizeof(r.kernel) - 1] = '\0';
	r.diag.msg[sizeof(r.diag.msg) - 1] = '\0';
	switch (r.outcome) {
	case CS_GRID_EXECUTED:
		gr->counters.grids_executed++;
		gr->counters.ctas_executed += r.ctas_executed;
		gr->counters.thread_instructions += r.thread_instructions;
		ev = gr_event(CS_EV_GRID_DONE, CS_STAGE_GR_DISPATCH, CS_UNIT_COMPUTE, c, id);
		ev.addr = in->program;
		ev.value = r.ctas_executed;
		ev.aux = r.thread_instructions;
		gr_emit(gr, &ev, "%s", r.kernel[0] ? r.kernel : "(kernel name unknown)");
		gr_advance(gr, cs_gr_grid_ns(r.ctas_executed));
		return END_DONE;
	case CS_GRID_FAULT:
		gr->counters.grid_faults++;
		gr_fault(gr, c, CS_STAGE_GR_DISPATCH, CS_UNIT_SM, id, r.fault_va, (cs_access)0, why,
			 "launch %" PRIu32 " faulted in the SM at 0x%" PRIx64 ": %s", id, r.fault_va,
			 r.diag.msg[0] ? r.diag.msg : "(the executor gave no reason)");
		return END_STOP;
	default:
		return grid_not_run(gr, c, id, in, &r);
	}
}

static launch_end launch_one(cs_gr *gr, gr_subch *s, const cs_method_call *c, uint64_t qmd_va,
			     cs_gr_launch_path path, uint32_t action, const char *how,
			     cs_qmd_info *in, uint32_t *launch_out, cs_diag *why)
{
	unsigned major = cs_class_qmd_major(c->cls);
	const cs_qmd_layout *l = cs_qmd_layout_of(major);
	if (!install_qmd(gr, c, qmd_va, l, path, action, how, launch_out, why) ||
	    !read_qmd(gr, c, *launch_out, qmd_va, major, l, in, why) ||
	    !load_context(gr, s, c, *launch_out, in, why))
		return END_STOP;
	launch_end end = dispatch_grid(gr, s, c, *launch_out, qmd_va, in, why);
	if (end != END_DONE)
		return end;
	/* Stage 10: only an executed grid releases. */
	if (qmd_releases(gr, c, *launch_out, in, why) != CS_ENGINE_OK)
		return END_STOP;
	return in->dependent_enable ? END_FOLLOW : END_DONE;
}

cs_engine_result gr_launch(cs_gr *gr, gr_subch *s, const cs_method_call *c, uint64_t qmd_va,
			   cs_gr_launch_path path, uint32_t action, const char *how,
			   cs_diag *why)
{
	char dep_how[128];
	for (unsigned chain = 0;; chain++) {
		cs_qmd_info in;
		uint32_t id = CS_NONE32;
		launch_end end = launch_one(gr, s, c, qmd_va, path, action, how, &in, &id, why);
		if (end == END_STOP)
			return CS_ENGINE_STOP;
		if (end != END_FOLLOW)
			return CS_ENGINE_OK;

		/* The dependent QMD: a launch that completed acts on the pointed QMD. */
		uint64_t next = in.dependent_addr;
		cs_event ev = gr_event(CS_EV_DEPENDENT_QMD, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE,
				       c, id);
		ev.addr = next;
		ev.aux = in.dependent_action;
		gr_emit(gr, &ev, "launch %" PRIu32 " completed: dependent QMD 0x%" PRIx64 ", action %s",
			id, next, cs_dep_action_name(in.dependent_action));
		if (in.dependent_action != CS_DEP_SCHEDULE &&
		    in.dependent_action != CS_DEP_INVALIDATE_COPY_SCHEDULE) {
			ev = gr_event(CS_EV_ASSUMPTION, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, c, id);
			ev.addr = next;
			gr_emit(gr, &ev,
				"dependent QMD action %s on 0x%" PRIx64
				": modelled as not scheduling a launch (dependence counters and "
				"queues are not modelled)",
				cs_dep_action_name(in.dependent_action), next);
			return CS_ENGINE_OK;
		}
		if (chain + 1 >= GR_DEP_CHAIN_MAX)
			return gr_stop(gr, c, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, id, CS_ERR_INPUT,
				       why,
				       "dependent QMD chain longer than %u launches (a cycle?); "
				       "stopped at 0x%" PRIx64,
				       (unsigned)GR_DEP_CHAIN_MAX, next);
		snprintf(dep_how, sizeof(dep_how), "dependent QMD of launch %" PRIu32 ", action %s",
			 id, cs_dep_action_name(in.dependent_action));
		qmd_va = next;
		path = CS_GR_PATH_DEPENDENT;
		action = in.dependent_action;
		how = dep_how;
	}
}

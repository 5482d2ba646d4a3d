/* SPDX-License-Identifier: MIT */
/* The runtime behind the executor port: which kernel is the code at the QMD's
 * program address, where its parameters are, and a run of its PTX.
 *
 * A launch is matched by the code bytes, never by the address alone: a guest
 * that uploads other bytes at a kernel's old address, or a QMD that points one
 * byte off, is code the simulator cannot execute, and says so (docs/chain.md:
 * a kernel the simulator cannot execute is not a kernel that ran). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chainsim/ptx.h"
#include "module_internal.h"

typedef struct rt_module {
	cs_module *m;
	cs_ptx_program *prog;   /* NULL when the module has no PTX or it did not parse */
	cs_diag parse_diag;     /* why prog is NULL, when the parse failed */
	bool parse_failed;
} rt_module;

/* A PTX program found as text at a program address (the mock-GPU convention
 * below), parsed once per distinct text. */
typedef struct rt_text {
	uint64_t va;
	uint64_t hash;          /* FNV-1a of the text, so rewritten code is parsed again */
	size_t len;
	cs_ptx_program *prog;   /* NULL when it did not parse */
	cs_diag diag;
	uint64_t last_use;      /* the launch count when it last ran, for eviction */
} rt_text;

/* A cooperative launch as its driver call made it: the QMD and its grid
 * workspace. */
typedef struct rt_cooperative {
	uint64_t qmd, workspace;
} rt_cooperative;

struct cs_ptx_runtime {
	cs_arch arch;
	rt_module *mods;
	size_t nmods;
	rt_text *texts;
	size_t ntexts;
	uint8_t *scratch;       /* code read back from the bus */
	size_t scratch_cap;
	cs_ptx_approx approx;
	cs_ptx_races races;
	bool races_global;
	cs_ptx_schedule schedule;
	uint64_t schedule_seed;
	unsigned threads;
	/* the budgets of the runtime's scenario, and what its launches spent */
	uint64_t budget_instructions, budget_wall_ns;
	uint64_t spent_instructions, spent_wall_ns;
	bool budget_per_launch;
	uint64_t text_launches;  /* launches of text programs, the eviction clock */
	rt_cooperative *coops;   /* the QMDs launched cooperatively */
	size_t ncoops;
};

cs_ptx_runtime *cs_ptx_runtime_new(cs_arch arch)
{
	cs_ptx_runtime *rt = calloc(1, sizeof(*rt));
	if (rt) {
		rt->arch = arch;
		rt->races = CS_PTX_RACES_REPORT;
	}
	return rt;
}

void cs_ptx_runtime_free(cs_ptx_runtime *rt)
{
	if (!rt)
		return;
	for (size_t i = 0; i < rt->nmods; i++) {
		cs_ptx_program_free(rt->mods[i].prog);
		cs_module_free(rt->mods[i].m);
	}
	free(rt->mods);
	for (size_t i = 0; i < rt->ntexts; i++)
		cs_ptx_program_free(rt->texts[i].prog);
	free(rt->texts);
	free(rt->scratch);
	free(rt->coops);
	free(rt);
}

bool cs_ptx_runtime_cooperative(cs_ptx_runtime *rt, uint64_t qmd_va, uint64_t workspace_va,
				cs_diag *d)
{
	for (size_t i = 0; i < rt->ncoops; i++)
		if (rt->coops[i].qmd == qmd_va) {
			rt->coops[i].workspace = workspace_va;
			return true;
		}
	rt_cooperative *n = realloc(rt->coops, (rt->ncoops + 1) * sizeof(*n));
	if (!n) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	rt->coops = n;
	rt->coops[rt->ncoops++] = (rt_cooperative){ qmd_va, workspace_va };
	return true;
}

static uint64_t cooperative_workspace(const cs_ptx_runtime *rt, uint64_t qmd_va)
{
	for (size_t i = 0; i < rt->ncoops; i++)
		if (rt->coops[i].qmd == qmd_va)
			return rt->coops[i].workspace;
	return 0;
}

size_t cs_ptx_runtime_module_count(const cs_ptx_runtime *rt) { return rt ? rt->nmods : 0; }

void cs_ptx_runtime_set_approx(cs_ptx_runtime *rt, cs_ptx_approx mode)
{
	if (rt)
		rt->approx = mode;
}

void cs_ptx_runtime_set_races(cs_ptx_runtime *rt, cs_ptx_races mode, bool global)
{
	if (rt) {
		rt->races = mode;
		rt->races_global = global;
	}
}

void cs_ptx_runtime_set_schedule(cs_ptx_runtime *rt, cs_ptx_schedule schedule, uint64_t seed)
{
	if (rt) {
		rt->schedule = schedule;
		rt->schedule_seed = seed;
	}
}

void cs_ptx_runtime_set_threads(cs_ptx_runtime *rt, unsigned threads)
{
	if (rt)
		rt->threads = threads;
}

void cs_ptx_runtime_set_budget(cs_ptx_runtime *rt, uint64_t thread_instructions, uint64_t wall_ns)
{
	if (rt) {
		rt->budget_instructions = thread_instructions;
		rt->budget_wall_ns = wall_ns;
	}
}

void cs_ptx_runtime_set_budget_per_launch(cs_ptx_runtime *rt, bool per_launch)
{
	if (rt)
		rt->budget_per_launch = per_launch;
}

static void text_drop(cs_ptx_runtime *rt, size_t i)
{
	cs_ptx_program_free(rt->texts[i].prog);
	rt->texts[i] = rt->texts[--rt->ntexts];
}

void cs_ptx_runtime_forget(cs_ptx_runtime *rt, uint64_t va, uint64_t size)
{
	if (!rt)
		return;
	for (size_t i = rt->ntexts; i-- > 0;)
		if (rt->texts[i].va - va < size)
			text_drop(rt, i);
}

bool cs_ptx_runtime_add(cs_ptx_runtime *rt, cs_module *m, cs_diag *d)
{
	if (!rt || !m) {
		cs_diag_set(d, CS_ERR_INPUT, "no runtime or no module");
		return false;
	}
	if (m->arch != rt->arch) {
		cs_diag_set(d, CS_ERR_INPUT, "%s was loaded for %s, the runtime runs %s", m->name,
			    cs_arch_get(m->arch)->name, cs_arch_get(rt->arch)->name);
		return false;
	}
	rt_module *nm = realloc(rt->mods, (rt->nmods + 1) * sizeof(*nm));
	if (!nm) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	rt->mods = nm;
	rt_module *r = &nm[rt->nmods];
	memset(r, 0, sizeof(*r));
	if (m->ptx) {
		r->prog = cs_ptx_parse(m->ptx, m->ptx_len, m->ptx_file ? m->ptx_file : m->name,
				       &r->parse_diag);
		r->parse_failed = r->prog == NULL;
	}
	r->m = cs_module_ref(m);
	rt->nmods++;
	return true;
}

static void set_outcome(cs_grid_result *out, cs_grid_outcome oc, cs_status st, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));

static void set_outcome(cs_grid_result *out, cs_grid_outcome oc, cs_status st, const char *fmt,
			...)
{
	out->outcome = oc;
	cs_diag_clear(&out->diag);
	out->diag.status = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->diag.msg, sizeof(out->diag.msg), fmt, ap);
	va_end(ap);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs a launch on what is left of the scenario's budgets and counts what it
 * spent; a launch after they ran out stops before its first CTA. */
static void run_budgeted(cs_ptx_runtime *rt, const cs_ptx_program *prog, size_t entry,
			 cs_ptx_launch *l, const cs_bus *bus, cs_grid_result *out)
{
	uint64_t instr = rt->budget_instructions ? rt->budget_instructions : CS_PTX_BUDGET_DEFAULT;
	uint64_t wall = rt->budget_wall_ns ? rt->budget_wall_ns : CS_PTX_WALL_DEFAULT_NS;
	if (rt->budget_per_launch) {
		rt->spent_instructions = 0;
		rt->spent_wall_ns = 0;
	}
	if (rt->spent_instructions >= instr || rt->spent_wall_ns >= wall) {
		memset(out, 0, sizeof(*out));
		set_outcome(out, CS_GRID_BUDGET, CS_ERR_UNSUPPORTED,
			    "the scenario's budget (%" PRIu64 " thread-instructions, %.3g s of wall "
			    "time) was spent by earlier launches", instr, (double)wall / 1e9);
		return;
	}
	l->threads = rt->threads;
	l->max_thread_instructions = instr - rt->spent_instructions;
	l->max_wall_ns = wall - rt->spent_wall_ns;
	uint64_t t0 = monotonic_ns();
	cs_ptx_run(prog, entry, l, bus, out);
	rt->spent_wall_ns += monotonic_ns() - t0;
	rt->spent_instructions += out->thread_instructions;
}

/* The kernel whose SASS is at va, or false. *compared gets the most bytes
 * compared for one kernel (for the message). */
static bool match_code(cs_ptx_runtime *rt, const cs_bus *bus, uint64_t va, size_t *mod,
		       size_t *kern, size_t *compared, size_t *kernels)
{
	*compared = 0;
	*kernels = 0;
	for (size_t i = 0; i < rt->nmods; i++) {
		const cs_module *m = rt->mods[i].m;
		for (size_t k = 0; k < m->nkernels; k++) {
			const cs_kernel_info *ki = &m->kernels[k];
			(*kernels)++;
			if (va + ki->code_size < va || !bus->mem.mapped(bus->mem.ctx, va, ki->code_size))
				continue;
			if (ki->code_size > rt->scratch_cap) {
				uint8_t *ns = realloc(rt->scratch, ki->code_size);
				if (!ns)
					return false;
				rt->scratch = ns;
				rt->scratch_cap = ki->code_size;
			}
			uint64_t fva = 0;
			if (!bus->mem.read(bus->mem.ctx, va, rt->scratch, ki->code_size, &fva))
				continue;
			if (ki->code_size > *compared)
				*compared = ki->code_size;
			if (memcmp(rt->scratch, ki->code, ki->code_size) == 0) {
				*mod = i;
				*kern = k;
				return true;
			}
		}
	}
	return false;
}

/* ---- the mock-GPU convention: PTX text at the program address ------------------
 *
 * tinygrad's mock NV GPU uploads the PTX *text* its renderer made where a real
 * driver would put SASS, and passes each parameter as one 64-bit slot from
 * constant bank 0 + 0x160 (buffers, then values, a slot each, whatever the
 * parameter's size). When the program memory holds PTX text and no loaded
 * kernel matches, the runtime runs it that way and records the assumption. */
enum { PTX_TEXT_MAX = 4u << 20, MOCK_PARAM_OFFSET = 0x160, MOCK_PARAM_SLOT = 8 };

/* The NUL-terminated text at va (at most PTX_TEXT_MAX bytes, up to the end
 * of mapped memory) in rt->scratch, when it reads as PTX; its length in *len. */
static bool read_ptx_text(cs_ptx_runtime *rt, const cs_bus *bus, uint64_t va, size_t *len)
{
	size_t n = 0;
	for (;;) {
		size_t chunk = CS_PAGE_SIZE - (size_t)((va + n) & (CS_PAGE_SIZE - 1));
		if (n + chunk > PTX_TEXT_MAX || !bus->mem.mapped(bus->mem.ctx, va + n, chunk))
			return false;
		if (n + chunk > rt->scratch_cap) {
			uint8_t *ns = realloc(rt->scratch, n + chunk);
			if (!ns)
				return false;
			rt->scratch = ns;
			rt->scratch_cap = n + chunk;
		}
		uint64_t fva;
		if (!bus->mem.read(bus->mem.ctx, va + n, rt->scratch + n, chunk, &fva))
			return false;
		const uint8_t *nul = memchr(rt->scratch + n, 0, chunk);
		n += chunk;
		if (nul) {
			*len = (size_t)(nul - rt->scratch);
			break;
		}
	}
	const char *t = (const char *)rt->scratch;
	size_t i = 0;
	while (i < *len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	bool opens = (*len - i >= 2 && t[i] == '/' && t[i + 1] == '/') ||
		     (*len - i >= 8 && memcmp(t + i, ".version", 8) == 0);
	for (size_t k = i; k < *len; k++)
		if ((uint8_t)t[k] >= 0x80 || (t[k] < 0x20 && t[k] != '\n' && t[k] != '\t' &&
					       t[k] != '\r'))
			return false;
	return opens;
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The parsed program for the text now in rt->scratch, from the cache or new. */
static rt_text *text_program(cs_ptx_runtime *rt, uint64_t va, size_t len)
{
	uint64_t h = fnv1a(rt->scratch, len);
	rt->text_launches++;
	for (size_t i = 0; i < rt->ntexts; i++) {
		if (rt->texts[i].va == va && rt->texts[i].len == len && rt->texts[i].hash == h) {
			rt->texts[i].last_use = rt->text_launches;
			return &rt->texts[i];
		}
	}
	if (rt->ntexts == CS_PTX_TEXT_CACHE_MAX) {
		size_t oldest = 0;
		for (size_t i = 1; i < rt->ntexts; i++)
			if (rt->texts[i].last_use < rt->texts[oldest].last_use)
				oldest = i;
		text_drop(rt, oldest);
	}
	rt_text *nt = realloc(rt->texts, (rt->ntexts + 1) * sizeof(*nt));
	if (!nt)
		return NULL;
	rt->texts = nt;
	rt_text *t = &nt[rt->ntexts++];
	*t = (rt_text){ .va = va, .hash = h, .len = len, .last_use = rt->text_launches };
	char name[48];
	snprintf(name, sizeof(name), "ptx@0x%" PRIx64, va);
	t->prog = cs_ptx_parse((const char *)rt->scratch, len, name, &t->diag);
	return t;
}

static void note_assumption(const cs_bus *bus, const cs_grid_launch *g, const char *text)
{
	cs_event ev = cs_event_make(CS_EV_ASSUMPTION, CS_STAGE_GR_DISPATCH, CS_UNIT_SM, g->channel);
	ev.launch = g->launch;
	ev.addr = g->program;
	ev.detail = text;
	cs_trace_emit(&bus->trace, &ev);
}

/* Runs the PTX text at g->program under the mock-GPU convention; false when
 * the memory there is not PTX text (the caller reports unknown code). */
static bool run_ptx_text(cs_ptx_runtime *rt, const cs_bus *bus, const cs_grid_launch *g,
			 cs_grid_result *out)
{
	size_t len;
	if (!read_ptx_text(rt, bus, g->program, &len))
		return false;
	rt_text *t = text_program(rt, g->program, len);
	if (!t) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_NOMEM, "out of memory");
		return true;
	}
	if (!t->prog) {
		char why[CS_DIAG_MSG_MAX];
		cs_diag_format(&t->diag, why, sizeof(why));
		set_outcome(out, CS_GRID_UNSUPPORTED, CS_ERR_UNSUPPORTED,
			    "dispatched, not executed: the program memory at 0x%" PRIx64
			    " is PTX text the executor cannot run: %s", g->program, why);
		return true;
	}
	if (cs_ptx_entry_count(t->prog) != 1) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
			    "the PTX text at 0x%" PRIx64 " has %zu entries: the mock-GPU convention "
			    "runs a text with exactly one", g->program, cs_ptx_entry_count(t->prog));
		return true;
	}
	const size_t entry = 0;
	snprintf(out->kernel, sizeof(out->kernel), "%s", cs_ptx_entry_name(t->prog, entry));
	note_assumption(bus, g, "program memory is PTX text: run under the mock-GPU convention "
			"(tinygrad's mock NV GPU): each parameter is a 64-bit slot at constant "
			"bank 0 + 0x160, and the QMD's shared and local sizes are not checked "
			"against the kernel");
	size_t np = cs_ptx_param_count(t->prog, entry);
	uint32_t pbytes = cs_ptx_param_bytes(t->prog, entry);
	uint8_t *params = calloc(1, pbytes ? pbytes : 1);
	if (!params) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_NOMEM, "out of memory");
		return true;
	}
	uint64_t slots_va = g->cbank_addr[0] + MOCK_PARAM_OFFSET;
	for (size_t i = 0; i < np; i++) {
		cs_ptx_param pp;
		uint8_t slot[MOCK_PARAM_SLOT];
		uint64_t fva = 0;
		uint64_t at = slots_va + i * MOCK_PARAM_SLOT;
		if (!cs_ptx_param_info(t->prog, entry, i, &pp) || pp.size > MOCK_PARAM_SLOT ||
		    (uint64_t)pp.offset + pp.size > pbytes) {
			set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
				    "kernel %s: parameter %zu does not fit a 64-bit slot of the "
				    "mock-GPU convention", out->kernel, i);
			free(params);
			return true;
		}
		if (!(g->cbank_valid & 1u) || !bus->mem.read(bus->mem.ctx, at, slot, sizeof(slot), &fva)) {
			out->fault_va = fva ? fva : at;
			set_outcome(out, CS_GRID_FAULT, CS_ERR_FAULT,
				    "kernel %s: reading parameter %zu at 0x%" PRIx64 " (constant bank 0 "
				    "+ 0x%zx) faulted", out->kernel, i, at,
				    (size_t)(MOCK_PARAM_OFFSET + i * MOCK_PARAM_SLOT));
			free(params);
			return true;
		}
		memcpy(params + pp.offset, slot, pp.size); /* little-endian: the low bytes */
	}
	uint32_t stat = cs_ptx_static_shared_bytes(t->prog, entry);
	cs_ptx_launch l = { 0 };
	memcpy(l.grid, g->grid, sizeof(l.grid));
	memcpy(l.block, g->block, sizeof(l.block));
	l.dynamic_shared_bytes = g->shared_bytes > stat ? g->shared_bytes - stat : 0;
	l.params = params;
	l.param_bytes = pbytes;
	l.channel = g->channel;
	l.launch = g->launch;
	l.shared_window = g->shared_window;
	l.local_window = g->local_window;
	run_budgeted(rt, t->prog, entry, &l, bus, out);
	free(params);
	return true;
}

/* Why the code at g->program ran as no kernel: none loaded, none fitting the
 * mapped memory, or none of those compared matching. */
static void unknown_code(const cs_ptx_runtime *rt, const cs_grid_launch *g, cs_grid_result *out,
			 size_t compared, size_t nkern)
{
	if (nkern == 0)
		set_outcome(out, CS_GRID_UNKNOWN_CODE, CS_ERR_UNSUPPORTED,
			    "dispatched, not executed: no kernel is loaded, so the code at "
			    "0x%" PRIx64 " matches none",
			    g->program);
	else if (compared == 0)
		set_outcome(out, CS_GRID_UNKNOWN_CODE, CS_ERR_UNSUPPORTED,
			    "dispatched, not executed: the code at 0x%" PRIx64
			    " matches no loaded kernel (none of the %zu fits in the memory "
			    "mapped there)",
			    g->program, nkern);
	else
		set_outcome(out, CS_GRID_UNKNOWN_CODE, CS_ERR_UNSUPPORTED,
			    "dispatched, not executed: the %zu bytes at 0x%" PRIx64
			    " match no loaded kernel (%zu kernel%s in %zu module%s compared)",
			    compared, g->program, nkern, nkern == 1 ? "" : "s", rt->nmods,
			    rt->nmods == 1 ? "" : "s");
}

/* Launch bounds the cubin states: more threads than __launch_bounds__
 * allows (the code was register-allocated for fewer) or a block other
 * than the one .reqntid demands is not a launch the kernel can run. */
static bool launch_bounds_ok(const cs_kernel_info *k, const cs_grid_launch *g,
			     cs_grid_result *out)
{
	uint64_t threads = (uint64_t)g->block[0] * g->block[1] * g->block[2];
	if (k->max_threads[0]) {
		uint64_t most = (uint64_t)k->max_threads[0] * (k->max_threads[1] ? k->max_threads[1] : 1) *
				(k->max_threads[2] ? k->max_threads[2] : 1);
		if (threads > most) {
			set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
				    "kernel %s: a block of %" PRIu64 " threads (%ux%ux%u) exceeds its "
				    "launch bounds of %" PRIu64 " (EIATTR_MAX_THREADS)",
				    k->name, threads, g->block[0], g->block[1], g->block[2], most);
			return false;
		}
	}
	if (k->reqntid[0] && (g->block[0] != k->reqntid[0] ||
			      g->block[1] != (k->reqntid[1] ? k->reqntid[1] : 1) ||
			      g->block[2] != (k->reqntid[2] ? k->reqntid[2] : 1))) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
			    "kernel %s: block %ux%ux%u, the kernel requires %ux%ux%u (EIATTR_REQNTID)",
			    k->name, g->block[0], g->block[1], g->block[2], k->reqntid[0],
			    k->reqntid[1], k->reqntid[2]);
		return false;
	}
	return true;
}

/* Parameters: constant bank 0 at param_base, laid out per the cubin's
 * KPARAM_INFO, moved to the offsets the PTX .param list declares. True with
 * *params_out (the caller frees it) and its size; false when out says why. */
static bool kernel_params(const rt_module *rm, const cs_kernel_info *k, size_t entry,
			  const cs_grid_launch *g, const cs_bus *bus, cs_grid_result *out,
			  uint8_t **params_out, uint32_t *pbytes_out)
{
	if (!(g->cbank_valid & 1u)) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
			    "kernel %s: constant bank 0 (its parameters) is not bound in the QMD",
			    k->name);
		return false;
	}
	uint64_t need = (uint64_t)k->param_base + k->param_bytes;
	if (g->cbank_size[0] < need) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
			    "kernel %s: constant bank 0 is 0x%x bytes, its parameters need 0x%" PRIx64
			    " (0x%x at 0x%x)",
			    k->name, g->cbank_size[0], need, k->param_bytes, k->param_base);
		return false;
	}
	size_t np = cs_ptx_param_count(rm->prog, entry);
	if (np != k->nparams) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
			    "kernel %s: the PTX declares %zu parameters, the cubin %zu", k->name, np,
			    k->nparams);
		return false;
	}
	uint8_t *cb = calloc(1, k->param_bytes ? k->param_bytes : 1);
	uint32_t pbytes = cs_ptx_param_bytes(rm->prog, entry);
	uint8_t *params = calloc(1, pbytes ? pbytes : 1);
	if (!cb || !params) {
		free(cb);
		free(params);
		set_outcome(out, CS_GRID_ERROR, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	uint64_t fva = 0;
	uint64_t cb_va = g->cbank_addr[0] + k->param_base;
	if (k->param_bytes && !bus->mem.read(bus->mem.ctx, cb_va, cb, k->param_bytes, &fva)) {
		out->fault_va = fva;
		set_outcome(out, CS_GRID_FAULT, CS_ERR_FAULT,
			    "kernel %s: reading its 0x%x parameter bytes at 0x%" PRIx64
			    " (constant bank 0 + 0x%x) faulted at 0x%" PRIx64,
			    k->name, k->param_bytes, cb_va, k->param_base, fva);
		free(cb);
		free(params);
		return false;
	}
	for (size_t i = 0; i < np; i++) {
		cs_ptx_param pp;
		const cs_kernel_param *kp = &k->params[i];
		if (!cs_ptx_param_info(rm->prog, entry, i, &pp) || kp->ordinal != i ||
		    pp.size != kp->size || (uint64_t)pp.offset + pp.size > pbytes) {
			set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
				    "kernel %s: parameter %zu is %u bytes in the cubin and %u in the "
				    "PTX",
				    k->name, i, kp->size, pp.size);
			free(cb);
			free(params);
			return false;
		}
		memcpy(params + pp.offset, cb + kp->offset, kp->size);
	}
	free(cb);
	*params_out = params;
	*pbytes_out = pbytes;
	return true;
}

/* Whether the QMD reserves the static shared memory and the local memory per
 * thread the kernel declares; false when out says why. */
static bool kernel_memory_ok(const cs_kernel_info *k, const cs_grid_launch *g,
			     cs_grid_result *out)
{
	if (g->shared_bytes < k->shared_static) {
		/* a kernel that declares little or none reads as needing 1 KiB from sm_90 */
		char why[192] = "";
		if (k->sm >= 90 && k->shared_static >= 0x400)
			snprintf(why, sizeof(why), " (its .nv.shared.%.40s: from sm_90 nvcc counts there "
				 "the 1 KiB the hardware reserves at the start of shared memory, "
				 "0x400 + the kernel's own %u)", k->name, k->shared_static - 0x400);
		set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
			    "kernel %s needs %u bytes of static shared memory%s, the QMD reserves %u",
			    k->name, k->shared_static, why, g->shared_bytes);
		return false;
	}
	/* The engine passed stage 8 on the QMD's local size; a frame with no region,
	 * or larger than the QMD's size, would run past each thread's slice. */
	if (k->local_bytes && !g->local_base) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
			    "kernel %s needs %u bytes of local memory per thread, and no local-memory "
			    "region is set (SET_SHADER_LOCAL_MEMORY_A/B)",
			    k->name, k->local_bytes);
		return false;
	}
	if (g->local_bytes_per_thread < k->local_bytes) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_INPUT,
			    "kernel %s needs %u bytes of local memory per thread, the QMD reserves "
			    "%" PRIu64 " (SHADER_LOCAL_MEMORY_LOW_SIZE + HIGH_SIZE)",
			    k->name, k->local_bytes, g->local_bytes_per_thread);
		return false;
	}
	return true;
}

static void run_grid(void *ctx, const cs_bus *bus, const cs_grid_launch *g, cs_grid_result *out)
{
	cs_ptx_runtime *rt = ctx;
	memset(out, 0, sizeof(*out));
	if (!bus->mem.mapped(bus->mem.ctx, g->program, 1)) {
		out->fault_va = g->program;
		set_outcome(out, CS_GRID_FAULT, CS_ERR_FAULT,
			    "dispatched, not executed: the program address 0x%" PRIx64
			    " is not mapped",
			    g->program);
		return;
	}
	size_t mi = 0, ki = 0, compared = 0, nkern = 0;
	if (!match_code(rt, bus, g->program, &mi, &ki, &compared, &nkern)) {
		if (run_ptx_text(rt, bus, g, out))
			return;
		unknown_code(rt, g, out, compared, nkern);
		return;
	}
	const rt_module *rm = &rt->mods[mi];
	const cs_kernel_info *k = &rm->m->kernels[ki];
	snprintf(out->kernel, sizeof(out->kernel), "%s", k->name);

	size_t entry = 0;
	if (!rm->prog) {
		char why[CS_DIAG_MSG_MAX];
		if (rm->parse_failed)
			cs_diag_format(&rm->parse_diag, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s", rm->m->ptx_note[0] ? rm->m->ptx_note
									    : "no PTX");
		set_outcome(out, CS_GRID_UNSUPPORTED, CS_ERR_UNSUPPORTED,
			    "dispatched, not executed: kernel %s (SASS matched at 0x%" PRIx64
			    ") has no PTX the executor can run: %s",
			    k->name, g->program, why);
		return;
	}
	if (!cs_ptx_entry_find(rm->prog, k->name, &entry)) {
		set_outcome(out, CS_GRID_ERROR, CS_ERR_UNSUPPORTED,
			    "dispatched, not executed: kernel %s (SASS matched at 0x%" PRIx64
			    ") has no .entry in the module's PTX",
			    k->name, g->program);
		return;
	}
	if (!launch_bounds_ok(k, g, out))
		return;
	uint8_t *params;
	uint32_t pbytes;
	if (!kernel_params(rm, k, entry, g, bus, out, &params, &pbytes))
		return;
	if (!kernel_memory_ok(k, g, out)) {
		free(params);
		return;
	}
	cs_ptx_launch l = { 0 };
	memcpy(l.grid, g->grid, sizeof(l.grid));
	memcpy(l.block, g->block, sizeof(l.block));
	l.dynamic_shared_bytes = g->shared_bytes - k->shared_static;
	l.params = params;
	l.param_bytes = pbytes;
	l.channel = g->channel;
	l.launch = g->launch;
	l.shared_window = g->shared_window;
	l.local_window = g->local_window;
	l.approx = rt->approx;
	l.races = rt->races;
	l.races_global = rt->races_global;
	l.schedule = rt->schedule;
	l.schedule_seed = rt->schedule_seed;
	l.grid_workspace = cooperative_workspace(rt, g->qmd_addr);
	l.cooperative = l.grid_workspace != 0;
	run_budgeted(rt, rm->prog, entry, &l, bus, out);
	if (!out->kernel[0])
		snprintf(out->kernel, sizeof(out->kernel), "%s", k->name);
	free(params);
}

cs_exec_port cs_ptx_runtime_port(cs_ptx_runtime *rt)
{
	cs_exec_port p = { .ctx = rt, .run_grid = run_grid };
	return p;
}

/* The chain judged from the trace (DESIGN.md section 1): eleven stages overall
 * and per launch, each from positive evidence in the records, and the first
 * break with a diagnosis from a fixed set of rules, each with a stable cause key.
 *
 * Claim discipline: a stage fires only on a record that shows it; only an
 * engine-authored release proves execution; a grid dispatched but not executed
 * is not a grid that ran. */
#include "chainsim/report.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/pushbuf.h"

#define NONE SIZE_MAX
#define X(v) ((unsigned long long)(v))

/* ---- counters ------------------------------------------------------------------ */

enum {
	C_ENTRIES, C_METHODS, C_LAUNCHES, C_CTAS, C_FAULTS, C_ENGINE_RELEASES,
	C_HOST_RELEASES, C_COPIES, C_BYTES_COPIED, C_WAITS, C_DEADLOCKS, C_RECORDS,
	C_COUNT
};
static const char *const counter_names[C_COUNT] = {
	"entries", "methods", "launches", "ctas", "faults", "engine_releases",
	"host_releases", "copies", "bytes_copied", "waits", "deadlocks", "records",
};

const char *cs_report_counter_name(const cs_report *r, size_t i)
{
	(void)r;
	return i < C_COUNT ? counter_names[i] : NULL;
}

bool cs_report_counter(const cs_report *r, const char *name, uint64_t *value)
{
	for (size_t i = 0; i < r->ncounters; i++) {
		if (strcmp(counter_names[i], name) == 0) {
			*value = r->counters[i];
			return true;
		}
	}
	return false;
}

/* ---- one launch, as the records tell it ------------------------------------------ */

typedef struct lslot {
	uint32_t id;          /* CS_NONE32 while no record has numbered it */
	uint32_t channel;
	bool open;            /* may still adopt an id (anonymous install) */
	size_t install, schedule, shortq, read, reject, fault_qmd, ctx, ctx_bad;
	size_t dispatch, done, not_run, fault_grid, release, fault_release;
	size_t engine_stop;   /* an engine's stop record at another stage (8, 9) */
	size_t dependent;     /* its QMD scheduled a dependent QMD on completion */
	size_t host_release;  /* the first host release on its channel after its grid */
	size_t first;         /* first record of the launch */
} lslot;

enum { OPEN_CACHE = 64, ID_INDEX_MAX = 1u << 24 };

typedef struct judge {
	const cs_report_input *in;
	const cs_event *ev;
	size_t n;
	lslot *slots;
	size_t nslots, cap;
	/* Lookups that keep the judge linear in the records: slot index + 1 by
	 * launch id (ids are handed out densely from 0), and the open anonymous
	 * slot by channel (0 = none). */
	size_t *by_id;
	size_t nby_id;
	size_t open_on[OPEN_CACHE];
	/* per stage of the chain being built: the rule that explains a not-fired row */
	cs_cause cause[CS_STAGE_COUNT + 1];
	char diag[CS_STAGE_COUNT + 1][CS_DIAGNOSIS_MAX];
} judge;

static void index_id(judge *j, uint32_t id, size_t slot);

static lslot *slot_new(judge *j, uint32_t id, uint32_t channel, size_t first)
{
	if (j->nslots == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 16;
		lslot *s = realloc(j->slots, cap * sizeof(*s));
		if (!s)
			return NULL;
		j->slots = s;
		j->cap = cap;
	}
	lslot *s = &j->slots[j->nslots++];
	*s = (lslot){ .id = id, .channel = channel, .install = NONE, .schedule = NONE,
		      .shortq = NONE, .read = NONE, .reject = NONE, .fault_qmd = NONE,
		      .ctx = NONE, .ctx_bad = NONE, .dispatch = NONE, .done = NONE,
		      .not_run = NONE, .fault_grid = NONE, .release = NONE,
		      .fault_release = NONE, .engine_stop = NONE, .dependent = NONE,
		      .host_release = NONE, .first = first };
	if (id != CS_NONE32)
		index_id(j, id, j->nslots - 1);
	return s;
}

static void index_id(judge *j, uint32_t id, size_t slot)
{
	if (id >= ID_INDEX_MAX)
		return;
	if (id >= j->nby_id) {
		size_t n = j->nby_id ? j->nby_id : 64;
		while (n <= id)
			n *= 2;
		size_t *b = realloc(j->by_id, n * sizeof(*b));
		if (!b)
			return;
		memset(b + j->nby_id, 0, (n - j->nby_id) * sizeof(*b));
		j->by_id = b;
		j->nby_id = n;
	}
	j->by_id[id] = slot + 1;
}

static lslot *slot_by_id(judge *j, uint32_t id)
{
	if (id < ID_INDEX_MAX) {
		size_t k = id < j->nby_id ? j->by_id[id] : 0;
		return k ? &j->slots[k - 1] : NULL;
	}
	for (size_t i = j->nslots; i-- > 0;)
		if (j->slots[i].id == id)
			return &j->slots[i];
	return NULL;
}

static lslot *slot_open_on(judge *j, uint32_t channel)
{
	if (channel < OPEN_CACHE) {
		size_t k = j->open_on[channel];
		return k && j->slots[k - 1].open ? &j->slots[k - 1] : NULL;
	}
	for (size_t i = j->nslots; i-- > 0;)
		if (j->slots[i].open && j->slots[i].channel == channel)
			return &j->slots[i];
	return NULL;
}

static void set_open(judge *j, lslot *s, bool open)
{
	s->open = open;
	if (s->channel < OPEN_CACHE)
		j->open_on[s->channel] = open ? (size_t)(s - j->slots) + 1 : 0;
}

/* The launch a record belongs to: by its id (adopting the channel's anonymous
 * install when the id is new), else the channel's anonymous launch. */
static lslot *slot_for(judge *j, const cs_event *e, size_t i, bool create)
{
	if (e->launch != CS_NONE32) {
		lslot *s = slot_by_id(j, e->launch);
		if (s)
			return s;
		s = slot_open_on(j, e->channel);
		if (s && s->id == CS_NONE32) {
			s->id = e->launch;
			index_id(j, e->launch, (size_t)(s - j->slots));
			return s;
		}
		return slot_new(j, e->launch, e->channel, i);
	}
	lslot *s = slot_open_on(j, e->channel);
	if (!s && create)
		s = slot_new(j, CS_NONE32, e->channel, i);
	return s;
}

/* The first host release on each launch's channel after its grid ran: with
 * RELEASE_WFI it is ordered after the grid (the front end waits for idle). */
static void find_host_releases(judge *j)
{
	for (size_t k = 0; k < j->nslots; k++) {
		lslot *s = &j->slots[k];
		if (s->done == NONE)
			continue;
		for (size_t i = s->done + 1; i < j->n; i++) {
			const cs_event *e = &j->ev[i];
			if (e->kind == CS_EV_SEM_RELEASE && e->unit == CS_UNIT_FE &&
			    e->channel == s->channel) {
				s->host_release = i;
				break;
			}
		}
	}
}

static bool after_wfi(const cs_event *e)
{
	return (e->aux & CS_SEM_RELEASE_AFTER_WFI) != 0;
}

static void collect_slots(judge *j)
{
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		lslot *s;
		switch ((cs_event_kind)e->kind) {
		case CS_EV_QMD_INSTALL:
			/* A new install on a channel closes the previous anonymous one. */
			if (e->launch == CS_NONE32 && (s = slot_open_on(j, e->channel)))
				set_open(j, s, false);
			s = slot_for(j, e, i, true);
			if (s) {
				s->install = i;
				set_open(j, s, s->id == CS_NONE32);
			}
			break;
		case CS_EV_QMD_SCHEDULE:
			if ((s = slot_for(j, e, i, true)))
				s->schedule = i;
			break;
		case CS_EV_INLINE_QMD_SHORT:
			if ((s = slot_new(j, CS_NONE32, e->channel, i)))
				s->shortq = i;
			break;
		case CS_EV_QMD_READ:
			if ((s = slot_for(j, e, i, true)))
				s->read = i;
			break;
		case CS_EV_QMD_REJECT:
			if ((s = slot_for(j, e, i, true)))
				s->reject = i;
			break;
		case CS_EV_CTX_LOAD:
			if ((s = slot_for(j, e, i, true)))
				s->ctx = i;
			break;
		case CS_EV_CTX_BAD:
			if ((s = slot_for(j, e, i, true)))
				s->ctx_bad = i;
			break;
		case CS_EV_DISPATCH:
			if ((s = slot_for(j, e, i, true)))
				s->dispatch = i;
			break;
		case CS_EV_GRID_DONE:
			if ((s = slot_for(j, e, i, true)))
				s->done = i;
			break;
		case CS_EV_GRID_NOT_RUN:
			if ((s = slot_for(j, e, i, true)))
				s->not_run = i;
			break;
		case CS_EV_SEM_RELEASE:
			if (e->unit != CS_UNIT_COMPUTE)
				break;
			if (e->launch != CS_NONE32) {
				if ((s = slot_for(j, e, i, true)) && s->release == NONE)
					s->release = i;
				break;
			}
			/* A report semaphore after a grid: the latest launch on the
			 * channel that ran and has no release yet. */
			for (size_t k = j->nslots; k-- > 0;) {
				lslot *c = &j->slots[k];
				if (c->channel == e->channel && c->done != NONE &&
				    c->release == NONE) {
					c->release = i;
					break;
				}
			}
			break;
		case CS_EV_DEPENDENT_QMD:
			if (e->launch != CS_NONE32 && (s = slot_for(j, e, i, false)) &&
			    s->dependent == NONE)
				s->dependent = i;
			break;
		case CS_EV_CHANNEL_STOP:
			/* An engine that stopped the channel at a launch stage: that launch's
			 * failure (the front end's own stop record follows it). */
			if (e->unit != CS_UNIT_COMPUTE && e->unit != CS_UNIT_COPY)
				break;
			if (e->launch != CS_NONE32 && e->stage != CS_STAGE_QMD_INSTALL &&
			    e->stage != CS_STAGE_QMD_READ && e->stage != CS_STAGE_ENGINE_RELEASE) {
				if ((s = slot_for(j, e, i, true)) && s->engine_stop == NONE)
					s->engine_stop = i;
			} else if (e->stage == CS_STAGE_QMD_INSTALL || e->stage == CS_STAGE_QMD_READ) {
				if ((s = slot_for(j, e, i, true)) && s->fault_qmd == NONE)
					s->fault_qmd = i;
			} else if (e->stage == CS_STAGE_ENGINE_RELEASE) {
				if ((s = slot_for(j, e, i, e->launch != CS_NONE32)) &&
				    s->fault_release == NONE)
					s->fault_release = i;
			}
			break;
		case CS_EV_FAULT:
			if (e->unit == CS_UNIT_COMPUTE &&
			    (e->stage == CS_STAGE_QMD_INSTALL || e->stage == CS_STAGE_QMD_READ)) {
				if ((s = slot_for(j, e, i, true)) && s->fault_qmd == NONE)
					s->fault_qmd = i;
			} else if (e->stage == CS_STAGE_GR_DISPATCH || e->unit == CS_UNIT_SM) {
				if ((s = slot_for(j, e, i, e->launch != CS_NONE32)) &&
				    s->fault_grid == NONE)
					s->fault_grid = i;
			} else if (e->stage == CS_STAGE_ENGINE_RELEASE && e->unit == CS_UNIT_COMPUTE) {
				if ((s = slot_for(j, e, i, e->launch != CS_NONE32)) &&
				    s->fault_release == NONE)
					s->fault_release = i;
			}
			break;
		default:
			break;
		}
	}
}

/* ---- small helpers ---------------------------------------------------------------- */

static void rowf(cs_chain *c, cs_stage s, cs_stage_status st, cs_author who, size_t event,
		 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void rowf(cs_chain *c, cs_stage s, cs_stage_status st, cs_author who, size_t event,
		 const char *fmt, ...)
{
	cs_stage_row *r = &c->rows[s];
	r->stage = s;
	r->status = st;
	r->author = who;
	r->event = event;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
	va_end(ap);
}

static void whyf(judge *j, cs_stage s, cs_cause cause, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void whyf(judge *j, cs_stage s, cs_cause cause, const char *fmt, ...)
{
	j->cause[s] = cause;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->diag[s], sizeof(j->diag[s]), fmt, ap);
	va_end(ap);
}

/* "read", "write", ...; "memory" when the record does not say (an SM fault
 * reports the address, not the kind of access). */
static const char *access_word(uint64_t acc)
{
	return acc >= CS_ACCESS_READ && acc <= CS_ACCESS_FETCH ? cs_access_name((cs_access)acc)
							      : "memory";
}

static const char *detail_of(const cs_event *e)
{
	return e->detail && e->detail[0] ? e->detail : NULL;
}

static void chan_name(const judge *j, uint32_t ch, char *buf, size_t len)
{
	const char *n = j->in->dev ? cs_device_channel_name(j->in->dev, ch) : NULL;
	if (n)
		snprintf(buf, len, "'%s'", n);
	else
		snprintf(buf, len, "ch%u", ch);
}

static const char *qmd_version(unsigned major)
{
	switch (major) {
	case 3: return "V03_00";
	case 4: return "V04_00";
	case 5: return "V05_00";
	default: return "V??";
	}
}

static const char *path_name(uint64_t aux)
{
	return aux ? "SEND_PCAS" : "inline";
}

/* "the compute engine", "the front end", for sentences. */
static const char *unit_phrase(uint8_t unit)
{
	switch ((cs_unit)unit) {
	case CS_UNIT_GUEST: return "the guest";
	case CS_UNIT_HOST: return "the host";
	case CS_UNIT_FE: return "the front end";
	case CS_UNIT_COMPUTE: return "the compute engine";
	case CS_UNIT_COPY: return "the copy engine";
	case CS_UNIT_SM: return "the SM (executor)";
	case CS_UNIT_COUNT: break;
	}
	return "an unknown unit";
}

/* "method 3 of entry 0" from a record, or "" when it carries neither. */
static void where_of(const cs_event *e, char *buf, size_t len)
{
	if (e->method_index != CS_NONE32 && e->gp_entry != CS_NONE32)
		snprintf(buf, len, "method %u of entry %u", e->method_index, e->gp_entry);
	else if (e->gp_entry != CS_NONE32)
		snprintf(buf, len, "entry %u", e->gp_entry);
	else
		snprintf(buf, len, "an unknown point of the stream");
}

/* A method's name in the class bound on its subchannel ("LAUNCH_DMA"). */
static void method_label(uint32_t cls, uint32_t method, char *buf, size_t len)
{
	const cs_class_desc *d = method < CS_PB_HOST_METHODS ? cs_fe_host_class(cls) : cs_gr_class(cls);
	if (method < CS_PB_HOST_METHODS && !d)
		d = cs_fe_host_class(0xC56F);
	if (!d || !cs_class_method_label(d, method, buf, len))
		snprintf(buf, len, "0x%x", method);
}

/* ---- what never reached the engine ----------------------------------------------------- */

/* Why decode memory here: the trace ends where the channel stopped, so the
 * methods it never ran are only in the pushbuffers. They are read as memory
 * holds them at the end of the guest program. */
typedef struct unreached {
	bool found;
	char what[160];
	uint64_t methods; /* methods that never ran, as far as decoded */
	bool host;        /* the first one found is a host method */
} unreached;

static const char *launchlike(uint32_t cls, uint32_t method, uint32_t data)
{
	cs_class_kind k = cs_class_kind_of(cls);
	if (k == CS_CLASS_COMPUTE) {
		if (method == CS_GR_SEND_PCAS_A || method == CS_GR_SET_INLINE_QMD_ADDRESS_A ||
		    method == CS_GR_SET_INLINE_QMD_ADDRESS_B)
			return "launch";
		if (method == CS_GR_SEND_SIGNALING_PCAS2_B && cs_pcas2_action_schedules(data & 0xfu))
			return "launch";
		if (method == CS_GR_LAUNCH_DMA)
			return "inline-to-memory write";
		if (method == CS_GR_SET_REPORT_SEMAPHORE_D)
			return "report semaphore release";
	} else if (k == CS_CLASS_COPY) {
		if (method == CS_CE_LAUNCH_DMA)
			return "copy";
	} else if (method == CS_FE_M_SEM_EXECUTE) {
		return (data & 7u) == CS_FE_SEM_RELEASE ? "semaphore release" : "semaphore acquire";
	}
	return NULL;
}

static void scan_entry(const judge *j, uint32_t bound[8], uint64_t pb, uint32_t len,
		       uint32_t entry, uint32_t after, bool same_entry, unreached *u)
{
	if (!len || len > (1u << 20))
		return;
	uint32_t *dw = malloc((size_t)len * 4u);
	if (!dw)
		return;
	if (!cs_device_peek(j->in->dev, pb, dw, (size_t)len * 4u)) {
		free(dw);
		return;
	}
	cs_pb_decoder dec;
	cs_pb_decoder_init(&dec, false);
	cs_pb_item items[256];
	size_t pos = 0;
	uint32_t index = 0;
	cs_diag d;
	while (pos < len) {
		size_t used = 0;
		size_t k = cs_pb_decode(&dec, dw + pos, len - pos, items, 256, &used, &d);
		for (size_t i = 0; i < k; i++) {
			const cs_pb_item *it = &items[i];
			if (it->kind != CS_PB_ITEM_METHOD)
				continue;
			uint32_t mi = index++;
			if (same_entry && mi <= after) {
				if (it->method == 0 && it->subch < 8)
					bound[it->subch] = it->data & 0xffffu;
				continue;
			}
			u->methods++;
			if (it->method == 0 && it->subch < 8)
				bound[it->subch] = it->data & 0xffffu;
			uint32_t cls = it->method < CS_PB_HOST_METHODS ? 0 : bound[it->subch & 7u];
			const char *what = launchlike(cls, it->method, it->data);
			if (what && !u->found) {
				u->found = true;
				u->host = it->method < CS_PB_HOST_METHODS;
				if (same_entry)
					snprintf(u->what, sizeof(u->what), "the %s at method %u", what, mi);
				else
					snprintf(u->what, sizeof(u->what), "the %s at method %u of entry %u",
						 what, mi, entry);
			}
		}
		if (dec.failed || used == 0)
			break;
		pos += used;
		if (dec.in_end_seg)
			break;
	}
	free(dw);
}

/* What a channel stopped at (entry, method) never ran. */
static void find_unreached(const judge *j, uint32_t ch, uint32_t entry, uint32_t method,
			   size_t upto, unreached *u)
{
	memset(u, 0, sizeof(*u));
	if (!j->in->dev || entry == CS_NONE32)
		return;
	/* The classes bound on the channel when it stopped: BIND records, with the
	 * conventional compute and copy subchannels as the fallback. */
	uint32_t bound[8] = { 0 };
	const cs_arch_info *ai = cs_arch_get(j->in->arch);
	if (ai) {
		bound[1] = ai->compute_class;
		bound[2] = ai->compute_class;
		bound[4] = ai->copy_class;
	}
	uint64_t pb = 0;
	uint32_t len = 0;
	bool have = false;
	for (size_t i = 0; i < upto && i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->channel != ch)
			continue;
		if (e->kind == CS_EV_BIND && e->subch < 8)
			bound[e->subch] = e->cls;
		if (e->kind == CS_EV_GP_FETCH && e->gp_entry == entry) {
			pb = e->addr;
			len = (uint32_t)e->value;
			have = true;
		}
	}
	if (have)
		scan_entry(j, bound, pb, len, entry, method == CS_NONE32 ? 0 : method, method != CS_NONE32, u);
	cs_device_chan_view v;
	if (!cs_device_channel_view(j->in->dev, ch, &v) || !v.entries)
		return;
	for (uint32_t slot = (entry + 1u) & (v.entries - 1u); slot != v.submitted_put;
	     slot = (slot + 1u) & (v.entries - 1u)) {
		uint32_t w[2];
		if (!cs_device_peek(j->in->dev, v.ring_va + (uint64_t)slot * 8u, w, 8))
			break;
		cs_gp_entry ge = cs_gp_decode(w[0], w[1]);
		if (ge.length)
			scan_entry(j, bound, ge.addr, ge.length, slot, 0, false, u);
	}
}

static void unreached_sentence(const unreached *u, char *buf, size_t len)
{
	if (u->found)
		snprintf(buf, len, "%s never %s", u->what,
			 u->host ? "ran" : "reached the engine");
	else if (u->methods)
		snprintf(buf, len, "the %llu method(s) after it never ran", X(u->methods));
	else
		snprintf(buf, len, "nothing after it ran");
}

/* ---- what the guest built, against what the stream names ----------------------------------- */

/* The guest's build record of a QMD (qmd) or pushbuffer nearest to addr; NONE
 * when it built none. *inside: addr lies within that object. */
static size_t nearest_build(const judge *j, bool qmd, uint64_t addr, bool *inside)
{
	size_t best = NONE;
	uint64_t best_d = UINT64_MAX;
	*inside = false;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind != CS_EV_GUEST_BUILD || (e->aux != 0) != qmd)
			continue;
		uint64_t bytes = qmd ? e->value : 4 * e->value;
		if (addr >= e->addr && addr - e->addr < (bytes ? bytes : 1)) {
			*inside = true;
			return i;
		}
		uint64_t d = addr > e->addr ? addr - e->addr : e->addr - addr;
		if (d < best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

/* The first fetched entry that lies in no pushbuffer the guest built, when the
 * guest built one that no entry fetched; NONE otherwise. */
static size_t stray_entry(const judge *j)
{
	size_t stray = NONE;
	for (size_t i = 0; i < j->n && stray == NONE; i++) {
		bool inside;
		if (j->ev[i].kind == CS_EV_GP_FETCH &&
		    nearest_build(j, false, j->ev[i].addr, &inside) != NONE && !inside)
			stray = i;
	}
	for (size_t i = 0; stray != NONE && i < j->n; i++) {
		const cs_event *b = &j->ev[i];
		if (b->kind != CS_EV_GUEST_BUILD || b->aux)
			continue;
		bool fetched = false;
		for (size_t k = 0; k < j->n && !fetched; k++)
			fetched = j->ev[k].kind == CS_EV_GP_FETCH && j->ev[k].addr >= b->addr &&
				  j->ev[k].addr < b->addr + 4 * b->value;
		if (!fetched)
			return stray;
	}
	return NONE;
}

/* "3 pages above", "0x40 bytes below": how far an address is from another. */
static void distance_words(uint64_t from, uint64_t to, char *buf, size_t len)
{
	uint64_t d = from > to ? from - to : to - from;
	if (d % CS_PAGE_SIZE == 0)
		snprintf(buf, len, "%llu page%s %s", X(d / CS_PAGE_SIZE),
			 d == CS_PAGE_SIZE ? "" : "s", to > from ? "above" : "below");
	else
		snprintf(buf, len, "0x%llx bytes %s", X(d), to > from ? "above" : "below");
}

/* ---- stages 1-5 and 11 (scenario wide) -------------------------------------------------- */

static void judge_build(judge *j, cs_chain *c)
{
	size_t pbs = 0, first_pb = NONE, first_qmd = NONE;
	uint64_t dwords = 0;
	bool fetched = false;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_GUEST_BUILD) {
			if (e->aux) {
				if (first_qmd == NONE)
					first_qmd = i;
			} else {
				pbs++;
				dwords += e->value;
				if (first_pb == NONE)
					first_pb = i;
			}
		}
		if (e->kind == CS_EV_GP_FETCH && e->value)
			fetched = true;
	}
	char qmd[96] = "";
	if (first_qmd != NONE)
		snprintf(qmd, sizeof(qmd), "%sQMD %s built at 0x%llx", first_pb != NONE ? ", " : "",
			 qmd_version((unsigned)j->ev[first_qmd].aux), X(j->ev[first_qmd].addr));
	if (first_pb != NONE) {
		const cs_event *e = &j->ev[first_pb];
		if (pbs == 1)
			rowf(c, 1, CS_STAGE_FIRED, CS_AUTHOR_GUEST, first_pb,
			     "%llu dwords in pb at 0x%llx%s", X(e->value), X(e->addr), qmd);
		else
			rowf(c, 1, CS_STAGE_FIRED, CS_AUTHOR_GUEST, first_pb,
			     "%zu pushbuffers, %llu dwords%s", pbs, X(dwords), qmd);
	} else if (first_qmd != NONE) {
		rowf(c, 1, CS_STAGE_FIRED, CS_AUTHOR_GUEST, first_qmd, "%s", qmd);
	} else if (fetched) {
		rowf(c, 1, CS_STAGE_FIRED, CS_AUTHOR_GUEST, NONE,
		     "stream written as raw memory (no build record)");
	} else {
		rowf(c, 1, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
		whyf(j, 1, CS_CAUSE_NO_BUILD, "the guest built no pushbuffer and no QMD, and the front end "
			   "fetched no stream: there is nothing to launch");
	}
}

static void judge_submit(judge *j, cs_chain *c)
{
	size_t put = NONE, advanced = NONE, bell = NONE, fwd = NONE, nsub = 0;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_GP_PUT) {
			if (put == NONE)
				put = i;
			if (e->value != e->aux) {
				nsub++;
				if (advanced == NONE)
					advanced = i;
			}
		} else if (e->kind == CS_EV_DOORBELL && bell == NONE) {
			bell = i;
		} else if (e->kind == CS_EV_HOST_FORWARD && e->value && fwd == NONE) {
			fwd = i;
		}
	}
	if (advanced != NONE && bell != NONE) {
		const cs_event *e = &j->ev[advanced];
		if (nsub > 1)
			rowf(c, 2, CS_STAGE_FIRED, CS_AUTHOR_GUEST, advanced,
			     "GP_PUT %llu -> %llu, doorbell (%zu submits)", X(e->aux), X(e->value), nsub);
		else
			rowf(c, 2, CS_STAGE_FIRED, CS_AUTHOR_GUEST, advanced, "GP_PUT %llu -> %llu, doorbell",
			     X(e->aux), X(e->value));
	} else if (advanced != NONE) {
		const cs_event *e = &j->ev[advanced];
		rowf(c, 2, CS_STAGE_NOT_FIRED, CS_AUTHOR_GUEST, advanced, "GP_PUT %llu -> %llu, no doorbell",
		     X(e->aux), X(e->value));
		whyf(j, 2, CS_CAUSE_NO_DOORBELL, "the guest advanced GP_PUT to %llu but never rang the "
			   "doorbell, so the front end was never told to fetch", X(e->value));
	} else if (put != NONE) {
		rowf(c, 2, CS_STAGE_NOT_FIRED, CS_AUTHOR_GUEST, put, "GP_PUT written unchanged (%llu)",
		     X(j->ev[put].value));
		whyf(j, 2, CS_CAUSE_NO_SUBMIT, "the guest wrote GP_PUT = %llu, its old value: no GPFIFO entry "
			   "was pushed before `submit`, so nothing was submitted", X(j->ev[put].value));
	} else {
		rowf(c, 2, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
		whyf(j, 2, CS_CAUSE_NO_SUBMIT, "the guest never wrote GP_PUT nor rang the doorbell: add "
			   "`gpfifo` entries and a `submit`");
	}
	if (fwd != NONE) {
		const cs_event *e = &j->ev[fwd];
		rowf(c, 3, CS_STAGE_FIRED, CS_AUTHOR_HOST, fwd, "%s",
		     detail_of(e) ? detail_of(e) : "forwarded");
	} else {
		rowf(c, 3, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
		whyf(j, 3, CS_CAUSE_NO_FORWARD, "the host forwarded no GPFIFO entry onto its ring");
	}
}

/* The first channel stop: the front end's stop record, and the record that
 * caused it (an engine's stop or fault, or the front end's own fault), if any.
 * late: the cause is an engine's failure at a launch stage (6-10) that a launch
 * owns; the methods did reach the engine, so the break is that launch's. */
typedef struct stopinfo {
	size_t stop, fault;
	bool late;
} stopinfo;

static bool is_engine_unit(uint8_t unit)
{
	return unit == CS_UNIT_COMPUTE || unit == CS_UNIT_COPY || unit == CS_UNIT_SM;
}

static stopinfo first_stop(const judge *j)
{
	stopinfo si = { NONE, NONE, false };
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind != CS_EV_CHANNEL_STOP)
			continue;
		if (e->unit != CS_UNIT_FE) {
			/* An engine's stop: the front end's follows on the same channel. */
			si.fault = i;
			si.stop = i;
			for (size_t k = i + 1; k < j->n; k++) {
				const cs_event *f = &j->ev[k];
				if (f->channel == e->channel && f->kind == CS_EV_CHANNEL_STOP &&
				    f->unit == CS_UNIT_FE) {
					si.stop = k;
					break;
				}
			}
		} else {
			si.stop = i;
			for (size_t k = i; k-- > 0;) {
				const cs_event *f = &j->ev[k];
				if (f->channel != e->channel)
					continue;
				if (f->kind == CS_EV_FAULT) {
					si.fault = k;
					break;
				}
				if (f->kind == CS_EV_CHANNEL_STOP || f->kind == CS_EV_ENTRY_DONE ||
				    f->kind == CS_EV_GP_FETCH)
					break;
			}
		}
		break;
	}
	if (si.fault != NONE) {
		const cs_event *f = &j->ev[si.fault];
		if (is_engine_unit(f->unit) && f->stage >= CS_STAGE_QMD_INSTALL) {
			for (size_t k = 0; k < j->nslots; k++) {
				const lslot *s = &j->slots[k];
				if (s->fault_qmd == si.fault || s->fault_grid == si.fault ||
				    s->fault_release == si.fault || s->engine_stop == si.fault ||
				    f->launch != CS_NONE32)
					si.late = true;
			}
		}
	}
	return si;
}

static void diagnose_stop(judge *j, cs_stage s, const stopinfo *si)
{
	const cs_event *st = &j->ev[si->stop];
	const cs_event *f = si->fault != NONE ? &j->ev[si->fault] : NULL;
	char ch[80], where[64], rest[200], mname[64];
	chan_name(j, st->channel, ch, sizeof(ch));
	const cs_event *loc = st->gp_entry != CS_NONE32 ? st : (f ? f : st);
	where_of(loc, where, sizeof(where));
	unreached u;
	find_unreached(j, st->channel, loc->gp_entry, loc->method_index, si->stop + 1, &u);
	unreached_sentence(&u, rest, sizeof(rest));
	const char *why = detail_of(st) ? detail_of(st) : (f && detail_of(f) ? detail_of(f) : "stopped");

	if (f && (f->value == CS_ACCESS_FETCH || s == CS_STAGE_FE_FETCH) && f->unit == CS_UNIT_FE) {
		uint64_t pb = 0, len = 0;
		for (size_t i = 0; i < si->stop; i++)
			if (j->ev[i].kind == CS_EV_GP_FETCH && j->ev[i].channel == st->channel &&
			    j->ev[i].gp_entry == loc->gp_entry) {
				pb = j->ev[i].addr;
				len = j->ev[i].value;
			}
		whyf(j, s, CS_CAUSE_PB_UNMAPPED,
		     "entry %u of channel %s points at pushbuffer 0x%llx (%llu dwords), which is not "
		     "mapped in the channel's address space (fault at 0x%llx); the front end stopped "
		     "the channel, so %s.", loc->gp_entry, ch, X(pb), X(len), X(f->addr), rest);
		return;
	}
	uint32_t want_cls = (uint32_t)(st->value & 0xffffu);
	if (!f && st->method == CS_FE_M_SET_OBJECT && st->unit == CS_UNIT_FE &&
	    (!cs_class_valid_for(want_cls, j->in->arch) ||
	     cs_class_kind_of(want_cls) == CS_CLASS_HOST ||
	     cs_class_kind_of(want_cls) == CS_CLASS_UNMODELLED)) {
		const cs_arch_info *ai = cs_arch_get(j->in->arch);
		char comp[96], copy[96];
		cs_class_list_for(j->in->arch, CS_CLASS_COMPUTE, comp, sizeof(comp));
		cs_class_list_for(j->in->arch, CS_CLASS_COPY, copy, sizeof(copy));
		const char *nm = cs_class_name(want_cls);
		whyf(j, s, CS_CAUSE_BAD_CLASS,
		     "SET_OBJECT at %s on channel %s asks for class 0x%04X (%s), which %s %s "
		     "(compute: %s; copy: %s); the channel stopped, so %s.", where, ch,
		     want_cls, nm ? nm : "unknown",
		     cs_class_kind_of(want_cls) == CS_CLASS_UNMODELLED ? "chainsim does not model on"
									: "is not valid for",
		     ai ? ai->name : "?", comp, copy, rest);
		return;
	}
	if (!f && st->method != CS_NONE32 && st->method >= CS_PB_HOST_METHODS &&
	    (st->cls == CS_NONE32 || st->cls == 0)) {
		whyf(j, s, CS_CAUSE_NO_OBJECT,
		     "method 0x%x at %s on channel %s went to subchannel %u, which has no object "
		     "bound (no SET_OBJECT on subchannel %u before it); the channel stopped, so %s.",
		     st->method, where, ch, st->subch, st->subch, rest);
		return;
	}
	if (f) {
		char label[80] = "";
		if (st->method != CS_NONE32 && st->cls != CS_NONE32) {
			method_label(st->cls, st->method, mname, sizeof(mname));
			snprintf(label, sizeof(label), " (%s)", mname);
		}
		whyf(j, s, CS_CAUSE_EARLIER_FAULT,
		     "a %s fault at 0x%llx by %s at %s%s on channel %s: %s; the channel stopped, "
		     "so %s.", access_word(f->value), X(f->addr),
		     unit_phrase(f->unit), where, label, ch,
		     detail_of(f) ? detail_of(f) : "not mapped", rest);
		return;
	}
	if (!f && st->unit == CS_UNIT_FE && st->method == CS_NONE32 && st->addr) {
		whyf(j, s, CS_CAUSE_PB_MALFORMED,
		     "the pushbuffer of entry %u on channel %s is malformed at 0x%llx (after %u "
		     "method%s): %s; the front end stopped the channel, so %s.",
		     st->gp_entry, ch, X(st->addr), st->method_index == CS_NONE32 ? 0 : st->method_index,
		     st->method_index == 1 ? "" : "s", why, rest);
		return;
	}
	cs_cause cause = st->cause ? (cs_cause)st->cause
		       : s == CS_STAGE_FE_FETCH ? CS_CAUSE_PB_MALFORMED : CS_CAUSE_CHANNEL_STOP;
	whyf(j, s, cause, "the channel %s stopped at %s: %s; %s.", ch, where, why, rest);
}

/* "method 3 LAUNCH_DMA (I2M) faulted": the short form for the table. */
static void stop_evidence(const judge *j, const stopinfo *si, char *buf, size_t len)
{
	const cs_event *st = &j->ev[si->stop];
	const cs_event *f = si->fault != NONE ? &j->ev[si->fault] : NULL;
	const cs_event *loc = f && f->method != CS_NONE32 ? f : st;
	char where[64], name[64] = "";
	where_of(loc, where, sizeof(where));
	if (loc->method != CS_NONE32 && loc->cls != CS_NONE32)
		method_label(loc->cls, loc->method, name, sizeof(name));
	const char *cls = loc->cls != CS_NONE32 && loc->cls ? cs_class_name(loc->cls) : NULL;
	if (!f && st->unit == CS_UNIT_FE && st->method == CS_NONE32 && st->addr) {
		snprintf(buf, len, "entry %u: malformed header at 0x%llx", st->gp_entry, X(st->addr));
		return;
	}
	snprintf(buf, len, "%s%s%s%s%s %s", where, name[0] ? " " : "", name, cls ? " on " : "",
		 cls ? cls : "", f && f->kind == CS_EV_FAULT ? "faulted" : "stopped the channel");
}

static void judge_front_end(judge *j, cs_chain *c, const stopinfo *si)
{
	size_t first_fetch = NONE, nfetch = 0, nctl = 0, ndone = 0, binds = 0;
	uint64_t methods = 0, forwarded = 0;
	size_t fetch_fault = NONE;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		switch ((cs_event_kind)e->kind) {
		case CS_EV_GP_FETCH:
			nfetch++;
			if (first_fetch == NONE)
				first_fetch = i;
			break;
		case CS_EV_GP_CONTROL:
			nctl++;
			if (first_fetch == NONE)
				first_fetch = i;
			break;
		case CS_EV_ENTRY_DONE:
			ndone++;
			methods += e->value;
			break;
		case CS_EV_BIND:
			binds++;
			break;
		case CS_EV_HOST_FORWARD:
			forwarded += e->value;
			break;
		case CS_EV_FAULT:
			if (e->unit == CS_UNIT_FE && e->stage == CS_STAGE_FE_FETCH && fetch_fault == NONE)
				fetch_fault = i;
			break;
		default:
			break;
		}
	}
	bool stop4 = si->stop != NONE && j->ev[si->stop].stage == CS_STAGE_FE_FETCH;
	/* Entries forwarded that the front end never fetched, on a channel that is
	 * neither stopped nor blocked: silence, not health. */
	enum { NCH = 64 };
	uint64_t fwd[NCH] = { 0 }, got[NCH] = { 0 };
	bool held[NCH] = { false };
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->channel >= NCH)
			continue;
		if (e->kind == CS_EV_HOST_FORWARD)
			fwd[e->channel] += e->value;
		else if (e->kind == CS_EV_GP_FETCH || e->kind == CS_EV_GP_CONTROL)
			got[e->channel]++;
		else if (e->kind == CS_EV_CHANNEL_STOP || e->kind == CS_EV_SEM_BLOCK ||
			 e->kind == CS_EV_DEADLOCK)
			held[e->channel] = true;
	}
	uint32_t short_ch = CS_NONE32;
	for (uint32_t ch = 0; ch < NCH && short_ch == CS_NONE32; ch++)
		if (got[ch] < fwd[ch] && !held[ch])
			short_ch = ch;
	/* Stage 4 */
	if (stop4 || (fetch_fault != NONE && si->stop != NONE)) {
		const cs_event *st = &j->ev[si->stop];
		const cs_event *ff = si->fault != NONE ? &j->ev[si->fault]
						       : (fetch_fault != NONE ? &j->ev[fetch_fault] : NULL);
		if (ff)
			rowf(c, 4, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, si->stop,
			     "entry %u: %s fault at 0x%llx", st->gp_entry,
			     access_word(ff->value), X(ff->addr));
		else
			rowf(c, 4, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, si->stop,
			     "entry %u: stopped (%s)", st->gp_entry,
			     detail_of(st) ? detail_of(st) : "no reason");
		stopinfo s4 = *si;
		if (s4.fault == NONE)
			s4.fault = fetch_fault;
		diagnose_stop(j, 4, &s4);
	} else if (first_fetch != NONE && short_ch != CS_NONE32) {
		char ch[80];
		chan_name(j, short_ch, ch, sizeof(ch));
		rowf(c, 4, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, NONE, "%llu of %llu entries fetched",
		     X(got[short_ch]), X(fwd[short_ch]));
		whyf(j, 4, CS_CAUSE_NOT_FETCHED,
		     "channel %s was given %llu GPFIFO entries but the front end fetched %llu, and "
		     "the channel is neither stopped nor blocked: %llu entries were never fetched "
		     "(did the run's entry budget end?)", ch, X(fwd[short_ch]), X(got[short_ch]),
		     X(fwd[short_ch] - got[short_ch]));
	} else if (first_fetch != NONE) {
		const cs_event *e = &j->ev[first_fetch];
		char more[48] = "";
		if (nfetch + nctl > 1)
			snprintf(more, sizeof(more), " (%zu entries)", nfetch + nctl);
		if (e->kind == CS_EV_GP_FETCH)
			rowf(c, 4, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, first_fetch,
			     "entry %u: 0x%llx, %llu dwords%s", e->gp_entry, X(e->addr), X(e->value), more);
		else
			rowf(c, 4, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, first_fetch,
			     "entry %u: control opcode %llu%s", e->gp_entry, X(e->value), more);
	} else {
		rowf(c, 4, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
		whyf(j, 4, CS_CAUSE_NOT_FETCHED, "the front end fetched no GPFIFO entry although %llu were "
			   "forwarded", X(forwarded));
	}
	/* Stage 5 */
	size_t block = NONE, dead = NONE;
	for (size_t i = 0; i < j->n; i++) {
		if (j->ev[i].kind == CS_EV_DEADLOCK && dead == NONE)
			dead = i;
		if (j->ev[i].kind == CS_EV_SEM_BLOCK)
			block = i;
	}
	/* A block is still in force when no satisfied acquire of the channel follows it. */
	if (block != NONE) {
		for (size_t i = block + 1; i < j->n; i++)
			if (j->ev[i].channel == j->ev[block].channel &&
			    (j->ev[i].kind == CS_EV_SEM_ACQUIRE || j->ev[i].kind == CS_EV_ENTRY_DONE)) {
				block = NONE;
				break;
			}
	}
	if (si->stop != NONE && !stop4 && si->late) {
		const cs_event *f = &j->ev[si->fault];
		char where[64];
		where_of(f, where, sizeof(where));
		rowf(c, 5, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, si->fault,
		     "methods ran to %s, where %s stopped the channel", where, unit_phrase(f->unit));
	} else if (si->stop != NONE && !stop4) {
		const cs_event *st = &j->ev[si->stop];
		char where[64];
		where_of(st, where, sizeof(where));
		char ev5[96];
		stop_evidence(j, si, ev5, sizeof(ev5));
		rowf(c, 5, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, si->stop, "%s", ev5);
		diagnose_stop(j, 5, si);
	} else if (dead != NONE || block != NONE) {
		const cs_event *e = &j->ev[dead != NONE ? dead : block];
		const cs_event *b = block != NONE ? &j->ev[block] : e;
		char ch[80], where[64];
		chan_name(j, e->channel, ch, sizeof(ch));
		where_of(b, where, sizeof(where));
		uint64_t cur = dead != NONE ? e->aux : b->aux;
		rowf(c, 5, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, dead != NONE ? dead : block,
		     "%s blocked: acquire [0x%llx] == %llu, value %llu", where, X(e->addr),
		     X(e->value), X(cur));
		if (dead != NONE)
			whyf(j, 5, CS_CAUSE_DEADLOCK,
			     "deadlock: channel %s is blocked at %s on a semaphore acquire of [0x%llx] "
			     "== %llu (current value %llu), and nothing left to run writes it%s%s; "
			     "release the semaphore before waiting, or drop the acquire.",
			     ch, where, X(e->addr), X(e->value), X(cur), detail_of(e) ? ": " : "",
			     detail_of(e) ? detail_of(e) : "");
		else
			whyf(j, 5, CS_CAUSE_ACQUIRE_BLOCKED,
			     "channel %s is blocked at %s on a semaphore acquire of [0x%llx] == %llu "
			     "(current value %llu)", ch, where, X(e->addr), X(e->value), X(cur));
	} else if (nfetch > 0 && ndone >= nfetch) {
		char bound[48] = "";
		if (binds)
			snprintf(bound, sizeof(bound), ", %zu object%s bound", binds, binds > 1 ? "s" : "");
		rowf(c, 5, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, NONE, "%zu entr%s, %llu methods%s",
		     ndone, ndone > 1 ? "ies" : "y", X(methods), bound);
	} else if (nfetch == 0 && nctl > 0) {
		rowf(c, 5, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "only control entries");
		whyf(j, 5, CS_CAUSE_NO_METHODS, "every fetched entry was a control entry: no method ran");
	} else {
		rowf(c, 5, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, nfetch ? "%zu of %zu entries done" : "-",
		     ndone, nfetch);
		whyf(j, 5, CS_CAUSE_ENTRY_UNFINISHED, "the front end fetched %zu entr%s but finished %zu",
		     nfetch, nfetch == 1 ? "y" : "ies", ndone);
	}
}

static void judge_wake(judge *j, cs_chain *c)
{
	size_t begins = 0, failed = NONE, last_done = NONE;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_WAIT_BEGIN)
			begins++;
		else if (e->kind == CS_EV_WAIT_FAILED && failed == NONE)
			failed = i;
		else if (e->kind == CS_EV_WAIT_DONE)
			last_done = i;
	}
	if (failed != NONE) {
		const cs_event *e = &j->ev[failed];
		rowf(c, 11, CS_STAGE_NOT_FIRED, CS_AUTHOR_HOST, failed, "wait 0x%llx == %llu: value is %llu",
		     X(e->addr), X(e->aux), X(e->value));
		/* Who wrote what: the releases that did happen. */
		char rel[256] = "nothing released any semaphore";
		size_t nrel = 0;
		for (size_t i = 0; i < j->n; i++) {
			const cs_event *r = &j->ev[i];
			if (r->kind != CS_EV_SEM_RELEASE)
				continue;
			if (r->addr == e->addr)
				continue;
			if (nrel++ == 0)
				snprintf(rel, sizeof(rel), "the %s release went to 0x%llx (value %llu)",
					 r->unit == CS_UNIT_FE ? "host" : "engine", X(r->addr), X(r->value));
		}
		bool wrote_here = false;
		for (size_t i = 0; i < j->n; i++)
			if (j->ev[i].kind == CS_EV_SEM_RELEASE && j->ev[i].addr == e->addr)
				wrote_here = true;
		if (e->cause == CS_CAUSE_BUDGET)
			whyf(j, 11, CS_CAUSE_BUDGET, "the guest waits for [0x%llx] == %llu, but the device's "
				    "entry budget ran out with work left (value %llu): raise "
				    "run_budget or shorten the stream", X(e->addr), X(e->aux), X(e->value));
		else if (e->cause == CS_CAUSE_WAIT_UNMAPPED)
			whyf(j, 11, CS_CAUSE_WAIT_UNMAPPED, "the guest waits on 0x%llx, which is not mapped",
			     X(e->addr));
		else if (wrote_here)
			whyf(j, 11, CS_CAUSE_WAIT_UNMET,
			     "the guest waits for [0x%llx] == %llu but the value is %llu: a release "
			     "wrote that address with another value", X(e->addr), X(e->aux), X(e->value));
		else
			whyf(j, 11, CS_CAUSE_WAIT_UNMET,
			     "the guest waits for [0x%llx] == %llu, a value nobody writes (it is %llu): "
			     "%s%s; point the wait at the release address or the release at the waited "
			     "one.", X(e->addr), X(e->aux), X(e->value), rel,
			     nrel > 1 ? " and others" : "");
	} else if (last_done != NONE) {
		const cs_event *e = &j->ev[last_done];
		char more[32] = "";
		if (begins > 1)
			snprintf(more, sizeof(more), " (%zu waits)", begins);
		rowf(c, 11, CS_STAGE_FIRED, CS_AUTHOR_HOST, last_done, "wait 0x%llx == %llu: resolved%s",
		     X(e->addr), X(e->value), more);
	} else {
		rowf(c, 11, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "no wait");
		whyf(j, 11, CS_CAUSE_NO_WAIT, "the guest never waits, so completion never reached it: "
			    "add `wait ADDR == VALUE` on the release address");
	}
}

/* ---- stages 6-10 for one launch ---------------------------------------------------------- */

static void name_launch(const lslot *s, char *buf, size_t len)
{
	if (s->id != CS_NONE32)
		snprintf(buf, len, "launch %u", s->id);
	else
		snprintf(buf, len, "the launch");
}

/* A QMD the engine rejected: a field the guest got wrong, or an address that
 * names memory where the guest built no QMD while it built one elsewhere (the
 * forwarding layer's relocation bug). */
static void judge_rejected_qmd(judge *j, const char *ln, const cs_event *e, const char *det)
{
	bool inside;
	size_t b = nearest_build(j, true, e->addr, &inside);
	/* A version the class does not read: what is there is no QMD at all. */
	bool not_a_qmd = e->value != cs_gr_qmd_major_for(e->cls);
	if (b != NONE && !inside && not_a_qmd) {
		char off[64];
		distance_words(e->addr, j->ev[b].addr, off, sizeof(off));
		whyf(j, 7, CS_CAUSE_QMD_NOT_BUILT,
		     "the QMD of %s at 0x%llx was never built: the guest built one at 0x%llx (%s), "
		     "and the engine read memory that holds none (%s); point SEND_PCAS_A / "
		     "SET_INLINE_QMD_ADDRESS at the QMD the guest built, or relocate it.", ln,
		     X(e->addr), X(j->ev[b].addr), off, det);
		return;
	}
	whyf(j, 7, CS_CAUSE_QMD_REJECTED, "the engine rejected the QMD of %s at 0x%llx: %s; fix "
	     "that field in the QMD.", ln, X(e->addr), det);
}

/* Fills rows 6..10 of c for launch s; sets j's cause/diag for its not-fired rows. */
static void judge_launch(judge *j, const lslot *s, cs_chain *c)
{
	const cs_event *ev = j->ev;
	char ln[32], where[64];
	name_launch(s, ln, sizeof(ln));
	bool ok = true;
	/* 6 qmd-install */
	if (s->install != NONE) {
		const cs_event *e = &ev[s->install];
		rowf(c, 6, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, s->install, "QMD at 0x%llx (%s), %llu bytes",
		     X(e->addr), path_name(e->aux), X(e->value));
	} else if (s->shortq != NONE) {
		const cs_event *e = &ev[s->shortq];
		where_of(e, where, sizeof(where));
		rowf(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, s->shortq,
		     "inline QMD at 0x%llx: %llu of %llu dwords", X(e->addr), X(e->value), X(e->aux));
		whyf(j, 6, CS_CAUSE_INLINE_QMD_INCOMPLETE,
		     "the inline QMD begun at %s (address 0x%llx) got %llu of its %llu dwords "
		     "(LOAD_INLINE_QMD_DATA) when the guest program ended; the engine installs an "
		     "inline QMD only with its last dword (a model assumption), so the launch was "
		     "never installed: send all %llu dwords.",
		     where, X(e->addr), X(e->value), X(e->aux), X(e->aux));
		ok = false;
	} else if (s->fault_qmd != NONE && ev[s->fault_qmd].stage == CS_STAGE_QMD_INSTALL &&
		   ev[s->fault_qmd].kind == CS_EV_CHANNEL_STOP) {
		const cs_event *e = &ev[s->fault_qmd];
		const char *det = detail_of(e) ? detail_of(e) : "refused";
		where_of(e, where, sizeof(where));
		char mname[64];
		method_label(e->cls, e->method, mname, sizeof(mname));
		rowf(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_qmd, "%s at %s: %s", mname,
		     where, det);
		bool unset = e->cause == CS_CAUSE_QMD_ADDR_UNMAPPED;
		whyf(j, 6, unset ? CS_CAUSE_QMD_ADDR_UNMAPPED : CS_CAUSE_QMD_INSTALL_REFUSED,
		     "%s at %s: %s%s; the engine stopped the channel, so the launch was never "
		     "installed.", mname, where, unset ? "the QMD address is unset: " : "", det);
		ok = false;
	} else if (s->fault_qmd != NONE && ev[s->fault_qmd].kind == CS_EV_FAULT) {
		/* No install and the QMD's address faulted: it never was in memory. */
		const cs_event *e = &ev[s->fault_qmd];
		where_of(e, where, sizeof(where));
		rowf(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_qmd, "QMD address 0x%llx unmapped",
		     X(e->addr));
		whyf(j, 6, CS_CAUSE_QMD_ADDR_UNMAPPED,
		     "%s at %s: the QMD address 0x%llx is %s (%s of 0x%llx faulted%s%s); set "
		     "SEND_PCAS_A / SET_INLINE_QMD_ADDRESS to a mapped, 256-byte aligned QMD.", ln,
		     where, X(e->addr), e->addr < 0x1000 ? "unset" : "not mapped",
		     access_word(e->value), X(e->addr), detail_of(e) ? ": " : "",
		     detail_of(e) ? detail_of(e) : "");
		ok = false;
	} else {
		rowf(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
		whyf(j, 6, CS_CAUSE_NO_INSTALL, "%s has records but no QMD install", ln);
		ok = false;
	}
	/* 7 qmd-read */
	if (!ok) {
		rowf(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
	} else if (s->read != NONE) {
		const cs_event *e = &ev[s->read];
		rowf(c, 7, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->read, "QMD %s read at 0x%llx",
		     qmd_version((unsigned)e->value), X(e->addr));
	} else if (s->reject != NONE) {
		const cs_event *e = &ev[s->reject];
		rowf(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->reject, "rejected: %s",
		     detail_of(e) ? detail_of(e) : "?");
		const char *det = detail_of(e) ? detail_of(e) : "no reason given";
		if (e->cause == CS_CAUSE_CODE_UNMAPPED)
			whyf(j, 7, CS_CAUSE_CODE_UNMAPPED,
			     "the engine rejected the QMD of %s at 0x%llx: %s; nothing can run from "
			     "there: upload the kernel's code (module NAME PATH) and point the QMD's "
			     "program at NAME.KERNEL.", ln, X(e->addr), det);
		else
			judge_rejected_qmd(j, ln, e, det);
		ok = false;
	} else if (s->fault_qmd != NONE) {
		const cs_event *e = &ev[s->fault_qmd];
		rowf(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_qmd, "QMD read at 0x%llx faulted",
		     X(e->addr));
		whyf(j, 7, CS_CAUSE_QMD_ADDR_UNMAPPED, "the engine could not read the QMD of %s: 0x%llx is %s%s%s.",
		     ln, X(e->addr), e->addr < 0x1000 ? "unset" : "not mapped",
		     detail_of(e) ? ": " : "", detail_of(e) ? detail_of(e) : "");
		ok = false;
	} else {
		const cs_event *in = &ev[s->install];
		where_of(in, where, sizeof(where));
		char sched[160];
		if (s->schedule == NONE && detail_of(in)) {
			snprintf(sched, sizeof(sched), "%s", detail_of(in));
		} else if (s->schedule != NONE) {
			uint32_t a = (uint32_t)ev[s->schedule].value;
			const char *an = cs_pcas2_action_name(a);
			snprintf(sched, sizeof(sched), "SEND_SIGNALING_PCAS2_B action %u (%s) does not "
				 "schedule", a, an ? an : "reserved");
		} else {
			snprintf(sched, sizeof(sched), "no schedule request followed (no "
				 "SEND_SIGNALING_PCAS2_B with a scheduling action)");
		}
		rowf(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, s->install, "installed, never scheduled");
		whyf(j, 7, CS_CAUSE_NO_SCHEDULE,
		     "the QMD at 0x%llx was installed at %s but never scheduled: %s; send "
		     "SEND_SIGNALING_PCAS2_B with action 3 (INVALIDATE_COPY_SCHEDULE) or 9 "
		     "(PREFETCH_SCHEDULE).", X(in->addr), where, sched);
		ok = false;
	}
	/* 8 ctx-load */
	if (!ok) {
		rowf(c, 8, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
	} else if (s->ctx != NONE) {
		const cs_event *e = &ev[s->ctx];
		rowf(c, 8, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->ctx, "%s",
		     detail_of(e) ? detail_of(e) : "context valid");
	} else {
		const cs_event *e = s->ctx_bad != NONE ? &ev[s->ctx_bad] : NULL;
		rowf(c, 8, CS_STAGE_NOT_FIRED, e ? CS_AUTHOR_ENGINE : CS_AUTHOR_NONE,
		     e ? s->ctx_bad : NONE, "%s", e && detail_of(e) ? detail_of(e) : "-");
		whyf(j, 8, CS_CAUSE_CTX_INVALID, "the channel's context was not valid at dispatch of %s: %s.", ln,
		     e && detail_of(e) ? detail_of(e) : "the engine recorded no context load");
		ok = false;
	}
	/* 9 gr-dispatch */
	if (!ok) {
		rowf(c, 9, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
	} else if (s->done != NONE) {
		const cs_event *e = &ev[s->done];
		rowf(c, 9, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->done, "%llu CTA%s executed%s%s",
		     X(e->value), e->value == 1 ? "" : "s", detail_of(e) ? ": " : "", detail_of(e) ? detail_of(e) : "");
	} else {
		uint64_t prog = s->dispatch != NONE ? ev[s->dispatch].addr : 0;
		uint64_t ctas = s->dispatch != NONE ? ev[s->dispatch].value : 0;
		if (s->fault_grid != NONE) {
			const cs_event *f = &ev[s->fault_grid];
			bool code = f->value == CS_ACCESS_FETCH || (prog && f->addr == prog);
			rowf(c, 9, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_grid, "%s fault at 0x%llx",
			     access_word(f->value), X(f->addr));
			if (code)
				whyf(j, 9, CS_CAUSE_CODE_UNMAPPED,
				     "%s was dispatched to program 0x%llx, which is not mapped (fault at "
				     "0x%llx): upload the kernel's code (module NAME PATH) and point the "
				     "QMD's program at NAME.KERNEL.", ln, X(prog), X(f->addr));
			else
				whyf(j, 9, CS_CAUSE_GRID_FAULT, "%s faulted while executing: %s at 0x%llx%s%s.", ln,
				     access_word(f->value), X(f->addr),
				     detail_of(f) ? ": " : "", detail_of(f) ? detail_of(f) : "");
		} else if (s->not_run != NONE) {
			const cs_event *e = &ev[s->not_run];
			const char *det = detail_of(e) ? detail_of(e) : "not executed";
			/* The engine and the executor each say "dispatched, not executed";
			 * once is enough in a sentence that says it already. */
			static const char prefix[] = "dispatched, not executed: ";
			while (strncmp(det, prefix, sizeof(prefix) - 1) == 0)
				det += sizeof(prefix) - 1;
			cs_cause cause = j->in->no_executor ? CS_CAUSE_NO_EXECUTOR
				       : e->cause ? (cs_cause)e->cause : CS_CAUSE_GRID_NOT_RUN;
			bool limit = cause == CS_CAUSE_CODE_UNSUPPORTED;
			rowf(c, 9, limit ? CS_STAGE_NOT_OBSERVABLE : CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE,
			     s->not_run, "dispatched, not executed: %s", det);
			switch (cause) {
			case CS_CAUSE_NO_EXECUTOR:
				whyf(j, 9, cause,
				     "%s was dispatched (%llu CTA%s at program 0x%llx) but not executed: no "
				     "executor is wired (--no-exec), so execution is unproven.", ln,
				     X(ctas), ctas == 1 ? "" : "s", X(prog));
				break;
			case CS_CAUSE_CODE_UNKNOWN:
				whyf(j, 9, cause,
				     "%s was dispatched to program 0x%llx, but not executed: %s; a kernel the simulator "
				     "cannot execute is not a kernel that ran: load its module and point "
				     "the QMD's program at NAME.KERNEL.", ln, X(prog), det);
				break;
			case CS_CAUSE_CODE_UNSUPPORTED:
				whyf(j, 9, cause,
				     "%s was dispatched to program 0x%llx, and the simulator cannot execute "
				     "it: %s. This is a limit of the simulator, not a fault of the guest: "
				     "whether the grid runs is not observable here.", ln, X(prog), det);
				break;
			default:
				whyf(j, 9, cause, "%s was dispatched to program 0x%llx but not "
					    "executed: %s.", ln, X(prog), det);
				break;
			}
			if (limit) {
				rowf(c, 10, CS_STAGE_NOT_OBSERVABLE, CS_AUTHOR_NONE, NONE,
				     "the grid was not executed here: its release is unknown");
				return;
			}
		} else {
			rowf(c, 9, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, s->dispatch, s->dispatch != NONE ?
			     "dispatched, no outcome" : "-");
			whyf(j, 9, CS_CAUSE_NO_DISPATCH, "%s was read and its context loaded, but no grid "
				    "outcome was recorded", ln);
		}
		ok = false;
	}
	/* 10 engine-release */
	if (!ok) {
		rowf(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
	} else if (s->release != NONE) {
		const cs_event *e = &ev[s->release];
		rowf(c, 10, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->release, "release 0x%llx = %llu",
		     X(e->addr), X(e->value));
	} else if (s->dependent != NONE) {
		const cs_event *e = &ev[s->dependent];
		rowf(c, 10, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->dependent,
		     "completion acted on: dependent QMD 0x%llx scheduled by the engine", X(e->addr));
	} else if (s->fault_release == NONE && s->host_release != NONE &&
		   after_wfi(&ev[s->host_release])) {
		const cs_event *e = &ev[s->host_release];
		rowf(c, 10, CS_STAGE_FIRED, CS_AUTHOR_HOST, s->host_release,
		     "host release 0x%llx = %llu with RELEASE_WFI after the grid (assumes the wait "
		     "for idle covers the compute engine)", X(e->addr), X(e->value));
	} else if (s->fault_release != NONE) {
		const cs_event *f = &ev[s->fault_release];
		rowf(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_release,
		     "release to 0x%llx faulted", X(f->addr));
		whyf(j, 10, CS_CAUSE_RELEASE_FAULT, "%s ran, but its release semaphore write to 0x%llx faulted%s%s; "
			     "map the release address.", ln, X(f->addr), detail_of(f) ? ": " : "",
		     detail_of(f) ? detail_of(f) : "");
	} else if (s->host_release != NONE) {
		const cs_event *e = &ev[s->host_release];
		rowf(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_HOST, s->host_release,
		     "host release 0x%llx = %llu without RELEASE_WFI", X(e->addr), X(e->value));
		whyf(j, 10, CS_CAUSE_RELEASE_UNORDERED,
		     "%s ran, and the only release after it is the host's SEM_EXECUTE to 0x%llx "
		     "(value %llu) without RELEASE_WFI: the front end may write it before the grid "
		     "completes, so it proves nothing; set RELEASE_WFI=EN or release from the QMD.",
		     ln, X(e->addr), X(e->value));
	} else {
		const cs_event *d = &ev[s->done];
		rowf(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "no release");
		whyf(j, 10, CS_CAUSE_RELEASE_DISABLED,
		     "%s ran %llu CTA%s but the engine wrote no release: the QMD enables no release "
		     "semaphore and no report semaphore followed, so the guest cannot learn it "
		     "completed; set release0=ADDR,PAYLOAD in the QMD.", ln, X(d->value),
		     d->value == 1 ? "" : "s");
	}
}

/* ---- consequences: a wait on what a broken launch would have released ------------- */

/* Whether launch s's QMD names addr as one of its release semaphores: had the
 * grid run, the engine would have written it. Read from memory as the engine
 * read it (needs the device). */
static bool launch_would_release(const judge *j, const lslot *s, uint64_t addr)
{
	if (!j->in->dev || s->read == NONE)
		return false;
	const cs_event *rd = &j->ev[s->read];
	unsigned major = (unsigned)rd->value, size = cs_qmd_size(major);
	uint8_t bytes[CS_QMD_MAX_BYTES];
	cs_qmd q;
	cs_diag d;
	if (!size || size > sizeof(bytes) || !cs_device_peek(j->in->dev, rd->addr, bytes, size) ||
	    !cs_qmd_from_bytes(&q, major, bytes, size, &d))
		return false;
	cs_qmd_info in;
	cs_qmd_decode(&q, &in);
	for (unsigned r = 0; r < CS_QMD_RELEASES; r++)
		if (in.release[r].enable && in.release[r].addr == addr)
			return true;
	return false;
}

/* The first launch that did not run its grid (stage 9 not fired or not
 * observable) and whose release would have written addr; NONE when none. */
static size_t silenced_by(const judge *j, const cs_chain *launches, size_t nlaunches,
			  uint64_t addr)
{
	for (size_t k = 0; k < nlaunches; k++) {
		cs_stage_status st = launches[k].rows[9].status;
		if (st != CS_STAGE_NOT_FIRED && st != CS_STAGE_NOT_OBSERVABLE)
			continue;
		const lslot *s = slot_by_id((judge *)j, launches[k].launch);
		if (s && launch_would_release(j, s, addr))
			return k;
	}
	return NONE;
}

/* A channel blocked (stage 5) or a guest wait unmet (stage 11) on a value that
 * a launch which never ran would have released is that launch's consequence,
 * not a cause of its own: the root cause stays the launch's. */
static void attribute_consequences(judge *j, cs_report *r, cs_chain *o)
{
	cs_stage_row *r5 = &o->rows[5];
	if (r5->status == CS_STAGE_NOT_FIRED && r5->event != NONE &&
	    (j->cause[5] == CS_CAUSE_DEADLOCK || j->cause[5] == CS_CAUSE_ACQUIRE_BLOCKED)) {
		const cs_event *b = &j->ev[r5->event];
		size_t k = silenced_by(j, r->launches, r->nlaunches, b->addr);
		if (k != NONE) {
			char ch[80], evd[CS_EVIDENCE_MAX];
			chan_name(j, b->channel, ch, sizeof(ch));
			snprintf(evd, sizeof(evd), "%s", r5->evidence);
			rowf(o, 5, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, r5->event,
			     "%.120s (a consequence of launch %u)", evd, r->launches[k].launch);
			j->cause[5] = CS_CAUSE_NONE;
			cs_stage at = r->launches[k].rows[9].status == CS_STAGE_NOT_FIRED ? 9 : 0;
			size_t used = strlen(j->diag[9]);
			if (at && used < sizeof(j->diag[9]))
				snprintf(j->diag[9] + used, sizeof(j->diag[9]) - used,
					 " As a consequence, channel %s waits for [0x%llx] == %llu, which "
					 "launch %u's release would have written.", ch, X(b->addr),
					 X(b->value), r->launches[k].launch);
		}
	}
	cs_stage_row *r11 = &o->rows[11];
	if (r11->status == CS_STAGE_NOT_FIRED && r11->event != NONE &&
	    j->cause[11] == CS_CAUSE_WAIT_UNMET) {
		const cs_event *w = &j->ev[r11->event];
		size_t k = silenced_by(j, r->launches, r->nlaunches, w->addr);
		if (k != NONE && r->launches[k].rows[9].status == CS_STAGE_NOT_OBSERVABLE) {
			rowf(o, 11, CS_STAGE_NOT_OBSERVABLE, CS_AUTHOR_HOST, r11->event,
			     "wait 0x%llx == %llu: launch %u's release, which the simulator could not "
			     "run", X(w->addr), X(w->aux), r->launches[k].launch);
		} else if (k != NONE) {
			size_t used = strlen(j->diag[11]);
			if (used < sizeof(j->diag[11]))
				snprintf(j->diag[11] + used, sizeof(j->diag[11]) - used,
					 " Launch %u's release would have written it, and that launch "
					 "broke first.", r->launches[k].launch);
		}
	}
}

/* ---- assembling the chains --------------------------------------------------------------- */

static bool engine_work(const judge *j)
{
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_COPY || e->kind == CS_EV_I2M_WRITE ||
		    (e->kind == CS_EV_SEM_RELEASE && e->unit != CS_UNIT_FE))
			return true;
	}
	return false;
}

static void finish_chain(judge *j, cs_chain *c)
{
	c->first_break = CS_STAGE_NONE;
	c->break_event = NONE;
	c->cause = CS_CAUSE_NONE;
	c->diagnosis[0] = '\0';
	c->unobservable = CS_STAGE_NONE;
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		if (c->rows[s].status == CS_STAGE_NOT_OBSERVABLE && c->unobservable == CS_STAGE_NONE &&
		    j->cause[s]) {
			/* No break so far: say why the chain cannot be judged from here. */
			c->unobservable = (cs_stage)s;
			c->cause = j->cause[s];
			snprintf(c->diagnosis, sizeof(c->diagnosis), "%s", j->diag[s]);
		}
		if (c->rows[s].status != CS_STAGE_NOT_FIRED)
			continue;
		c->first_break = (cs_stage)s;
		c->break_event = c->rows[s].event;
		c->cause = j->cause[s] ? j->cause[s] : CS_CAUSE_NOT_FIRED;
		snprintf(c->diagnosis, sizeof(c->diagnosis), "%s",
			 j->diag[s][0] ? j->diag[s] : "no record shows this stage");
		break;
	}
}

static void clear_why(judge *j)
{
	memset(j->cause, 0, sizeof(j->cause));
	memset(j->diag, 0, sizeof(j->diag));
}

static void copy_why(judge *dst_j, int s, cs_cause cause, const char *diag)
{
	dst_j->cause[s] = cause;
	snprintf(dst_j->diag[s], sizeof(dst_j->diag[s]), "%s", diag);
}

cs_report *cs_report_judge(const cs_report_input *in)
{
	cs_report *r = calloc(1, sizeof(*r));
	judge *j = calloc(1, sizeof(*j));
	if (!r || !j) {
		free(r);
		free(j);
		return NULL;
	}
	j->in = in;
	j->ev = in->events;
	j->n = in->nevents;
	r->arch = in->arch;
	collect_slots(j);
	find_host_releases(j);

	/* Intent: a QMD built, or any launch record. */
	bool intent = j->nslots > 0;
	size_t qmd_build = NONE;
	for (size_t i = 0; i < j->n; i++)
		if (j->ev[i].kind == CS_EV_GUEST_BUILD && j->ev[i].aux && qmd_build == NONE)
			qmd_build = i;
	intent = intent || qmd_build != NONE;
	r->has_launch = intent;

	cs_chain *o = &r->overall;
	o->launch = CS_NONE32;
	for (int s = 0; s <= CS_STAGE_COUNT; s++) {
		o->rows[s].stage = (cs_stage)s;
		o->rows[s].event = NONE;
	}
	stopinfo si = first_stop(j);
	judge_build(j, o);
	judge_submit(j, o);
	judge_front_end(j, o, &si);
	judge_wake(j, o);

	/* Per launch (ids found in the records, in id order of appearance). */
	size_t nid = 0;
	for (size_t k = 0; k < j->nslots; k++)
		if (j->slots[k].id != CS_NONE32)
			nid++;
	r->launches = nid ? calloc(nid, sizeof(cs_chain)) : NULL;
	/* Saved overall causes for 1-5 and 11, then each launch fills 6-10. */
	cs_cause ocause[CS_STAGE_COUNT + 1];
	_Static_assert(sizeof(ocause) == sizeof(j->cause), "cause table size");
	char (*odiag)[CS_DIAGNOSIS_MAX] = malloc(sizeof(j->diag));
	memcpy(ocause, j->cause, sizeof(ocause));
	if (odiag)
		memcpy(odiag, j->diag, sizeof(j->diag));

	/* Each launch fills rows 6-10 (and its own 5 and 11); the overall chain
	 * takes, per stage, the first launch that did not fire it. */
	int first_bad[CS_STAGE_COUNT + 1], first_unobs[CS_STAGE_COUNT + 1];
	for (int s = 0; s <= CS_STAGE_COUNT; s++)
		first_bad[s] = first_unobs[s] = -1;
	cs_stage_row row0[CS_STAGE_COUNT + 1], badrow[CS_STAGE_COUNT + 1];
	cs_stage_row unobsrow[CS_STAGE_COUNT + 1];
	cs_cause unobscause[CS_STAGE_COUNT + 1];
	cs_cause badcause[CS_STAGE_COUNT + 1];
	char (*baddiag)[CS_DIAGNOSIS_MAX] = calloc(CS_STAGE_COUNT + 1, CS_DIAGNOSIS_MAX);
	cs_chain *c = malloc(sizeof(*c));
	size_t nwait = 0, *waits = malloc((j->n ? j->n : 1) * sizeof(size_t));
	if (!baddiag || !c || !waits || !odiag || (nid && !r->launches)) {
		free(baddiag);
		free(c);
		free(waits);
		free(odiag);
		free(j->slots);
		free(j->by_id);
		free(j);
		cs_report_free(r);
		return NULL;
	}
	for (size_t i = 0; i < j->n; i++)
		if (j->ev[i].kind == CS_EV_WAIT_DONE)
			waits[nwait++] = i;
	size_t li = 0;
	for (size_t k = 0; k < j->nslots; k++) {
		const lslot *s = &j->slots[k];
		*c = *o;
		c->launch = s->id;
		for (int st = 6; st <= 10; st++) {
			j->cause[st] = CS_CAUSE_NONE;
			j->diag[st][0] = '\0';
		}
		/* This launch reached the engine, so its own stage 5 fired. */
		const cs_event *fe = &j->ev[s->install != NONE ? s->install : s->first];
		char where[64];
		where_of(fe, where, sizeof(where));
		if (s->install != NONE || s->schedule != NONE || s->shortq != NONE)
			rowf(c, 5, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, s->install != NONE ? s->install : s->first,
			     "%s reached the engine", where);
		judge_launch(j, s, c);
		/* Stage 11 of a launch: a wait on its release address. */
		if (s->release != NONE) {
			for (size_t w = 0; w < nwait; w++) {
				const cs_event *we = &j->ev[waits[w]];
				if (we->addr == j->ev[s->release].addr) {
					rowf(c, 11, CS_STAGE_FIRED, CS_AUTHOR_HOST, waits[w],
					     "wait 0x%llx == %llu: resolved", X(we->addr), X(we->value));
					break;
				}
			}
		}
		finish_chain(j, c);
		if (k == 0)
			memcpy(row0, c->rows, sizeof(row0));
		for (int st = 6; st <= 10; st++) {
			if (c->rows[st].status == CS_STAGE_NOT_OBSERVABLE && first_unobs[st] < 0) {
				first_unobs[st] = (int)k;
				unobsrow[st] = c->rows[st];
				unobscause[st] = j->cause[st];
				if (first_bad[st] < 0)
					snprintf(baddiag[st], CS_DIAGNOSIS_MAX, "%s", j->diag[st]);
			}
			if (c->rows[st].status == CS_STAGE_NOT_FIRED && first_bad[st] < 0) {
				first_bad[st] = (int)k;
				badrow[st] = c->rows[st];
				badcause[st] = j->cause[st];
				snprintf(baddiag[st], CS_DIAGNOSIS_MAX, "%s", j->diag[st]);
			}
		}
		if (s->id != CS_NONE32)
			r->launches[li++] = *c;
	}
	r->nlaunches = li;

	/* Overall 6-10. */
	clear_why(j);
	memcpy(j->cause, ocause, sizeof(ocause));
	memcpy(j->diag, odiag, sizeof(j->diag));
	if (!intent) {
		for (int st = 6; st <= 9; st++)
			rowf(o, (cs_stage)st, CS_STAGE_NA, CS_AUTHOR_NONE, NONE, "no launch");
		size_t rel = NONE, host_rel = NONE, copy = NONE;
		for (size_t i = 0; i < j->n; i++) {
			const cs_event *e = &j->ev[i];
			if (e->kind == CS_EV_SEM_RELEASE && e->unit != CS_UNIT_FE && rel == NONE)
				rel = i;
			if (e->kind == CS_EV_SEM_RELEASE && e->unit == CS_UNIT_FE && host_rel == NONE)
				host_rel = i;
			if ((e->kind == CS_EV_COPY || e->kind == CS_EV_I2M_WRITE) && copy == NONE)
				copy = i;
		}
		if (rel != NONE)
			rowf(o, 10, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, rel, "%s release 0x%llx = %llu",
			     cs_unit_name((cs_unit)j->ev[rel].unit), X(j->ev[rel].addr), X(j->ev[rel].value));
		else if (engine_work(j)) {
			size_t after = NONE;
			for (size_t i = copy + 1; i < j->n && after == NONE; i++)
				if (j->ev[i].kind == CS_EV_SEM_RELEASE && j->ev[i].unit == CS_UNIT_FE &&
				    j->ev[i].channel == j->ev[copy].channel)
					after = i;
			const cs_event *h = after != NONE ? &j->ev[after] : NULL;
			if (h && after_wfi(h)) {
				rowf(o, 10, CS_STAGE_FIRED, CS_AUTHOR_HOST, after,
				     "host release 0x%llx = %llu with RELEASE_WFI after the %s (assumes "
				     "the wait for idle covers the engine)", X(h->addr), X(h->value),
				     cs_event_kind_name((cs_event_kind)j->ev[copy].kind));
			} else if (h) {
				rowf(o, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_HOST, after,
				     "host release 0x%llx = %llu without RELEASE_WFI", X(h->addr),
				     X(h->value));
				whyf(j, 10, CS_CAUSE_RELEASE_UNORDERED,
				     "the engine moved %llu bytes (%s), and the only release after it is the "
				     "host's SEM_EXECUTE to 0x%llx (value %llu) without RELEASE_WFI: it may "
				     "land before the engine's work, so it proves nothing; set "
				     "RELEASE_WFI=EN.", X(j->ev[copy].value),
				     cs_event_kind_name((cs_event_kind)j->ev[copy].kind), X(h->addr),
				     X(h->value));
			} else {
				rowf(o, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "no release");
				whyf(j, 10, CS_CAUSE_RELEASE_DISABLED, "the engine moved %llu bytes (%s) but "
				     "wrote no release, so nothing proves to the guest that it completed",
				     X(j->ev[copy].value),
				     cs_event_kind_name((cs_event_kind)j->ev[copy].kind));
			}
		} else if (host_rel != NONE) {
			/* DESIGN.md §1 counts the channel semaphore among stage 10's releases;
			 * with no launch it is the release the guest's wake depends on. */
			rowf(o, 10, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, host_rel,
			     "channel semaphore 0x%llx = %llu (host release, no engine work)",
			     X(j->ev[host_rel].addr), X(j->ev[host_rel].value));
		} else {
			rowf(o, 10, CS_STAGE_NA, CS_AUTHOR_NONE, NONE, "no engine work, no release");
		}
	} else if (j->nslots == 0) {
		const cs_event *q = &j->ev[qmd_build];
		for (int st = 6; st <= 10; st++)
			rowf(o, (cs_stage)st, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
		size_t stray = stray_entry(j);
		if (stray != NONE) {
			const cs_event *f = &j->ev[stray];
			bool inside;
			const cs_event *pb = &j->ev[nearest_build(j, false, f->addr, &inside)];
			char off[64];
			distance_words(f->addr, pb->addr, off, sizeof(off));
			whyf(j, 6, CS_CAUSE_PB_NOT_BUILT,
			     "entry %u points at 0x%llx (%llu dwords), where the guest built no "
			     "pushbuffer; it built one at 0x%llx (%s) that no entry names, so its "
			     "launch of the QMD at 0x%llx never reached the engine: point the entry at "
			     "the pushbuffer the guest built, or relocate it.", f->gp_entry, X(f->addr),
			     X(f->value), X(pb->addr), off, X(q->addr));
		} else {
			whyf(j, 6, CS_CAUSE_NO_LAUNCH_SENT,
			     "a QMD was built at 0x%llx but no launch reached the engine: the stream "
			     "has no SEND_PCAS_A / SET_INLINE_QMD_ADDRESS for it", X(q->addr));
		}
	} else {
		for (int st = 6; st <= 10; st++) {
			if (first_bad[st] >= 0) {
				o->rows[st] = badrow[st];
				copy_why(j, st, badcause[st], baddiag[st]);
			} else if (first_unobs[st] >= 0) {
				o->rows[st] = unobsrow[st];
				copy_why(j, st, unobscause[st], baddiag[st]);
			} else {
				o->rows[st] = row0[st];
				if (j->nslots > 1) {
					char buf[CS_EVIDENCE_MAX];
					snprintf(buf, sizeof(buf), "%zu launches; first: %s", j->nslots,
						 row0[st].evidence);
					snprintf(o->rows[st].evidence, sizeof(o->rows[st].evidence), "%s", buf);
				}
			}
		}
	}
	attribute_consequences(j, r, o);
	finish_chain(j, o);

	/* Counters and assumptions. */
	r->ncounters = C_COUNT;
	size_t cap_as = 0;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		switch ((cs_event_kind)e->kind) {
		case CS_EV_GP_FETCH:
		case CS_EV_GP_CONTROL:
			r->counters[C_ENTRIES]++;
			break;
		case CS_EV_ENTRY_DONE:
			r->counters[C_METHODS] += e->value;
			break;
		case CS_EV_CHANNEL_STOP:
			/* The methods of the stopped entry up to and including the one that
			 * stopped it. */
			if (e->unit == CS_UNIT_FE && e->method_index != CS_NONE32)
				r->counters[C_METHODS] += e->method_index + 1u;
			break;
		case CS_EV_GRID_DONE:
			r->counters[C_CTAS] += e->value;
			break;
		case CS_EV_FAULT:
			r->counters[C_FAULTS]++;
			r->nfaults++;
			break;
		case CS_EV_SEM_RELEASE:
			r->counters[e->unit == CS_UNIT_FE ? C_HOST_RELEASES : C_ENGINE_RELEASES]++;
			break;
		case CS_EV_COPY:
			r->counters[C_COPIES]++;
			r->counters[C_BYTES_COPIED] += e->value;
			break;
		case CS_EV_WAIT_BEGIN:
			r->counters[C_WAITS]++;
			break;
		case CS_EV_DEADLOCK:
			r->counters[C_DEADLOCKS]++;
			break;
		case CS_EV_ASSUMPTION: {
			const char *d = detail_of(e);
			if (!d)
				break;
			bool seen = false;
			for (size_t k = 0; k < r->nassumptions; k++)
				if (strcmp(r->assumptions[k], d) == 0)
					seen = true;
			if (seen)
				break;
			if (r->nassumptions == cap_as) {
				size_t nc = cap_as ? cap_as * 2 : 8;
				const char **na = realloc(r->assumptions, nc * sizeof(*na));
				if (!na)
					break;
				r->assumptions = na;
				cap_as = nc;
			}
			r->assumptions[r->nassumptions++] = d;
			break;
		}
		default:
			break;
		}
	}
	/* The header's count: launches the engines numbered (a QMD installed and
	 * never scheduled is not one). */
	r->counters[C_LAUNCHES] = r->nlaunches;
	r->counters[C_RECORDS] = j->n;

	free(baddiag);
	free(c);
	free(waits);
	free(odiag);
	free(j->slots);
	free(j->by_id);
	free(j);
	return r;
}

cs_report *cs_report_build(const cs_device *dev)
{
	size_t n;
	const cs_event *ev = cs_device_events(dev, &n);
	cs_report_input in = { .arch = cs_device_arch(dev), .events = ev, .nevents = n,
			       .no_executor = cs_device_config_get(dev)->no_executor, .dev = dev };
	return cs_report_judge(&in);
}

void cs_report_free(cs_report *r)
{
	if (!r)
		return;
	free(r->launches);
	free(r->assumptions);
	free(r);
}

const char *cs_report_result(const cs_report *r, const cs_report_meta *meta)
{
	if (meta && meta->error)
		return "error";
	if (r->overall.first_break != CS_STAGE_NONE)
		return "broken";
	if (r->overall.unobservable != CS_STAGE_NONE)
		return "not-observable";
	return "complete";
}

int cs_report_exit_status(const cs_report *r, const cs_report_meta *meta)
{
	if (meta && meta->error)
		return 2;
	if (meta && meta->nexpects) {
		for (size_t i = 0; i < meta->nexpects; i++)
			if (!meta->expects[i].held)
				return 1;
		return 0;
	}
	if (r->overall.first_break != CS_STAGE_NONE)
		return 1;
	return r->overall.unobservable != CS_STAGE_NONE ? 3 : 0;
}

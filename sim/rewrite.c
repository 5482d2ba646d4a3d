/* SPDX-License-Identifier: MIT */
/* The rewrite library (include/chainsim/rewrite.h): one guest GPFIFO entry in,
 * the host's entries out, every edit noted as stage-3 evidence. Which dwords
 * carry addresses comes from the class tables' address fields and the QMD
 * tables' address fields, never from offsets typed here. */
#include "chainsim/rewrite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/pushbuf.h"

enum {
	RW_MAX_KEEP = 24,      /* more than the tables' address names (17 today) */
	RW_NAME_MAX = 64,
	RW_ADDRS = 8,          /* addresses in flight per subchannel */
	RW_PARTS = 4,          /* parts of one address */
	RW_QMD_DEPTH = 4,      /* dependent QMDs followed when copying a QMD */
};

/* One method as a rule sees it. */
typedef struct rw_method {
	uint32_t channel, subch, cls;  /* cls: the class bound on subch (the host
					  class for host methods), 0 when none */
	uint32_t method;               /* byte offset */
	uint32_t data;
	const char *name;              /* the method's table name, NULL when none */
} rw_method;

typedef enum rw_rule_kind { RULE_DROP_NAMED, RULE_REPLACE_NAMED } rw_rule_kind;

typedef struct rw_rule {
	rw_rule_kind kind;
	unsigned edit;         /* its index in cs_rewrite.edits */
	uint32_t subch;        /* 8: any */
	char name[RW_NAME_MAX];
	uint32_t data;
} rw_rule;

/* One address being assembled from its parts on a subchannel: the guest's
 * bits so far, and where this entry's copy holds each part's dword. */
typedef struct rw_addr {
	const char *name;
	uint64_t guest;
	unsigned seen;         /* parts written so far (by index into part[]) */
	uint64_t noted_guest, noted_host; /* the last relocation noted, not noted twice */
	struct {
		const cs_field_desc *f;
		size_t pos;
		uint64_t entry; /* the entry serial the position belongs to */
	} part[RW_PARTS];
	unsigned nparts;
} rw_addr;

typedef struct rw_subch {
	uint32_t cls;              /* the class bound, as the host forwarded its SET_OBJECT */
	rw_addr addr[RW_ADDRS];
	unsigned naddr;
	uint32_t inline_a;         /* SET_INLINE_QMD_ADDRESS_A as the guest wrote it */
	size_t qmd_pos[CS_QMD_MAX_DWORDS];
	uint64_t qmd_entry[CS_QMD_MAX_DWORDS];
} rw_subch;

/* One edit asked for, as the scenario writes it, and whether it changed
 * anything forwarded: an edit that matched nothing is refused (cs_rewrite_check). */
typedef struct rw_edit {
	char text[RW_NAME_MAX + 32];
	bool applied;
} rw_edit;

struct cs_rewrite {
	rw_edit *edits;
	unsigned nedits;
	bool relocate;
	unsigned relocate_edit;
	char keep[RW_MAX_KEEP][RW_NAME_MAX];
	unsigned keep_edit[RW_MAX_KEEP];
	unsigned nkeep;
	char skew[RW_MAX_KEEP][RW_NAME_MAX];
	int64_t skew_delta[RW_MAX_KEEP];
	unsigned skew_edit[RW_MAX_KEEP];
	unsigned nskew;
	unsigned prelude_edit, split_edit, merge_edit;
	rw_rule *rules;
	unsigned nrules;
	uint32_t *prelude;
	size_t nprelude;
	bool prelude_sent;
	uint32_t split;
	/* merge: the edited dwords of this submission's entries so far, and where
	 * each method header starts in them, put on the ring as one entry at its end */
	bool merge;
	uint32_t *held;
	size_t nheld, cap_held;
	size_t *held_starts;
	size_t nheld_starts, cap_starts;
	unsigned held_entries;
	cs_gp_entry held_first;
	uint64_t serial;           /* entries seen, to age positions */
	unsigned copies;           /* host buffers made, for their names */
	rw_subch sub[CS_FE_MAX_CHANNELS][8];
};

cs_rewrite *cs_rewrite_new(void)
{
	return calloc(1, sizeof(cs_rewrite));
}

void cs_rewrite_free(cs_rewrite *rw)
{
	if (!rw)
		return;
	free(rw->edits);
	free(rw->rules);
	free(rw->prelude);
	free(rw->held);
	free(rw->held_starts);
	free(rw);
}

/* A new edit named like the scenario line that asks for it; false when there
 * is no memory for it. */
static bool add_edit(cs_rewrite *rw, unsigned *index, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool add_edit(cs_rewrite *rw, unsigned *index, const char *fmt, ...)
{
	rw_edit *n = realloc(rw->edits, (rw->nedits + 1) * sizeof(*n));
	if (!n)
		return false;
	rw->edits = n;
	rw_edit *e = &rw->edits[rw->nedits];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	e->applied = false;
	*index = rw->nedits++;
	return true;
}

static void applied(cs_rewrite *rw, unsigned edit)
{
	if (edit < rw->nedits)
		rw->edits[edit].applied = true;
}

unsigned cs_rewrite_edits(const cs_rewrite *rw)
{
	return rw->nedits;
}

bool cs_rewrite_check(const cs_rewrite *rw, unsigned *edit, cs_diag *d)
{
	for (unsigned i = 0; i < rw->nedits; i++) {
		if (rw->edits[i].applied)
			continue;
		if (edit)
			*edit = i;
		cs_diag_set(d, CS_ERR_INPUT, "the rewrite's '%s' matched nothing the host forwarded, "
			    "so it changed nothing", rw->edits[i].text);
		return false;
	}
	return true;
}

void cs_rewrite_relocate(cs_rewrite *rw, bool on)
{
	if (on && !rw->relocate && !add_edit(rw, &rw->relocate_edit, "relocate"))
		rw->relocate_edit = UINT32_MAX; /* no memory to judge it by: never refused */
	rw->relocate = on;
}

static bool class_names(const cs_class_desc *cd, const char *addr)
{
	cs_addr_part parts[32];
	unsigned n = cd ? cs_class_addr_parts(cd, parts, 32) : 0;
	for (unsigned i = 0; i < n && i < 32; i++)
		if (strcmp(parts[i].field->addr, addr) == 0)
			return true;
	return false;
}

/* Known: the pushbuffer, or an address some class or QMD table names. */
bool cs_rewrite_addr_known(const char *addr)
{
	if (strcmp(addr, "PUSHBUFFER") == 0)
		return true;
	for (int a = 0; a < CS_ARCH_COUNT; a++) {
		const cs_arch_info *ai = cs_arch_get((cs_arch)a);
		if (ai && (class_names(cs_fe_host_class(ai->host_class), addr) ||
			   class_names(cs_gr_class(ai->compute_class), addr) ||
			   class_names(cs_gr_class(ai->copy_class), addr)))
			return true;
	}
	for (unsigned major = 3; major <= 5; major++) {
		const cs_qmd_layout *l = cs_qmd_layout_of(major);
		const cs_qmd_field *af[8];
		unsigned n = l ? cs_qmd_addr_fields(l, af, 8) : 0;
		for (unsigned i = 0; i < n && i < 8; i++)
			if (strcmp(af[i]->addr, addr) == 0)
				return true;
	}
	return false;
}

static bool kept(const cs_rewrite *rw, const char *addr)
{
	for (unsigned i = 0; i < rw->nkeep; i++)
		if (strcmp(rw->keep[i], addr) == 0)
			return true;
	return false;
}

bool cs_rewrite_keep_guest(cs_rewrite *rw, const char *addr)
{
	if (!cs_rewrite_addr_known(addr))
		return false;
	if (kept(rw, addr))
		return true;
	if (rw->nkeep == RW_MAX_KEEP || !add_edit(rw, &rw->keep_edit[rw->nkeep], "keep %s", addr))
		return false;
	snprintf(rw->keep[rw->nkeep++], RW_NAME_MAX, "%s", addr);
	return true;
}

bool cs_rewrite_skew(cs_rewrite *rw, const char *addr, int64_t delta)
{
	if (!cs_rewrite_addr_known(addr))
		return false;
	unsigned i = 0;
	while (i < rw->nskew && strcmp(rw->skew[i], addr) != 0)
		i++;
	if (i == rw->nskew && rw->nskew == RW_MAX_KEEP)
		return false;
	if (i == rw->nskew) { /* a new name; a known one takes the new delta */
		if (!add_edit(rw, &rw->skew_edit[i], "skew %s %lld", addr, (long long)delta))
			return false;
		snprintf(rw->skew[rw->nskew++], RW_NAME_MAX, "%s", addr);
	} else {
		snprintf(rw->edits[rw->skew_edit[i]].text, sizeof(rw->edits[0].text), "skew %s %lld",
			 addr, (long long)delta);
	}
	rw->skew_delta[i] = delta;
	return true;
}


static bool add_rule(cs_rewrite *rw, rw_rule *r)
{
	rw_rule *n = realloc(rw->rules, (rw->nrules + 1) * sizeof(*n));
	if (!n)
		return false;
	rw->rules = n;
	char subch[8];
	snprintf(subch, sizeof(subch), r->subch == 8 ? "*" : "%u", r->subch);
	bool ok = r->kind == RULE_REPLACE_NAMED
			  ? add_edit(rw, &r->edit, "replace %s %s 0x%x", subch, r->name, r->data)
			  : add_edit(rw, &r->edit, "drop %s %s", subch,
				     r->kind == RULE_DROP_NAMED ? r->name : "(a predicate)");
	if (!ok)
		return false;
	rw->rules[rw->nrules++] = *r;
	return true;
}

static bool named_rule(cs_rewrite *rw, rw_rule_kind kind, uint32_t subch, const char *name,
		       uint32_t data)
{
	if (subch > 8 || !name || strlen(name) >= RW_NAME_MAX)
		return false;
	rw_rule r = { .kind = kind, .subch = subch, .data = data };
	snprintf(r.name, sizeof(r.name), "%s", name);
	return add_rule(rw, &r);
}

bool cs_rewrite_drop_named(cs_rewrite *rw, uint32_t subch, const char *name)
{
	return named_rule(rw, RULE_DROP_NAMED, subch, name, 0);
}

bool cs_rewrite_replace_named(cs_rewrite *rw, uint32_t subch, const char *name, uint32_t data)
{
	return named_rule(rw, RULE_REPLACE_NAMED, subch, name, data);
}

bool cs_rewrite_prelude(cs_rewrite *rw, const uint32_t *dw, size_t n)
{
	if (!n || n > CS_GP_MAX_LENGTH)
		return false;
	uint32_t *p = malloc(n * 4);
	if (!p)
		return false;
	memcpy(p, dw, n * 4);
	if (!rw->prelude && !add_edit(rw, &rw->prelude_edit, "prelude")) {
		free(p);
		return false;
	}
	free(rw->prelude);
	rw->prelude = p;
	rw->nprelude = n;
	rw->prelude_sent = false;
	return true;
}

void cs_rewrite_split(cs_rewrite *rw, uint32_t max_dwords)
{
	if (max_dwords && !rw->split && !add_edit(rw, &rw->split_edit, "split %u", max_dwords))
		rw->split_edit = UINT32_MAX;
	else if (max_dwords && rw->split_edit < rw->nedits)
		snprintf(rw->edits[rw->split_edit].text, sizeof(rw->edits[0].text), "split %u",
			 max_dwords);
	rw->split = max_dwords;
}

void cs_rewrite_merge(cs_rewrite *rw, bool on)
{
	if (on && !rw->merge && !add_edit(rw, &rw->merge_edit, "merge"))
		rw->merge_edit = UINT32_MAX;
	rw->merge = on;
}

/* ---- helpers ---------------------------------------------------------------- */

static const cs_class_desc *class_desc(uint32_t cls)
{
	const cs_class_desc *d = cs_gr_class(cls);
	return d ? d : cs_fe_host_class(cls);
}

/* Whether relocation reaches addr at guest, where a window gives *host; a
 * kept addr is not reached, and its keep has then applied. */
static bool relocation_reaches(cs_rewrite *rw, cs_forward *fw, const char *addr, uint64_t guest,
			       uint64_t *host)
{
	if (!rw->relocate || !cs_device_guest_to_host(cs_forward_device(fw), guest, host))
		return false;
	for (unsigned i = 0; i < rw->nkeep; i++)
		if (strcmp(rw->keep[i], addr) == 0) {
			applied(rw, rw->keep_edit[i]);
			return false;
		}
	applied(rw, rw->relocate_edit);
	return true;
}

/* The delta a skew of addr adds to its relocation (0 when none asks); the
 * skew has then applied. */
static int64_t skew_of(cs_rewrite *rw, const char *addr)
{
	for (unsigned i = 0; i < rw->nskew; i++)
		if (strcmp(rw->skew[i], addr) == 0) {
			applied(rw, rw->skew_edit[i]);
			return rw->skew_delta[i];
		}
	return 0;
}

/* Where the host sees a guest address, when relocation applies to it. */
static bool relocated(cs_rewrite *rw, cs_forward *fw, const char *addr, uint64_t guest,
		      uint64_t *host)
{
	if (!relocation_reaches(rw, fw, addr, guest, host))
		return false;
	*host += (uint64_t)skew_of(rw, addr);
	return true;
}

static void note(cs_forward *fw, cs_forward_edit edit, uint64_t guest, uint64_t host,
		 uint64_t value, uint32_t method, const char *what)
{
	cs_forward_note_in n = { edit, guest, host, value, method, what };
	cs_forward_note(fw, &n);
}

/* bytes copied into new host memory; false (d set) when it cannot be had */
static bool host_copy(cs_rewrite *rw, cs_forward *fw, const void *bytes, size_t len,
		      const char *what, uint64_t *host, cs_diag *d)
{
	cs_device *dev = cs_forward_device(fw);
	char name[CS_REGION_NAME_MAX];
	snprintf(name, sizeof(name), "host.%s%u", what, rw->copies++);
	return cs_device_host_alloc(dev, name, len, host, d) &&
	       cs_mem_write(cs_device_mem(dev), *host, bytes, len, NULL);
}

static bool qmd_relocate_fields(cs_rewrite *rw, cs_forward *fw, cs_qmd *q, uint64_t qmd_guest,
				unsigned depth, cs_diag *d);

typedef enum qmd_copy_result { QMD_COPIED, QMD_UNREADABLE, QMD_FAILED } qmd_copy_result;

/* A QMD in the guest's memory, copied into the host's with its addresses
 * relocated; *host is the copy. QMD_UNREADABLE when the guest's bytes cannot
 * be read (the pointer is then left to plain relocation); QMD_FAILED sets d. */
static qmd_copy_result qmd_copy(cs_rewrite *rw, cs_forward *fw, unsigned major, uint64_t guest,
				unsigned depth, uint64_t *host, cs_diag *d)
{
	cs_device *dev = cs_forward_device(fw);
	const cs_qmd_layout *l = cs_qmd_layout_of(major);
	uint8_t bytes[CS_QMD_MAX_BYTES];
	cs_qmd q;
	if (!l || !cs_mem_read(cs_device_mem(dev), guest, bytes, l->bytes, NULL) ||
	    !cs_qmd_from_bytes(&q, major, bytes, l->bytes, NULL))
		return QMD_UNREADABLE;
	if (!qmd_relocate_fields(rw, fw, &q, guest, depth, d) ||
	    !host_copy(rw, fw, q.dw, l->bytes, "qmd", host, d))
		return QMD_FAILED;
	applied(rw, rw->relocate_edit);
	note(fw, CS_EDIT_COPY, guest, *host, l->bytes, CS_NONE32, "QMD");
	return QMD_COPIED;
}

static bool qmd_relocate_fields(cs_rewrite *rw, cs_forward *fw, cs_qmd *q, uint64_t qmd_guest,
				unsigned depth, cs_diag *d)
{
	const cs_qmd_field *af[8];
	unsigned na = cs_qmd_addr_fields(q->layout, af, 8);
	for (unsigned k = 0; k < na && k < 8; k++) {
		const cs_qmd_field *f = af[k];
		for (unsigned i = 0; i < f->count; i++) {
			uint64_t v = cs_qmd_field_get(q, f, i), h;
			if (!v)
				continue;
			char what[48];
			if (f->count > 1)
				snprintf(what, sizeof(what), "%s(%u)", f->name, i);
			else
				snprintf(what, sizeof(what), "%s", f->name);
			bool dep = strcmp(f->addr, "DEPENDENT_QMD") == 0;
			if (dep && depth < RW_QMD_DEPTH && relocation_reaches(rw, fw, f->addr, v, &h)) {
				qmd_copy_result r = qmd_copy(rw, fw, q->layout->major, v, depth + 1, &h, d);
				if (r == QMD_FAILED)
					return false;
				if (r == QMD_UNREADABLE)
					cs_device_guest_to_host(cs_forward_device(fw), v, &h);
			} else if (!relocated(rw, fw, f->addr, v, &h)) {
				continue;
			}
			if (!cs_qmd_field_set(q, f, i, h, NULL))
				continue; /* the host address does not fit: left, and the run shows it */
			note(fw, CS_EDIT_PATCH, qmd_guest, h, h, CS_NONE32, what);
			if (!dep)
				note(fw, CS_EDIT_RELOCATE, v, h, 0, CS_NONE32, what);
		}
	}
	return true;
}

/* ---- one entry ---------------------------------------------------------------- */

typedef struct rw_entry {
	cs_rewrite *rw;
	cs_forward *fw;
	uint32_t ch;
	uint64_t guest_pb;
	uint32_t *out;          /* the copy being edited, one dword per guest dword */
	bool *drop;             /* per dword: its method was dropped */
	bool edited;
	size_t header_pos;      /* the last header seen: an IMMD's data is in it */
	cs_pb_walk *walk;       /* the walk over the guest's dwords */
} rw_entry;

static rw_addr *addr_slot(rw_subch *s, const char *name)
{
	for (unsigned i = 0; i < s->naddr; i++)
		if (strcmp(s->addr[i].name, name) == 0)
			return &s->addr[i];
	if (s->naddr == RW_ADDRS)
		return NULL;
	rw_addr *a = &s->addr[s->naddr++];
	memset(a, 0, sizeof(*a));
	a->name = name;
	return a;
}

/* How many address parts the class has for the address named addr. */
static unsigned parts_of(const cs_class_desc *cd, const char *addr)
{
	unsigned n = 0;
	for (unsigned i = 0; i < cd->nmethods; i++)
		for (unsigned k = 0; k < cd->methods[i].nfields; k++) {
			const cs_field_desc *f = &cd->methods[i].fields[k];
			n += f->kind == CS_FIELD_ADDRESS && strcmp(f->addr, addr) == 0;
		}
	return n;
}

static void relocate_part(rw_entry *e, rw_subch *s, const cs_class_desc *cd,
			  const cs_field_desc *f, size_t pos, bool immediate, uint32_t method)
{
	rw_addr *a = addr_slot(s, f->addr);
	if (!a)
		return;
	unsigned width = cs_field_width(f);
	uint64_t mask = width + f->addr_shift >= 64 ? ~0ull << f->addr_shift
						    : ((1ull << width) - 1) << f->addr_shift;
	a->guest = (a->guest & ~mask) | (cs_field_addr_bits(f, e->out[pos]) & mask);
	unsigned p = 0;
	while (p < a->nparts && a->part[p].f->addr_shift != f->addr_shift)
		p++;
	if (p == RW_PARTS)
		return;
	if (p == a->nparts)
		a->nparts++;
	a->part[p].f = f;
	a->part[p].pos = immediate ? SIZE_MAX : pos;
	a->part[p].entry = e->rw->serial;
	a->seen |= 1u << p;
	uint64_t host;
	if (!relocated(e->rw, e->fw, f->addr, a->guest, &host))
		return;
	for (unsigned k = 0; k < a->nparts; k++) {
		if (a->part[k].entry != e->rw->serial || a->part[k].pos == SIZE_MAX)
			continue;
		size_t at = a->part[k].pos;
		uint32_t v = cs_field_addr_put(a->part[k].f, e->out[at], host);
		if (v != e->out[at]) {
			e->out[at] = v;
			e->edited = true;
		}
	}
	/* noted once every part was written: before that the address is not whole */
	bool whole = (unsigned)__builtin_popcount(a->seen) >= parts_of(cd, f->addr);
	if (whole && (a->guest != a->noted_guest || host != a->noted_host)) {
		note(e->fw, CS_EDIT_RELOCATE, a->guest, host, 0, method, f->addr);
		a->noted_guest = a->guest;
		a->noted_host = host;
	}
}

/* SEND_PCAS_A: the QMD in memory is copied into the host's, relocated. */
static bool relocate_pcas(rw_entry *e, rw_subch *s, const cs_field_desc *f, size_t pos,
			  uint32_t method, cs_diag *d)
{
	uint64_t guest = cs_field_addr_bits(f, e->out[pos]), host;
	if (!relocation_reaches(e->rw, e->fw, "QMD", guest, &host))
		return true;
	qmd_copy_result r = qmd_copy(e->rw, e->fw, cs_class_qmd_major(s->cls), guest, 0, &host, d);
	if (r == QMD_FAILED)
		return false;
	int64_t skew = skew_of(e->rw, "QMD"); /* off the copy, or off the window's address */
	e->out[pos] = cs_field_addr_put(f, e->out[pos], host + (uint64_t)skew);
	e->edited = true;
	/* a copy was noted as such; the window's address, or a skewed one, is a relocation */
	if (r == QMD_UNREADABLE || skew)
		note(e->fw, CS_EDIT_RELOCATE, guest, cs_field_addr_bits(f, e->out[pos]), 0, method,
		     "QMD");
	return true;
}

/* The last dword of an inline QMD: relocate its address fields in place. */
static bool relocate_inline_qmd(rw_entry *e, rw_subch *s, unsigned ndw, cs_diag *d)
{
	const cs_qmd_layout *l = cs_qmd_layout_of(cs_class_qmd_major(s->cls));
	if (!l || ndw * 4 > l->bytes)
		return true;
	cs_qmd q;
	uint32_t dw[CS_QMD_MAX_DWORDS] = { 0 };
	for (unsigned i = 0; i < ndw; i++)
		if (s->qmd_entry[i] == e->rw->serial && s->qmd_pos[i] != SIZE_MAX)
			dw[i] = e->out[s->qmd_pos[i]];
	if (!cs_qmd_from_bytes(&q, l->major, dw, l->bytes, NULL))
		return true;
	if (!qmd_relocate_fields(e->rw, e->fw, &q, e->guest_pb, 0, d))
		return false;
	for (unsigned i = 0; i < ndw; i++) {
		if (s->qmd_entry[i] != e->rw->serial || s->qmd_pos[i] == SIZE_MAX)
			continue;
		if (e->out[s->qmd_pos[i]] != q.dw[i]) {
			e->out[s->qmd_pos[i]] = q.dw[i];
			e->edited = true;
		}
	}
	return true;
}

static bool rule_matches(const rw_rule *r, const rw_method *m)
{
	return (r->subch == 8 || r->subch == m->subch) && m->name && strcmp(r->name, m->name) == 0;
}

/* What the host forwards binds: an edited SET_OBJECT its new class, a
 * dropped one nothing. */
static void forwarded_binding(rw_entry *e, const cs_pb_step *st, rw_subch *s)
{
	const cs_pb_item *it = &st->item;
	if (it->method == CS_FE_M_SET_OBJECT)
		cs_pb_walk_bind(e->walk, it->subch,
				e->drop[it->dword] ? st->cls
				: CS_FE_GET(set_object, NVCLASS,
					    it->dword == e->header_pos ? it->data : e->out[it->dword]));
	s->cls = e->walk->bound[it->subch];
}

static bool one_method(rw_entry *e, const cs_pb_step *st, cs_diag *d)
{
	const cs_pb_item *it = &st->item;
	size_t pos = (size_t)it->dword;
	rw_subch *s = &e->rw->sub[e->ch][it->subch];
	bool immediate = pos == e->header_pos;
	uint32_t host_cls = cs_arch_get(cs_device_arch(cs_forward_device(e->fw)))->host_class;
	uint32_t cls = it->method < CS_PB_HOST_METHODS ? host_cls : st->cls;
	const cs_class_desc *cd = class_desc(cls);
	uint32_t index = 0;
	const cs_method_desc *md = cd ? cs_class_method_at(cd, it->method, &index) : NULL;
	rw_method m = { e->ch, it->subch, cls, it->method, it->data, md ? md->name : NULL };

	for (unsigned r = 0; r < e->rw->nrules; r++) {
		const rw_rule *rule = &e->rw->rules[r];
		if (!rule_matches(rule, &m))
			continue;
		if (rule->kind != RULE_REPLACE_NAMED || !immediate)
			applied(e->rw, rule->edit);
		if (rule->kind == RULE_REPLACE_NAMED && !immediate) {
			e->out[pos] = rule->data;
			e->edited = true;
			note(e->fw, CS_EDIT_REPLACE, e->guest_pb + 4 * pos, 0, rule->data, it->method,
			     m.name);
		} else if (rule->kind != RULE_REPLACE_NAMED) {
			e->drop[pos] = true;
			e->edited = true;
			note(e->fw, CS_EDIT_DROP, e->guest_pb + 4 * pos, 0, it->data, it->method,
			     m.name ? m.name : "a method");
			forwarded_binding(e, st, s);
			return true;
		}
	}
	forwarded_binding(e, st, s);
	const cs_field_desc *f = cs_method_addr_field(md);
	if (f && strcmp(f->addr, "QMD") == 0)
		return immediate || relocate_pcas(e, s, f, pos, it->method, d);
	if (f)
		relocate_part(e, s, cd, f, pos, immediate, it->method);
	if (md && strcmp(md->name, "SET_INLINE_QMD_ADDRESS_A") == 0)
		s->inline_a = e->out[pos];
	if (md && strcmp(md->name, "LOAD_INLINE_QMD_DATA") == 0) {
		unsigned ndw = cs_gr_inline_qmd_dwords(cls, s->inline_a);
		if (index < CS_QMD_MAX_DWORDS) {
			s->qmd_pos[index] = immediate ? SIZE_MAX : pos;
			s->qmd_entry[index] = e->rw->serial;
		}
		if (index + 1 == ndw && !relocate_inline_qmd(e, s, ndw, d))
			return false;
	}
	return true;
}

/* Whether an item's dword is its own IMMD header (its data is in the header). */
static bool is_immediate(uint32_t dw, const cs_pb_item *it)
{
	return cs_pb_secop(dw) == CS_SECOP_IMMD && cs_pb_method(dw) == it->method &&
	       cs_pb_subch(dw) == it->subch && cs_pb_count(dw) == it->data;
}

/* The entry's methods, each as an INC header of one method: what is left
 * after a drop. Returns the dwords written into out2. */
static size_t reencode(const rw_entry *e, const cs_pb_item *items, size_t nitems,
		       const size_t *pos, uint32_t *out2)
{
	size_t n = 0;
	for (size_t i = 0; i < nitems; i++) {
		if (items[i].kind != CS_PB_ITEM_METHOD || e->drop[pos[i]])
			continue;
		out2[n++] = cs_pb_inc(items[i].subch, items[i].method, 1);
		out2[n++] = is_immediate(e->out[pos[i]], &items[i]) ? items[i].data : e->out[pos[i]];
	}
	return n;
}

static bool submit_slice(cs_rewrite *rw, cs_forward *fw, const cs_gp_entry *g, uint64_t addr,
			 uint32_t len, cs_diag *d)
{
	cs_gp_entry h = *g;
	h.addr = addr;
	h.length = len;
	uint32_t lo, hi;
	cs_gp_encode(&h, &lo, &hi);
	(void)rw;
	return cs_forward_submit(fw, lo, hi, d);
}

/* Submit [0, n) of buf (already in host memory at base), split at method
 * boundaries into pieces of at most rw->split dwords where it can be. */
static bool submit_split(cs_rewrite *rw, cs_forward *fw, const cs_gp_entry *g, uint64_t base,
			 const size_t *starts, size_t nstarts, size_t n, cs_diag *d)
{
	if (!rw->split || n <= rw->split)
		return submit_slice(rw, fw, g, base, (uint32_t)n, d);
	size_t from = 0, pieces = 0;
	for (size_t k = 0; k <= nstarts; k++) {
		size_t cut = k < nstarts ? starts[k] : n;
		if (cut - from > rw->split && k > 0) {
			size_t prev = starts[k - 1];
			if (prev > from) {
				if (!submit_slice(rw, fw, g, base + 4 * from, (uint32_t)(prev - from), d))
					return false;
				from = prev;
				pieces++;
			}
		}
	}
	if (!submit_slice(rw, fw, g, base + 4 * from, (uint32_t)(n - from), d))
		return false;
	if (pieces)
		applied(rw, rw->split_edit);
	note(fw, CS_EDIT_SPLIT, 0, base, pieces + 1, CS_NONE32, NULL);
	return true;
}

/* The entry as the guest wrote it, moved when the host's view holds it. */
static bool forward_plain(cs_rewrite *rw, cs_forward *fw, const cs_gp_entry *g, uint32_t lo,
			  uint32_t hi, cs_diag *d)
{
	uint64_t host_pb;
	if (!relocated(rw, fw, "PUSHBUFFER", g->addr, &host_pb))
		return cs_forward_submit(fw, lo, hi, d);
	note(fw, CS_EDIT_RELOCATE, g->addr, host_pb, 0, CS_NONE32, "pushbuffer");
	return submit_slice(rw, fw, g, host_pb, g->length, d);
}

/* Where the host's entry points at its copy at of the guest's pushbuffer at
 * guest: the copy itself, or off it by a skew of PUSHBUFFER (a relocation
 * to the wrong place, noted as one). */
static uint64_t skewed_copy(cs_rewrite *rw, cs_forward *fw, uint64_t guest, uint64_t at)
{
	int64_t skew = rw->relocate ? skew_of(rw, "PUSHBUFFER") : 0;
	if (!skew)
		return at;
	note(fw, CS_EDIT_RELOCATE, guest, at + (uint64_t)skew, 0, CS_NONE32, "pushbuffer");
	return at + (uint64_t)skew;
}

/* Hold an entry's edited dwords for the merged entry. */
static bool merge_hold(cs_rewrite *rw, const cs_gp_entry *g, const uint32_t *body, size_t n,
		       const size_t *starts, size_t nstarts, cs_diag *d)
{
	if (rw->nheld + n > CS_GP_MAX_LENGTH) {
		cs_diag_set(d, CS_ERR_INPUT, "merging entries past the %u dwords an entry holds",
			    CS_GP_MAX_LENGTH);
		return false;
	}
	if (rw->nheld + n > rw->cap_held) {
		size_t cap = (rw->nheld + n) * 2;
		uint32_t *h = realloc(rw->held, cap * 4);
		if (!h)
			goto nomem;
		rw->held = h;
		rw->cap_held = cap;
	}
	if (rw->nheld_starts + nstarts > rw->cap_starts) {
		size_t cap = (rw->nheld_starts + nstarts) * 2 + 1;
		size_t *h = realloc(rw->held_starts, cap * sizeof(*h));
		if (!h)
			goto nomem;
		rw->held_starts = h;
		rw->cap_starts = cap;
	}
	for (size_t k = 0; k < nstarts; k++)
		rw->held_starts[rw->nheld_starts++] = rw->nheld + starts[k];
	memcpy(rw->held + rw->nheld, body, n * 4);
	rw->nheld += n;
	if (!rw->held_entries++)
		rw->held_first = *g;
	return true;
nomem:
	cs_diag_set(d, CS_ERR_NOMEM, "out of memory merging entries");
	return false;
}

/* The held entries as one, into the host's memory and onto the ring. */
static bool merge_flush(cs_rewrite *rw, cs_forward *fw, cs_diag *d)
{
	if (!rw->held_entries)
		return true;
	uint64_t at;
	bool ok = host_copy(rw, fw, rw->held, rw->nheld * 4, "merged", &at, d);
	if (ok) {
		if (rw->held_entries > 1)
			applied(rw, rw->merge_edit);
		note(fw, CS_EDIT_MERGE, rw->held_first.addr, at, rw->held_entries, CS_NONE32, NULL);
		at = skewed_copy(rw, fw, rw->held_first.addr, at);
		ok = submit_split(rw, fw, &rw->held_first, at, rw->held_starts, rw->nheld_starts,
				  rw->nheld, d);
	}
	rw->nheld = rw->nheld_starts = 0;
	rw->held_entries = 0;
	return ok;
}

/* One entry's dwords edited and submitted. src: the dwords when they are not
 * in the guest's memory (the prelude), else NULL (read at g->addr). */
static bool rewrite_entry(cs_rewrite *rw, cs_forward *fw, uint32_t ch, const cs_gp_entry *gp,
			  const uint32_t *src, uint32_t lo, uint32_t hi, cs_diag *d)
{
	cs_device *dev = cs_forward_device(fw);
	cs_gp_entry g = *gp;
	rw_entry e = { .rw = rw, .fw = fw, .ch = ch, .guest_pb = g.addr, .header_pos = SIZE_MAX };
	size_t n = g.length;
	uint32_t *guest = malloc(n * 4);
	e.out = malloc(n * 4);
	e.drop = calloc(n, 1);
	cs_pb_item *items = malloc(n * 2 * sizeof(*items));
	size_t *pos = malloc(n * 2 * sizeof(*pos));
	size_t *starts = malloc(n * sizeof(*starts));
	bool ok = true;
	if (!guest || !e.out || !e.drop || !items || !pos || !starts) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory rewriting an entry of %zu dwords", n);
		ok = false;
		goto done;
	}
	if (src) {
		memcpy(guest, src, n * 4);
	} else if (!cs_mem_read(cs_device_mem(dev), g.addr, guest, n * 4, NULL)) {
		ok = forward_plain(rw, fw, &g, lo, hi, d); /* the front end will say where */
		goto done;
	}
	memcpy(e.out, guest, n * 4);
	/* A malformed stream is the guest's: forwarded untouched, so the front end
	 * diagnoses it where the guest put it; found before any edit is noted. */
	if (!src && !cs_pb_check(guest, n, NULL)) {
		ok = merge_flush(rw, fw, d) && forward_plain(rw, fw, &g, lo, hi, d);
		goto done;
	}

	/* walk, edit in place */
	uint32_t bound[8];
	for (unsigned i = 0; i < 8; i++)
		bound[i] = rw->sub[ch][i].cls;
	cs_pb_walk walk;
	cs_pb_walk_begin(&walk, guest, n, true, bound);
	e.walk = &walk;
	size_t nitems = 0, nstarts = 0;
	cs_pb_step st;
	while (ok && cs_pb_walk_next(&walk, &st)) {
		const cs_pb_item *it = &st.item;
		if (it->kind == CS_PB_ITEM_HEADER) {
			e.header_pos = (size_t)it->dword;
			starts[nstarts++] = (size_t)it->dword;
			continue;
		}
		if (it->kind != CS_PB_ITEM_METHOD)
			continue;
		items[nitems] = *it;
		pos[nitems] = (size_t)it->dword;
		nitems++;
		ok = one_method(&e, &st, d);
	}
	if (!ok)
		goto done;
	/* Unedited, the entry goes on as it is. The guest's pushbuffer is also what
	 * the host forwards when asked to keep it (a bug written on purpose): its
	 * edits then cannot go anywhere the entry points. */
	if (!src && ((!e.edited && !rw->split && !rw->merge) || kept(rw, "PUSHBUFFER"))) {
		ok = merge_flush(rw, fw, d) && forward_plain(rw, fw, &g, lo, hi, d);
		goto done;
	}
	bool dropped = false;
	for (size_t k = 0; k < n; k++)
		dropped |= e.drop[k];
	uint32_t *body = e.out;
	size_t nbody = n;
	uint32_t *re = NULL;
	if (dropped) {
		re = malloc((nitems * 2 + 1) * 4);
		if (!re) {
			cs_diag_set(d, CS_ERR_NOMEM, "out of memory re-encoding an entry");
			ok = false;
			goto done;
		}
		nbody = reencode(&e, items, nitems, pos, re);
		body = re;
		nstarts = 0;
		for (size_t k = 0; k < nbody; k += 2)
			starts[nstarts++] = k;
	}
	if (nbody == 0) {
		note(fw, CS_EDIT_DROP, g.addr, 0, 0, CS_NONE32, "methods");
	} else if (rw->merge && !src) {
		ok = merge_hold(rw, &g, body, nbody, starts, nstarts, d);
	} else {
		uint64_t at;
		ok = host_copy(rw, fw, body, nbody * 4, "pb", &at, d);
		if (ok && src) {
			applied(rw, rw->prelude_edit);
			note(fw, CS_EDIT_INSERT, 0, at, nbody, CS_NONE32, "prelude");
		} else if (ok) {
			note(fw, CS_EDIT_COPY, g.addr, at, nbody * 4, CS_NONE32, "pushbuffer");
			at = skewed_copy(rw, fw, g.addr, at);
		}
		ok = ok && submit_split(rw, fw, &g, at, starts, nstarts, nbody, d);
	}
	free(re);
done:
	free(guest);
	free(e.out);
	free(e.drop);
	free(items);
	free(pos);
	free(starts);
	return ok;
}

bool cs_rewrite_forward(void *ctx, cs_forward *fw, uint32_t lo, uint32_t hi, cs_diag *d)
{
	cs_rewrite *rw = ctx;
	uint32_t ch = cs_forward_channel(fw);
	if (ch >= CS_FE_MAX_CHANNELS) {
		cs_diag_set(d, CS_ERR_INTERNAL, "channel %u beyond the rewrite's %d", ch,
			    CS_FE_MAX_CHANNELS);
		return false;
	}
	rw->serial++;
	if (rw->prelude && !rw->prelude_sent) {
		/* the prelude is the guest's text: relocated and edited like an entry */
		cs_gp_entry p = { .addr = 0, .length = (uint32_t)rw->nprelude };
		rw->prelude_sent = true;
		if (!rewrite_entry(rw, fw, ch, &p, rw->prelude, 0, 0, d))
			return false;
		rw->serial++;
	}
	cs_gp_entry g = cs_gp_decode(lo, hi);
	bool ok;
	bool work = rw->nrules || rw->split || rw->merge ||
		    (rw->relocate && !kept(rw, "PUSHBUFFER"));
	if (g.length == 0) /* a control entry keeps its place: what was held goes first */
		ok = merge_flush(rw, fw, d) && cs_forward_submit(fw, lo, hi, d);
	else if (!work)
		ok = forward_plain(rw, fw, &g, lo, hi, d);
	else
		ok = rewrite_entry(rw, fw, ch, &g, NULL, lo, hi, d);
	/* the submission's last guest entry: the merged entry goes on the ring */
	if (ok && rw->merge && cs_forward_remaining(fw) == 0)
		ok = merge_flush(rw, fw, d);
	return ok;
}

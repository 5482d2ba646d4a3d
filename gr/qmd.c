/* SPDX-License-Identifier: MIT */
/* QMD codecs: one field table per version (gr/qmd_v03.def, qmd_v04.def,
 * qmd_v05.def), get/set by field, the scenario's `qmd` keys, decoding into a
 * version-independent view, and the stage 7 acceptance rules. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gr_internal.h"

#define NELEM(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))
/* The address each ADDRESS field holds, by id ("NONE" for the others). */
#define CS_QMD_ID(id, kind, addr) [GR_QF_##id] = #addr,
static const char qmd_addr_names[GR_QF_COUNT][24] = {
#include "qmd_fields.def"
};
#undef CS_QMD_ID

/* Each version's table in its own row order; the version's rows by id
 * (VNN_ROW_<id>) say where a field is, and a version lacks the ids it has no
 * row for. */
#define CS_QMD_FIELD(id, hi, lo, sh, cnt, str)                                      \
	{ #id, hi, lo, sh, cnt, str, (cs_field_kind)GR_QK_##id,                          \
	  (int)GR_QK_##id == (int)CS_FIELD_ADDRESS ? qmd_addr_names[GR_QF_##id] : NULL },
static const cs_qmd_field v03_fields[] = {
#include "qmd_v03.def"
};
static const cs_qmd_field v04_fields[] = {
#include "qmd_v04.def"
};
static const cs_qmd_field v05_fields[] = {
#include "qmd_v05.def"
};
#undef CS_QMD_FIELD

#define CS_QMD_FIELD(id, hi, lo, sh, cnt, str) V03_ROW_##id,
enum {
#include "qmd_v03.def"
};
#undef CS_QMD_FIELD
#define CS_QMD_FIELD(id, hi, lo, sh, cnt, str) V04_ROW_##id,
enum {
#include "qmd_v04.def"
};
#undef CS_QMD_FIELD
#define CS_QMD_FIELD(id, hi, lo, sh, cnt, str) V05_ROW_##id,
enum {
#include "qmd_v05.def"
};
#undef CS_QMD_FIELD

/* By id: the row + 1, 0 when the version lacks the field. */
#define CS_QMD_FIELD(id, hi, lo, sh, cnt, str) [GR_QF_##id] = V03_ROW_##id + 1,
static const uint8_t v03_by_id[GR_QF_COUNT] = {
#include "qmd_v03.def"
};
#undef CS_QMD_FIELD
#define CS_QMD_FIELD(id, hi, lo, sh, cnt, str) [GR_QF_##id] = V04_ROW_##id + 1,
static const uint8_t v04_by_id[GR_QF_COUNT] = {
#include "qmd_v04.def"
};
#undef CS_QMD_FIELD
#define CS_QMD_FIELD(id, hi, lo, sh, cnt, str) [GR_QF_##id] = V05_ROW_##id + 1,
static const uint8_t v05_by_id[GR_QF_COUNT] = {
#include "qmd_v05.def"
};
#undef CS_QMD_FIELD
_Static_assert(NELEM(v03_fields) < 255 && NELEM(v04_fields) < 255 && NELEM(v05_fields) < 255,
	       "a row + 1 fits a byte");

static const cs_qmd_layout qmd_layouts[] = {
	{ 3, 0, "V03_00", 256, "NVIDIA/open-gpu-doc classes/compute/clc6c0qmd.h (QMDV03_00)",
	  v03_fields, NELEM(v03_fields), v03_by_id },
	{ 4, 0, "V04_00", 384, "NVIDIA/open-gpu-doc classes/compute/clcbc0qmd.h (QMDV04_00)",
	  v04_fields, NELEM(v04_fields), v04_by_id },
	{ 5, 0, "V05_00", 384, "NVIDIA/open-gpu-doc classes/compute/clcdc0qmd.h (QMDV05_00)",
	  v05_fields, NELEM(v05_fields), v05_by_id },
};

unsigned cs_qmd_addr_fields(const cs_qmd_layout *l, const cs_qmd_field **out, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < l->nfields; i++) {
		if (l->fields[i].kind != CS_FIELD_ADDRESS)
			continue;
		if (n < max)
			out[n] = &l->fields[i];
		n++;
	}
	return n;
}

const cs_qmd_layout *cs_qmd_layout_of(unsigned major)
{
	for (unsigned i = 0; i < NELEM(qmd_layouts); i++)
		if (qmd_layouts[i].major == major)
			return &qmd_layouts[i];
	return NULL;
}

unsigned cs_qmd_size(unsigned major)
{
	const cs_qmd_layout *l = cs_qmd_layout_of(major);
	return l ? l->bytes : 0;
}

/* ---- bits ------------------------------------------------------------------ */

uint64_t gr_bits_get(const uint32_t *dw, unsigned hi, unsigned lo)
{
	unsigned width = hi - lo + 1, got = 0, bit = lo;
	uint64_t v = 0;
	while (got < width) {
		unsigned off = bit % 32, take = 32 - off;
		if (take > width - got)
			take = width - got;
		uint32_t mask = take == 32 ? 0xffffffffu : ((1u << take) - 1u);
		v |= (uint64_t)((dw[bit / 32] >> off) & mask) << got;
		got += take;
		bit += take;
	}
	return v;
}

void gr_bits_set(uint32_t *dw, unsigned hi, unsigned lo, uint64_t v)
{
	unsigned width = hi - lo + 1, put = 0, bit = lo;
	while (put < width) {
		unsigned off = bit % 32, take = 32 - off;
		if (take > width - put)
			take = width - put;
		uint32_t mask = take == 32 ? 0xffffffffu : ((1u << take) - 1u);
		uint32_t part = (uint32_t)(v >> put) & mask;
		dw[bit / 32] = (dw[bit / 32] & ~(mask << off)) | (part << off);
		put += take;
		bit += take;
	}
}

static unsigned field_width(const cs_qmd_field *f) { return (unsigned)(f->hi - f->lo + 1); }

uint64_t cs_qmd_field_get(const cs_qmd *q, const cs_qmd_field *f, unsigned index)
{
	if (!q->layout || index >= f->count)
		return 0;
	unsigned lo = f->lo + index * f->stride, hi = f->hi + index * f->stride;
	return gr_bits_get(q->dw, hi, lo) << f->shift;
}

bool cs_qmd_field_set(cs_qmd *q, const cs_qmd_field *f, unsigned index, uint64_t value,
		      cs_diag *d)
{
	if (!q->layout) {
		cs_diag_set(d, CS_ERR_INPUT, "QMD has no version");
		return false;
	}
	if (index >= f->count) {
		cs_diag_set(d, CS_ERR_INPUT, "QMD %s field %s has %u element%s, not %u",
			    q->layout->name, f->name, (unsigned)f->count, f->count == 1 ? "" : "s",
			    index + 1);
		return false;
	}
	uint64_t align = (1ull << f->shift) - 1;
	if (value & align) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "QMD %s field %s = 0x%" PRIx64 " must be a multiple of %llu (stored >> %u)",
			    q->layout->name, f->name, value, 1ull << f->shift, (unsigned)f->shift);
		return false;
	}
	unsigned width = field_width(f);
	uint64_t stored = value >> f->shift;
	if (width < 64 && (stored >> width) != 0) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "QMD %s field %s = 0x%" PRIx64 " does not fit its %u bits%s",
			    q->layout->name, f->name, value, width, f->shift ? " (after the shift)" : "");
		return false;
	}
	unsigned lo = f->lo + index * f->stride, hi = f->hi + index * f->stride;
	gr_bits_set(q->dw, hi, lo, stored);
	return true;
}

const cs_qmd_field *cs_qmd_field_named(const cs_qmd_layout *l, const char *name,
				       unsigned *index)
{
	const char *paren = strchr(name, '(');
	size_t len = paren ? (size_t)(paren - name) : strlen(name);
	unsigned long idx = 0;
	if (paren) {
		char *end;
		if (!isdigit((unsigned char)paren[1]))
			return NULL;
		idx = strtoul(paren + 1, &end, 10);
		if (end[0] != ')' || end[1] != '\0')
			return NULL;
	}
	for (unsigned i = 0; i < l->nfields; i++) {
		const cs_qmd_field *f = &l->fields[i];
		if (strlen(f->name) != len || strncasecmp(f->name, name, len) != 0)
			continue;
		if (paren ? (f->count <= 1 || idx >= f->count) : f->count > 1)
			return NULL;
		if (index)
			*index = (unsigned)idx;
		return f;
	}
	return NULL;
}

static const cs_qmd_field *field_or_diag(const cs_qmd *q, const char *name, unsigned *index,
					 cs_diag *d)
{
	if (!q->layout) {
		cs_diag_set(d, CS_ERR_INPUT, "QMD has no version");
		return NULL;
	}
	const cs_qmd_field *f = cs_qmd_field_named(q->layout, name, index);
	if (!f) {
		const char *paren = strchr(name, '(');
		size_t len = paren ? (size_t)(paren - name) : strlen(name);
		for (unsigned i = 0; i < q->layout->nfields; i++) {
			const cs_qmd_field *g = &q->layout->fields[i];
			if (strlen(g->name) == len && strncasecmp(g->name, name, len) == 0) {
				if (g->count > 1)
					cs_diag_set(d, CS_ERR_INPUT,
						    "QMD %s field %s is an array: write %s(0)..%s(%u)",
						    q->layout->name, g->name, g->name, g->name,
						    (unsigned)g->count - 1);
				else
					cs_diag_set(d, CS_ERR_INPUT,
						    "QMD %s field %s is not an array", q->layout->name,
						    g->name);
				return NULL;
			}
		}
		cs_diag_set(d, CS_ERR_INPUT, "QMD %s has no field '%s'", q->layout->name, name);
	}
	return f;
}

bool cs_qmd_get(const cs_qmd *q, const char *name, uint64_t *value, cs_diag *d)
{
	unsigned idx = 0;
	const cs_qmd_field *f = field_or_diag(q, name, &idx, d);
	if (!f)
		return false;
	*value = cs_qmd_field_get(q, f, idx);
	return true;
}

bool cs_qmd_set(cs_qmd *q, const char *name, uint64_t value, cs_diag *d)
{
	unsigned idx = 0;
	const cs_qmd_field *f = field_or_diag(q, name, &idx, d);
	return f && cs_qmd_field_set(q, f, idx, value, d);
}

/* ---- images -------------------------------------------------------------------- */

static bool set_id(cs_qmd *q, gr_qf id, unsigned index, uint64_t v, cs_diag *d)
{
	const cs_qmd_field *f = gr_qmd_f(q->layout, id);
	if (!f) {
		cs_diag_set(d, CS_ERR_INPUT, "QMD %s has no %s field", q->layout->name,
			    id == GR_QF_QMD_TYPE ? "QMD_TYPE" : "such");
		return false;
	}
	return cs_qmd_field_set(q, f, index, v, d);
}

static uint64_t get_id(const cs_qmd *q, gr_qf id, unsigned index)
{
	const cs_qmd_field *f = gr_qmd_f(q->layout, id);
	return f ? cs_qmd_field_get(q, f, index) : 0;
}

/* q cleared and laid out as QMD version major, or false when that version
 * is not modelled. */
static bool start_layout(cs_qmd *q, unsigned major, cs_diag *d)
{
	memset(q, 0, sizeof(*q));
	q->layout = cs_qmd_layout_of(major);
	if (!q->layout) {
		cs_diag_set(d, CS_ERR_INPUT, "QMD major version %u is not modelled (3, 4 or 5)",
			    major);
		return false;
	}
	return true;
}

bool cs_qmd_init(cs_qmd *q, unsigned major, cs_diag *d)
{
	if (!start_layout(q, major, d))
		return false;
	bool ok = set_id(q, GR_QF_QMD_MAJOR_VERSION, 0, major, d) &&
		  set_id(q, GR_QF_QMD_MINOR_VERSION, 0, q->layout->minor, d) &&
		  set_id(q, GR_QF_API_VISIBLE_CALL_LIMIT, 0, 1, d) && /* NO_CHECK */
		  set_id(q, GR_QF_GRID_WIDTH, 0, 1, d) && set_id(q, GR_QF_GRID_HEIGHT, 0, 1, d) &&
		  set_id(q, GR_QF_GRID_DEPTH, 0, 1, d) &&
		  set_id(q, GR_QF_CTA_THREAD_DIMENSION0, 0, 1, d) &&
		  set_id(q, GR_QF_CTA_THREAD_DIMENSION1, 0, 1, d) &&
		  set_id(q, GR_QF_CTA_THREAD_DIMENSION2, 0, 1, d);
	if (ok && gr_qmd_f(q->layout, GR_QF_QMD_TYPE))
		ok = set_id(q, GR_QF_QMD_TYPE, 0, CS_QMD_QMD_TYPE_GRID, d);
	return ok;
}

bool cs_qmd_from_bytes(cs_qmd *q, unsigned major, const void *bytes, size_t len, cs_diag *d)
{
	if (!start_layout(q, major, d))
		return false;
	if (len < q->layout->bytes) {
		cs_diag_set(d, CS_ERR_INPUT, "QMD %s needs %u bytes, got %zu", q->layout->name,
			    q->layout->bytes, len);
		q->layout = NULL;
		return false;
	}
	memcpy(q->dw, bytes, q->layout->bytes);
	return true;
}

bool cs_qmd_read_mem(cs_qmd *q, unsigned major, const cs_mem_port *mem, uint64_t va,
		     uint64_t *fault_va)
{
	memset(q, 0, sizeof(*q));
	const cs_qmd_layout *l = cs_qmd_layout_of(major);
	if (!l)
		return false;
	uint64_t fva = va;
	if (!mem->read(mem->ctx, va, q->dw, l->bytes, &fva)) {
		if (fault_va)
			*fault_va = fva;
		return false;
	}
	q->layout = l;
	return true;
}

/* ---- scenario keys ----------------------------------------------------------------- */

static bool want_n(const char *key, unsigned nvals, unsigned lo, unsigned hi, cs_diag *d)
{
	if (nvals < lo || nvals > hi) {
		if (lo == hi)
			cs_diag_set(d, CS_ERR_INPUT, "qmd key %s takes %u value%s, got %u", key, lo,
				    lo == 1 ? "" : "s", nvals);
		else
			cs_diag_set(d, CS_ERR_INPUT, "qmd key %s takes %u to %u values, got %u", key,
				    lo, hi, nvals);
		return false;
	}
	return true;
}

/* "cbank3" -> 3 when key is prefix followed by one digit below limit. */
static bool indexed_key(const char *key, const char *prefix, unsigned limit, unsigned *i)
{
	size_t n = strlen(prefix);
	if (strncmp(key, prefix, n) != 0 || !isdigit((unsigned char)key[n]) || key[n + 1])
		return false;
	*i = (unsigned)(key[n] - '0');
	return *i < limit;
}

static bool set_dims(cs_qmd *q, const char *key, const uint64_t *v, unsigned n, gr_qf first,
		     cs_diag *d)
{
	if (!want_n(key, n, 1, 3, d))
		return false;
	for (unsigned i = 0; i < 3; i++)
		if (!set_id(q, (gr_qf)(first + i), 0, i < n ? v[i] : 1, d))
			return false;
	return true;
}

static bool set_release(cs_qmd *q, unsigned i, const char *key, const uint64_t *v, unsigned n,
			cs_diag *d)
{
	if (!want_n(key, n, 2, 3, d))
		return false;
	uint64_t words = n == 3 ? v[2] : 1;
	unsigned structure;
	switch (words) {
	case 1: structure = 1; break;
	case 2: structure = 2; break;
	case 4: structure = 0; break;
	default:
		cs_diag_set(d, CS_ERR_INPUT,
			    "qmd key %s: release structure of %" PRIu64 " words (1, 2 or 4)", key,
			    words);
		return false;
	}
	gr_qf base = i == 0 ? GR_QF_RELEASE0_ENABLE : GR_QF_RELEASE1_ENABLE;
	/* The five RELEASEi_* ids are consecutive in qmd_fields.def. */
	return set_id(q, (gr_qf)(base + 3), 0, v[0], d) &&
	       set_id(q, (gr_qf)(base + 4), 0, v[1], d) &&
	       set_id(q, (gr_qf)(base + 2), 0, v[1] > 0xffffffffu ? 1 : 0, d) &&
	       set_id(q, (gr_qf)(base + 1), 0, structure, d) && set_id(q, base, 0, 1, d);
}

bool cs_qmd_set_key(cs_qmd *q, const char *key, const uint64_t *vals, unsigned nvals,
		    cs_diag *d)
{
	if (!q->layout) {
		cs_diag_set(d, CS_ERR_INPUT, "QMD has no version");
		return false;
	}
	unsigned i;
	if (strcmp(key, "program") == 0)
		return want_n(key, nvals, 1, 1, d) && set_id(q, GR_QF_PROGRAM_ADDRESS, 0, vals[0], d);
	if (strcmp(key, "grid") == 0)
		return set_dims(q, key, vals, nvals, GR_QF_GRID_WIDTH, d);
	if (strcmp(key, "block") == 0)
		return set_dims(q, key, vals, nvals, GR_QF_CTA_THREAD_DIMENSION0, d);
	if (strcmp(key, "shared") == 0) {
		if (!want_n(key, nvals, 1, 1, d))
			return false;
		/* Shared memory is reserved in the field's granule (128 B on V05_00). */
		unsigned sh = gr_qmd_f(q->layout, GR_QF_SHARED_MEMORY_SIZE)->shift;
		uint64_t g = (1ull << sh) - 1;
		if (vals[0] > UINT64_MAX - g) {
			cs_diag_set(d, CS_ERR_INPUT, "qmd key shared: %" PRIu64 " is too large",
				    vals[0]);
			return false;
		}
		return set_id(q, GR_QF_SHARED_MEMORY_SIZE, 0, (vals[0] + g) & ~g, d);
	}
	if (strcmp(key, "regs") == 0)
		return want_n(key, nvals, 1, 1, d) && set_id(q, GR_QF_REGISTER_COUNT, 0, vals[0], d);
	if (strcmp(key, "barriers") == 0)
		return want_n(key, nvals, 1, 1, d) && set_id(q, GR_QF_BARRIER_COUNT, 0, vals[0], d);
	if (indexed_key(key, "cbank", CS_CBANK_COUNT, &i)) {
		if (!want_n(key, nvals, 2, 2, d))
			return false;
		uint64_t size = vals[1];
		if (size > UINT64_MAX - 15) {
			cs_diag_set(d, CS_ERR_INPUT, "qmd key %s: size %" PRIu64 " is too large", key,
				    size);
			return false;
		}
		return set_id(q, GR_QF_CONSTANT_BUFFER_ADDR, i, vals[0], d) &&
		       set_id(q, GR_QF_CONSTANT_BUFFER_SIZE, i, (size + 15) & ~15ull, d) &&
		       set_id(q, GR_QF_CONSTANT_BUFFER_VALID, i, 1, d);
	}
	if (indexed_key(key, "release", CS_QMD_RELEASES, &i))
		return set_release(q, i, key, vals, nvals, d);
	if (strcmp(key, "dependent") == 0) {
		if (!want_n(key, nvals, 2, 2, d))
			return false;
		if (!cs_dep_action_name((uint32_t)vals[1]) || vals[1] > 7) {
			cs_diag_set(d, CS_ERR_INPUT,
				    "qmd key dependent: action %" PRIu64
				    " is reserved (0 INCREMENT_PUT, 1 SCHEDULE, 3 "
				    "INVALIDATE_COPY_SCHEDULE, 4 DECREMENT_DEPENDENCE)",
				    vals[1]);
			return false;
		}
		return set_id(q, GR_QF_DEPENDENT_QMD0_POINTER, 0, vals[0], d) &&
		       set_id(q, GR_QF_DEPENDENT_QMD0_ACTION, 0, vals[1], d) &&
		       set_id(q, GR_QF_DEPENDENT_QMD0_ENABLE, 0, 1, d);
	}
	unsigned idx = 0;
	const cs_qmd_field *f = cs_qmd_field_named(q->layout, key, &idx);
	if (!f) {
		cs_diag d2;
		cs_diag_clear(&d2);
		field_or_diag(q, key, &idx, &d2);
		cs_diag_set(d, CS_ERR_INPUT,
			    "unknown qmd key '%s': not program, grid, block, shared, regs, barriers, "
			    "cbank0..7, release0..1, dependent, and %s",
			    key, d2.msg);
		return false;
	}
	return want_n(key, nvals, 1, 1, d) && cs_qmd_field_set(q, f, idx, vals[0], d);
}

bool cs_qmd_set_key_text(cs_qmd *q, const char *key, const char *value, cs_diag *d)
{
	uint64_t vals[4];
	unsigned n = 0;
	const char *p = value;
	for (;;) {
		if (n == 4) {
			cs_diag_set(d, CS_ERR_INPUT, "qmd key %s: more than 4 values in '%s'", key,
				    value);
			return false;
		}
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char part[64];
		if (len == 0 || len >= sizeof(part)) {
			cs_diag_set(d, CS_ERR_INPUT, "qmd key %s: bad value list '%s'", key, value);
			return false;
		}
		memcpy(part, p, len);
		part[len] = '\0';
		bool named = false;
		if (strcmp(key, "dependent") == 0 && n == 1) {
			for (uint32_t a = 0; a < 8; a++) {
				const char *an = cs_dep_action_name(a);
				if (an && strcasecmp(an, part) == 0) {
					vals[n] = a;
					named = true;
				}
			}
		}
		if (!named) {
			char *end;
			errno = 0;
			if (!isdigit((unsigned char)part[0])) {
				cs_diag_set(d, CS_ERR_INPUT, "qmd key %s: '%s' is not a number", key,
					    part);
				return false;
			}
			unsigned long long v = strtoull(part, &end, 0);
			if (*end != '\0' || errno == ERANGE) {
				cs_diag_set(d, CS_ERR_INPUT, "qmd key %s: '%s' is not a number", key,
					    part);
				return false;
			}
			vals[n] = v;
		}
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return cs_qmd_set_key(q, key, vals, n, d);
}

/* ---- decode and acceptance ------------------------------------------------------------- */

void cs_qmd_decode(const cs_qmd *q, cs_qmd_info *out)
{
	memset(out, 0, sizeof(*out));
	if (!q->layout)
		return;
	out->major = (unsigned)get_id(q, GR_QF_QMD_MAJOR_VERSION, 0);
	out->minor = (unsigned)get_id(q, GR_QF_QMD_MINOR_VERSION, 0);
	out->has_qmd_type = gr_qmd_f(q->layout, GR_QF_QMD_TYPE) != NULL;
	out->qmd_type = out->has_qmd_type ? (unsigned)get_id(q, GR_QF_QMD_TYPE, 0) : 0;
	out->program = get_id(q, GR_QF_PROGRAM_ADDRESS, 0);
	for (unsigned i = 0; i < 3; i++) {
		out->grid[i] = (uint32_t)get_id(q, (gr_qf)(GR_QF_GRID_WIDTH + i), 0);
		out->block[i] = (uint32_t)get_id(q, (gr_qf)(GR_QF_CTA_THREAD_DIMENSION0 + i), 0);
	}
	out->shared_bytes = (uint32_t)get_id(q, GR_QF_SHARED_MEMORY_SIZE, 0);
	out->regs = (uint32_t)get_id(q, GR_QF_REGISTER_COUNT, 0);
	out->barriers = (uint32_t)get_id(q, GR_QF_BARRIER_COUNT, 0);
	for (unsigned i = 0; i < CS_CBANK_COUNT; i++) {
		if (get_id(q, GR_QF_CONSTANT_BUFFER_VALID, i))
			out->cbank_valid |= 1u << i;
		out->cbank_addr[i] = get_id(q, GR_QF_CONSTANT_BUFFER_ADDR, i);
		out->cbank_size[i] = (uint32_t)get_id(q, GR_QF_CONSTANT_BUFFER_SIZE, i);
	}
	for (unsigned i = 0; i < CS_QMD_RELEASES; i++) {
		gr_qf base = i == 0 ? GR_QF_RELEASE0_ENABLE : GR_QF_RELEASE1_ENABLE;
		cs_qmd_release *r = &out->release[i];
		r->enable = get_id(q, base, 0) != 0;
		r->structure = (unsigned)get_id(q, (gr_qf)(base + 1), 0);
		r->payload64 = get_id(q, (gr_qf)(base + 2), 0) != 0;
		r->addr = get_id(q, (gr_qf)(base + 3), 0);
		r->payload = get_id(q, (gr_qf)(base + 4), 0);
		static const unsigned words[4] = { 4, 1, 2, 0 };
		r->words = words[r->structure & 3];
	}
	out->dependent_enable = get_id(q, GR_QF_DEPENDENT_QMD0_ENABLE, 0) != 0;
	out->dependent_action = (unsigned)get_id(q, GR_QF_DEPENDENT_QMD0_ACTION, 0);
	out->dependent_addr = get_id(q, GR_QF_DEPENDENT_QMD0_POINTER, 0);
	out->local_bytes_per_thread = get_id(q, GR_QF_SHADER_LOCAL_MEMORY_LOW_SIZE, 0) +
				      get_id(q, GR_QF_SHADER_LOCAL_MEMORY_HIGH_SIZE, 0);
}

static const char *qmd_type_name(unsigned t)
{
	static const char *const names[] = { "QUEUE", "GRID_NULL", "GRID_CTA", "GRID_GPC_CGA",
					     "GRID_GPU_CGA", "GRID_GPU_GPC_CGA" };
	return t < NELEM(names) ? names[t] : "reserved";
}

/* Bytes of one SASS instruction: the least of the program that must be mapped. */
enum { GR_PROGRAM_PROBE = 16 };

cs_cause cs_qmd_check(const cs_qmd_info *in, uint32_t cls, const cs_mem_port *mem, char *why,
		      size_t why_len)
{
	unsigned want = cs_class_qmd_major(cls);
	if (want == 0) {
		snprintf(why, why_len, "class %04X is not a compute class", cls);
		return CS_CAUSE_QMD_REJECTED;
	}
	if (in->major != want) {
		snprintf(why, why_len, "QMD major version = %u (class %04X reads V%02u_00: %u)",
			 in->major, cls, want, want);
		return CS_CAUSE_QMD_REJECTED;
	}
	if (in->has_qmd_type && in->qmd_type != CS_QMD_QMD_TYPE_GRID) {
		snprintf(why, why_len, "QMD type = %u (%s; only GRID_CTA = 2 is modelled)",
			 in->qmd_type, qmd_type_name(in->qmd_type));
		return CS_CAUSE_QMD_REJECTED;
	}
	static const char *const gname[3] = { "width", "height", "depth" };
	static const uint32_t gmax[3] = { 0x7fffffffu, 65535u, 65535u };
	for (unsigned i = 0; i < 3; i++) {
		if (in->grid[i] == 0 || in->grid[i] > gmax[i]) {
			snprintf(why, why_len, "grid %s = %" PRIu32 " (must be 1..%" PRIu32 ")",
				 gname[i], in->grid[i], gmax[i]);
			return CS_CAUSE_QMD_REJECTED;
		}
	}
	static const uint32_t bmax[3] = { 1024u, 1024u, 64u };
	for (unsigned i = 0; i < 3; i++) {
		if (in->block[i] == 0 || in->block[i] > bmax[i]) {
			snprintf(why, why_len, "block dim %u = %" PRIu32 " (must be 1..%" PRIu32 ")", i,
				 in->block[i], bmax[i]);
			return CS_CAUSE_QMD_REJECTED;
		}
	}
	uint64_t threads = (uint64_t)in->block[0] * in->block[1] * in->block[2];
	if (threads > 1024) {
		snprintf(why, why_len,
			 "block %" PRIu32 "x%" PRIu32 "x%" PRIu32 " = %" PRIu64
			 " threads (must be <= 1024)",
			 in->block[0], in->block[1], in->block[2], threads);
		return CS_CAUSE_QMD_REJECTED;
	}
	bool assumed = false;
	uint32_t smax = cs_gr_shared_limit(cls, &assumed);
	if (in->shared_bytes > smax) {
		snprintf(why, why_len, "shared memory = %" PRIu32 " bytes (must be <= %" PRIu32
			 " for %04X%s)", in->shared_bytes, smax, cls,
			 assumed ? "; the limit is assumed" : "");
		return CS_CAUSE_QMD_REJECTED;
	}
	if (in->regs > 255) {
		snprintf(why, why_len, "register count = %" PRIu32 " (must be <= 255)", in->regs);
		return CS_CAUSE_QMD_REJECTED;
	}
	for (unsigned i = 0; i < CS_QMD_RELEASES; i++) {
		if (in->release[i].enable && in->release[i].words == 0) {
			snprintf(why, why_len, "release %u structure size = %u (reserved)", i,
				 in->release[i].structure);
			return CS_CAUSE_QMD_REJECTED;
		}
	}
	if (in->dependent_enable && !cs_dep_action_name(in->dependent_action)) {
		snprintf(why, why_len, "dependent QMD action = %u (reserved)", in->dependent_action);
		return CS_CAUSE_QMD_REJECTED;
	}
	if (!(in->cbank_valid & 1u)) {
		snprintf(why, why_len,
			 "constant buffer 0 valid = 0 (must be 1: bank 0 holds the kernel parameters)");
		return CS_CAUSE_QMD_REJECTED;
	}
	for (unsigned i = 0; i < CS_CBANK_COUNT; i++) {
		if (!(in->cbank_valid & (1u << i)))
			continue;
		if (in->cbank_size[i] == 0) {
			snprintf(why, why_len, "constant buffer %u size = 0 (must be > 0 when valid)",
				 i);
			return CS_CAUSE_QMD_REJECTED;
		}
		/* Only the bank's start must be mapped: a bank that runs past mapped
		 * memory is bound as it is (tinygrad's size field asks 0x1600 bytes
		 * of a smaller buffer, and real GPUs run it); a kernel's read past the
		 * mapped end faults at that read. The engine notes the overhang. */
		if (mem && !mem->mapped(mem->ctx, in->cbank_addr[i], 1)) {
			snprintf(why, why_len,
				 "constant buffer %u at 0x%" PRIx64 " size 0x%" PRIx32
				 " is not mapped",
				 i, in->cbank_addr[i], in->cbank_size[i]);
			return CS_CAUSE_QMD_REJECTED;
		}
	}
	if (mem && !mem->mapped(mem->ctx, in->program, GR_PROGRAM_PROBE)) {
		snprintf(why, why_len, "program address 0x%" PRIx64 " is not mapped", in->program);
		return CS_CAUSE_CODE_UNMAPPED;
	}
	return CS_CAUSE_NONE;
}

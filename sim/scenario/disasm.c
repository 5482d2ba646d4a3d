/* SPDX-License-Identifier: MIT */
/* Raw pushbuffer bytes to scenario text (chainsim disasm): the fe's streaming
 * decoder splits the stream into headers and data, the class registry names
 * methods and fields, and every line is one the assembler turns back into
 * the same dwords. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/pushbuf.h"
#include "chainsim/registry.h"
#include "scn.h"

/* A decode comment longer than DIS_COMMENT_WIDTH goes on in comment lines of
 * its own, split between its parts (never inside one). */
enum { DIS_RAW_PER_LINE = 8, DIS_COMMENT_WIDTH = 160 };

typedef struct dis {
	const cs_disasm_opts *o;
	cs_arch arch;
	cs_binding bind;
	GString *out;
} dis;

static uint32_t method_of(uint32_t op, uint32_t m, uint32_t i)
{
	if (op == CS_SECOP_INC)
		return m + 4 * i;
	if (op == CS_SECOP_ONEINC)
		return i ? m + 4 : m;
	return m;
}

/* The method as the assembler will read it back: a name when the name
 * resolves to this offset under the same binding, else the byte offset. */
static void method_text(dis *ds, uint32_t subch, uint32_t m, char *buf, size_t len)
{
	char label[96];
	uint32_t back;
	cs_diag d;
	if (cs_registry_method_label(ds->arch, ds->bind.cls[subch], subch, m, label, sizeof(label),
				     NULL) &&
	    cs_registry_resolve_method(ds->arch, ds->bind.cls[subch], subch, label, &back, &d) &&
	    back == m) {
		snprintf(buf, len, "%s", label);
		return;
	}
	snprintf(buf, len, "0x%x", m);
}

static void comment_add(GString *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void comment_add(GString *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_string_append_vprintf(c, fmt, ap);
	va_end(ap);
}

/* Decoded names and fields of a method's data dwords, for the comment. */
static void describe(dis *ds, uint32_t op, uint32_t subch, uint32_t m, const uint32_t *data,
		     uint32_t n, GString *c)
{
	uint32_t cls = ds->bind.cls[subch] ? ds->bind.cls[subch]
					   : cs_registry_conventional_class(ds->arch, subch);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t mi = method_of(op, m, i);
		char label[96];
		const cs_method_desc *md = NULL;
		bool named = cs_registry_method_label(ds->arch, ds->bind.cls[subch], subch, mi, label,
						      sizeof(label), &md);
		if (mi == 0) {
			const char *cn = cs_class_name(CS_FE_GET(set_object, NVCLASS, data[i]));
			comment_add(c, "%sSET_OBJECT %s", c->len ? "; " : "",
				    cn ? cn : "(unknown class)");
			continue;
		}
		if (md && md->nfields) {
			char fields[256];
			cs_method_format_fields(md, data[i], fields, sizeof(fields));
			comment_add(c, "%s%s: %s", c->len ? "; " : "", label, fields);
		} else if (i == 0 || (i == n - 1 && mi != m)) {
			/* plain methods: name the first and the last of a run */
			if (named)
				comment_add(c, "%s%s", c->len ? (i ? " .. " : "; ") : "", label);
			else if (mi >= CS_PB_HOST_METHODS && !cls)
				comment_add(c, "%s0x%x (subchannel %u: no modelled class)",
					    c->len ? "; " : "", mi, subch);
		}
	}
}

/* An inline QMD loaded from its first dword in one run (LOAD_INLINE_QMD_DATA
 * on a compute class): its layout, else NULL. */
static const cs_qmd_layout *inline_qmd_layout(dis *ds, uint32_t op, uint32_t subch, uint32_t m,
					      uint32_t count)
{
	uint32_t cls = ds->bind.cls[subch] ? ds->bind.cls[subch]
					   : cs_registry_conventional_class(ds->arch, subch);
	if (op != CS_SECOP_INC || m != CS_GR_LOAD_INLINE_QMD_DATA ||
	    cs_class_kind_of(cls) != CS_CLASS_COMPUTE)
		return NULL;
	const cs_qmd_layout *l = cs_qmd_layout_of(cs_class_qmd_major(cls));
	return l && count <= l->bytes / 4 ? l : NULL;
}

/* Its non-zero fields by name, one comment line each in dword order, with the
 * dword each starts in (the assembler ignores comment lines: the round trip
 * holds). */
typedef struct qmd_line {
	unsigned lo;
	char text[112];
} qmd_line;

static int qmd_line_cmp(const void *a, const void *b)
{
	const qmd_line *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

static void emit_qmd_fields(dis *ds, const cs_qmd_layout *l, const uint32_t *data, uint32_t count)
{
	cs_qmd q;
	memset(&q, 0, sizeof(q));
	q.layout = l;
	memcpy(q.dw, data, sizeof(uint32_t) * count);
	GArray *lines = g_array_new(FALSE, FALSE, sizeof(qmd_line));
	for (unsigned f = 0; f < l->nfields; f++) {
		const cs_qmd_field *fd = &l->fields[f];
		for (unsigned i = 0; i < fd->count; i++) {
			qmd_line ln = { .lo = fd->lo + i * fd->stride };
			uint64_t v = ln.lo / 32 < count ? cs_qmd_field_get(&q, fd, i) : 0;
			if (!v)
				continue;
			char name[64];
			if (fd->count > 1)
				snprintf(name, sizeof(name), "%s(%u)", fd->name, i);
			else
				snprintf(name, sizeof(name), "%s", fd->name);
			snprintf(ln.text, sizeof(ln.text), "dw %2u  %-36s 0x%llx", ln.lo / 32, name,
				 (unsigned long long)v);
			g_array_append_val(lines, ln);
		}
	}
	g_array_sort(lines, qmd_line_cmp);
	for (guint i = 0; i < lines->len; i++)
		g_string_append_printf(ds->out, "  #   %s\n", g_array_index(lines, qmd_line, i).text);
	g_array_free(lines, TRUE);
}

static void line_end(dis *ds, GString *c)
{
	const char *p = c->str, *end = c->str + c->len;
	if (p == end)
		g_string_append_c(ds->out, '\n');
	while (p < end) {
		/* as many "; "-separated parts as fit the width (at least one); the
		 * first line follows the instruction, the rest are comment lines */
		const char *cut = end;
		if ((size_t)(end - p) > DIS_COMMENT_WIDTH) {
			const char *sep = NULL;
			for (const char *q = p + 1; q < end; q++) {
				if (q[0] != ';' || q[1] != ' ')
					continue;
				if (sep && q - p > DIS_COMMENT_WIDTH)
					break;
				sep = q;
			}
			cut = sep ? sep : end;
		}
		g_string_append_printf(ds->out, "  # %.*s\n", (int)(cut - p), p);
		p = cut < end ? cut + 2 : end;
	}
	g_string_truncate(c, 0);
}

static void emit_raw(dis *ds, const uint32_t *w, size_t n, const char *why)
{
	GString *c = g_string_new(why);
	for (size_t i = 0; i < n; i += DIS_RAW_PER_LINE) {
		g_string_append(ds->out, "  raw");
		for (size_t j = i; j < n && j < i + DIS_RAW_PER_LINE; j++)
			g_string_append_printf(ds->out, " 0x%08x", w[j]);
		line_end(ds, c);
	}
	g_string_free(c, TRUE);
}

/* One header and its data: inc/ninc/once/imm when it assembles back to the
 * same dwords, else raw. True when written as a method line: the assembler
 * then binds its SET_OBJECTs when it reads the text back (raw lines bind
 * nothing). */
static bool emit_group(dis *ds, uint32_t h, const uint32_t *data, uint32_t got)
{
	uint32_t op = cs_pb_secop(h), count = cs_pb_count(h), subch = cs_pb_subch(h), m = cs_pb_method(h);
	GString *c = g_string_new(NULL);
	char why[320];
	bool binds = false;
	if (h == 0) {
		emit_raw(ds, &h, 1, "DMA_NOP (the all-zero dword)");
		goto out;
	}
	if (op == CS_SECOP_END_SEG) {
		emit_raw(ds, &h, 1, "END_PB_SEGMENT: the front end ignores the rest of the entry");
		goto out;
	}
	if (h & (1u << 12)) {
		uint32_t *all = g_new(uint32_t, got + 1);
		all[0] = h;
		memcpy(all + 1, data, sizeof(uint32_t) * got);
		snprintf(why, sizeof(why), "%s header with bit 12 set (subchannel %u, method 0x%x)",
			 cs_fe_secop_name(op), subch, m);
		emit_raw(ds, all, got + 1, why);
		g_free(all);
		goto out;
	}
	char mt[96];
	method_text(ds, subch, m, mt, sizeof(mt));
	if (op == CS_SECOP_IMMD) {
		g_string_append_printf(ds->out, "  imm %u %s 0x%x", subch, mt, count);
		describe(ds, op, subch, m, &count, 1, c);
		line_end(ds, c);
		binds = true;
		goto out;
	}
	if (count == 0 || got < count) {
		uint32_t *all = g_new(uint32_t, got + 1);
		all[0] = h;
		memcpy(all + 1, data, sizeof(uint32_t) * got);
		if (count == 0)
			snprintf(why, sizeof(why), "%s subchannel %u method %s with count 0",
				 cs_fe_secop_name(op), subch, mt);
		else
			snprintf(why, sizeof(why),
				 "%s subchannel %u method %s announces %u data dwords; %u follow in "
				 "this buffer", cs_fe_secop_name(op), subch, mt, count, got);
		emit_raw(ds, all, got + 1, why);
		g_free(all);
		goto out;
	}
	const char *kw = op == CS_SECOP_INC ? "inc" : op == CS_SECOP_NONINC ? "ninc" : "once";
	g_string_append_printf(ds->out, "  %s %u %s", kw, subch, mt);
	for (uint32_t i = 0; i < count; i++)
		g_string_append_printf(ds->out, " 0x%x", data[i]);
	const cs_qmd_layout *ql = inline_qmd_layout(ds, op, subch, m, count);
	if (ql) {
		comment_add(c, "inline QMD %s, dwords 0..%u; its non-zero fields:", ql->name,
			    count - 1);
		line_end(ds, c);
		emit_qmd_fields(ds, ql, data, count);
	} else {
		describe(ds, op, subch, m, data, count, c);
		line_end(ds, c);
	}
	binds = true;
out:
	g_string_free(c, TRUE);
	return binds;
}

/* The buffer's dwords (little-endian), or NULL with d set at the byte offset
 * of what the decoder refuses or of a trailing partial dword. */
static uint32_t *disasm_dwords(const uint8_t *bytes, size_t len, const cs_disasm_opts *o,
			       const char *file, cs_diag *d)
{
	size_t n = len / 4;
	uint32_t *dw = g_new(uint32_t, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		dw[i] = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 |
			(uint32_t)bytes[4 * i + 2] << 16 | (uint32_t)bytes[4 * i + 3] << 24;
	cs_diag dd;
	cs_diag_clear(&dd);
	if (!cs_pb_check(dw, n, &dd)) {
		cs_diag_at_offset(d, CS_ERR_INPUT, file, o->base + dd.offset, "%s", dd.msg);
		g_free(dw);
		return NULL;
	}
	if (len % 4) {
		cs_diag_at_offset(d, CS_ERR_INPUT, file, o->base + 4 * n,
				  "trailing partial dword: %zu byte%s after the last whole dword",
				  len % 4, len % 4 == 1 ? "" : "s");
		g_free(dw);
		return NULL;
	}
	return dw;
}

/* The header and data of the group being gathered, with the binding it was
 * walked under. */
typedef struct dis_group {
	bool open;
	uint32_t h;
	uint32_t got;
	uint32_t *data;
	uint32_t before[CS_REGISTRY_SUBCHANNELS];
	uint32_t skipped[DIS_RAW_PER_LINE];
	size_t nskipped;
} dis_group;

static void group_flush(dis *ds, dis_group *g, cs_pb_walk *w)
{
	if (g->nskipped)
		emit_raw(ds, g->skipped, g->nskipped, "after END_PB_SEGMENT (skipped by the front end)");
	g->nskipped = 0;
	if (!g->open)
		return;
	memcpy(ds->bind.cls, g->before, sizeof(g->before));
	if (!emit_group(ds, g->h, g->data, g->got))
		for (uint32_t s = 0; s < CS_REGISTRY_SUBCHANNELS; s++)
			cs_pb_walk_bind(w, s, g->before[s]);
	g->open = false;
}

/* One walk item into the group, the text or d (false). */
static bool group_add(dis *ds, dis_group *g, cs_pb_walk *w, const cs_pb_item *it, const char *file,
		      cs_diag *d)
{
	if (it->kind == CS_PB_ITEM_SKIPPED) {
		if (g->open || g->nskipped == DIS_RAW_PER_LINE)
			group_flush(ds, g, w);
		g->skipped[g->nskipped++] = it->data;
		return true;
	}
	if (it->kind == CS_PB_ITEM_METHOD) {
		if (!g->open) {
			/* data without a header cannot happen from a fresh decoder */
			cs_diag_at_offset(d, CS_ERR_INTERNAL, file, ds->o->base + 4 * it->dword,
					  "method data without a header");
			return false;
		}
		if (cs_pb_secop(g->h) != CS_SECOP_IMMD)
			g->data[g->got++] = it->data;
		return true;
	}
	group_flush(ds, g, w);
	/* a header or an END_SEG: the binding before its methods */
	*g = (dis_group){ .open = true, .h = it->data, .data = g->data };
	memcpy(g->before, w->bound, sizeof(g->before));
	return true;
}

char *cs_scenario_disasm(const uint8_t *bytes, size_t len, const cs_disasm_opts *o, cs_diag *d)
{
	cs_diag_clear(d);
	const char *file = o->file ? o->file : "";
	const cs_arch_info *ai = cs_arch_get(o->arch);
	if (!ai) {
		cs_diag_set(d, CS_ERR_INPUT, "unknown arch");
		return NULL;
	}
	size_t n = len / 4;
	uint32_t *dw = disasm_dwords(bytes, len, o, file, d);
	if (!dw)
		return NULL;
	dis ds = { .o = o, .arch = o->arch, .out = g_string_new(NULL) };
	cs_binding_init(&ds.bind, o->arch);
	g_string_append_printf(ds.out, "# chainsim disasm%s%s: %zu bytes at offset 0x%llx, arch %s\n",
			       file[0] ? " of " : "", file, len, (unsigned long long)o->base, ai->name);
	g_string_append_printf(ds.out, "arch %s\n", ai->name);
	g_string_append_printf(ds.out, "push %s\n", o->name ? o->name : "pb");
	for (uint32_t s = 0; s < CS_REGISTRY_SUBCHANNELS; s++) {
		if (!o->bind[s])
			continue;
		const char *cn = cs_class_name(o->bind[s]);
		g_string_append_printf(ds.out, "  bind %u 0x%04x  # --bind: %s\n", s, o->bind[s],
				       cn ? cn : "unknown class");
	}
	dis_group g = { .data = g_new(uint32_t, n ? n : 1) };
	cs_pb_walk w;
	cs_pb_step st;
	cs_pb_walk_begin(&w, dw, n, true, o->bind);
	bool ok = true;
	while (ok && cs_pb_walk_next(&w, &st))
		ok = group_add(&ds, &g, &w, &st.item, file, d);
	if (ok && w.fed != n) {
		cs_diag_at_offset(d, CS_ERR_INTERNAL, file, o->base + 4 * w.fed,
				  "the decoder stopped after %zu of %zu dwords", w.fed, n);
		ok = false;
	}
	if (ok)
		group_flush(&ds, &g, &w);
	g_free(g.data);
	g_free(dw);
	if (!ok) {
		g_string_free(ds.out, TRUE);
		return NULL;
	}
	g_string_append(ds.out, "end\n");
	char *text = strdup(ds.out->str);
	g_string_free(ds.out, TRUE);
	if (!text)
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
	return text;
}

/* SPDX-License-Identifier: MIT */
#include "chainsim/classdesc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cs_method_desc *cs_class_method_at(const cs_class_desc *cls, uint32_t offset,
					  uint32_t *index)
{
	for (unsigned i = 0; i < cls->nmethods; i++) {
		const cs_method_desc *m = &cls->methods[i];
		uint32_t stride = m->count > 1 ? m->stride : 4;
		if (offset < m->offset)
			continue;
		uint32_t rel = offset - m->offset;
		if (rel % stride != 0 || rel / stride >= m->count)
			continue;
		if (index)
			*index = rel / stride;
		return m;
	}
	return NULL;
}

bool cs_class_method_named(const cs_class_desc *cls, const char *name, uint32_t *offset)
{
	const char *paren = strchr(name, '(');
	size_t len = paren ? (size_t)(paren - name) : strlen(name);
	unsigned long idx = 0;
	if (paren) {
		char *end;
		idx = strtoul(paren + 1, &end, 0);
		if (end == paren + 1 || end[0] != ')' || end[1] != '\0')
			return false;
	}
	for (unsigned i = 0; i < cls->nmethods; i++) {
		const cs_method_desc *m = &cls->methods[i];
		if (strlen(m->name) != len || strncmp(m->name, name, len) != 0)
			continue;
		if (paren ? (m->count <= 1 || idx >= m->count) : false)
			return false;
		*offset = m->offset + (uint32_t)idx * (m->count > 1 ? m->stride : 4);
		return true;
	}
	return false;
}

bool cs_class_method_label(const cs_class_desc *cls, uint32_t offset, char *buf, size_t len)
{
	uint32_t idx;
	const cs_method_desc *m = cs_class_method_at(cls, offset, &idx);
	if (!m)
		return false;
	if (m->count > 1)
		snprintf(buf, len, "%s(%u)", m->name, idx);
	else
		snprintf(buf, len, "%s", m->name);
	return true;
}

/* Appends n bytes of text at buf+used as far as they fit, NUL-terminated;
 * returns used + n as snprintf counts. */
static size_t append(char *buf, size_t len, size_t used, const char *text, size_t n)
{
	if (used < len) {
		size_t room = len - used - 1, k = n < room ? n : room;
		memcpy(buf + used, text, k);
		buf[used + k] = '\0';
	}
	return used + n;
}

/* Plain appends, not snprintf: the REPL decodes every method it steps over,
 * and a format parse per field was a fifth of a step. */
size_t cs_method_format_fields(const cs_method_desc *m, uint32_t data, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < m->nfields && used < len; i++) {
		const cs_field_desc *f = &m->fields[i];
		uint32_t v = cs_field_get(f, data);
		const char *vn = (v < f->nvalues && f->values) ? f->values[v] : NULL;
		if (used)
			used = append(buf, len, used, " ", 1);
		used = append(buf, len, used, f->name, strlen(f->name));
		if (vn) {
			used = append(buf, len, used, "=", 1);
			used = append(buf, len, used, vn, strlen(vn));
			continue;
		}
		char num[12] = "=0x";
		size_t k = 3;
		int shift = 28;
		while (shift > 0 && !(v >> shift))
			shift -= 4;
		for (; shift >= 0; shift -= 4)
			num[k++] = hex[(v >> shift) & 0xf];
		used = append(buf, len, used, num, k);
	}
	return used < len ? used : (len ? len - 1 : 0);
}

unsigned cs_class_addr_parts(const cs_class_desc *cls, cs_addr_part *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < cls->nmethods; i++) {
		const cs_method_desc *m = &cls->methods[i];
		for (unsigned j = 0; j < m->nfields; j++) {
			if (m->fields[j].kind != CS_FIELD_ADDRESS)
				continue;
			if (n < max)
				out[n] = (cs_addr_part){ m, &m->fields[j] };
			n++;
		}
	}
	return n;
}

const cs_field_desc *cs_method_addr_field(const cs_method_desc *m)
{
	for (unsigned j = 0; m && j < m->nfields; j++)
		if (m->fields[j].kind == CS_FIELD_ADDRESS)
			return &m->fields[j];
	return NULL;
}

const cs_field_desc *cs_class_addr_field(const cs_class_desc *cls, const char *addr,
					 uint32_t offset)
{
	const cs_method_desc *m = cs_class_method_at(cls, offset, NULL);
	for (unsigned j = 0; m && j < m->nfields; j++)
		if (m->fields[j].kind == CS_FIELD_ADDRESS && strcmp(m->fields[j].addr, addr) == 0)
			return &m->fields[j];
	return NULL;
}

unsigned cs_class_addr_bits(const cs_class_desc *cls, const char *addr)
{
	unsigned top = 0;
	for (unsigned i = 0; i < cls->nmethods; i++) {
		const cs_method_desc *m = &cls->methods[i];
		for (unsigned j = 0; j < m->nfields; j++) {
			const cs_field_desc *f = &m->fields[j];
			if (f->kind != CS_FIELD_ADDRESS || strcmp(f->addr, addr) != 0)
				continue;
			unsigned end = f->addr_shift + cs_field_width(f);
			if (end > top)
				top = end;
		}
	}
	return top;
}

/* SPDX-License-Identifier: MIT */
/* Device printf: the format string and the argument buffer nvcc packs for
 * vprintf, read from the kernel's memory and formatted by the host's snprintf,
 * one conversion at a time with a conversion spec this file builds itself. */
#include "ptx_printf.h"

#include <stdio.h>
#include <string.h>

bool ptx_printf_read_string(const ptx_reader *rd, uint64_t va, char *out, size_t cap)
{
	size_t n = 0;
	for (; n + 1 < cap; n++) {
		char c;
		if (!rd->read(rd->ctx, va + n, &c, 1))
			return false;
		if (!c)
			break;
		out[n] = c;
	}
	out[n] = 0;
	return true;
}

/* The output so far; appends are cut at the capacity. */
typedef struct sink {
	char *out;
	size_t cap, len;
} sink;

static void put(sink *s, const char *text, size_t n)
{
	size_t room = s->cap - 1 - s->len;
	if (n > room)
		n = room;
	memcpy(s->out + s->len, text, n);
	s->len += n;
	s->out[s->len] = 0;
}

/* The next argument of size bytes (aligned to its size) from the buffer. */
static bool next_arg(const ptx_reader *rd, uint64_t args, uint64_t *off, unsigned size,
		     uint64_t *value)
{
	*off = (*off + size - 1) & ~(uint64_t)(size - 1);
	uint8_t b[8] = { 0 };
	if (!rd->read(rd->ctx, args + *off, b, size))
		return false;
	*off += size;
	*value = 0;
	for (unsigned i = 0; i < size; i++)
		*value |= (uint64_t)b[i] << (8 * i);
	return true;
}

bool ptx_printf_format(const ptx_reader *rd, uint64_t fmt, uint64_t args, char *out, size_t cap,
		       int *nargs)
{
	char f[PTX_PRINTF_STRING_MAX];
	sink s = { out, cap, 0 };
	out[0] = 0;
	*nargs = 0;
	if (!ptx_printf_read_string(rd, fmt, f, sizeof(f)))
		return false;
	uint64_t off = 0;
	for (const char *p = f; *p;) {
		if (*p != '%') {
			const char *q = strchr(p, '%');
			size_t n = q ? (size_t)(q - p) : strlen(p);
			put(&s, p, n);
			p += n;
			continue;
		}
		const char *start = p++;
		if (*p == '%') {
			put(&s, "%", 1);
			p++;
			continue;
		}
		/* the conversion spec rebuilt for the host: flags, width, precision */
		char spec[48] = "%";
		size_t sl = 1;
		while (*p && strchr("-+ #0", *p) && sl < 8)
			spec[sl++] = *p++;
		int star[2];
		int nstar = 0;
		for (int part = 0; part < 2; part++) {
			if (part == 1) {
				if (*p != '.')
					break;
				spec[sl++] = *p++;
			}
			if (*p == '*') {
				uint64_t v;
				if (!next_arg(rd, args, &off, 4, &v))
					return false;
				(*nargs)++;
				star[nstar++] = (int)(int32_t)v;
				spec[sl++] = *p++;
			} else {
				for (int d = 0; *p >= '0' && *p <= '9' && d < 4; d++)
					spec[sl++] = *p++;
			}
		}
		/* length: only whether the argument is 8 bytes matters */
		bool wide = false;
		while (*p && strchr("hlLqjzt", *p)) {
			wide = wide || *p == 'l' || *p == 'L' || *p == 'q' || *p == 'j' || *p == 'z' ||
			       *p == 't';
			p++;
		}
		char conv = *p;
		if (!conv || !strchr("diuoxXcsfFeEgGaAp", conv)) {
			/* not a conversion printf knows: copied as written */
			size_t n = (size_t)(p - start) + (conv ? 1 : 0);
			put(&s, start, n);
			p += conv ? 1 : 0;
			continue;
		}
		p++;
		char text[PTX_PRINTF_STRING_MAX + 64];
		uint64_t v;
		int n = 0;
		bool isint = strchr("diuoxX", conv) != NULL;
		bool isflt = strchr("fFeEgGaA", conv) != NULL;
		unsigned size = isflt || conv == 's' || conv == 'p' || (isint && wide) ? 8 : 4;
		if (!next_arg(rd, args, &off, size, &v))
			return false;
		(*nargs)++;
		if (isint) {
			spec[sl++] = 'l';
			spec[sl++] = 'l';
		}
		if (conv == 'p') {
			/* a device pointer prints as 0x and its hex digits */
			spec[sl++] = '#';
			spec[sl++] = 'l';
			spec[sl++] = 'l';
			spec[sl++] = 'x';
		} else {
			spec[sl++] = conv;
		}
		spec[sl] = 0;
		long long sv = size == 8 ? (long long)(int64_t)v : (long long)(int32_t)v;
		unsigned long long uv = size == 8 ? (unsigned long long)v : (unsigned long long)(uint32_t)v;
		double dv;
		memcpy(&dv, &v, 8);
		char str[PTX_PRINTF_STRING_MAX];
		if (conv == 's' && !ptx_printf_read_string(rd, v, str, sizeof(str)))
			return false;
		int w = nstar > 0 ? star[0] : 0, pr = nstar > 1 ? star[1] : 0;
#define FORMAT(val)                                                                   \
	(nstar == 2   ? snprintf(text, sizeof(text), spec, w, pr, val)                \
	 : nstar == 1 ? snprintf(text, sizeof(text), spec, w, val)                    \
		      : snprintf(text, sizeof(text), spec, val))
		if (conv == 'd' || conv == 'i')
			n = FORMAT(sv);
		else if (isint || conv == 'p')
			n = FORMAT(uv);
		else if (conv == 'c')
			n = FORMAT((int)(int32_t)v);
		else if (conv == 's')
			n = FORMAT(str);
		else
			n = FORMAT(dv);
#undef FORMAT
		if (n > 0)
			put(&s, text, (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1);
	}
	return true;
}

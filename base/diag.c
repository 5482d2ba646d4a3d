/* SPDX-License-Identifier: MIT */
#include "chainsim/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cs_diag_clear(cs_diag *d)
{
	if (d)
		memset(d, 0, sizeof(*d));
}

static void set_msg(cs_diag *d, cs_status st, const char *fmt, va_list ap)
{
	d->status = st;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
}

void cs_diag_set(cs_diag *d, cs_status st, const char *fmt, ...)
{
	if (!d)
		return;
	cs_diag_clear(d);
	va_list ap;
	va_start(ap, fmt);
	set_msg(d, st, fmt, ap);
	va_end(ap);
}

void cs_diag_at_text(cs_diag *d, cs_status st, const char *file, uint32_t line,
		     uint32_t col, const char *fmt, ...)
{
	if (!d)
		return;
	cs_diag_clear(d);
	snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
	d->line = line;
	d->col = col;
	va_list ap;
	va_start(ap, fmt);
	set_msg(d, st, fmt, ap);
	va_end(ap);
}

void cs_diag_at_offset(cs_diag *d, cs_status st, const char *file, uint64_t offset,
		       const char *fmt, ...)
{
	if (!d)
		return;
	cs_diag_clear(d);
	snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
	d->has_offset = true;
	d->offset = offset;
	va_list ap;
	va_start(ap, fmt);
	set_msg(d, st, fmt, ap);
	va_end(ap);
}

int cs_diag_format(const cs_diag *d, char *buf, size_t len)
{
	if (d->line)
		return snprintf(buf, len, "%s:%u:%u: %s", d->file, d->line, d->col, d->msg);
	if (d->has_offset)
		return snprintf(buf, len, "%s%sbyte 0x%llx: %s", d->file, d->file[0] ? ": " : "",
				(unsigned long long)d->offset, d->msg);
	if (d->file[0])
		return snprintf(buf, len, "%s: %s", d->file, d->msg);
	return snprintf(buf, len, "%s", d->msg);
}

const char *cs_status_name(cs_status st)
{
	switch (st) {
	case CS_OK: return "ok";
	case CS_ERR_INPUT: return "bad input";
	case CS_ERR_FAULT: return "fault";
	case CS_ERR_UNSUPPORTED: return "unsupported";
	case CS_ERR_UNAVAILABLE: return "unavailable";
	case CS_ERR_INTERNAL: return "internal error";
	case CS_ERR_NOMEM: return "out of memory";
	}
	return "?";
}

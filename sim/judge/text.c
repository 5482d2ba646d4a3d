/* SPDX-License-Identifier: MIT */
/* Rows, causes and the words the evidence and diagnoses are written in. */
#include <stdarg.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "judge.h"

/* ---- small helpers ---------------------------------------------------------------- */

void jg_row(cs_chain *c, cs_stage s, cs_stage_status st, cs_author who, size_t event,
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

void jg_why(judge *j, cs_stage s, cs_cause cause, const char *fmt, ...)
{
	j->cause[s] = cause;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->diag[s], sizeof(j->diag[s]), fmt, ap);
	va_end(ap);
}

/* "read", "write", ...; "memory" when the record does not say (an SM fault
 * reports the address, not the kind of access). */
const char *jg_access_word(uint64_t acc)
{
	return acc >= CS_ACCESS_READ && acc <= CS_ACCESS_FETCH ? cs_access_name((cs_access)acc)
							      : "memory";
}

const char *jg_detail(const cs_event *e)
{
	return e->detail && e->detail[0] ? e->detail : NULL;
}

void jg_chan_name(const judge *j, uint32_t ch, char *buf, size_t len)
{
	const char *n = j->in->dev ? cs_device_channel_name(j->in->dev, ch) : NULL;
	if (n)
		snprintf(buf, len, "'%s'", n);
	else
		snprintf(buf, len, "ch%u", ch);
}

const char *jg_qmd_version(unsigned major)
{
	switch (major) {
	case 3: return "V03_00";
	case 4: return "V04_00";
	case 5: return "V05_00";
	default: return "V??";
	}
}

const char *jg_path_name(uint64_t aux)
{
	return aux ? "SEND_PCAS" : "inline";
}

/* "the compute engine", "the front end", for sentences. */
const char *jg_unit_phrase(uint8_t unit)
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
void jg_where(const cs_event *e, char *buf, size_t len)
{
	if (e->method_index != CS_NONE32 && e->gp_entry != CS_NONE32)
		snprintf(buf, len, "method %u of entry %u", e->method_index, e->gp_entry);
	else if (e->gp_entry != CS_NONE32)
		snprintf(buf, len, "entry %u", e->gp_entry);
	else
		snprintf(buf, len, "an unknown point of the stream");
}

/* A method's name in the class bound on its subchannel ("LAUNCH_DMA"). */
void jg_method_label(uint32_t cls, uint32_t method, char *buf, size_t len)
{
	const cs_class_desc *d = method < CS_PB_HOST_METHODS ? cs_fe_host_class(cls) : cs_gr_class(cls);
	if (method < CS_PB_HOST_METHODS && !d)
		d = cs_fe_host_class(0xC56F);
	if (!d || !cs_class_method_label(d, method, buf, len))
		snprintf(buf, len, "0x%x", method);
}

const char *jg_wait_cmp(const judge *j, size_t i)
{
	for (size_t k = i + 1; k-- > 0;)
		if (j->ev[k].kind == CS_EV_WAIT_BEGIN && j->ev[k].addr == j->ev[i].addr)
			return cs_wait_cmp_symbol(j->ev[k].aux & CS_WAIT_BEGIN_GEQ ? CS_WAIT_GEQ
										     : CS_WAIT_EQ);
	return cs_wait_cmp_symbol(CS_WAIT_EQ);
}

const char *jg_addr(const judge *j, uint64_t va, char *buf, size_t len)
{
	if (j->in->dev)
		cs_device_addr_name(j->in->dev, va, buf, len);
	else
		snprintf(buf, len, "0x%llx", JG_U(va));
	return buf;
}

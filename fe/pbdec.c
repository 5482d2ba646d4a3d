/* SPDX-License-Identifier: MIT */
/* The streaming pushbuffer decoder: dwords in, flat method items out. One
 * header at a time; a header's data may arrive over any number of calls. */
#include "chainsim/fe.h"

#include <string.h>

void cs_pb_decoder_init(cs_pb_decoder *dec, bool report_headers)
{
	memset(dec, 0, sizeof(*dec));
	dec->report_headers = report_headers;
}

void cs_pb_decoder_segment(cs_pb_decoder *dec)
{
	dec->in_end_seg = false;
}

static void fail(cs_pb_decoder *dec, cs_diag *d, uint32_t h, const char *why)
{
	dec->failed = true;
	cs_diag_at_offset(d, CS_ERR_INPUT, NULL, dec->next_dword * 4u,
			  "malformed pushbuffer header 0x%08x: %s", h, why);
}

/* The hot loop keeps the decoder's state in locals: the items it writes hold
 * 64-bit fields that could alias the decoder's, and the compiler would reload
 * them after every store. */
size_t cs_pb_decode(cs_pb_decoder *dec, const uint32_t *dw, size_t n, cs_pb_item *out,
		    size_t cap, size_t *consumed, cs_diag *d)
{
	*consumed = 0;
	if (dec->failed || cap < 2)
		return 0;
	size_t i = 0, k = 0;
	uint64_t idx = dec->next_dword; /* stream index of dw[i] */
	uint32_t rem = dec->remaining, meth = dec->method, op = dec->op;
	uint8_t sub = (uint8_t)dec->subch;
	uint64_t methods = 0, headers = 0;
	const bool report = dec->report_headers;
	while (i < n) {
		if (rem) {
			size_t take = rem;
			if (take > n - i)
				take = n - i;
			if (take > cap - k)
				take = cap - k;
			if (take == 0)
				break;
			const uint32_t *src = dw + i;
			cs_pb_item *o = out + k;
			size_t j = 0;
			if (op == CS_SECOP_ONEINC) {
				o[0] = (cs_pb_item){ idx, src[0], (uint16_t)meth, sub, CS_PB_ITEM_METHOD };
				j = 1;
				meth += 4;
				op = CS_SECOP_NONINC; /* the rest go to method + 4 */
			}
			if (op == CS_SECOP_INC) {
				for (; j < take; j++, meth += 4)
					o[j] = (cs_pb_item){ idx + j, src[j], (uint16_t)meth, sub,
							     CS_PB_ITEM_METHOD };
			} else {
				for (; j < take; j++)
					o[j] = (cs_pb_item){ idx + j, src[j], (uint16_t)meth, sub,
							     CS_PB_ITEM_METHOD };
			}
			i += take;
			k += take;
			idx += take;
			rem -= (uint32_t)take;
			methods += take;
			continue;
		}
		if (cap - k < 2)
			break;
		uint32_t h = dw[i];
		if (dec->in_end_seg) {
			if (report)
				out[k++] = (cs_pb_item){ idx, h, 0, 0, CS_PB_ITEM_SKIPPED };
			i++;
			idx++;
			continue;
		}
		uint32_t hop = cs_pb_secop(h);
		uint32_t count = cs_pb_count(h);
		uint8_t hsub = (uint8_t)cs_pb_subch(h);
		uint32_t method = cs_pb_method(h);
		if (hop == CS_SECOP_IMMD) {
			if (report)
				out[k++] = (cs_pb_item){ idx, h, (uint16_t)method, hsub, CS_PB_ITEM_HEADER };
			out[k++] = (cs_pb_item){ idx, count, (uint16_t)method, hsub, CS_PB_ITEM_METHOD };
			methods++;
			headers++;
			i++;
			idx++;
			continue;
		}
		const char *why = NULL;
		switch (hop) {
		case CS_SECOP_INC:
			if (count && method + 4u * (count - 1u) > CS_PB_MAX_METHOD)
				why = "an incrementing method of this count runs past the last "
				      "method 0x3ffc";
			break;
		case CS_SECOP_ONEINC:
			if (count > 1 && method + 4u > CS_PB_MAX_METHOD)
				why = "an increment-once method at 0x3ffc has no next method";
			break;
		case CS_SECOP_NONINC:
		case CS_SECOP_END_SEG:
			break;
		case CS_SECOP_RESERVED0:
			if (h != 0) /* the all-zero dword is clc56f.h's DMA_NOP */
				why = "SEC_OP 0 (GRP0_USE_TERT: legacy incrementing and subdevice-mask "
				      "forms) is not supported; only the all-zero DMA_NOP dword is";
			break;
		case CS_SECOP_RESERVED2:
			why = "SEC_OP 2 (GRP2_USE_TERT: legacy non-incrementing form) is not supported";
			break;
		default:
			why = "SEC_OP 6 is reserved";
			break;
		}
		if (why) {
			dec->next_dword = idx;
			fail(dec, d, h, why);
			break;
		}
		headers++;
		if (hop == CS_SECOP_END_SEG) {
			out[k++] = (cs_pb_item){ idx, h, (uint16_t)method, hsub, CS_PB_ITEM_END_SEG };
			dec->in_end_seg = true;
			i++;
			idx++;
			if (!report)
				break;
			continue;
		}
		if (report)
			out[k++] = (cs_pb_item){ idx, h, (uint16_t)method, hsub, CS_PB_ITEM_HEADER };
		if (h != 0) {
			dec->header = h;
			dec->header_dword = idx;
			rem = count;
			meth = method;
			sub = hsub;
			op = hop;
		}
		i++;
		idx++;
	}
	dec->next_dword = idx;
	dec->remaining = rem;
	dec->method = meth;
	dec->subch = sub;
	dec->op = (uint8_t)op;
	dec->methods += methods;
	dec->headers += headers;
	*consumed = i;
	return k;
}

/* ---- the walker ---------------------------------------------------------------- */

void cs_pb_walk_begin(cs_pb_walk *w, const uint32_t *dw, size_t n, bool report_headers,
		      const uint32_t *bound)
{
	cs_pb_decoder_init(&w->dec, report_headers);
	w->dw = dw;
	w->n = n;
	w->fed = 0;
	w->ended = false;
	w->got = w->next = 0;
	w->methods = 0;
	if (bound)
		memcpy(w->bound, bound, sizeof(w->bound));
	else
		memset(w->bound, 0, sizeof(w->bound));
	cs_diag_clear(&w->diag);
}

/* Decode the next chunk (it may hold no item: count-0 headers); false when
 * nothing is left to decode. */
static bool walk_refill(cs_pb_walk *w)
{
	if (w->ended || w->dec.failed || w->fed >= w->n)
		return false;
	size_t used = 0;
	w->got = cs_pb_decode(&w->dec, w->dw + w->fed, w->n - w->fed, w->chunk, CS_PB_WALK_CHUNK,
			      &used, &w->diag);
	w->next = 0;
	w->fed += used;
	w->ended = !w->dec.report_headers && w->dec.in_end_seg;
	return used != 0 || w->got != 0;
}

bool cs_pb_walk_next(cs_pb_walk *w, cs_pb_step *st)
{
	while (w->next == w->got)
		if (!walk_refill(w))
			return false;
	const cs_pb_item *it = &w->chunk[w->next++];
	st->item = *it;
	st->index = w->methods;
	st->cls = 0;
	if (it->kind == CS_PB_ITEM_METHOD) {
		uint32_t *b = &w->bound[it->subch & 7u];
		st->cls = *b;
		if (it->method == CS_FE_M_SET_OBJECT)
			*b = CS_FE_GET(set_object, NVCLASS, it->data);
		w->methods++;
	}
	return true;
}

void cs_pb_walk_bind(cs_pb_walk *w, uint32_t subch, uint32_t cls)
{
	w->bound[subch & 7u] = cls;
}

bool cs_pb_check(const uint32_t *dw, size_t n, cs_diag *d)
{
	cs_pb_walk w;
	cs_pb_step st;
	cs_pb_walk_begin(&w, dw, n, false, NULL);
	while (cs_pb_walk_next(&w, &st))
		;
	if (w.dec.failed && d)
		*d = w.diag;
	return !w.dec.failed;
}

/* SPDX-License-Identifier: MIT */
/* A channel blocked, or a guest wait unmet, on what a launch that never ran
 * would have released: that launch's consequence, not a cause of its own. */
#include <string.h>

#include "chainsim/gr.h"
#include "judge.h"

/* ---- consequences: a wait on what a broken launch would have released ------------- */

/* Whether launch s's QMD names addr as one of its release semaphores: had the
 * grid run, the engine would have written it. Read from memory as the engine
 * read it (needs the device). */
bool jg_launch_would_release(const judge *j, const lslot *s, uint64_t addr)
{
	if (!j->in->dev || s->read == JG_NONE)
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
 * observable) and whose release would have written addr; JG_NONE when none. */
static size_t silenced_by(const judge *j, const cs_chain *launches, size_t nlaunches,
			  uint64_t addr)
{
	for (size_t k = 0; k < nlaunches; k++) {
		cs_stage_status st = launches[k].rows[9].status;
		if (st != CS_STAGE_NOT_FIRED && st != CS_STAGE_NOT_OBSERVABLE)
			continue;
		const lslot *s = jg_slot_by_id((judge *)j, launches[k].launch);
		if (s && jg_launch_would_release(j, s, addr))
			return k;
	}
	return JG_NONE;
}

/* A channel blocked (stage 5) or a guest wait unmet (stage 11) on a value that
 * a launch which never ran would have released is that launch's consequence,
 * not a cause of its own: the root cause stays the launch's. */
void jg_attribute_consequences(judge *j, cs_report *r, cs_chain *o)
{
	cs_stage_row *r5 = &o->rows[5];
	if (r5->status == CS_STAGE_NOT_FIRED && r5->event != JG_NONE &&
	    (j->cause[5] == CS_CAUSE_DEADLOCK || j->cause[5] == CS_CAUSE_ACQUIRE_BLOCKED)) {
		const cs_event *b = &j->ev[r5->event];
		size_t k = silenced_by(j, r->launches, r->nlaunches, b->addr);
		if (k != JG_NONE) {
			char ch[80], evd[CS_EVIDENCE_MAX];
			jg_chan_name(j, b->channel, ch, sizeof(ch));
			snprintf(evd, sizeof(evd), "%s", r5->evidence);
			jg_row(o, 5, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, r5->event,
			     "%.120s (a consequence of launch %u)", evd, r->launches[k].launch);
			j->cause[5] = CS_CAUSE_NONE;
			cs_stage at = r->launches[k].rows[9].status == CS_STAGE_NOT_FIRED ? 9 : 0;
			size_t used = strlen(j->diag[9]);
			if (at && used < sizeof(j->diag[9]))
				snprintf(j->diag[9] + used, sizeof(j->diag[9]) - used,
					 " As a consequence, channel %s waits for [%s] == %llu, which "
					 "launch %u's release would have written.", ch, JG_ADDR(j, b->addr),
					 JG_U(b->value), r->launches[k].launch);
		}
	}
	cs_stage_row *r11 = &o->rows[11];
	if (r11->status == CS_STAGE_NOT_FIRED && r11->event != JG_NONE &&
	    j->cause[11] == CS_CAUSE_WAIT_UNMET) {
		const cs_event *w = &j->ev[r11->event];
		size_t k = silenced_by(j, r->launches, r->nlaunches, w->addr);
		if (k != JG_NONE && r->launches[k].rows[9].status == CS_STAGE_NOT_OBSERVABLE) {
			jg_row(o, 11, CS_STAGE_NOT_OBSERVABLE, CS_AUTHOR_HOST, r11->event,
			     "wait %s %s %llu: launch %u's release, which the simulator could not "
			     "run", JG_ADDR(j, w->addr), jg_wait_cmp(j, r11->event), JG_U(w->aux),
			     r->launches[k].launch);
		} else if (k != JG_NONE) {
			size_t used = strlen(j->diag[11]);
			if (used < sizeof(j->diag[11]))
				snprintf(j->diag[11] + used, sizeof(j->diag[11]) - used,
					 " Launch %u's release would have written it, and that launch "
					 "broke first.", r->launches[k].launch);
		}
	}
}

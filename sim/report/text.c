/* SPDX-License-Identifier: MIT */
/* The chain as a table (docs/chain.md): header, one row per stage, the
 * break and its diagnosis, launches, counters, assumptions, expectations. */
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#include <string.h>

#include "fit.h"

/* Under stage 3: the forwarding layer's first edits, then how many more. */
static void print_edits(const cs_report *r, FILE *out)
{
	for (size_t i = 0; i < r->nedits && i < CS_REPORT_EDITS_SHOWN; i++) {
		const cs_report_edit *e = &r->edits[i];
		fprintf(out, "    %s: %s%s%s%s\n", cs_forward_edit_name(e->edit), e->text,
			e->cause ? " [" : "", e->cause ? cs_cause_key(e->cause) : "",
			e->cause ? "]" : "");
	}
	if (r->nedits > CS_REPORT_EDITS_SHOWN)
		fprintf(out, "    and %zu more edit%s (--trace records every one)\n",
			r->nedits - CS_REPORT_EDITS_SHOWN,
			r->nedits - CS_REPORT_EDITS_SHOWN == 1 ? "" : "s");
}

static void print_chain_rows(const cs_report *rep, FILE *out)
{
	const cs_chain *c = &rep->overall;
	fprintf(out, " #  %-15s %-14s %-10s %s\n", "stage", "status", "author", "evidence");
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		const cs_stage_row *r = &c->rows[s];
		char fit[CS_EVIDENCE_MAX + 8];
		fprintf(out, "%2d  %-15s %-14s %-10s %s\n", s, cs_stage_name((cs_stage)s),
			cs_stage_status_name(r->status), cs_author_name(r->author),
			r->evidence[0] ? cs_report_fit(r->evidence, sizeof(r->evidence), fit,
						       sizeof(fit))
				       : "-");
		if (s == CS_STAGE_HOST_FORWARD)
			print_edits(rep, out);
	}
}

void cs_report_print_text(const cs_report *r, const cs_report_meta *meta, FILE *out)
{
	const cs_arch_info *ai = cs_arch_get(r->arch);
	fprintf(out, "%s  %s  %zu launch%s\n", meta && meta->file ? meta->file : "-",
		ai ? ai->name : "?", r->nlaunches, r->nlaunches == 1 ? "" : "es");
	print_chain_rows(r, out);
	char fit[CS_DIAGNOSIS_MAX + 8];
	if (r->overall.first_break != CS_STAGE_NONE)
		fprintf(out, "break at stage %d (%s) [%s]: %s\n", (int)r->overall.first_break,
			cs_stage_name(r->overall.first_break), cs_cause_key(r->overall.cause),
			cs_report_fit(r->overall.diagnosis, sizeof(r->overall.diagnosis), fit,
				      sizeof(fit)));
	else if (r->overall.unobservable != CS_STAGE_NONE)
		fprintf(out, "not observable from stage %d (%s) [%s]: %s\n",
			(int)r->overall.unobservable, cs_stage_name(r->overall.unobservable),
			cs_cause_key(r->overall.cause),
			cs_report_fit(r->overall.diagnosis, sizeof(r->overall.diagnosis), fit,
				      sizeof(fit)));
	else
		fprintf(out, "chain complete: every stage fired%s\n",
			r->has_launch ? "" : " or does not apply (no launch)");
	if (r->nlaunches > 1 || (r->nlaunches == 1 && r->launches[0].first_break !=
						      r->overall.first_break)) {
		for (size_t i = 0; i < r->nlaunches; i++) {
			const cs_chain *c = &r->launches[i];
			if (c->first_break == CS_STAGE_NONE && c->unobservable != CS_STAGE_NONE)
				fprintf(out, "launch %u: not observable from stage %d (%s) [%s]\n",
					c->launch, (int)c->unobservable, cs_stage_name(c->unobservable),
					cs_cause_key(c->cause));
			else if (c->first_break == CS_STAGE_NONE)
				fprintf(out, "launch %u: complete\n", c->launch);
			else
				fprintf(out, "launch %u: break at stage %d (%s) [%s]\n", c->launch,
					(int)c->first_break, cs_stage_name(c->first_break), cs_cause_key(c->cause));
		}
	}
	fprintf(out, "counters:");
	for (size_t i = 0; i < r->ncounters; i++)
		fprintf(out, " %s=%llu", cs_report_counter_name(r, i),
			(unsigned long long)r->counters[i]);
	fprintf(out, "\n");
	for (size_t i = 0; i < r->nassumptions; i++)
		fprintf(out, "assumed: %s\n", r->assumptions[i]);
	for (size_t i = 0; i < r->nfindings; i++)
		fprintf(out, "finding: launch %u, CTA %llu: %s\n", r->findings[i].launch,
			(unsigned long long)r->findings[i].cta, r->findings[i].text);
	for (size_t i = 0; i < r->noutput; i++)
		fprintf(out, "printf: launch %u, CTA %llu, thread %llu: %s%s", r->output[i].launch,
			(unsigned long long)r->output[i].cta, (unsigned long long)r->output[i].thread,
			r->output[i].text,
			r->output[i].text[0] && r->output[i].text[strlen(r->output[i].text) - 1] == '\n'
				? "" : "\n");
	if (meta && meta->nexpects) {
		size_t held = 0;
		for (size_t i = 0; i < meta->nexpects; i++)
			held += meta->expects[i].held;
		fprintf(out, "expectations: %zu of %zu held\n", held, meta->nexpects);
		for (size_t i = 0; i < meta->nexpects; i++) {
			const cs_report_expect *e = &meta->expects[i];
			char tfit[sizeof(((cs_expect_outcome *)0)->text) + 8];
			char dfit[sizeof(((cs_expect_outcome *)0)->detail) + 8];
			const char *text = cs_report_fit(e->text, sizeof(tfit) - 8, tfit, sizeof(tfit));
			const char *detail = cs_report_fit(e->detail, sizeof(dfit) - 8, dfit,
							   sizeof(dfit));
			fprintf(out, "  line %u: %-40s %s%s%s\n", e->line, text ? text : "",
				e->held ? "held" : "FAILED",
				!e->held && detail && detail[0] ? ": " : "",
				!e->held && detail ? detail : "");
		}
	}
	if (meta && meta->error)
		fprintf(out, "error: %s\n", meta->error_msg ? meta->error_msg : "the scenario stopped");
}

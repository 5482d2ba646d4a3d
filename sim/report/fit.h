/* SPDX-License-Identifier: MIT */
/* What the report writers share (sim/report/fit.c): a fixed-size text that
 * filled its buffer shown without a word cut in half. Private to sim/. */
#ifndef CHAINSIM_SIM_REPORT_FIT_H
#define CHAINSIM_SIM_REPORT_FIT_H

#include <stddef.h>

/* s as it came from a buffer of cap bytes. A text that fills the buffer
 * (strlen == cap - 1) was probably cut by snprintf: it is ended at its last
 * word boundary with " ..." in out (outlen >= cap + 4) and out is returned;
 * any other text is returned as is. NULL stays NULL. */
const char *cs_report_fit(const char *s, size_t cap, char *out, size_t outlen);

/* Copy src into dst (cap bytes); a text that does not fit ends at its last
 * word boundary with " ..." instead of being cut mid-word. */
void cs_report_fit_copy(char *dst, size_t cap, const char *src);

#endif

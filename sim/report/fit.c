/* SPDX-License-Identifier: MIT */
/* A text cut by its fixed-size buffer, ended at a word boundary. */
#include "fit.h"

#include <stdio.h>
#include <string.h>

const char *cs_report_fit(const char *s, size_t cap, char *out, size_t outlen)
{
	if (!s || cap < 2 || strnlen(s, cap) < cap - 1 || outlen < 5)
		return s;
	size_t keep = cap - 1 < outlen - 5 ? cap - 1 : outlen - 5;
	/* Drop the last word (snprintf may have cut it), then the separators
	 * before it. */
	size_t cut = keep;
	while (cut > 0 && s[cut - 1] != ' ')
		cut--;
	while (cut > 0 && (s[cut - 1] == ' ' || s[cut - 1] == ',' || s[cut - 1] == ':' ||
			   s[cut - 1] == ';'))
		cut--;
	if (cut == 0) /* one long word: keep what fits */
		cut = keep;
	snprintf(out, outlen, "%.*s ...", (int)cut, s);
	return out;
}

void cs_report_fit_copy(char *dst, size_t cap, const char *src)
{
	if (!cap)
		return;
	size_t n = strlen(src);
	if (n < cap || cap < 6) {
		snprintf(dst, cap, "%s", src);
		return;
	}
	/* the longest whole-word prefix that leaves room for " ..." */
	size_t cut = cap - 5;
	if (src[cut] != ' ')
		while (cut > 0 && src[cut - 1] != ' ')
			cut--;
	while (cut > 0 && (src[cut - 1] == ' ' || src[cut - 1] == ',' || src[cut - 1] == ':' ||
			   src[cut - 1] == ';'))
		cut--;
	if (cut == 0)
		cut = cap - 5;
	snprintf(dst, cap, "%.*s ...", (int)cut, src);
}

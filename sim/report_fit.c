/* A text cut by its fixed-size buffer, ended at a word boundary. */
#include "report_fit.h"

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

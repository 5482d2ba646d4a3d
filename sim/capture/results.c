/* SPDX-License-Identifier: MIT */
/* Results files (docs/capture.md, "Results"). libc only: chainsim-hw writes
 * them on a GPU machine; `chainsim diff --hw-results` reads them back. */
#include "chainsim/file.h"
#include "chainsim/results.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void cs_results_init(cs_results *r, const char *backend, const char *driver, uint32_t crc,
		     unsigned arch_code)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->backend, sizeof(r->backend), "%s", backend);
	snprintf(r->driver, sizeof(r->driver), "%s", driver && *driver ? driver : "-");
	r->capture_crc = crc;
	r->arch_code = arch_code;
}

void cs_results_clear(cs_results *r)
{
	for (size_t i = 0; i < r->nrecs; i++)
		free(r->recs[i].bytes);
	free(r->recs);
	r->recs = NULL;
	r->nrecs = r->cap = 0;
}

bool cs_results_add(cs_results *r, const cs_results_rec *rec, const uint8_t *bytes)
{
	if (r->nrecs == r->cap) {
		size_t n = r->cap ? r->cap * 2 : 32;
		cs_results_rec *nr = realloc(r->recs, n * sizeof(*nr));
		if (!nr)
			return false;
		r->recs = nr;
		r->cap = n;
	}
	cs_results_rec *o = &r->recs[r->nrecs];
	*o = *rec;
	o->bytes = NULL;
	if (rec->kind == CS_RES_READ && bytes) {
		o->bytes = malloc(rec->a ? rec->a : 1);
		if (!o->bytes)
			return false;
		memcpy(o->bytes, bytes, rec->a);
	}
	r->nrecs++;
	return true;
}

bool cs_results_write(const cs_results *r, FILE *out)
{
	fprintf(out, "chainsim-results %d\n", CS_RESULTS_VERSION);
	fprintf(out, "backend %s %s\n", r->backend, r->driver);
	fprintf(out, "capture %08" PRIx32 " %u\n", r->capture_crc, r->arch_code);
	fprintf(out, "ran %" PRIu32 "\n", r->ran);
	for (size_t i = 0; i < r->nrecs; i++) {
		const cs_results_rec *x = &r->recs[i];
		switch (x->kind) {
		case CS_RES_SUBMIT:
			fprintf(out, "submit %" PRIu64 " %" PRIu64 " ", x->a, x->b);
			if (x->c < 0)
				fprintf(out, "-");
			else
				fprintf(out, "%" PRId64, x->c);
			fprintf(out, " %" PRIu64 "\n", x->ns);
			break;
		case CS_RES_WAIT:
			fprintf(out, "wait 0x%" PRIx64 " %" PRIu64 " 0x%" PRIx64 " %s 0x%" PRIx64 "\n",
				x->va, x->a, x->b, x->met ? "met" : "unmet", (uint64_t)x->c);
			break;
		case CS_RES_ERROR:
			fprintf(out, "error %" PRIu64 " %" PRIu64 "\n", x->a, x->b);
			break;
		case CS_RES_READ:
			fprintf(out, "read 0x%" PRIx64 " %" PRIu64 " %" PRIu64 " ", x->va, x->a, x->b);
			if (!x->bytes)
				fprintf(out, "-");
			for (uint64_t k = 0; x->bytes && k < x->a; k++)
				fprintf(out, "%02x", x->bytes[k]);
			fputc('\n', out);
			break;
		}
	}
	fprintf(out, "end\n");
	return !ferror(out);
}

/* ---- reading --------------------------------------------------------------- */

#define BADL(d, path, line, ...) (cs_diag_at_text((d), CS_ERR_INPUT, (path), (line), 1, __VA_ARGS__), false)

static bool parse_u64(const char *t, uint64_t *out)
{
	if (!t || !*t || *t == '-' || *t == '+')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(t, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* One line split into at most 8 words (in place). */
static int split(char *line, char **w)
{
	int n = 0;
	for (char *p = strtok(line, " \t\r\n"); p && n < 8; p = strtok(NULL, " \t\r\n"))
		w[n++] = p;
	return n;
}

static bool parse_line(cs_results *r, char **w, int n, const char *path, uint32_t ln, cs_diag *d)
{
	cs_results_rec x = { .line = ln };
	uint64_t v[4];
	if (!strcmp(w[0], "submit")) {
		if (n != 5 || !parse_u64(w[1], &x.a) || !parse_u64(w[2], &x.b) ||
		    !parse_u64(w[4], &x.ns))
			return BADL(d, path, ln, "expected 'submit CHANNEL PUT GPGET|- NS'");
		x.kind = CS_RES_SUBMIT;
		if (!strcmp(w[3], "-"))
			x.c = CS_RESULTS_NOT_OBSERVABLE;
		else if (parse_u64(w[3], &v[0]) && v[0] <= INT64_MAX)
			x.c = (int64_t)v[0];
		else
			return BADL(d, path, ln, "GP_GET '%s' is not a number or '-'", w[3]);
	} else if (!strcmp(w[0], "wait")) {
		if (n != 6 || !parse_u64(w[1], &x.va) || !parse_u64(w[2], &x.a) ||
		    !parse_u64(w[3], &x.b) || !parse_u64(w[5], &v[0]) ||
		    (strcmp(w[4], "met") && strcmp(w[4], "unmet")))
			return BADL(d, path, ln, "expected 'wait ADDR WIDTH WANT met|unmet SEEN'");
		x.kind = CS_RES_WAIT;
		x.met = !strcmp(w[4], "met");
		x.c = (int64_t)v[0];
	} else if (!strcmp(w[0], "error")) {
		if (n != 3 || !parse_u64(w[1], &x.a) || !parse_u64(w[2], &x.b))
			return BADL(d, path, ln, "expected 'error CHANNEL RC'");
		x.kind = CS_RES_ERROR;
	} else if (!strcmp(w[0], "read")) {
		if (n != 5 || !parse_u64(w[1], &x.va) || !parse_u64(w[2], &x.a) ||
		    !parse_u64(w[3], &x.b) || x.a == 0 || x.a > (1u << 20))
			return BADL(d, path, ln, "expected 'read ADDR LEN KIND HEX|-'");
		x.kind = CS_RES_READ;
		if (strcmp(w[4], "-")) {
			if (strlen(w[4]) != 2 * x.a)
				return BADL(d, path, ln, "%zu hex digits for %llu bytes", strlen(w[4]),
					    (unsigned long long)x.a);
			uint8_t *b = malloc(x.a);
			if (!b)
				return BADL(d, path, ln, "out of memory");
			for (uint64_t k = 0; k < x.a; k++) {
				int hi = hexval(w[4][2 * k]), lo = hexval(w[4][2 * k + 1]);
				if (hi < 0 || lo < 0) {
					free(b);
					return BADL(d, path, ln, "'%c%c' is not a hex byte", w[4][2 * k],
						    w[4][2 * k + 1]);
				}
				b[k] = (uint8_t)(hi << 4 | lo);
			}
			bool ok = cs_results_add(r, &x, b);
			free(b);
			return ok || BADL(d, path, ln, "out of memory");
		}
	} else {
		return BADL(d, path, ln, "unknown record '%s'", w[0]);
	}
	return cs_results_add(r, &x, NULL) || BADL(d, path, ln, "out of memory");
}

bool cs_results_load(const char *file, cs_results *r, cs_diag *d)
{
	const char *path = cs_file_name(file);
	memset(r, 0, sizeof(*r));
	/* Through the bounded reader (a regular file, a cap), then read by lines. */
	char *text = NULL;
	size_t tlen = 0;
	if (!cs_file_read(file, CS_FILE_MAX_TEXT, "the results", &text, &tlen, d))
		return false;
	FILE *f = fmemopen(text, tlen ? tlen : 1, "r");
	if (!f) {
		free(text);
		cs_diag_set(d, CS_ERR_NOMEM, "%s: cannot read the results: %s", path, strerror(errno));
		return false;
	}
	size_t cap = (2u << 20) + 64;
	char *line = malloc(cap);
	uint32_t ln = 0;
	bool ok = line != NULL, ended = false, head[4] = { false };
	while (ok && fgets(line, (int)cap, f)) {
		ln++;
		if (!strchr(line, '\n') && !feof(f)) {
			ok = BADL(d, path, ln, "line too long");
			break;
		}
		if (ended) {
			ok = BADL(d, path, ln, "text after 'end'");
			break;
		}
		char *w[8];
		int n = split(line, w);
		uint64_t v = 0;
		if (n == 0)
			continue;
		if (ln == 1) {
			if (n != 2 || strcmp(w[0], "chainsim-results") || !parse_u64(w[1], &v) ||
			    v != CS_RESULTS_VERSION)
				ok = BADL(d, path, ln, "not a chainsim results file, version %d",
					  CS_RESULTS_VERSION);
			head[0] = true;
		} else if (!strcmp(w[0], "backend") && n == 3) {
			snprintf(r->backend, sizeof(r->backend), "%s", w[1]);
			snprintf(r->driver, sizeof(r->driver), "%s", w[2]);
			head[1] = true;
		} else if (!strcmp(w[0], "capture") && n == 3) {
			uint64_t a = 0;
			char hex[16];
			snprintf(hex, sizeof(hex), "0x%s", w[1]);
			if (strlen(w[1]) > 8 || !parse_u64(hex, &v) || v > UINT32_MAX ||
			    !parse_u64(w[2], &a) || a > 8)
				ok = BADL(d, path, ln, "expected 'capture CRC32HEX ARCHCODE'");
			r->capture_crc = (uint32_t)v;
			r->arch_code = (unsigned)a;
			head[2] = true;
		} else if (!strcmp(w[0], "ran") && n == 2) {
			if (!parse_u64(w[1], &v) || v > UINT32_MAX)
				ok = BADL(d, path, ln, "expected 'ran COUNT'");
			r->ran = (uint32_t)v;
			head[3] = true;
		} else if (!strcmp(w[0], "end") && n == 1) {
			ended = true;
		} else {
			ok = parse_line(r, w, n, path, ln, d);
		}
	}
	free(line);
	fclose(f);
	free(text);
	if (ok && (!head[0] || !head[1] || !head[2] || !head[3]))
		ok = BADL(d, path, ln ? ln : 1, "incomplete header (chainsim-results, backend, capture, "
			  "ran)");
	if (ok && !ended)
		ok = BADL(d, path, ln ? ln : 1, "truncated: no 'end' line");
	if (!ok)
		cs_results_clear(r);
	return ok;
}

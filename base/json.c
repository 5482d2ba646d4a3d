/* SPDX-License-Identifier: MIT */
/* JSON through jansson (include/chainsim/json.h): the writer builds a jansson
 * tree in call order and dumps it, then spells the text as docs/json.md says
 * (" : " between a key and its value, and the other details of the format
 * json-glib set); the reader is jansson's parser. */
#include "chainsim/json.h"

#include <inttypes.h>
#include <jansson.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ------------------------------------------------------------ */

struct cs_json_writer {
	json_t *root;
	json_t **open; /* the containers not yet ended, innermost last (borrowed) */
	size_t depth, cap;
	char *key;     /* the pending member's name */
	bool pretty;
	bool failed;   /* memory ran out, or the calls made no value */
};

cs_json_writer *cs_json_writer_new(bool pretty)
{
	cs_json_writer *w = calloc(1, sizeof(*w));
	if (w)
		w->pretty = pretty;
	return w;
}

/* Places v (its reference taken) where the calls so far say: the top value,
 * the pending member of the open object, or the next element of the open
 * array. False when there is no such place. */
static bool place(cs_json_writer *w, json_t *v)
{
	if (!w || w->failed || !v) {
		json_decref(v);
		if (w)
			w->failed = true;
		return false;
	}
	json_t *top = w->depth ? w->open[w->depth - 1] : NULL;
	bool ok = false;
	if (!top && !w->root) {
		w->root = v;
		ok = true;
	} else if (top && json_is_object(top) && w->key) {
		ok = json_object_set_new(top, w->key, v) == 0; /* takes v even when it fails */
	} else if (top && json_is_array(top) && !w->key) {
		ok = json_array_append_new(top, v) == 0;
	} else {
		json_decref(v);
	}
	free(w->key);
	w->key = NULL;
	w->failed |= !ok;
	return ok;
}

static void begin(cs_json_writer *w, json_t *container)
{
	if (!place(w, container))
		return;
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		json_t **open = realloc(w->open, cap * sizeof(*open));
		if (!open) {
			w->failed = true;
			return;
		}
		w->open = open;
		w->cap = cap;
	}
	w->open[w->depth++] = container;
}

static void end(cs_json_writer *w, bool object)
{
	if (!w || w->failed)
		return;
	json_t *top = w->depth ? w->open[w->depth - 1] : NULL;
	if (!top || json_is_object(top) != object || w->key) {
		w->failed = true;
		return;
	}
	w->depth--;
}

void cs_json_begin_object(cs_json_writer *w)
{
	begin(w, json_object());
}

void cs_json_end_object(cs_json_writer *w)
{
	end(w, true);
}

void cs_json_begin_array(cs_json_writer *w)
{
	begin(w, json_array());
}

void cs_json_end_array(cs_json_writer *w)
{
	end(w, false);
}

/* The length of the well-formed UTF-8 sequence at s (at most n bytes), or 0:
 * no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
	if (!k || c > 0xF4 || c < 0xC2 || n < k)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) || /* overlong, surrogate */
	    (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))	  /* overlong, > U+10FFFF */
		return 0;
	return k;
}

/* s with each byte that is not UTF-8 replaced by U+FFFD, so that the text
 * stays JSON; NULL when memory ran out. */
static json_t *utf8_string(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), bad = 0;
	for (size_t i = 0, k; i < n; i += k) {
		k = s[i] < 0x80 ? 1 : utf8_len(s + i, n - i);
		if (!k)
			bad++, k = 1;
	}
	if (!bad)
		return json_stringn(str, n);
	char *fixed = malloc(n + 2 * bad + 1), *o = fixed;
	if (!fixed)
		return NULL;
	for (size_t i = 0, k; i < n; i += k) {
		k = s[i] < 0x80 ? 1 : utf8_len(s + i, n - i);
		if (!k) {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
			k = 1;
		} else {
			memcpy(o, s + i, k);
			o += k;
		}
	}
	json_t *v = json_stringn(fixed, (size_t)(o - fixed));
	free(fixed);
	return v;
}

void cs_json_key(cs_json_writer *w, const char *name)
{
	if (!w || w->failed)
		return;
	json_t *top = w->depth ? w->open[w->depth - 1] : NULL;
	if (!top || !json_is_object(top) || w->key || !name || !(w->key = strdup(name)))
		w->failed = true;
}

void cs_json_string(cs_json_writer *w, const char *s)
{
	place(w, s ? utf8_string(s) : json_null());
}

void cs_json_int(cs_json_writer *w, int64_t v)
{
	place(w, json_integer((json_int_t)v));
}

void cs_json_double(cs_json_writer *w, double v)
{
	place(w, isfinite(v) ? json_real(v) : json_null()); /* JSON has no such number */
}

void cs_json_bool(cs_json_writer *w, bool v)
{
	place(w, json_boolean(v));
}

void cs_json_null(cs_json_writer *w)
{
	place(w, json_null());
}

void cs_json_member_int(cs_json_writer *w, const char *key, int64_t v)
{
	cs_json_key(w, key);
	cs_json_int(w, v);
}

void cs_json_member_hex(cs_json_writer *w, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	cs_json_key(w, key);
	cs_json_string(w, buf);
}

void cs_json_member_u32_or_null(cs_json_writer *w, const char *key, uint32_t v)
{
	cs_json_key(w, key);
	if (v == UINT32_MAX)
		cs_json_null(w);
	else
		cs_json_int(w, v);
}

typedef struct text {
	char *buf;
	size_t len, cap;
	bool failed;
} text;

static void put(text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		while (cap < t->len + n + 1)
			cap *= 2;
		char *b = realloc(t->buf, cap);
		if (!b) {
			t->failed = true;
			return;
		}
		t->buf = b;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = 0;
}

/* A number jansson wrote: as it is, or when in exponent form as "%.17g"
 * writes it (jansson writes 1e22 and 2.5e-7 for 1e+22 and 2.5e-07). */
static void put_number(text *t, const char *num, size_t n)
{
	if (!memchr(num, 'e', n) && !memchr(num, 'E', n)) {
		put(t, num, n);
		return;
	}
	char b[48];
	snprintf(b, sizeof(b), "%.*s", (int)n, num);
	json_t *v = json_loads(b, JSON_DECODE_ANY, NULL); /* reads '.' whatever the locale */
	snprintf(b, sizeof(b), "%.17g", json_real_value(v));
	json_decref(v);
	const char *dp = localeconv()->decimal_point;
	char *at = dp && *dp && strcmp(dp, ".") ? strstr(b, dp) : NULL;
	if (at) {
		size_t dl = strlen(dp);
		*at = '.';
		memmove(at + 1, at + dl, strlen(at + dl) + 1);
	}
	put(t, b, strlen(b));
}

/* jansson's dump spelled as docs/json.md states: in pretty text " : " after
 * a key and an empty object as "{", its indent and "}"; in strings a control
 * character's \u escape in small letters, and 0x7F escaped too; a number in
 * exponent form as "%.17g" writes it. NULL when memory ran out. */
static char *respell(const char *dump, bool pretty, size_t *len)
{
	text t = { 0 };
	size_t depth = 0; /* containers open */
	bool in_string = false;
	put(&t, "", 0);
	for (const char *p = dump; *p && !t.failed;) {
		if (in_string) {
			if (p[0] == '\\' && p[1] == 'u') {
				char esc[6];
				for (int i = 0; i < 6; i++)
					esc[i] = (char)(p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 'a' : p[i]);
				put(&t, esc, 6);
				p += 6;
			} else if (p[0] == '\\') {
				put(&t, p, 2);
				p += 2;
			} else if (p[0] == 0x7F) {
				put(&t, "\\u007f", 6);
				p++;
			} else {
				in_string = p[0] != '"';
				put(&t, p++, 1);
			}
			continue;
		}
		if (*p == '"') {
			in_string = true;
			put(&t, p++, 1);
		} else if (pretty && p[0] == '{' && p[1] == '}') {
			put(&t, "{", 1);
			for (size_t i = 0; i < depth; i++)
				put(&t, "  ", 2);
			put(&t, "}", 1);
			p += 2;
		} else if ((p[0] == '{' && p[1] == '}') || (p[0] == '[' && p[1] == ']')) {
			put(&t, p, 2); /* compact text's empty object, or an empty array */
			p += 2;
		} else if (*p == '{' || *p == '[') {
			depth++;
			put(&t, p++, 1);
		} else if ((*p == '}' || *p == ']') && depth) {
			depth--;
			put(&t, p++, 1);
		} else if (*p == ':' && pretty) {
			put(&t, " :", 2);
			p++;
		} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
			const char *s = p;
			while (*p && strchr("0123456789+-.eE", *p))
				p++;
			put_number(&t, s, (size_t)(p - s));
		} else {
			put(&t, p++, 1);
		}
	}
	if (t.failed) {
		free(t.buf);
		return NULL;
	}
	*len = t.len;
	return t.buf;
}

char *cs_json_writer_finish(cs_json_writer *w, size_t *len)
{
	if (!w)
		return NULL;
	char *out = NULL;
	if (!w->failed && w->root && !w->depth && !w->key) {
		size_t flags = JSON_ENCODE_ANY | JSON_REAL_PRECISION(17) |
			       (w->pretty ? JSON_INDENT(2) : JSON_COMPACT);
		char *dump = json_dumps(w->root, flags);
		size_t n = 0;
		out = dump ? respell(dump, w->pretty, &n) : NULL;
		free(dump);
		if (out && len)
			*len = n;
	}
	json_decref(w->root);
	free(w->open);
	free(w->key);
	free(w);
	return out;
}

/* ---- reading ------------------------------------------------------------ */

cs_json_value *cs_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	json_error_t e;
	json_t *v = json_loadb(text, len, JSON_DECODE_ANY, &e);
	if (!v && err && errlen)
		snprintf(err, errlen, "line %d, column %d: %s", e.line, e.column, e.text);
	return v;
}

void cs_json_free(cs_json_value *v)
{
	json_decref(v);
}

cs_json_type cs_json_type_of(const cs_json_value *v)
{
	if (!v)
		return CS_JSON_NULL;
	switch (json_typeof(v)) {
	case JSON_OBJECT: return CS_JSON_OBJECT;
	case JSON_ARRAY: return CS_JSON_ARRAY;
	case JSON_STRING: return CS_JSON_STRING;
	case JSON_INTEGER: return CS_JSON_INT;
	case JSON_REAL: return CS_JSON_DOUBLE;
	case JSON_TRUE:
	case JSON_FALSE: return CS_JSON_BOOL;
	case JSON_NULL: break;
	}
	return CS_JSON_NULL;
}

const cs_json_value *cs_json_member(const cs_json_value *v, const char *key)
{
	return v && key ? json_object_get(v, key) : NULL;
}

size_t cs_json_length(const cs_json_value *v)
{
	return json_is_object(v) ? json_object_size(v) : json_array_size(v);
}

const cs_json_value *cs_json_at(const cs_json_value *v, size_t i)
{
	return json_array_get(v, i);
}

const char *cs_json_get_string(const cs_json_value *v, const char *dflt)
{
	return json_is_string(v) ? json_string_value(v) : dflt;
}

int64_t cs_json_get_int(const cs_json_value *v, int64_t dflt)
{
	if (json_is_integer(v))
		return (int64_t)json_integer_value(v);
	double d = json_is_real(v) ? json_real_value(v) : NAN;
	/* whole and inside [-2^63, 2^63) */
	return d == floor(d) && d >= -0x1p63 && d < 0x1p63 ? (int64_t)d : dflt;
}

double cs_json_get_double(const cs_json_value *v, double dflt)
{
	return json_is_number(v) ? json_number_value(v) : dflt;
}

bool cs_json_get_bool(const cs_json_value *v, bool dflt)
{
	return json_is_boolean(v) ? json_is_true(v) : dflt;
}

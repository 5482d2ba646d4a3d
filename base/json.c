/* SPDX-License-Identifier: MIT */
/* JSON writer and reader (include/chainsim/json.h). */
#include "chainsim/json.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The two-character escapes: a backslash and a letter stand for the byte below
 * the letter. The reader takes an escaped '/'; the writer writes '/' as it is,
 * as json-glib does. */
static const char escape_letters[] = "\"\\bfnrt/";
static const char escape_bytes[] = "\"\\\b\f\n\r\t/";

/* ---- writing ------------------------------------------------------------ */

typedef struct level {
	bool object;
	bool want_value; /* in an object: a key was given */
	size_t count;	 /* members or elements so far */
} level;

struct cs_json_writer {
	char *buf;
	size_t len, cap;
	level *stack;
	size_t depth, stack_cap;
	bool pretty;
	bool done;   /* the top value is whole */
	bool failed; /* memory ran out, or the calls made no value */
};

cs_json_writer *cs_json_writer_new(bool pretty)
{
	cs_json_writer *w = calloc(1, sizeof(*w));
	if (w)
		w->pretty = pretty;
	return w;
}

static void put(cs_json_writer *w, const char *s, size_t n)
{
	if (!w || w->failed)
		return;
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		while (cap < w->len + n + 1)
			cap *= 2;
		char *b = realloc(w->buf, cap);
		if (!b) {
			w->failed = true;
			return;
		}
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void puts_(cs_json_writer *w, const char *s)
{
	put(w, s, strlen(s));
}

static void indent(cs_json_writer *w, size_t depth)
{
	static const char spaces[] = "                                ";
	for (size_t n = depth * 2; n;) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		put(w, spaces, k);
		n -= k;
	}
}

static void quoted(cs_json_writer *w, const char *s);

/* Where a value goes: after the separator and indent its place takes. */
static bool value_begins(cs_json_writer *w)
{
	if (!w || w->failed)
		return false;
	if (!w->depth) {
		if (w->done) { /* a second top-level value */
			w->failed = true;
			return false;
		}
		return true;
	}
	level *l = &w->stack[w->depth - 1];
	if (l->object) {
		if (!l->want_value) { /* a member's value without its key */
			w->failed = true;
			return false;
		}
		l->want_value = false;
		return true; /* the key wrote the separator */
	}
	if (l->count++)
		put(w, ",", 1);
	if (w->pretty) {
		put(w, "\n", 1);
		indent(w, w->depth);
	}
	return true;
}

static void value_ends(cs_json_writer *w)
{
	if (!w->depth)
		w->done = true;
}

void cs_json_key(cs_json_writer *w, const char *name)
{
	if (!w || w->failed)
		return;
	level *l = w->depth ? &w->stack[w->depth - 1] : NULL;
	if (!l || !l->object || l->want_value || !name) {
		w->failed = true;
		return;
	}
	if (l->count++)
		put(w, ",", 1);
	if (w->pretty) {
		put(w, "\n", 1);
		indent(w, w->depth);
	}
	quoted(w, name);
	puts_(w, w->pretty ? " : " : ":");
	l->want_value = true;
}

static void begin(cs_json_writer *w, bool object)
{
	if (!value_begins(w))
		return;
	if (w->depth == w->stack_cap) {
		size_t cap = w->stack_cap ? w->stack_cap * 2 : 16;
		level *s = realloc(w->stack, cap * sizeof(*s));
		if (!s) {
			w->failed = true;
			return;
		}
		w->stack = s;
		w->stack_cap = cap;
	}
	w->stack[w->depth++] = (level){ .object = object };
	put(w, object ? "{" : "[", 1);
}

static void end(cs_json_writer *w, bool object)
{
	if (!w || w->failed)
		return;
	level *l = w->depth ? &w->stack[w->depth - 1] : NULL;
	if (!l || l->object != object || l->want_value) {
		w->failed = true;
		return;
	}
	w->depth--;
	if (w->pretty && l->count) {
		put(w, "\n", 1);
		indent(w, w->depth);
	} else if (w->pretty && object) {
		indent(w, w->depth); /* json-glib's empty object: "{" + the indent + "}" */
	}
	put(w, object ? "}" : "]", 1);
	value_ends(w);
}

void cs_json_begin_object(cs_json_writer *w)
{
	begin(w, true);
}

void cs_json_end_object(cs_json_writer *w)
{
	end(w, true);
}

void cs_json_begin_array(cs_json_writer *w)
{
	begin(w, false);
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

/* A string between quotes, escaped as json-glib escapes it; bytes that are not
 * UTF-8 become U+FFFD, so that the text stays JSON. */
static void quoted(cs_json_writer *w, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	put(w, "\"", 1);
	size_t run = 0; /* bytes that need no escape, copied at once */
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		const char *esc = NULL, *two = c != '/' ? strchr(escape_bytes, (int)c) : NULL;
		char e[8];
		size_t k = 1;
		if (two) {
			snprintf(e, sizeof(e), "\\%c", escape_letters[two - escape_bytes]);
			esc = e;
		} else if (c < 0x20 || c == 0x7F) {
			snprintf(e, sizeof(e), "\\u%04x", c);
			esc = e;
		} else if (c >= 0x80 && !(k = utf8_len(s + i, n - i))) {
			esc = "\xEF\xBF\xBD";
			k = 1;
		}
		if (!esc) {
			run += k;
			i += k;
			continue;
		}
		put(w, (const char *)s + i - run, run);
		run = 0;
		puts_(w, esc);
		i += k;
	}
	put(w, (const char *)s + n - run, run);
	put(w, "\"", 1);
}

void cs_json_string(cs_json_writer *w, const char *s)
{
	if (!s) {
		cs_json_null(w);
		return;
	}
	if (!value_begins(w))
		return;
	quoted(w, s);
	value_ends(w);
}

void cs_json_int(cs_json_writer *w, int64_t v)
{
	if (!value_begins(w))
		return;
	char b[32];
	snprintf(b, sizeof(b), "%" PRId64, v);
	puts_(w, b);
	value_ends(w);
}

/* "%.17g" with a '.' whatever the locale, and ".0" on a whole number, as
 * json-glib writes doubles. */
static void format_double(double v, char *b, size_t blen)
{
	snprintf(b, blen, "%.17g", v);
	const char *dp = localeconv()->decimal_point;
	if (dp && strcmp(dp, ".") != 0 && *dp) {
		char *at = strstr(b, dp);
		if (at) {
			size_t dl = strlen(dp);
			*at = '.';
			memmove(at + 1, at + dl, strlen(at + dl) + 1);
		}
	}
	if (!strpbrk(b, ".e"))
		strncat(b, ".0", blen - strlen(b) - 1);
}

void cs_json_double(cs_json_writer *w, double v)
{
	if (!isfinite(v)) { /* JSON has no such number */
		cs_json_null(w);
		return;
	}
	if (!value_begins(w))
		return;
	char b[48];
	format_double(v, b, sizeof(b));
	puts_(w, b);
	value_ends(w);
}

void cs_json_bool(cs_json_writer *w, bool v)
{
	if (!value_begins(w))
		return;
	puts_(w, v ? "true" : "false");
	value_ends(w);
}

void cs_json_null(cs_json_writer *w)
{
	if (!value_begins(w))
		return;
	puts_(w, "null");
	value_ends(w);
}

char *cs_json_writer_finish(cs_json_writer *w, size_t *len)
{
	if (!w)
		return NULL;
	char *out = NULL;
	if (!w->failed && w->done && !w->depth) {
		put(w, "", 0); /* room for the NUL */
		if (!w->failed) {
			out = w->buf;
			out[w->len] = 0;
			w->buf = NULL;
			if (len)
				*len = w->len;
		}
	}
	free(w->buf);
	free(w->stack);
	free(w);
	return out;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct parser {
	const char *text, *p, *end;
	char *err;
	size_t errlen;
	bool failed;
} parser;

static void fail(parser *ps, const char *at, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	unsigned long line = 1, col = 1;
	for (const char *q = ps->text; q < at; q++) {
		if (*q == '\n')
			line++, col = 1;
		else
			col++;
	}
	int n = snprintf(ps->err, ps->errlen, "line %lu, column %lu: ", line, col);
	if (n >= 0 && (size_t)n < ps->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
}

static void skip_space(parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* What the next character is, for messages. */
static const char *describe(const parser *ps, char *b, size_t blen)
{
	if (ps->p >= ps->end)
		return "the end of the text";
	unsigned char c = (unsigned char)*ps->p;
	if (c >= 0x20 && c < 0x7F)
		snprintf(b, blen, "'%c'", c);
	else
		snprintf(b, blen, "byte 0x%02x", c);
	return b;
}

static bool parse_value(parser *ps, cs_json_value *v, unsigned depth);

static int hex4(const char *p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static size_t put_utf8(char *o, unsigned long cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* A string at ps->p (its opening quote); the text, malloc'd, or NULL. */
static char *parse_string(parser *ps)
{
	const char *open = ps->p++;
	/* the decoded text is never longer than its escaped form */
	const char *close = ps->p;
	while (close < ps->end && *close != '"') {
		if (*close == '\\' && close + 1 < ps->end)
			close++;
		close++;
	}
	if (close >= ps->end) {
		fail(ps, open, "a string that never ends");
		return NULL;
	}
	char *out = malloc((size_t)(close - ps->p) + 1), *o = out;
	if (!out) {
		fail(ps, open, "out of memory");
		return NULL;
	}
	while (ps->p < close) {
		const unsigned char c = (unsigned char)*ps->p;
		if (c < 0x20) {
			fail(ps, ps->p, "a control character (0x%02x) in a string", c);
			break;
		}
		if (c >= 0x80) {
			size_t k = utf8_len((const unsigned char *)ps->p, (size_t)(close - ps->p));
			if (!k) {
				fail(ps, ps->p, "a byte that is not UTF-8 (0x%02x) in a string", c);
				break;
			}
			memcpy(o, ps->p, k);
			o += k;
			ps->p += k;
			continue;
		}
		if (c != '\\') {
			*o++ = (char)c;
			ps->p++;
			continue;
		}
		const char *esc = ps->p++;
		char e = *ps->p++;
		const char *m = e ? strchr(escape_letters, e) : NULL;
		if (m) {
			*o++ = escape_bytes[m - escape_letters];
			continue;
		}
		if (e != 'u') {
			fail(ps, esc, "an unknown escape '\\%c' in a string", e);
			break;
		}
		int cp = close - ps->p >= 4 ? hex4(ps->p) : -1;
		if (cp < 0) {
			fail(ps, esc, "\\u needs four hex digits");
			break;
		}
		ps->p += 4;
		unsigned long code = (unsigned long)cp;
		if (cp >= 0xD800 && cp < 0xDC00) { /* a high surrogate: its low half follows */
			int lo = close - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u'
					 ? hex4(ps->p + 2) : -1;
			if (lo < 0xDC00 || lo > 0xDFFF) {
				fail(ps, esc, "a surrogate \\u%04x without its low half", cp);
				break;
			}
			ps->p += 6;
			code = 0x10000 + (((unsigned long)cp - 0xD800) << 10) + ((unsigned long)lo - 0xDC00);
		} else if (cp >= 0xDC00 && cp < 0xE000) {
			fail(ps, esc, "a low surrogate \\u%04x alone", cp);
			break;
		} else if (cp == 0) {
			fail(ps, esc, "\\u0000 in a string (a NUL is not taken)");
			break;
		}
		o += put_utf8(o, code);
	}
	if (ps->failed) {
		free(out);
		return NULL;
	}
	*o = 0;
	ps->p = close + 1;
	return out;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool parse_number(parser *ps, cs_json_value *v)
{
	const char *s = ps->p, *q = s;
	if (q < ps->end && *q == '-')
		q++;
	if (q >= ps->end || !is_digit(*q)) {
		fail(ps, s, "a number needs a digit here");
		return false;
	}
	if (*q == '0')
		q++;
	else
		while (q < ps->end && is_digit(*q))
			q++;
	bool whole = true;
	if (q < ps->end && *q == '.') {
		whole = false;
		if (++q >= ps->end || !is_digit(*q)) {
			fail(ps, q, "a number needs a digit after its '.'");
			return false;
		}
		while (q < ps->end && is_digit(*q))
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		whole = false;
		if (++q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= ps->end || !is_digit(*q)) {
			fail(ps, q, "a number needs a digit in its exponent");
			return false;
		}
		while (q < ps->end && is_digit(*q))
			q++;
	}
	ps->p = q;
	if (whole) { /* int64 unless it overflows */
		bool neg = *s == '-';
		uint64_t mag = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
		bool fits = true;
		for (const char *d = s + neg; d < q && fits; d++) {
			unsigned dv = (unsigned)(*d - '0');
			fits = mag <= (lim - dv) / 10;
			mag = mag * 10 + dv;
		}
		if (fits) {
			v->type = CS_JSON_INT;
			v->i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
			return true;
		}
	}
	/* strtod reads the locale's decimal point: the copy carries that one */
	const char *dp = localeconv()->decimal_point, *point = dp && *dp ? dp : ".";
	size_t dl = strlen(point), n = (size_t)(q - s);
	char small[128], *b = n + dl < sizeof(small) ? small : malloc(n + dl + 1);
	if (!b) {
		fail(ps, s, "out of memory");
		return false;
	}
	char *o = b;
	for (const char *d = s; d < q; d++) {
		if (*d == '.') {
			memcpy(o, point, dl);
			o += dl;
		} else {
			*o++ = *d;
		}
	}
	*o = 0;
	v->type = CS_JSON_DOUBLE;
	v->d = strtod(b, NULL);
	if (b != small)
		free(b);
	return true;
}

static bool literal(parser *ps, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return false;
	ps->p += n;
	return true;
}

/* Grows a list of values (and keys) by one; the new slot, or NULL. */
static cs_json_value *list_add(parser *ps, cs_json_value *v, size_t *cap, bool keyed)
{
	if (v->list.n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		cs_json_value *items = realloc(v->list.items, nc * sizeof(*items));
		if (items)
			v->list.items = items;
		char **keys = keyed ? realloc(v->list.keys, nc * sizeof(*keys)) : NULL;
		if (keyed && keys)
			v->list.keys = keys;
		if (!items || (keyed && !keys)) {
			fail(ps, ps->p, "out of memory");
			return NULL;
		}
		*cap = nc;
	}
	cs_json_value *slot = &v->list.items[v->list.n];
	*slot = (cs_json_value){ .type = CS_JSON_NULL };
	if (keyed)
		v->list.keys[v->list.n] = NULL;
	v->list.n++;
	return slot;
}

static bool parse_list(parser *ps, cs_json_value *v, unsigned depth, bool object)
{
	const char *open = ps->p++;
	v->type = object ? CS_JSON_OBJECT : CS_JSON_ARRAY;
	if (depth >= CS_JSON_MAX_DEPTH) {
		fail(ps, open, "nesting deeper than %d", CS_JSON_MAX_DEPTH);
		return false;
	}
	size_t cap = 0;
	char close = object ? '}' : ']', what[16];
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return true;
	}
	for (;;) {
		skip_space(ps);
		char *key = NULL;
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"') {
				fail(ps, ps->p, "expected a member's name (a string), found %s",
				     describe(ps, what, sizeof(what)));
				return false;
			}
			if (!(key = parse_string(ps)))
				return false;
			skip_space(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				fail(ps, ps->p, "expected ':' after a member's name, found %s",
				     describe(ps, what, sizeof(what)));
				free(key);
				return false;
			}
			ps->p++;
		}
		cs_json_value *slot = list_add(ps, v, &cap, object);
		if (!slot) {
			free(key);
			return false;
		}
		if (object)
			v->list.keys[v->list.n - 1] = key;
		if (!parse_value(ps, slot, depth + 1))
			return false;
		skip_space(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return true;
		}
		fail(ps, ps->p, "expected ',' or '%c' in %s opened at offset %zu, found %s", close,
		     object ? "an object" : "an array", (size_t)(open - ps->text),
		     describe(ps, what, sizeof(what)));
		return false;
	}
}

static bool parse_value(parser *ps, cs_json_value *v, unsigned depth)
{
	char what[16];
	skip_space(ps);
	if (ps->p >= ps->end) {
		fail(ps, ps->p, "expected a value, found the end of the text");
		return false;
	}
	switch (*ps->p) {
	case '{':
		return parse_list(ps, v, depth, true);
	case '[':
		return parse_list(ps, v, depth, false);
	case '"':
		v->s = parse_string(ps);
		v->type = v->s ? CS_JSON_STRING : CS_JSON_NULL;
		return v->s != NULL;
	case 't':
	case 'f':
	case 'n':
		if (literal(ps, "true") || literal(ps, "false")) {
			v->type = CS_JSON_BOOL;
			v->b = ps->p[-4] == 't';
			return true;
		}
		if (literal(ps, "null")) {
			v->type = CS_JSON_NULL;
			return true;
		}
		break;
	default:
		if (*ps->p == '-' || is_digit(*ps->p))
			return parse_number(ps, v);
	}
	fail(ps, ps->p, "expected a value, found %s", describe(ps, what, sizeof(what)));
	return false;
}

cs_json_value *cs_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	char none[1];
	parser ps = { .text = text, .p = text, .end = text + len, .err = err ? err : none,
		      .errlen = err ? errlen : sizeof(none) };
	cs_json_value *v = calloc(1, sizeof(*v));
	if (!v) {
		snprintf(ps.err, ps.errlen, "out of memory");
		return NULL;
	}
	char what[16];
	if (parse_value(&ps, v, 0)) {
		skip_space(&ps);
		if (ps.p < ps.end)
			fail(&ps, ps.p, "text after the value: %s", describe(&ps, what, sizeof(what)));
	}
	if (ps.failed) {
		cs_json_free(v);
		return NULL;
	}
	return v;
}

static void free_value(cs_json_value *v)
{
	if (v->type == CS_JSON_STRING) {
		free(v->s);
	} else if (v->type == CS_JSON_ARRAY || v->type == CS_JSON_OBJECT) {
		for (size_t i = 0; i < v->list.n; i++) {
			free_value(&v->list.items[i]);
			if (v->list.keys)
				free(v->list.keys[i]);
		}
		free(v->list.items);
		free(v->list.keys);
	}
}

void cs_json_free(cs_json_value *v)
{
	if (!v)
		return;
	free_value(v);
	free(v);
}

const cs_json_value *cs_json_member(const cs_json_value *v, const char *key)
{
	if (!v || v->type != CS_JSON_OBJECT || !key)
		return NULL;
	for (size_t i = v->list.n; i-- > 0;)
		if (!strcmp(v->list.keys[i], key))
			return &v->list.items[i];
	return NULL;
}

size_t cs_json_length(const cs_json_value *v)
{
	return v && v->type == CS_JSON_ARRAY ? v->list.n : 0;
}

const cs_json_value *cs_json_at(const cs_json_value *v, size_t i)
{
	return i < cs_json_length(v) ? &v->list.items[i] : NULL;
}

const char *cs_json_get_string(const cs_json_value *v, const char *dflt)
{
	return v && v->type == CS_JSON_STRING ? v->s : dflt;
}

int64_t cs_json_get_int(const cs_json_value *v, int64_t dflt)
{
	if (v && v->type == CS_JSON_INT)
		return v->i;
	/* whole and inside [-2^63, 2^63) */
	if (v && v->type == CS_JSON_DOUBLE && v->d == floor(v->d) && v->d >= -0x1p63 && v->d < 0x1p63)
		return (int64_t)v->d;
	return dflt;
}

double cs_json_get_double(const cs_json_value *v, double dflt)
{
	return !v ? dflt : v->type == CS_JSON_DOUBLE ? v->d : v->type == CS_JSON_INT ? (double)v->i
										     : dflt;
}

bool cs_json_get_bool(const cs_json_value *v, bool dflt)
{
	return v && v->type == CS_JSON_BOOL ? v->b : dflt;
}

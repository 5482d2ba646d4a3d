/* SPDX-License-Identifier: MIT */
/* JSON for the library's outputs (--json, --trace, diff, conform results) and
 * for the one JSON input it reads back, a conform shard's result (base/json.c).
 * Libc only: a command that writes JSON does not pay for loading GObject and
 * GIO at start-up. Not installed: the library's API hands out JSON as text.
 *
 * The writer's text is byte for byte what json-glib 1.6's generator writes for
 * the same tree (tests/base/test_json.c compares them), except where json-glib
 * writes text that is not JSON: a 0x1F byte in a string is escaped, a whole
 * double in exponent form keeps no ".0" (1e+22, not 1e+22.0), and a double
 * that is not finite is null. */
#ifndef CHAINSIM_JSON_H
#define CHAINSIM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- writing ------------------------------------------------------------ */

typedef struct cs_json_writer cs_json_writer;

/* A writer; pretty puts one member or element per line, indented by two. NULL
 * when memory ran out: the calls below then do nothing, and finish gives NULL. */
cs_json_writer *cs_json_writer_new(bool pretty);

/* Values go in order; in an object, cs_json_key comes before each member's
 * value. */
void cs_json_begin_object(cs_json_writer *w);
void cs_json_end_object(cs_json_writer *w);
void cs_json_begin_array(cs_json_writer *w);
void cs_json_end_array(cs_json_writer *w);
void cs_json_key(cs_json_writer *w, const char *name);
void cs_json_string(cs_json_writer *w, const char *s); /* NULL writes null */
void cs_json_int(cs_json_writer *w, int64_t v);
void cs_json_double(cs_json_writer *w, double v);
void cs_json_bool(cs_json_writer *w, bool v);
void cs_json_null(cs_json_writer *w);

/* The text (malloc'd, NUL-terminated; its length in *len unless len is NULL)
 * and frees w. NULL when memory ran out, or when the calls did not make one
 * whole value (a bug in the caller: a key outside an object, an unclosed
 * array...). */
char *cs_json_writer_finish(cs_json_writer *w, size_t *len);

/* ---- reading ------------------------------------------------------------ */

typedef enum cs_json_type {
	CS_JSON_NULL,
	CS_JSON_BOOL,
	CS_JSON_INT, /* a number without fraction or exponent that fits int64 */
	CS_JSON_DOUBLE,
	CS_JSON_STRING,
	CS_JSON_ARRAY,
	CS_JSON_OBJECT,
} cs_json_type;

typedef struct cs_json_value cs_json_value;
struct cs_json_value {
	cs_json_type type;
	union {
		bool b;
		int64_t i;
		double d;
		char *s; /* NUL-terminated UTF-8; "\u0000" is refused */
		struct {
			cs_json_value *items; /* an object's values */
			char **keys;	      /* an object's keys, else NULL */
			size_t n;
		} list;
	};
};

/* Nesting deeper than this is refused (the parser recurses). */
enum { CS_JSON_MAX_DEPTH = 128 };

/* Parses len bytes of RFC 8259 JSON (one value, white space around it).
 * NULL with "line L, column C: what" in err when the text is not JSON or
 * memory ran out. */
cs_json_value *cs_json_parse(const char *text, size_t len, char *err, size_t errlen);
void cs_json_free(cs_json_value *v);

/* An object's member (the last one, when the key repeats); NULL when v is not
 * an object or has no such member. */
const cs_json_value *cs_json_member(const cs_json_value *v, const char *key);
/* An array's length and element (NULL past its end or when v is no array). */
size_t cs_json_length(const cs_json_value *v);
const cs_json_value *cs_json_at(const cs_json_value *v, size_t i);

/* A value of the type named, else dflt (v may be NULL). A double may be read
 * as an integer only when it is whole and in range; an integer as a double. */
const char *cs_json_get_string(const cs_json_value *v, const char *dflt);
int64_t cs_json_get_int(const cs_json_value *v, int64_t dflt);
double cs_json_get_double(const cs_json_value *v, double dflt);
bool cs_json_get_bool(const cs_json_value *v, bool dflt);

#endif

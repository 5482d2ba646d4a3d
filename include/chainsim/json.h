/* SPDX-License-Identifier: MIT */
/* JSON for the library's outputs (--json, --trace, diff, conform results) and
 * for the one JSON input it reads back, a conform shard's result: jansson
 * (libc only, so a command that writes JSON starts as fast as one that does
 * not) behind the calls below (base/json.c). Not installed: the library's API
 * hands out JSON as text.
 *
 * The text is as docs/json.md states: in pretty text one member or element a
 * line indented by two and " : " after a key; doubles as "%.17g" (".0" on a
 * whole one without exponent, null when not finite); strings with the JSON
 * escapes, other control characters and 0x7F as \u00xx, bytes that are not
 * UTF-8 as U+FFFD. */
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
/* A key and its value in one call: an integer; a number as a "0x..." string;
 * a 32-bit number where UINT32_MAX (CS_NONE32, "none") writes null. */
void cs_json_member_int(cs_json_writer *w, const char *key, int64_t v);
void cs_json_member_hex(cs_json_writer *w, const char *key, uint64_t v);
void cs_json_member_u32_or_null(cs_json_writer *w, const char *key, uint32_t v);

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

/* A value read: jansson's (cs_json_free gives it back). */
typedef struct json_t cs_json_value;

/* Parses len bytes of RFC 8259 JSON (one value, white space around it;
 * nesting at most 2048 deep, integers inside int64, no "\u0000"). NULL with
 * "line L, column C: what" (jansson's words) in err when the text is not
 * that JSON or memory ran out. */
cs_json_value *cs_json_parse(const char *text, size_t len, char *err, size_t errlen);
void cs_json_free(cs_json_value *v);
cs_json_type cs_json_type_of(const cs_json_value *v); /* CS_JSON_NULL for NULL */

/* An object's member (the last one, when the key repeats in the text); NULL
 * when v is not an object or has no such member. */
const cs_json_value *cs_json_member(const cs_json_value *v, const char *key);
/* An array's length (an object's member count) and an array's element (NULL
 * past its end or when v is no array). */
size_t cs_json_length(const cs_json_value *v);
const cs_json_value *cs_json_at(const cs_json_value *v, size_t i);

/* A value of the type named, else dflt (v may be NULL). A double may be read
 * as an integer only when it is whole and in range; an integer as a double. */
const char *cs_json_get_string(const cs_json_value *v, const char *dflt);
int64_t cs_json_get_int(const cs_json_value *v, int64_t dflt);
double cs_json_get_double(const cs_json_value *v, double dflt);
bool cs_json_get_bool(const cs_json_value *v, bool dflt);

#endif

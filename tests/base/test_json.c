/* SPDX-License-Identifier: MIT */
/* base/json.c (jansson, respelled as docs/json.md states) against json-glib,
 * a second opinion: the same calls must give the same bytes (random trees,
 * compact and pretty), and json-glib must read back what the reader reads.
 * Where json-glib 1.6 writes text that is not JSON, the writer's answer is
 * pinned here; so are the reader's (jansson's) refusals. */
#include <criterion/criterion.h>
#include <json-glib/json-glib.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chainsim/json.h"

/* One random tree, built through both writers at once. */
typedef struct both {
	cs_json_writer *w;
	JsonBuilder *b;
	unsigned long seed;
} both;

static unsigned rnd(both *t, unsigned n)
{
	t->seed = t->seed * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)(t->seed >> 33) % n;
}

/* Strings of every byte json-glib escapes as JSON does (not 0x1F), valid
 * UTF-8 of each length, and the characters that need escapes. */
static void random_string(both *t, char *s, size_t cap)
{
	static const char *const parts[] = { "a", "Z", "\"", "\\", "/", "\b", "\f", "\n", "\r",
					     "\t", "\x01", "\x1e", "\x7f", " ", "é", "€", "😀",
					     "<&>", "0", "{}[]:," };
	size_t n = rnd(t, 12), len = 0;
	s[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const char *p = parts[rnd(t, sizeof(parts) / sizeof(parts[0]))];
		if (len + strlen(p) + 1 >= cap)
			break;
		strcpy(s + len, p);
		len += strlen(p);
	}
}

static void random_value(both *t, unsigned depth)
{
	char s[128];
	/* json-glib's builder takes only a container at the top */
	unsigned kind = !depth ? 6 + rnd(t, 2) : depth > 4 ? rnd(t, 6) : rnd(t, 8);
	switch (kind) {
	case 0:
		cs_json_null(t->w), json_builder_add_null_value(t->b);
		break;
	case 1: {
		bool v = rnd(t, 2);
		cs_json_bool(t->w, v), json_builder_add_boolean_value(t->b, v);
		break;
	}
	case 2: {
		static const int64_t ints[] = { 0, 1, -1, 42, INT64_MAX, INT64_MIN, 1000000007 };
		int64_t v = rnd(t, 2) ? ints[rnd(t, 7)] : (int64_t)rnd(t, 1u << 30) - (1 << 29);
		cs_json_int(t->w, v), json_builder_add_int_value(t->b, v);
		break;
	}
	case 3: {
		static const double dbl[] = { 0.0, -0.0, 1.0, 0.1, 1.5, 100.0, 2.5e-7, 1e300,
					      5e-324, 123456789.0, 0.0024, -3.25 };
		double v = rnd(t, 2) ? dbl[rnd(t, 12)] : (double)rnd(t, 1u << 30) / 977.0;
		cs_json_double(t->w, v), json_builder_add_double_value(t->b, v);
		break;
	}
	case 4:
	case 5:
		random_string(t, s, sizeof(s));
		cs_json_string(t->w, s), json_builder_add_string_value(t->b, s);
		break;
	case 6: {
		cs_json_begin_array(t->w), json_builder_begin_array(t->b);
		for (unsigned i = 0, n = rnd(t, 5); i < n; i++)
			random_value(t, depth + 1);
		cs_json_end_array(t->w), json_builder_end_array(t->b);
		break;
	}
	default: {
		cs_json_begin_object(t->w), json_builder_begin_object(t->b);
		for (unsigned i = 0, n = rnd(t, 5); i < n; i++) {
			/* distinct keys: json-glib keeps a repeated key's first place */
			s[0] = (char)('a' + i);
			random_string(t, s + 1, sizeof(s) - 1);
			cs_json_key(t->w, s), json_builder_set_member_name(t->b, s);
			random_value(t, depth + 1);
		}
		cs_json_end_object(t->w), json_builder_end_object(t->b);
	}
	}
}

static char *glib_text(JsonBuilder *b, bool pretty)
{
	JsonGenerator *g = json_generator_new();
	JsonNode *root = json_builder_get_root(b);
	json_generator_set_root(g, root);
	json_generator_set_pretty(g, pretty);
	char *text = json_generator_to_data(g, NULL);
	json_node_unref(root);
	g_object_unref(g);
	return text;
}

Test(json, writes_what_json_glib_writes)
{
	for (unsigned long seed = 1; seed <= 3000; seed++) {
		for (int pretty = 0; pretty < 2; pretty++) {
			both t = { cs_json_writer_new(pretty), json_builder_new(), seed };
			random_value(&t, 0);
			char *ours = cs_json_writer_finish(t.w, NULL), *theirs = glib_text(t.b, pretty);
			cr_assert_not_null(ours, "seed %lu: no text", seed);
			cr_assert_str_eq(ours, theirs, "seed %lu pretty %d\n%s\n%s", seed, pretty, ours, theirs);
			free(ours);
			g_free(theirs);
			g_object_unref(t.b);
		}
	}
}

static char *write_one_double(double v)
{
	cs_json_writer *w = cs_json_writer_new(false);
	cs_json_begin_array(w);
	cs_json_double(w, v);
	cs_json_end_array(w);
	return cs_json_writer_finish(w, NULL);
}

/* json-glib 1.6 writes 1e+22.0, inf.0 and a raw 0x1F: not JSON. */
Test(json, stays_json_where_json_glib_does_not)
{
	char *t = write_one_double(1e22);
	cr_assert_str_eq(t, "[1e+22]");
	free(t);
	t = write_one_double(INFINITY);
	cr_assert_str_eq(t, "[null]");
	free(t);
	t = write_one_double(NAN);
	cr_assert_str_eq(t, "[null]");
	free(t);
	cs_json_writer *w = cs_json_writer_new(false);
	cs_json_begin_array(w);
	cs_json_string(w, "\x1f|\xff|\xc0\x80|\xed\xa0\x80|\xf4\x90\x80\x80|é");
	cs_json_end_array(w);
	t = cs_json_writer_finish(w, NULL);
	/* 0x1F escaped; bytes that are not UTF-8 (a stray byte, an overlong NUL,
	 * a surrogate, past U+10FFFF) each become U+FFFD */
	cr_assert_str_eq(t, "[\"\\u001f|\xEF\xBF\xBD|\xEF\xBF\xBD\xEF\xBF\xBD|"
			    "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD|"
			    "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD|é\"]");
	free(t);
}

Test(json, a_misused_writer_gives_no_text)
{
	cs_json_writer *w = cs_json_writer_new(true);
	cs_json_begin_array(w);
	cs_json_key(w, "k"); /* a key in an array */
	cs_json_end_array(w);
	cr_assert_null(cs_json_writer_finish(w, NULL));
	w = cs_json_writer_new(true);
	cs_json_begin_object(w);
	cs_json_int(w, 1); /* a value without its key */
	cs_json_end_object(w);
	cr_assert_null(cs_json_writer_finish(w, NULL));
	w = cs_json_writer_new(true);
	cs_json_begin_object(w); /* never closed */
	cr_assert_null(cs_json_writer_finish(w, NULL));
	w = cs_json_writer_new(true);
	cs_json_int(w, 1);
	cs_json_int(w, 2); /* two top-level values */
	cr_assert_null(cs_json_writer_finish(w, NULL));
	w = cs_json_writer_new(true);
	cr_assert_null(cs_json_writer_finish(w, NULL)); /* nothing */
}

Test(json, members_write_their_key_and_value)
{
	cs_json_writer *w = cs_json_writer_new(false);
	cs_json_begin_object(w);
	cs_json_member_int(w, "n", -3);
	cs_json_member_hex(w, "va", 0x200001000ull);
	cs_json_member_u32_or_null(w, "launch", 7);
	cs_json_member_u32_or_null(w, "entry", UINT32_MAX);
	cs_json_end_object(w);
	char *t = cs_json_writer_finish(w, NULL);
	cr_assert_str_eq(t, "{\"n\":-3,\"va\":\"0x200001000\",\"launch\":7,\"entry\":null}");
	free(t);
}

/* Our reader and json-glib's agree on what our writer wrote. */
static void same_tree(const cs_json_value *v, JsonNode *n, unsigned long seed)
{
	switch (cs_json_type_of(v)) {
	case CS_JSON_NULL:
		cr_assert(JSON_NODE_HOLDS_NULL(n), "seed %lu", seed);
		break;
	case CS_JSON_BOOL:
		cr_assert_eq(cs_json_get_bool(v, false), json_node_get_boolean(n), "seed %lu", seed);
		break;
	case CS_JSON_INT:
		cr_assert_eq(cs_json_get_int(v, 0), json_node_get_int(n), "seed %lu", seed);
		break;
	case CS_JSON_DOUBLE:
		cr_assert(cs_json_get_double(v, 0) == json_node_get_double(n), "seed %lu", seed);
		break;
	case CS_JSON_STRING:
		cr_assert_str_eq(cs_json_get_string(v, NULL), json_node_get_string(n), "seed %lu", seed);
		break;
	case CS_JSON_ARRAY: {
		JsonArray *a = json_node_get_array(n);
		cr_assert_eq(cs_json_length(v), json_array_get_length(a), "seed %lu", seed);
		for (size_t i = 0; i < cs_json_length(v); i++)
			same_tree(cs_json_at(v, i), json_array_get_element(a, (guint)i), seed);
		break;
	}
	case CS_JSON_OBJECT: {
		JsonObject *o = json_node_get_object(n);
		cr_assert_eq(cs_json_length(v), json_object_get_size(o), "seed %lu", seed);
		GList *keys = json_object_get_members(o);
		for (GList *k = keys; k; k = k->next)
			same_tree(cs_json_member(v, k->data), json_object_get_member(o, k->data), seed);
		g_list_free(keys);
		break;
	}
	}
}

Test(json, reads_what_json_glib_reads)
{
	for (unsigned long seed = 1; seed <= 2000; seed++) {
		both t = { cs_json_writer_new(seed & 1), json_builder_new(), seed };
		random_value(&t, 0);
		size_t len = 0;
		char *text = cs_json_writer_finish(t.w, &len), err[160] = "";
		g_object_unref(t.b);
		cs_json_value *v = cs_json_parse(text, len, err, sizeof(err));
		cr_assert_not_null(v, "seed %lu: %s\n%s", seed, err, text);
		JsonParser *p = json_parser_new();
		cr_assert(json_parser_load_from_data(p, text, (gssize)len, NULL), "seed %lu", seed);
		same_tree(v, json_parser_get_root(p), seed);
		g_object_unref(p);
		cs_json_free(v);
		free(text);
	}
}

static void refused(const char *text, const char *want)
{
	char err[200] = "";
	cs_json_value *v = cs_json_parse(text, strlen(text), err, sizeof(err));
	cr_assert_null(v, "%s was taken", text);
	cr_assert(strstr(err, want), "%s: got \"%s\", want \"%s\"", text, err, want);
}

Test(json, refuses_what_is_not_json_and_says_where)
{
	refused("", "line 1, column 0: unexpected token near end of file");
	refused("{\n  \"a\" 1}", "line 2, column 7: ':' expected near '1'");
	refused("[1,]", "line 1, column 4: unexpected token near ']'");
	refused("[1 2]", "line 1, column 4: ']' expected near '2'");
	refused("{\"a\":1,}", "line 1, column 8: string or '}' expected near '}'");
	refused("{1:2}", "line 1, column 2: string or '}' expected near '1'");
	refused("\"abc", "line 1, column 4: premature end of input");
	refused("\"a\nb\"", "line 1, column 2: unexpected newline");
	refused("\"\\x\"", "line 1, column 3: invalid escape");
	refused("\"\\u12\"", "line 1, column 6: invalid escape");
	refused("\"\\ud800\"", "line 1, column 8: invalid Unicode '\\uD800'");
	refused("\"\\udc00\"", "line 1, column 8: invalid Unicode '\\uDC00'");
	refused("\"\\u0000\"", "line 1, column 8: \\u0000 is not allowed");
	refused("\"\xff\"", "line 1, column 1: unable to decode byte 0xff");
	refused("\"\xc0\x80\"", "line 1, column 1: unable to decode byte 0xc0");
	refused("01", "line 1, column 1: invalid token near '0'");
	refused("-", "line 1, column 1: invalid token near '-'");
	refused("1.", "line 1, column 2: invalid token near '1.'");
	refused("1e+", "line 1, column 3: invalid token near '1e+'");
	refused("tru", "line 1, column 3: invalid token near 'tru'");
	refused("[] x", "line 1, column 4: end of file expected near 'x'");
	refused("NaN", "line 1, column 3: invalid token near 'NaN'");
	refused("\x01", "line 1, column 1: invalid token");
	refused("9223372036854775808", "line 1, column 19: too big integer");
	refused("1e400", "line 1, column 5: real number overflow");
}

Test(json, nesting_is_bounded)
{
	enum { MAX_DEPTH = 2048 }; /* jansson's JSON_PARSER_MAX_DEPTH */
	static char deep[2 * MAX_DEPTH + 3];
	size_t n = 0;
	for (int i = 0; i < MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < MAX_DEPTH; i++)
		deep[n++] = ']';
	char err[200] = "";
	cs_json_value *v = cs_json_parse(deep, n, err, sizeof(err));
	cr_assert_not_null(v, "%s", err);
	cs_json_free(v);
	/* one more level is refused, and a million is as cheap */
	memmove(deep + 1, deep, n);
	deep[0] = '[';
	deep[++n] = ']';
	n++;
	v = cs_json_parse(deep, n, err, sizeof(err));
	cr_assert_null(v);
	cr_assert(strstr(err, "line 1, column 2049: maximum parsing depth reached"), "%s", err);
	size_t big = 1u << 20;
	char *many = malloc(big);
	memset(many, '[', big);
	v = cs_json_parse(many, big, err, sizeof(err));
	cr_assert_null(v);
	cr_assert(strstr(err, "line 1, column 2049: maximum parsing depth reached"), "%s", err);
	free(many);
}

Test(json, reads_numbers_strings_and_members)
{
	const char *text = "{\"i\": -9223372036854775808, \"big\": 9223372036854775808.0,"
			   " \"d\": 2.5e-3, \"w\": 3.0, \"s\": \"\\u00e9\\ud83d\\ude00\\/\","
			   " \"t\": true, \"f\": false, \"n\": null, \"a\": [1, \"x\"], \"i\": 7}";
	char err[200] = "";
	cs_json_value *v = cs_json_parse(text, strlen(text), err, sizeof(err));
	cr_assert_not_null(v, "%s", err);
	cr_assert_eq(cs_json_get_int(cs_json_member(v, "i"), 0), 7); /* the last one */
	const cs_json_value *big = cs_json_member(v, "big");
	cr_assert_eq(cs_json_type_of(big), CS_JSON_DOUBLE);
	cr_assert_eq(cs_json_get_int(big, -1), -1); /* past int64: no integer */
	cr_assert(cs_json_get_double(cs_json_member(v, "d"), 0) == 2.5e-3);
	cr_assert_eq(cs_json_get_int(cs_json_member(v, "w"), 0), 3);
	cr_assert_eq(cs_json_get_int(cs_json_member(v, "d"), -5), -5);
	cr_assert_str_eq(cs_json_get_string(cs_json_member(v, "s"), ""), "é😀/");
	cr_assert(cs_json_get_bool(cs_json_member(v, "t"), false));
	cr_assert(!cs_json_get_bool(cs_json_member(v, "f"), true));
	cr_assert_eq(cs_json_type_of(cs_json_member(v, "n")), CS_JSON_NULL);
	cr_assert_eq(cs_json_type_of(NULL), CS_JSON_NULL);
	const cs_json_value *a = cs_json_member(v, "a");
	cr_assert_eq(cs_json_length(a), 2);
	cr_assert_str_eq(cs_json_get_string(cs_json_at(a, 1), ""), "x");
	cr_assert_null(cs_json_at(a, 2));
	cr_assert_null(cs_json_member(a, "x"));
	cr_assert_null(cs_json_member(v, "missing"));
	cr_assert_str_eq(cs_json_get_string(cs_json_member(v, "t"), "dflt"), "dflt");
	cr_assert_eq(cs_json_get_int(cs_json_at(cs_json_member(v, "a"), 0), 0), 1);
	cs_json_free(v);
}

/* A locale whose decimal point is a comma changes neither side. The locale is
 * compiled for the test (localedef, from Debian's locales package). */
Test(json, numbers_do_not_follow_the_locale)
{
	char dir[] = "/tmp/cs-json-locale-XXXXXX", cmd[256];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 2>&1", dir);
	cr_assert_eq(system(cmd), 0, "cannot build the de_DE locale (apt-get install locales)");
	setenv("LOCPATH", dir, 1);
	cr_assert_not_null(setlocale(LC_NUMERIC, "de_DE.UTF-8"));
	cr_assert_str_eq(localeconv()->decimal_point, ",");
	char *t = write_one_double(0.5);
	cr_assert_str_eq(t, "[0.5]");
	char err[100];
	cs_json_value *v = cs_json_parse("[2.25e1]", 8, err, sizeof(err));
	cr_assert(cs_json_get_double(cs_json_at(v, 0), 0) == 22.5);
	cs_json_free(v);
	free(t);
	setlocale(LC_NUMERIC, "C");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* The fuzz target's seeds and findings (tests/fuzz/json/): each is read, or
 * refused with its line and column; what is read, json-glib reads too. */
Test(json, fuzz_inputs_read_or_are_refused_where_they_break)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(root, "run through meson test");
	char *dir = g_build_filename(root, "tests", "fuzz", "json", NULL);
	GDir *d = g_dir_open(dir, 0, NULL);
	cr_assert_not_null(d, "%s", dir);
	unsigned read = 0, refused_n = 0;
	for (const char *name; (name = g_dir_read_name(d));) {
		char *path = g_build_filename(dir, name, NULL), *text = NULL, err[200] = "";
		gsize len = 0;
		cr_assert(g_file_get_contents(path, &text, &len, NULL), "%s", path);
		cs_json_value *v = cs_json_parse(text, len, err, sizeof(err));
		if (!v) {
			cr_assert(strstr(err, "line ") && strstr(err, ", column "), "%s: %s", name, err);
			refused_n++;
		} else {
			JsonParser *p = json_parser_new();
			cr_assert(json_parser_load_from_data(p, text, (gssize)len, NULL), "%s", name);
			g_object_unref(p);
			cs_json_free(v);
			read++;
		}
		g_free(text);
		g_free(path);
	}
	g_dir_close(d);
	g_free(dir);
	cr_assert_geq(read, 3);
	cr_assert_geq(refused_n, 1);
}

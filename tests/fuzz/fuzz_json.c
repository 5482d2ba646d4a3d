/* SPDX-License-Identifier: MIT */
/* libFuzzer: the JSON reader (jansson's, base/json.c) and what reads JSON in chainsim,
 * `conform merge`. Text the reader takes is written back and read again: the
 * second text must be the first's fixed point, with the same tree. The bytes
 * also go through a file and the real file reader into conform merge, alone
 * and as two shards. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "chainsim/json.h"

#include "conform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A tree the reader gave (jansson's), written back through the writer. */
static void write_tree(cs_json_writer *w, const cs_json_value *v)
{
	switch (json_typeof(v)) {
	case JSON_NULL: cs_json_null(w); break;
	case JSON_TRUE:
	case JSON_FALSE: cs_json_bool(w, json_is_true(v)); break;
	case JSON_INTEGER: cs_json_int(w, json_integer_value(v)); break;
	case JSON_REAL: cs_json_double(w, json_real_value(v)); break;
	case JSON_STRING: cs_json_string(w, json_string_value(v)); break;
	case JSON_ARRAY:
		cs_json_begin_array(w);
		for (size_t i = 0; i < json_array_size(v); i++)
			write_tree(w, json_array_get(v, i));
		cs_json_end_array(w);
		break;
	case JSON_OBJECT: {
		const char *key;
		json_t *member;
		cs_json_begin_object(w);
		json_object_foreach((json_t *)v, key, member) {
			cs_json_key(w, key);
			write_tree(w, member);
		}
		cs_json_end_object(w);
		break;
	}
	}
}

static char *text_of(const cs_json_value *v, bool pretty, size_t *len)
{
	cs_json_writer *w = cs_json_writer_new(pretty);
	write_tree(w, v);
	return cs_json_writer_finish(w, len);
}

static void round_trip(const uint8_t *data, size_t size)
{
	char err[200];
	cs_json_value *v = cs_json_parse((const char *)data, size, err, sizeof(err));
	if (!v) {
		if (!strstr(err, "line ") || !strstr(err, "column "))
			abort(); /* every refusal is located */
		return;
	}
	for (int pretty = 0; pretty < 2; pretty++) {
		size_t l1 = 0, l2 = 0;
		char *t1 = text_of(v, pretty, &l1);
		if (!t1)
			abort();
		cs_json_value *again = cs_json_parse(t1, l1, err, sizeof(err));
		if (!again) {
			fprintf(stderr, "the writer's text was refused: %s\n%s\n", err, t1);
			abort();
		}
		char *t2 = text_of(again, pretty, &l2);
		if (!t2 || l1 != l2 || memcmp(t1, t2, l1) != 0)
			abort(); /* a non-finite double reads back as null; nothing else changes */
		cs_json_free(again);
		free(t1);
		free(t2);
	}
	cs_json_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	round_trip(data, size);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/chainsim-fuzz-json-%d.json", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	conform_merge_opts o = { 0 };
	char *one[] = { path }, *two[] = { path, path };
	(void)conform_merge(&o, one, 1);
	(void)conform_merge(&o, two, 2);
	return 0;
}

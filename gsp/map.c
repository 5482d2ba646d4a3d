/* SPDX-License-Identifier: MIT */
/* The GSP memory map: regions from a GLib key file, overlaps rejected. */
#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/file.h"
#include "chainsim/gsp.h"

static const char *const kind_names[] = {
	[CS_GSP_RAM] = "ram",
	[CS_GSP_ROM] = "rom",
	[CS_GSP_MMIO] = "mmio",
	[CS_GSP_SHARED] = "shared",
};

static const char *const model_names[] = {
	[CS_GSP_MODEL_NONE] = "none",
	[CS_GSP_MODEL_LOG] = "log",
	[CS_GSP_MODEL_REGFILE] = "regfile",
	[CS_GSP_MODEL_DOORBELL] = "doorbell",
};

#define NAME_COUNT(names) (sizeof(names) / sizeof((names)[0]))

const char *cs_gsp_kind_name(cs_gsp_kind k)
{
	return (size_t)k < NAME_COUNT(kind_names) ? kind_names[k] : "?";
}

static const char *model_name(cs_gsp_model m)
{
	return (size_t)m < NAME_COUNT(model_names) ? model_names[m] : "?";
}

/* The index of name among names[first, count), or -1. */
static int name_index(const char *const *names, size_t first, size_t count, const char *name)
{
	for (size_t i = first; i < count; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

cs_status cs_gsp_map_add(cs_gsp_map *map, const cs_gsp_region *r, cs_diag *d)
{
	if (map->count >= CS_GSP_REGIONS_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "region '%s': more than %d regions", r->name,
			    CS_GSP_REGIONS_MAX);
		return CS_ERR_INPUT;
	}
	if (r->size == 0 || (r->base & 0xFFF) || (r->size & 0xFFF)) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "region '%s': base 0x%" G_GINT64_MODIFIER "x and size 0x%" G_GINT64_MODIFIER
			    "x must be non-zero multiples of 4 KiB",
			    r->name, r->base, r->size);
		return CS_ERR_INPUT;
	}
	if (r->base + r->size < r->base) {
		cs_diag_set(d, CS_ERR_INPUT, "region '%s': base + size wraps the address space",
			    r->name);
		return CS_ERR_INPUT;
	}
	if (r->kind == CS_GSP_MMIO && r->model == CS_GSP_MODEL_NONE) {
		cs_diag_set(d, CS_ERR_INPUT, "region '%s': an mmio region needs a model", r->name);
		return CS_ERR_INPUT;
	}
	if (r->kind != CS_GSP_MMIO && r->model != CS_GSP_MODEL_NONE) {
		cs_diag_set(d, CS_ERR_INPUT, "region '%s': model=%s only applies to mmio regions",
			    r->name, model_name(r->model));
		return CS_ERR_INPUT;
	}
	for (size_t i = 0; i < map->count; i++) {
		const cs_gsp_region *o = &map->region[i];
		if (!strcmp(o->name, r->name)) {
			cs_diag_set(d, CS_ERR_INPUT, "region '%s' defined twice", r->name);
			return CS_ERR_INPUT;
		}
		if (r->base < o->base + o->size && o->base < r->base + r->size) {
			cs_diag_set(d, CS_ERR_INPUT,
				    "region '%s' [0x%" G_GINT64_MODIFIER "x, 0x%" G_GINT64_MODIFIER
				    "x) overlaps region '%s' [0x%" G_GINT64_MODIFIER "x, 0x%" G_GINT64_MODIFIER "x)",
				    r->name, r->base, r->base + r->size, o->name, o->base,
				    o->base + o->size);
			return CS_ERR_INPUT;
		}
	}
	map->region[map->count++] = *r;
	return CS_OK;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end = NULL;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

/* GLib reports key-file errors as text with a line number in some cases; we
 * add the group's own line by scanning the text for "[group]". */
static uint32_t group_line(const char *text, size_t len, const char *group)
{
	uint32_t line = 1;
	size_t glen = strlen(group);
	for (size_t i = 0; i < len; i++) {
		if ((i == 0 || text[i - 1] == '\n') && text[i] == '[' && i + glen + 1 < len &&
		    !memcmp(text + i + 1, group, glen) && text[i + 1 + glen] == ']')
			return line;
		if (text[i] == '\n')
			line++;
	}
	return 0;
}

static uint32_t key_line(const char *text, size_t len, const char *group, const char *key)
{
	uint32_t gl = group_line(text, len, group);
	uint32_t line = 1;
	size_t klen = strlen(key);
	for (size_t i = 0; i < len; i++) {
		if ((i == 0 || text[i - 1] == '\n') && line > gl) {
			if (text[i] == '[')
				break;
			if (i + klen < len && !memcmp(text + i, key, klen) &&
			    (text[i + klen] == '=' || text[i + klen] == ' '))
				return line;
		}
		if (text[i] == '\n')
			line++;
	}
	return gl;
}

cs_status cs_gsp_map_parse(const char *text, size_t len, const char *file, cs_gsp_map *map,
			   cs_diag *d)
{
	GKeyFile *kf = g_key_file_new();
	GError *err = NULL;
	cs_status st = CS_OK;
	memset(map, 0, sizeof(*map));
	if (!g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &err)) {
		cs_diag_at_text(d, CS_ERR_INPUT, file, 0, 0, "not a key file: %s", err->message);
		g_error_free(err);
		g_key_file_free(kf);
		return CS_ERR_INPUT;
	}
	gsize ngroups = 0;
	gchar **groups = g_key_file_get_groups(kf, &ngroups);
	if (ngroups == 0) {
		cs_diag_at_text(d, CS_ERR_INPUT, file, 1, 1, "no regions ([name] groups)");
		st = CS_ERR_INPUT;
	}
	for (gsize g = 0; g < ngroups && st == CS_OK; g++) {
		const char *name = groups[g];
		cs_gsp_region r;
		memset(&r, 0, sizeof(r));
		uint32_t gl = group_line(text, len, name);
		if (strlen(name) >= CS_GSP_NAME_MAX) {
			cs_diag_at_text(d, CS_ERR_INPUT, file, gl, 1, "region name '%s' longer than %d",
					name, CS_GSP_NAME_MAX - 1);
			st = CS_ERR_INPUT;
			break;
		}
		memcpy(r.name, name, strlen(name) + 1);
		gsize nkeys = 0;
		gchar **keys = g_key_file_get_keys(kf, name, &nkeys, NULL);
		for (gsize k = 0; keys && k < nkeys && st == CS_OK; k++) {
			const char *key = keys[k];
			if (strcmp(key, "base") && strcmp(key, "size") && strcmp(key, "kind") &&
			    strcmp(key, "model")) {
				cs_diag_at_text(d, CS_ERR_INPUT, file, key_line(text, len, name, key), 1,
						"region '%s': unknown key '%s' (expected base, size, kind, model)",
						name, key);
				st = CS_ERR_INPUT;
			}
		}
		g_strfreev(keys);
		if (st != CS_OK)
			break;
		const char *need[] = { "base", "size", "kind" };
		for (size_t k = 0; k < 3 && st == CS_OK; k++)
			if (!g_key_file_has_key(kf, name, need[k], NULL)) {
				cs_diag_at_text(d, CS_ERR_INPUT, file, gl, 1, "region '%s': missing key '%s'",
						name, need[k]);
				st = CS_ERR_INPUT;
			}
		if (st != CS_OK)
			break;
		gchar *base = g_key_file_get_value(kf, name, "base", NULL);
		gchar *size = g_key_file_get_value(kf, name, "size", NULL);
		gchar *kind = g_key_file_get_value(kf, name, "kind", NULL);
		gchar *model = g_key_file_get_value(kf, name, "model", NULL);
		int named;
		if (!parse_u64(base, &r.base)) {
			cs_diag_at_text(d, CS_ERR_INPUT, file, key_line(text, len, name, "base"), 1,
					"region '%s': base '%s' is not a number", name, base);
			st = CS_ERR_INPUT;
		} else if (!parse_u64(size, &r.size)) {
			cs_diag_at_text(d, CS_ERR_INPUT, file, key_line(text, len, name, "size"), 1,
					"region '%s': size '%s' is not a number", name, size);
			st = CS_ERR_INPUT;
		} else if ((named = name_index(kind_names, 0, NAME_COUNT(kind_names), kind)) < 0) {
			cs_diag_at_text(d, CS_ERR_INPUT, file, key_line(text, len, name, "kind"), 1,
					"region '%s': kind '%s' (expected ram, rom, mmio or shared)", name,
					kind);
			st = CS_ERR_INPUT;
		} else {
			r.kind = (cs_gsp_kind)named;
		}
		/* A region without a model is plain memory: "none" is not written. */
		if (st == CS_OK && model) {
			named = name_index(model_names, CS_GSP_MODEL_LOG, NAME_COUNT(model_names), model);
			if (named < 0) {
				cs_diag_at_text(d, CS_ERR_INPUT, file, key_line(text, len, name, "model"), 1,
						"region '%s': model '%s' (expected log, regfile or doorbell)",
						name, model);
				st = CS_ERR_INPUT;
			} else {
				r.model = (cs_gsp_model)named;
			}
		}
		g_free(base);
		g_free(size);
		g_free(kind);
		g_free(model);
		if (st == CS_OK) {
			cs_diag sub;
			cs_diag_clear(&sub);
			if (cs_gsp_map_add(map, &r, &sub) != CS_OK) {
				cs_diag_at_text(d, CS_ERR_INPUT, file, gl, 1, "%s", sub.msg);
				st = CS_ERR_INPUT;
			}
		}
	}
	g_strfreev(groups);
	g_key_file_free(kf);
	return st;
}

cs_status cs_gsp_map_load(const char *path, cs_gsp_map *map, cs_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	if (!cs_file_read(path, CS_FILE_MAX_TEXT, "the map", &text, &len, d))
		return d && d->status ? d->status : CS_ERR_INPUT;
	cs_status st = cs_gsp_map_parse(text, len, cs_file_name(path), map, d);
	free(text);
	return st;
}

void cs_gsp_map_default(cs_gsp_map *map)
{
	static const cs_gsp_region def[] = {
		{ "ram", 0x80000000u, 0x100000, CS_GSP_RAM, CS_GSP_MODEL_NONE },
		{ "shared", 0x90000000u, 0x81000, CS_GSP_SHARED, CS_GSP_MODEL_NONE },
		{ "doorbell", 0x110000, 0x1000, CS_GSP_MMIO, CS_GSP_MODEL_DOORBELL },
		{ "log", 0x10000000, 0x1000, CS_GSP_MMIO, CS_GSP_MODEL_LOG },
		{ "regs", 0x10001000, 0x1000, CS_GSP_MMIO, CS_GSP_MODEL_REGFILE },
		{ "bootrom", 0x1000, 0x1000, CS_GSP_ROM, CS_GSP_MODEL_NONE },
	};
	memset(map, 0, sizeof(*map));
	for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++)
		map->region[map->count++] = def[i];
}

const cs_gsp_region *cs_gsp_map_find(const cs_gsp_map *map, const char *name)
{
	for (size_t i = 0; i < map->count; i++)
		if (!strcmp(map->region[i].name, name))
			return &map->region[i];
	return NULL;
}

/* SPDX-License-Identifier: MIT */
/* The class registry: the fe's host tables and gr's compute and copy tables
 * behind one lookup, and the scenario's method-naming rules. */
#include "chainsim/registry.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/pushbuf.h"

const cs_class_desc *cs_registry_class(uint32_t cls)
{
	switch (cs_class_kind_of(cls)) {
	case CS_CLASS_HOST:
		return cs_fe_host_class(cls);
	case CS_CLASS_COMPUTE:
	case CS_CLASS_COPY:
		return cs_gr_class(cls);
	default:
		return NULL;
	}
}

uint32_t cs_registry_conventional_class(cs_arch arch, uint32_t subch)
{
	const cs_arch_info *ai = cs_arch_get(arch);
	if (!ai)
		return 0;
	switch (subch) {
	case 1:
	case 2:
		return ai->compute_class;
	case 4:
		return ai->copy_class;
	default:
		return 0;
	}
}

const char *cs_registry_conventional_role(uint32_t subch)
{
	static const char *const roles[] = { "3D", "compute", "I2M", "2D", "copy" };
	return subch < 5 ? roles[subch] : NULL;
}

void cs_binding_init(cs_binding *b, cs_arch arch)
{
	memset(b, 0, sizeof(*b));
	b->arch = arch;
}

uint32_t cs_binding_class(const cs_binding *b, uint32_t subch)
{
	if (subch >= CS_REGISTRY_SUBCHANNELS)
		return 0;
	return b->cls[subch] ? b->cls[subch] : cs_registry_conventional_class(b->arch, subch);
}

void cs_binding_note(cs_binding *b, uint32_t subch, uint32_t method, uint32_t data)
{
	if (subch < CS_REGISTRY_SUBCHANNELS && method == 0)
		b->cls[subch] = CS_FE_GET(set_object, NVCLASS, data);
}

/* A byte offset written as a number: decimal or 0x hex, a multiple of 4 up to
 * the last method. */
static int parse_offset(const char *name, uint32_t *offset, cs_diag *d)
{
	if (!isdigit((unsigned char)name[0]))
		return 0;
	char *end = NULL;
	unsigned long long v = strtoull(name, &end, 0);
	if (*end != '\0') {
		cs_diag_set(d, CS_ERR_INPUT, "bad method offset '%s'", name);
		return -1;
	}
	if (v > CS_PB_MAX_METHOD || v % 4 != 0) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "method offset %s must be a multiple of 4 no larger than 0x%x", name,
			    CS_PB_MAX_METHOD);
		return -1;
	}
	*offset = (uint32_t)v;
	return 1;
}

bool cs_registry_resolve_method(cs_arch arch, uint32_t cls, uint32_t subch, const char *name,
				uint32_t *offset, cs_diag *d)
{
	int num = parse_offset(name, offset, d);
	if (num != 0)
		return num > 0;
	const cs_arch_info *ai = cs_arch_get(arch);
	if (!ai) {
		cs_diag_set(d, CS_ERR_INTERNAL, "unknown arch %d", (int)arch);
		return false;
	}
	const cs_class_desc *host = cs_registry_class(ai->host_class);
	if (host && cs_class_method_named(host, name, offset))
		return true;
	uint32_t eff = cls ? cls : cs_registry_conventional_class(arch, subch);
	const cs_class_desc *desc = eff ? cs_registry_class(eff) : NULL;
	if (desc && cs_class_method_named(desc, name, offset)) {
		if (*offset >= CS_PB_HOST_METHODS)
			return true;
		/* below 0x100 the host class answers on every subchannel */
		if (host && cs_class_method_at(host, *offset, NULL)) {
			cs_diag_set(d, CS_ERR_INPUT,
				    "method %s of %s is at 0x%x, where the host class answers",
				    name, desc->name, *offset);
			return false;
		}
		return true;
	}
	const char *hname = host ? host->name : "the host class";
	if (desc) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "unknown method '%s' on subchannel %u: not in %s nor in %s (%s)", name,
			    subch, hname, desc->name, cls ? "bound by SET_OBJECT" : "by convention");
	} else if (cls) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "unknown method '%s' on subchannel %u: not in %s, and class 0x%04x "
			    "bound there has no method table; use a byte offset",
			    name, subch, hname, cls);
	} else {
		const char *role = cs_registry_conventional_role(subch);
		cs_diag_set(d, CS_ERR_INPUT,
			    "unknown method '%s' on subchannel %u: not in %s, and subchannel %u "
			    "is %s%s (not modelled); bind a class with SET_OBJECT or use a byte "
			    "offset",
			    name, subch, hname, subch, role ? "conventionally " : "not bound",
			    role ? role : "");
	}
	return false;
}

bool cs_registry_method_label(cs_arch arch, uint32_t cls, uint32_t subch, uint32_t offset,
			      char *buf, size_t len, const cs_method_desc **m)
{
	const cs_class_desc *desc;
	if (offset < CS_PB_HOST_METHODS) {
		const cs_arch_info *ai = cs_arch_get(arch);
		desc = ai ? cs_registry_class(ai->host_class) : NULL;
	} else {
		uint32_t eff = cls ? cls : cs_registry_conventional_class(arch, subch);
		desc = eff ? cs_registry_class(eff) : NULL;
	}
	if (!desc)
		return false;
	uint32_t idx;
	const cs_method_desc *md = cs_class_method_at(desc, offset, &idx);
	if (!md)
		return false;
	if (m)
		*m = md;
	return cs_class_method_label(desc, offset, buf, len);
}

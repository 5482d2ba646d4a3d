/* SPDX-License-Identifier: MIT */
/* The class registry (sim/scenario/registry.c): one lookup over the host
 * class tables (fe/) and the compute and copy tables (gr/), and the rules of
 * docs/scenario.md for naming a method in a scenario: a host-class name
 * (any subchannel), a name of the class bound on the subchannel (by an
 * earlier SET_OBJECT, else the conventional binding: 0 3D, 1 compute, 2 I2M
 * through the compute class, 3 2D, 4 copy, with the arch's canonical
 * classes), or a byte offset. */
#ifndef CHAINSIM_REGISTRY_H
#define CHAINSIM_REGISTRY_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/classdesc.h"
#include "chainsim/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CS_REGISTRY_SUBCHANNELS = 8 };

/* The method table of any class chainsim models (host, compute, copy); NULL
 * for an unknown or unmodelled (3D, 2D) class. */
CS_API const cs_class_desc *cs_registry_class(uint32_t cls);

/* The class a subchannel has by convention on arch (Mesa's): 1 and 2 the
 * compute class, 4 the copy class; 0 for 0 (3D), 3 (2D) and 5..7, which have
 * no modelled class. */
CS_API uint32_t cs_registry_conventional_class(cs_arch arch, uint32_t subch);
/* "3D", "compute", "I2M", "2D", "copy", or NULL for 5..7. */
CS_API const char *cs_registry_conventional_role(uint32_t subch);

/* The binding the assembler and disasm track while they walk a stream:
 * cls[i] = the class an earlier SET_OBJECT put on subchannel i, 0 = none yet
 * (then the conventional binding applies). */
typedef struct cs_binding {
	cs_arch arch;
	uint32_t cls[CS_REGISTRY_SUBCHANNELS];
} cs_binding;

CS_API void cs_binding_init(cs_binding *b, cs_arch arch);
/* The class names resolve against on subch: bound, else conventional (0: none). */
CS_API uint32_t cs_binding_class(const cs_binding *b, uint32_t subch);
/* Note one method's data dword: a SET_OBJECT (offset 0) binds data[15:0]. */
CS_API void cs_binding_note(cs_binding *b, uint32_t subch, uint32_t method, uint32_t data);

/* Resolve METHOD (a name, NAME(i), or a byte offset as decimal or 0x hex) on
 * subch, where cls is the class bound there (0 = none: the conventional
 * binding). Host-class names come first. On failure d (no location: the
 * caller adds it) says what was looked up and where. */
CS_API bool cs_registry_resolve_method(cs_arch arch, uint32_t cls, uint32_t subch, const char *name,
				uint32_t *offset, cs_diag *d);
/* The name of the method at a byte offset on subch (host class below 0x100,
 * else cls or the conventional class); false when none. *m gets its
 * description when m is not NULL. */
CS_API bool cs_registry_method_label(cs_arch arch, uint32_t cls, uint32_t subch, uint32_t offset,
			      char *buf, size_t len, const cs_method_desc **m);

#ifdef __cplusplus
}
#endif

#endif

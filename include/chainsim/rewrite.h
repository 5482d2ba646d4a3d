/* SPDX-License-Identifier: MIT */
/* The rewrite library: what a forwarding layer does to a guest's stream on
 * its way to the host, as rules applied by the device's forwarding hook
 * (cs_device_set_forward). Relocation reads the class and QMD tables' address
 * fields (include/chainsim/classdesc.h, cs_qmd_addr_fields): every address a
 * method or QMD field carries moves from the guest's view to the host's
 * through the device's windows (cs_device_map_host). Every edit is recorded
 * as stage-3 evidence (cs_forward_note), which the judge checks. */
#ifndef CHAINSIM_REWRITE_H
#define CHAINSIM_REWRITE_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/device.h"
#include "chainsim/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cs_rewrite cs_rewrite;

CS_API cs_rewrite *cs_rewrite_new(void);
CS_API void cs_rewrite_free(cs_rewrite *rw);

/* Relocate every address the tables name: the pushbuffer of each entry
 * ("PUSHBUFFER"), method address parts (SEM_ADDR, SEMAPHORE, I2M_DST, REPORT,
 * QMD, INLINE_QMD, LOCAL_MEMORY, COPY_SRC, COPY_DST, COPY_SEMAPHORE,
 * MEM_OP_TARGET) and QMD fields (PROGRAM, CONSTANT_BUFFER, RELEASE0, RELEASE1,
 * DEPENDENT_QMD), in pushbuffers, inline QMDs and QMDs in memory (copied into
 * the host's memory with their fields patched). An address no window holds
 * is left as it is. */
CS_API void cs_rewrite_relocate(cs_rewrite *rw, bool on);
/* Leave the address `addr` (one of the names above) in the guest's view:
 * how a test writes a forwarding bug on purpose. False for an unknown name
 * (or more names than there are). */
CS_API bool cs_rewrite_keep_guest(cs_rewrite *rw, const char *addr);
/* Relocate `addr` to its window's host address plus delta: a wrong base, as a
 * forwarding bug written on purpose (the judge names it forward-misrelocated).
 * False for an unknown name. */
CS_API bool cs_rewrite_skew(cs_rewrite *rw, const char *addr, int64_t delta);
/* Whether addr is a name cs_rewrite_keep_guest knows: PUSHBUFFER or an
 * address some class or QMD table names. */
CS_API bool cs_rewrite_addr_known(const char *addr);

/* Drop every method of that table name ("SEND_SIGNALING_PCAS2_B") on subch
 * (8 = any subchannel). */
CS_API bool cs_rewrite_drop_named(cs_rewrite *rw, uint32_t subch, const char *name);
/* Replace the data of every method of that name on subch (8 = any). */
CS_API bool cs_rewrite_replace_named(cs_rewrite *rw, uint32_t subch, const char *name,
				     uint32_t data);
/* Insert these dwords (copied) as an entry of the host's own before the first
 * entry the host forwards. */
CS_API bool cs_rewrite_prelude(cs_rewrite *rw, const uint32_t *dw, size_t n);
/* Split entries longer than max_dwords at method boundaries. */
CS_API void cs_rewrite_split(cs_rewrite *rw, uint32_t max_dwords);
/* Merge the entries of each submission into one (a control entry, or one
 * forwarded as the guest wrote it, keeps its place between merged runs);
 * with split, the merged entry is split again. */
CS_API void cs_rewrite_merge(cs_rewrite *rw, bool on);

/* Every call above that asks for an edit (relocate, each name kept, each
 * address skewed, each drop or replace rule, the prelude, split, merge) adds
 * one, numbered from 0 in call order; this is how many there are. */
CS_API unsigned cs_rewrite_edits(const cs_rewrite *rw);
/* After the run: true when every edit changed something the host forwarded
 * (a relocation reached an address, a kept or skewed name was met, a rule
 * matched a method, the prelude went out, an entry was split, entries were
 * merged). Otherwise false, with *edit (when not NULL) the first edit that
 * matched nothing and d naming it: a test whose edit matched nothing tests
 * nothing, so call this before believing a verdict. */
CS_API bool cs_rewrite_check(const cs_rewrite *rw, unsigned *edit, cs_diag *d);

/* The forwarding hook applying rw (pass rw as ctx to cs_device_set_forward).
 * A stream it cannot decode (a malformed header) is forwarded as it is. */
CS_API bool cs_rewrite_forward(void *rw, cs_forward *fw, uint32_t lo, uint32_t hi, cs_diag *d);

#ifdef __cplusplus
}
#endif

#endif

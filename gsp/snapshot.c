/* SPDX-License-Identifier: MIT */
/* Snapshots of the GSP machine: the CPU context, every memory-backed
 * region, the MMIO models' registers, the message-queue host state and the
 * firmware log's length; together at most CS_GSP_SNAPSHOTS_MAX of them and
 * CS_GSP_SNAPSHOT_BYTES_MAX bytes of region memory. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gsp_internal.h"

static void snapshot_free(gsp_snapshot *s, const cs_gsp *m)
{
	if (!s)
		return;
	if (s->ctx)
		uc_context_free(s->ctx);
	for (size_t i = 0; s->mem && i < m->map.count; i++)
		free(s->mem[i]);
	free(s->mem);
	for (size_t i = 0; s->mmio_regs && i < s->nmmio; i++)
		g_hash_table_destroy(s->mmio_regs[i]);
	free(s->mmio_regs);
	free(s->mon);
	free(s);
}

void gsp_snapshots_free(cs_gsp *m)
{
	if (!m->snaps)
		return;
	for (guint i = 0; i < m->snaps->len; i++)
		snapshot_free(g_ptr_array_index(m->snaps, i), m);
	g_ptr_array_free(m->snaps, TRUE);
}

static gsp_snapshot *snapshot_find(cs_gsp *m, const char *name, guint *index)
{
	for (guint i = 0; i < m->snaps->len; i++) {
		gsp_snapshot *s = g_ptr_array_index(m->snaps, i);
		if (!strcmp(s->name, name)) {
			if (index)
				*index = i;
			return s;
		}
	}
	return NULL;
}

cs_status cs_gsp_snapshot_save(cs_gsp *m, const char *name, cs_diag *d)
{
	if (strlen(name) >= sizeof(((gsp_snapshot *)0)->name) || !*name) {
		cs_diag_set(d, CS_ERR_INPUT, "snapshot name must be 1 to 63 characters");
		return CS_ERR_INPUT;
	}
	/* the snapshots together are bounded in count and bytes; replacing one
	 * by its name frees the old one's room first */
	uint64_t bytes = 0;
	for (size_t i = 0; i < m->map.count; i++)
		if (m->map.region[i].kind != CS_GSP_MMIO)
			bytes += m->map.region[i].size;
	gsp_snapshot *prev = snapshot_find(m, name, NULL);
	uint64_t held = m->snap_bytes - (prev ? prev->bytes : 0);
	if (!prev && m->snaps->len >= CS_GSP_SNAPSHOTS_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "snapshot '%s': %u snapshots is the limit", name,
			    (unsigned)CS_GSP_SNAPSHOTS_MAX);
		return CS_ERR_INPUT;
	}
	if (held + bytes > CS_GSP_SNAPSHOT_BYTES_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "snapshot '%s': %" PRIu64 " more bytes would pass the "
			    "limit of %" PRIu64 " MiB for all snapshots", name, bytes,
			    (uint64_t)CS_GSP_SNAPSHOT_BYTES_MAX >> 20);
		return CS_ERR_INPUT;
	}
	gsp_snapshot *s = calloc(1, sizeof(*s));
	if (!s)
		return CS_ERR_NOMEM;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->bytes = bytes;
	s->mem = calloc(m->map.count, sizeof(*s->mem));
	s->mmio_regs = calloc(m->nmmio ? m->nmmio : 1, sizeof(*s->mmio_regs));
	if (!s->mem || !s->mmio_regs || uc_context_alloc(m->uc, &s->ctx) != UC_ERR_OK ||
	    uc_context_save(m->uc, s->ctx) != UC_ERR_OK) {
		snapshot_free(s, m);
		cs_diag_set(d, CS_ERR_NOMEM, "cannot save snapshot '%s'", name);
		return CS_ERR_NOMEM;
	}
	for (size_t i = 0; i < m->map.count; i++) {
		const cs_gsp_region *r = &m->map.region[i];
		if (r->kind == CS_GSP_MMIO)
			continue;
		s->mem[i] = malloc(r->size);
		if (!s->mem[i] || uc_mem_read(m->uc, r->base, s->mem[i], r->size) != UC_ERR_OK) {
			snapshot_free(s, m);
			cs_diag_set(d, CS_ERR_NOMEM, "cannot save region '%s'", r->name);
			return CS_ERR_NOMEM;
		}
	}
	for (; s->nmmio < m->nmmio; s->nmmio++)
		s->mmio_regs[s->nmmio] = gsp_mmio_regs_copy(m->mmio[s->nmmio].regs);
	s->mon = malloc(sizeof(*s->mon));
	if (!s->mon) {
		snapshot_free(s, m);
		return CS_ERR_NOMEM;
	}
	*s->mon = m->mon;
	s->q = m->q;
	s->irq_pending = m->irq_pending;
	s->host_irq_status = m->host_irq_status;
	s->host_irqs = m->host_irqs;
	s->log_len = m->log->len;
	guint idx;
	gsp_snapshot *old = snapshot_find(m, name, &idx);
	if (old) {
		m->snap_bytes -= old->bytes;
		snapshot_free(old, m);
		g_ptr_array_index(m->snaps, idx) = s;
	} else
		g_ptr_array_add(m->snaps, s);
	m->snap_bytes += s->bytes;
	return CS_OK;
}

cs_status cs_gsp_snapshot_restore(cs_gsp *m, const char *name, cs_diag *d)
{
	gsp_snapshot *s = snapshot_find(m, name, NULL);
	if (!s) {
		cs_diag_set(d, CS_ERR_INPUT, "no snapshot '%s'", name);
		return CS_ERR_INPUT;
	}
	uc_context_restore(m->uc, s->ctx);
	for (size_t i = 0; i < m->map.count; i++)
		if (s->mem[i])
			uc_mem_write(m->uc, m->map.region[i].base, s->mem[i], m->map.region[i].size);
	for (size_t i = 0; i < s->nmmio; i++) {
		g_hash_table_destroy(m->mmio[i].regs);
		m->mmio[i].regs = gsp_mmio_regs_copy(s->mmio_regs[i]);
	}
	uc_hook mon = m->q.mon_hook;
	bool armed = m->q.monitor;
	m->q = s->q;
	m->q.mon_hook = mon;
	m->q.monitor = armed;
	m->irq_pending = s->irq_pending;
	m->host_irq_status = s->host_irq_status;
	m->host_irqs = s->host_irqs;
	if (s->log_len <= m->log->len)
		g_string_truncate(m->log, s->log_len);
	/* the MPU model's mappings are Unicorn regions: the current ones go and
	 * the snapshot's current partition's come back */
	gsp_mpu_leave(m);
	m->mon = *s->mon;
	for (size_t p = 0; p < GSP_PARTITIONS_MAX; p++)
		for (size_t e = 0; e < GSP_MPU_ENTRIES; e++)
			m->mon.part[p].mpu.entry[e].npieces = 0;
	char why[160];
	if (!gsp_mpu_enter(m, why, sizeof(why))) {
		cs_diag_set(d, CS_ERR_FAULT, "snapshot '%s': %s", name, why);
		return CS_ERR_FAULT;
	}
	/* translated blocks stay valid: code is restored byte for byte */
	return CS_OK;
}

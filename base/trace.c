/* SPDX-License-Identifier: MIT */
#include "chainsim/trace.h"

const char *cs_event_kind_name(cs_event_kind kind)
{
	switch (kind) {
	case CS_EV_GUEST_BUILD: return "guest-build";
	case CS_EV_GP_PUT: return "gp-put";
	case CS_EV_DOORBELL: return "doorbell";
	case CS_EV_HOST_FORWARD: return "host-forward";
	case CS_EV_GP_FETCH: return "gp-fetch";
	case CS_EV_GP_CONTROL: return "gp-control";
	case CS_EV_METHOD: return "method";
	case CS_EV_BIND: return "bind";
	case CS_EV_SEM_ACQUIRE: return "sem-acquire";
	case CS_EV_SEM_BLOCK: return "sem-block";
	case CS_EV_SEM_RELEASE: return "sem-release";
	case CS_EV_HOST_OP: return "host-op";
	case CS_EV_ENTRY_DONE: return "entry-done";
	case CS_EV_CHANNEL_STOP: return "channel-stop";
	case CS_EV_I2M_WRITE: return "i2m-write";
	case CS_EV_QMD_INSTALL: return "qmd-install";
	case CS_EV_QMD_SCHEDULE: return "qmd-schedule";
	case CS_EV_QMD_READ: return "qmd-read";
	case CS_EV_QMD_REJECT: return "qmd-reject";
	case CS_EV_CTX_LOAD: return "ctx-load";
	case CS_EV_CTX_BAD: return "ctx-bad";
	case CS_EV_DISPATCH: return "dispatch";
	case CS_EV_CTA_RANGE: return "cta-range";
	case CS_EV_GRID_DONE: return "grid-done";
	case CS_EV_GRID_NOT_RUN: return "grid-not-run";
	case CS_EV_COPY: return "copy";
	case CS_EV_CACHE_INVALIDATE: return "cache-invalidate";
	case CS_EV_DEPENDENT_QMD: return "dependent-qmd";
	case CS_EV_ASSUMPTION: return "assumption";
	case CS_EV_FAULT: return "fault";
	case CS_EV_WAIT_BEGIN: return "wait-begin";
	case CS_EV_WAIT_DONE: return "wait-done";
	case CS_EV_WAIT_FAILED: return "wait-failed";
	case CS_EV_DEADLOCK: return "deadlock";
	case CS_EV_INLINE_QMD_SHORT: return "inline-qmd-short";
	case CS_EV_PRINTF: return "printf";
	case CS_EV_RACE: return "race";
	case CS_EV_ATOMIC_ORDER: return "atomic-order";
	case CS_EV_VIEW_MAP: return "view-map";
	case CS_EV_HOST_EDIT: return "host-edit";
	case CS_EV_KIND_COUNT: break;
	}
	return "?";
}

const char *cs_unit_name(cs_unit unit)
{
	switch (unit) {
	case CS_UNIT_GUEST: return "guest";
	case CS_UNIT_HOST: return "host";
	case CS_UNIT_FE: return "front-end";
	case CS_UNIT_COMPUTE: return "compute";
	case CS_UNIT_COPY: return "copy";
	case CS_UNIT_SM: return "sm";
	case CS_UNIT_COUNT: break;
	}
	return "?";
}

const char *cs_access_name(cs_access acc)
{
	switch (acc) {
	case CS_ACCESS_READ: return "read";
	case CS_ACCESS_WRITE: return "write";
	case CS_ACCESS_ATOMIC: return "atomic";
	case CS_ACCESS_FETCH: return "fetch";
	}
	return "?";
}

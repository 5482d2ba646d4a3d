/* SPDX-License-Identifier: MIT */
/* The method-stream session behind `chainsim repl` (docs/repl.md): a scenario
 * executed on a device whose front end stops between methods. The scenario
 * runs as a coroutine on the REPL's thread; the device's method hook switches
 * back to the REPL whenever a stop condition holds, and the REPL reads the
 * paused device. One thread, taking turns, so output is deterministic. */
#ifndef CHAINSIM_TOOLS_REPL_STREAM_H
#define CHAINSIM_TOOLS_REPL_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/device.h"
#include "chainsim/diag.h"
#include "chainsim/run.h"
#include "chainsim/scenario.h"

typedef struct rs_session rs_session;

typedef enum rs_go {
	RS_GO_STEP,         /* count methods */
	RS_GO_NEXT,         /* to the first method of another GPFIFO entry */
	RS_GO_CONTINUE,     /* to a breakpoint or the end */
	RS_GO_UNTIL_STAGE,  /* until stage N fires */
	RS_GO_UNTIL_METHOD, /* until a method of that name is next */
	RS_GO_UNTIL_BREAK,  /* until a record shows the chain breaking */
} rs_go;

typedef enum rs_break_kind { RS_BREAK_METHOD, RS_BREAK_STAGE, RS_BREAK_WRITE } rs_break_kind;

enum { RS_MAX_BREAKS = 32, RS_WATCH_MAX = 64, RS_NAME_MAX = 64 };

typedef struct rs_break {
	unsigned id;
	rs_break_kind kind;
	char name[RS_NAME_MAX];  /* method name */
	uint32_t subch;          /* CS_NONE32: any */
	unsigned stage;
	uint64_t addr;
	uint32_t len;
	uint8_t last[RS_WATCH_MAX];
	bool last_ok;
	uint64_t hits;
} rs_break;

/* Loads FILE and runs it, with the executor's options exec (every method is
 * recorded whatever they say), up to its first method (or its end). */
rs_session *rs_session_new(const char *path, const cs_run_opts *exec, cs_diag *d);
void rs_session_free(rs_session *s);
/* Runs the scenario to its end in silence, then loads it again from the file
 * with the breakpoints kept. */
bool rs_session_restart(rs_session *s, cs_diag *d);

cs_device *rs_session_device(rs_session *s);
cs_scenario *rs_session_scenario(rs_session *s);
/* The method the device is stopped before; false once the program ended. */
bool rs_session_current(const rs_session *s, cs_method_call *call, uint64_t *number);
bool rs_session_finished(const rs_session *s);

/* Lets the device run until the condition or a breakpoint holds, then prints
 * why it stopped and where. arg: count (STEP), stage (UNTIL_STAGE); name for
 * UNTIL_METHOD. */
void rs_session_go(rs_session *s, rs_go go, uint64_t arg, const char *name, FILE *out);

/* Breakpoints. */
bool rs_break_add(rs_session *s, const rs_break *b, unsigned *id, cs_diag *d);
bool rs_break_delete(rs_session *s, unsigned id); /* 0 = all */
size_t rs_break_count(const rs_session *s);
const rs_break *rs_break_at(const rs_session *s, size_t i);

/* "#12 ch0 entry 0 method 11 subch 1 HOPPER_COMPUTE_A.SEND_PCAS_A = 0x00000400 (FIELDS)";
 * returns the length written. */
size_t rs_describe_method(rs_session *s, const cs_method_call *c, uint64_t number, char *buf, size_t len);
/* Whether a method with this name exists in any class of the scenario's arch. */
bool rs_method_name_known(const rs_session *s, const char *name);
/* The i-th method name of the arch's classes (completion), NULL past the end. */
const char *rs_method_name(const rs_session *s, size_t i);

#endif

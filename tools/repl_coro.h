/* SPDX-License-Identifier: MIT */
/* A coroutine for the method-stream REPL (repl_stream.c): a function run on its
 * own stack, on the caller's thread, that hands control back and forth with
 * the caller. Exactly one side runs at a time. */
#ifndef CHAINSIM_TOOLS_REPL_CORO_H
#define CHAINSIM_TOOLS_REPL_CORO_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rs_coro rs_coro;

/* A coroutine with a stack of its own (mapped lazily, under a guard page);
 * NULL when the stack cannot be mapped. */
rs_coro *rs_coro_new(void);
void rs_coro_free(rs_coro *co);

/* Prepares fn(arg) to run from its start at the next rs_coro_enter. fn must
 * end with rs_coro_exit, never return. */
void rs_coro_start(rs_coro *co, void (*fn)(void *arg), void *arg);
/* The caller's side: runs the coroutine until it yields or exits. */
void rs_coro_enter(rs_coro *co);
/* The coroutine's side: back to the caller, until the next rs_coro_enter. */
void rs_coro_yield(rs_coro *co);
/* The coroutine's side, last: back to the caller for good. */
_Noreturn void rs_coro_exit(rs_coro *co);

#endif

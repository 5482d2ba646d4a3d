/* SPDX-License-Identifier: MIT */
/* The REPL's coroutine (repl_coro.h). On x86-64 a switch is a dozen
 * instructions of our own; elsewhere (and under CET) it is ucontext's
 * swapcontext, which also saves the signal mask with a system call each time
 * (about 170 ns, a third of a `step` on the host-methods benchmark). */
#include "repl_coro.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define CORO_ASAN 1
#endif

/* Built with -fcf-protection (__CET__), a shadow stack may be on: glibc's
 * swapcontext switches it, our switch would not. */
#if defined(__x86_64__) && !defined(__CET__)
#define CORO_ASM 1
#else
#include <ucontext.h>
#endif

/* as big as a thread's default stack: the device runs the PTX executor on it */
enum { CORO_STACK = 8 << 20, CORO_GUARD = 4096 };

struct rs_coro {
	char *map; /* the guard page, then the stack */
#ifdef CORO_ASM
	void *caller_sp, *self_sp;
#else
	ucontext_t caller, self;
#endif
#ifdef CORO_ASAN
	/* AddressSanitizer keeps one stack per context: it is told of each switch */
	void *caller_fake, *self_fake;
	const void *caller_stack;
	size_t caller_stack_size;
#endif
	void (*fn)(void *);
	void *arg;
};

static void coro_main(rs_coro *co)
{
#ifdef CORO_ASAN
	__sanitizer_finish_switch_fiber(NULL, &co->caller_stack, &co->caller_stack_size);
#endif
	co->fn(co->arg);
	abort(); /* fn ends with rs_coro_exit */
}

#ifdef CORO_ASM
/* coro_switch(from, to): pushes what the SysV ABI has a call preserve (rbp,
 * rbx, r12-r15, the MXCSR and x87 control words), stores the stack pointer
 * in *from, loads `to` and pops the same from there. A new stack is laid out
 * to pop into coro_first, which calls r13(r12). */
void rs_coro_switch(void **from, void *to);
void rs_coro_first(void);
__asm__(".text\n"
	".globl rs_coro_switch\n"
	".hidden rs_coro_switch\n"
	".type rs_coro_switch, @function\n"
	"rs_coro_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size rs_coro_switch, .-rs_coro_switch\n"
	".globl rs_coro_first\n"
	".hidden rs_coro_first\n"
	".type rs_coro_first, @function\n"
	"rs_coro_first:\n"
	"	movq %r12, %rdi\n"
	"	call *%r13\n"
	"	ud2\n"
	".size rs_coro_first, .-rs_coro_first\n");
#else
/* makecontext passes int arguments only: the coroutine arrives in two halves */
static void coro_main_ints(unsigned hi, unsigned lo)
{
	coro_main((rs_coro *)(((uintptr_t)hi << 32) | (uintptr_t)lo));
}
#endif

rs_coro *rs_coro_new(void)
{
	rs_coro *co = calloc(1, sizeof(*co));
	if (!co)
		return NULL;
	co->map = mmap(NULL, CORO_GUARD + CORO_STACK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (co->map == MAP_FAILED) {
		free(co);
		return NULL;
	}
	if (mprotect(co->map, CORO_GUARD, PROT_NONE)) {
		munmap(co->map, CORO_GUARD + CORO_STACK);
		free(co);
		return NULL;
	}
	return co;
}

void rs_coro_free(rs_coro *co)
{
	if (!co)
		return;
	munmap(co->map, CORO_GUARD + CORO_STACK);
	free(co);
}

void rs_coro_start(rs_coro *co, void (*fn)(void *arg), void *arg)
{
	co->fn = fn;
	co->arg = arg;
#ifdef CORO_ASM
	uintptr_t top = ((uintptr_t)co->map + CORO_GUARD + CORO_STACK) & ~(uintptr_t)15;
	uint64_t *sp = (uint64_t *)top - 8;
	sp[0] = 0x1f80 | (UINT64_C(0x037f) << 32); /* MXCSR and x87 control at reset */
	sp[1] = sp[2] = sp[5] = sp[6] = 0;          /* r15 r14 rbx rbp */
	sp[3] = (uintptr_t)coro_main;                /* r13 */
	sp[4] = (uintptr_t)co;                       /* r12 */
	sp[7] = (uintptr_t)rs_coro_first;            /* where the first switch returns */
	co->self_sp = sp;
#else
	getcontext(&co->self);
	co->self.uc_stack.ss_sp = co->map + CORO_GUARD;
	co->self.uc_stack.ss_size = CORO_STACK;
	co->self.uc_link = NULL;
	uintptr_t p = (uintptr_t)co;
	makecontext(&co->self, (void (*)(void))coro_main_ints, 2, (unsigned)(p >> 32),
		    (unsigned)(p & 0xffffffffu));
#endif
}

void rs_coro_enter(rs_coro *co)
{
#ifdef CORO_ASAN
	__sanitizer_start_switch_fiber(&co->caller_fake, co->map + CORO_GUARD, CORO_STACK);
#endif
#ifdef CORO_ASM
	rs_coro_switch(&co->caller_sp, co->self_sp);
#else
	swapcontext(&co->caller, &co->self);
#endif
#ifdef CORO_ASAN
	__sanitizer_finish_switch_fiber(co->caller_fake, NULL, NULL);
#endif
}

void rs_coro_yield(rs_coro *co)
{
#ifdef CORO_ASAN
	__sanitizer_start_switch_fiber(&co->self_fake, co->caller_stack, co->caller_stack_size);
#endif
#ifdef CORO_ASM
	rs_coro_switch(&co->self_sp, co->caller_sp);
#else
	swapcontext(&co->self, &co->caller);
#endif
#ifdef CORO_ASAN
	__sanitizer_finish_switch_fiber(co->self_fake, &co->caller_stack, &co->caller_stack_size);
#endif
}

void rs_coro_exit(rs_coro *co)
{
#ifdef CORO_ASAN
	/* NULL: this context ends, its fake stack can go */
	__sanitizer_start_switch_fiber(NULL, co->caller_stack, co->caller_stack_size);
#endif
#ifdef CORO_ASM
	rs_coro_switch(&co->self_sp, co->caller_sp);
#else
	setcontext(&co->caller);
#endif
	abort(); /* never resumed */
}

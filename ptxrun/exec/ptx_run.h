/* SPDX-License-Identifier: MIT */
/* Private to ptxrun/exec/: what the warp loop (ptx_exec.c), the race detector
 * (ptx_race.c) and the CTA and grid threading (ptx_grid.c) share: one worker's
 * state, the grid's, and the grid's locks and clock the warp loop takes
 * inline. */
#ifndef CS_PTX_RUN_H
#define CS_PTX_RUN_H

#include "ptx_int.h"

#include "chainsim/trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PTX_FULL 0xffffffffu
#define PTX_LOW32 0xffffffffull

enum { TLB_N = 128, STACK_MAX = 4096, NBAR = 16 };

typedef struct sentry {
	uint32_t pc, rpc, mask, call;
} sentry;

/* A cp.async in flight: its source bytes, read at issue, land in shared
 * memory at the wait that covers its group (or when its warp ends). */
typedef struct async_copy {
	uint32_t dst, pc;  /* shared offset (checked at issue); the cp.async's pc */
	uint32_t group;    /* the lane's committed-group count at issue */
	uint8_t lane, size;
	uint8_t bytes[16];
} async_copy;
enum { ASYNC_MAX = 1u << 16 }; /* copies in flight per warp */

typedef struct warp {
	uint64_t *r;
	uint32_t *pr;
	sentry *stk;
	uint32_t sp, cap;
	uint32_t live;
	uint32_t id;
	int state;
	uint32_t bar_id;
	uint64_t clock;
	uint64_t tlb_tag[TLB_N];
	uint8_t *tlb_ptr[TLB_N];
	async_copy *copies;       /* cp.async in flight, in issue order */
	uint32_t ncopies, cap_copies;
	uint32_t groups[PTX_WARP]; /* cp.async groups each lane has committed */
	bool mbar_wait;            /* it yielded at an mbarrier wait that found its phase
				      incomplete, for the object at shared offset mbar_at */
	uint32_t mbar_at;
	/* the phase (parity mbar_parity) of the object at mbar_at it waits for
	 * completed while it was waiting: its next wait for it sees that, as a
	 * thread suspended in try_wait (or polling) does, even if the object was
	 * initialized again since */
	uint8_t mbar_parity;
	bool mbar_pending_wait, mbar_seen;
	bool spun;                 /* cooperative: it yielded before the F_SPIN instruction
				      at its pc, which runs when it resumes */
} warp;

enum { W_READY, W_BARRIER, W_DONE };

/* What the race detector remembers of one shared byte: the last write and the
 * last read in the current epoch (warp RACE_MANY: more than one warp read it). */
typedef struct race_cell {
	uint32_t write_epoch, read_epoch;
	uint32_t write_pc, read_pc;
	uint16_t write_warp, read_warp;
} race_cell;
enum { RACE_MANY = 0xffff, RACE_PAIRS_MAX = 16 };

/* The same for one global byte, across the grid: which CTA and warp wrote and
 * read it last (CTA RACE_NO_CTA: never). */
typedef struct global_cell {
	uint64_t va;
	uint32_t write_cta, read_cta;
	uint32_t write_epoch, read_epoch;
	uint32_t write_pc, read_pc;
	uint16_t write_warp, read_warp;
} global_cell;
#define RACE_NO_CTA UINT32_MAX
/* A CTA's outcome; R_ABANDONED: stopped because an earlier CTA already ended
 * the grid (its result is never committed). */
enum { R_OK, R_FAULT, R_ERROR, R_BUDGET, R_ABANDONED };

/* A trace record a worker holds back until its CTA commits (in CTA order). */
typedef struct held_event {
	cs_event ev;
	char *detail;
} held_event;

typedef struct held_events {
	held_event *v;
	size_t n, cap;
	bool lost; /* a record could not be held: out of memory */
} held_events;

typedef struct grid grid;

/* One worker's state: the CTA it runs now, with that CTA's warps, shared and
 * local memory (every CTA starts from zeroed registers and memory, so a result
 * does not depend on which worker ran the CTA before). */
typedef struct run {
	const cs_ptx_program *p;
	const ptx_func *f;
	const cs_ptx_launch *l;
	const cs_bus *bus;
	uint8_t *shared;
	uint64_t shared_size;
	uint32_t dyn_base;
	uint8_t *local;
	uint32_t local_size;
	uint8_t *module;
	uint64_t module_size;
	uint64_t shwin, lwin, mwin;
	const uint8_t *params;
	uint64_t param_bytes;
	warp *warps;
	uint32_t nwarps, nthreads;
	uint32_t nlive;          /* the CTA's threads that have not exited */
	uint32_t cta[3];
	uint64_t cta_index;   /* linear */
	uint64_t tinstr;      /* spent by this CTA */
	uint64_t budget;      /* the next check of the budgets (budget_spent) */
	uint64_t cta_budget;  /* the most one CTA may spend: the launch's budget */
	grid *g;
	cs_bus wbus;          /* bus as this worker sees it: memory locked when
				 workers share it, trace records held per CTA */
	held_events held;
	bool shared_memory;   /* other workers run too: global atomics take the lock */
	bool hw_fma;
	bool approx_max; /* approximate results at the edge of their bound */
	/* the shared-memory race detector (NULL shadow when off) */
	cs_ptx_races races;
	race_cell *shadow;    /* one per shared byte */
	uint32_t epoch;       /* advances at every barrier release and CTA start */
	uint32_t race_pairs[RACE_PAIRS_MAX][2]; /* PTX lines already reported */
	uint32_t nrace_pairs;
	uint32_t undef_pairs[RACE_PAIRS_MAX][2]; /* (reason, PTX line) of undefined-result notes */
	uint32_t nundef_pairs;
	bool race_on;         /* shadow or races_global */
	bool races_global;    /* global memory too, within the grid */
	global_cell *gcells;  /* open addressing on va; va 0 with write_cta and
				 read_cta RACE_NO_CTA is an empty slot */
	size_t gcap, gcount;
	uint32_t *order;      /* the warps in the order they run this round */
	uint32_t round;
	cs_ptx_schedule schedule;
	uint64_t schedule_seed;
	uint32_t arrive[NBAR]; /* threads that passed bar.arrive since each barrier opened */
	uint64_t mbar_changes; /* state changes of the CTA's mbarrier objects */
	uint32_t mbar_stall;   /* rounds in a row in which every warp that ran waited on an
				  mbarrier and none changed */
	bool cooperative;      /* the launch's: warps yield at F_SPIN instructions */
	/* outcome */
	int status;
	uint64_t fault_va;
	int fault_access;
	uint32_t fault_warp, fault_lane, fault_pc;
	char why[256];
} run;

/* ---- the grid's shared state ---------------------------------------------- */

/* Workers claim chunks of consecutive CTAs in linear order and run them in
 * parallel; each finished CTA waits in a window slot until every earlier CTA
 * has finished, and commits in CTA order: its held trace records go out, its
 * thread-instructions count toward the launch's budget, and the first CTA that
 * failed ends the grid. So the trace, the counts and the outcome are those of
 * one worker running the CTAs in order, whatever the number of workers.
 * A chunk's first CTA starts from zeroed registers and memory, the others from
 * what the CTA before them left: the chunk size depends on the grid alone, so
 * what a CTA sees does not depend on the workers, and zeroing costs little
 * beside many small CTAs (tests/ptxrun bench_ptx, ptx.vadd). */
enum { WINDOW = 1024, CHUNK_MAX = 64, BUDGET_STEP = 1u << 20 };
#define ATOM_NO_CTA UINT64_MAX
#define ATOM_SEVERAL_CTAS (UINT64_MAX - 1)
#define ATOM_ORDER_FREE (UINT64_MAX - 2) /* not an atomic whose order matters */

/* Pages the workers of a grid have translated through the caller's memory
 * port, shared without the lock: a slot is filled once, under mem_lock, its
 * pointer first and then its tag (vpn + 1) with release; readers load the tag
 * with acquire. Mappings do not change during a run, so a page's pointer
 * stays valid (the warps' TLBs rely on the same). Only the first touch of a
 * page per grid takes the lock: every lookup through the lock made the
 * workers' lock cache line bounce between cores. */
enum { PAGES_N = 4096, PAGES_PROBE = 16 };

typedef struct page_slot {
	_Atomic uint64_t tag; /* vpn + 1; 0 = empty */
	uint8_t *base;
} page_slot;

typedef struct cta_slot {
	bool ready;
	int status;
	uint64_t tinstr;
	uint32_t cta[3];
	uint64_t fault_va;
	int fault_access;
	uint32_t fault_warp, fault_lane, fault_pc;
	char why[256];
	held_events held;
} cta_slot;

struct grid {
	const cs_ptx_program *p;
	const ptx_func *f;
	const cs_ptx_launch *l;
	const cs_bus *bus;       /* the caller's: its trace gets the committed records */
	uint64_t nctas, budget;
	uint64_t chunk;          /* CTAs a worker claims at once */
	struct timespec deadline;
	uint8_t *module;         /* the private module image, shared by the workers */
	uint64_t module_size;
	pthread_mutex_t lock;    /* claims, the window and the commit */
	pthread_cond_t moved;    /* the commit advanced or the grid ended */
	pthread_mutex_t mem_lock; /* the caller's memory port, global atomics
				     (recursive: an atomic's address translation
				     may reach the port) */
	page_slot *pages;        /* PAGES_N slots when workers share the port */
	uint64_t next;           /* the next CTA to claim */
	_Atomic uint64_t end;    /* CTAs from here on are not run: one failed before */
	uint64_t commit;         /* CTAs committed */
	cta_slot *window;
	bool finished;
	bool wall_stop;          /* claims stopped at the wall-time budget */
	cta_slot final;          /* the CTA that ended the grid */
	uint64_t done, tinstr;   /* committed: CTAs completed, thread-instructions */
	uint32_t race_pairs[RACE_PAIRS_MAX][2];
	uint32_t nrace_pairs;
	uint32_t undef_pairs[RACE_PAIRS_MAX][2];
	uint32_t nundef_pairs;
	uint64_t *atom_cta;      /* per instruction: the CTA that ran an atomic whose
				    result depends on the order of CTAs (ATOM_NO_CTA: none
				    yet, ATOM_SEVERAL_CTAS: more than one), ATOM_ORDER_FREE
				    for every other; NULL when the grid has none */
	/* the workers beyond the caller's thread, started by it (spawn_workers) */
	const run *proto;
	run *workers;
	pthread_t *tids;
	unsigned nworkers, started;
	struct timespec began;   /* when the grid began, for SPAWN_AFTER_NS */
};

static inline bool past_deadline(const grid *G)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > G->deadline.tv_sec ||
	       (now.tv_sec == G->deadline.tv_sec && now.tv_nsec >= G->deadline.tv_nsec);
}

/* Around a warp's atomic outside shared memory: other workers' atomics wait,
 * and the instruction is noted when CTAs of the grid race on its order. */
static inline void atomics_begin(run *R, uint32_t pc)
{
	grid *G = R->g;
	if (R->shared_memory)
		pthread_mutex_lock(&G->mem_lock);
	if (G->atom_cta && G->atom_cta[pc] != ATOM_ORDER_FREE) {
		uint64_t *first = &G->atom_cta[pc];
		if (*first == ATOM_NO_CTA)
			*first = R->cta_index;
		else if (*first != R->cta_index)
			*first = ATOM_SEVERAL_CTAS;
	}
}

static inline void atomics_end(run *R, bool held)
{
	if (held && R->shared_memory)
		pthread_mutex_unlock(&R->g->mem_lock);
}

/* ---- lanes ---------------------------------------------------------------- */

/* Lanes set in a mask. __builtin_popcount is a libgcc call on baseline
 * x86-64 (no POPCNT), and the dispatch loop counts at every stack change. */
static inline uint32_t lane_count(uint32_t m)
{
	m = m - ((m >> 1) & 0x55555555u);
	m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
	return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

#if defined(__GNUC__) && !defined(__clang__)
#define LANE_UNROLL _Pragma("GCC unroll 4")
#else
#define LANE_UNROLL
#endif
#define FOR_LANES(mask_, ...)                                                   \
	do {                                                                     \
		uint32_t m_ = (mask_);                                           \
		if (m_ == PTX_FULL) {                                                \
			LANE_UNROLL                                              \
			for (unsigned l = 0; l < PTX_WARP; l++) {                \
				__VA_ARGS__;                                     \
			}                                                        \
		} else {                                                         \
			while (m_) {                                             \
				unsigned l = (unsigned)__builtin_ctz(m_);        \
				m_ &= m_ - 1;                                    \
				__VA_ARGS__;                                     \
			}                                                        \
		}                                                                \
	} while (0)

#define PTX_REG(i) (r + (size_t)(i) * PTX_WARP)

/* ---- mbarrier ------------------------------------------------------------ */

/* An mbarrier object as chainsim lays out its 64 bits (docs/mbarrier.md):
 * pending arrivals of the current phase in bits 0-19, expected arrivals in
 * 20-39, the tx-count (signed) in 40-60, bit 62 set once initialized, bit 63
 * the current phase's parity. A state token is the object as the arrival left
 * it, with the parity of the phase it arrived on. */
enum { MBAR_COUNT_MAX = (1u << 20) - 1, MBAR_STALL_ROUNDS = 1u << 16 };
#define MBAR_VALID (1ull << 62)
#define MBAR_PHASE (1ull << 63)

static inline uint32_t mbar_pending(uint64_t v) { return (uint32_t)(v & 0xfffff); }
static inline uint32_t mbar_expected(uint64_t v) { return (uint32_t)(v >> 20 & 0xfffff); }
static inline int32_t mbar_tx(uint64_t v) { return (int32_t)((uint32_t)(v >> 40 & 0x1fffff) << 11) >> 11; }

/* ---- the warp loop (ptx_exec.c) -------------------------------------------- */

/* Whether the CPU runs the FMA lane loops (fma_f32_lanes_hw). */
bool ptx_cpu_has_fma(void);

/* Runs warp w until it waits at a barrier, yields or exits: the state it is
 * left in (W_READY, W_BARRIER, W_DONE). */
int ptx_warp_run(run *R, warp *w);

/* ---- errors ------------------------------------------------------------- */

/* Stops the CTA with R_ERROR (the first stop wins). */
void ptx_set_error(run *R, warp *w, uint32_t pc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- the race detector (ptx_race.c) --------------------------------------- */

/* Whether the pair of PTX lines is new to pairs (then remembered): only the
 * first RACE_PAIRS_MAX distinct pairs are. The worker filters its own races
 * so, and the grid again at commit, in CTA order: what a worker drops was
 * seen earlier in CTA order, so the reports do not depend on the workers. */
bool ptx_race_pair_new(uint32_t pairs[RACE_PAIRS_MAX][2], uint32_t *n, uint32_t other_line,
		       uint32_t line);

/* One lane's access of size bytes at va in space: shared (or generic in the
 * shared window) against the CTA's shadow, global (or generic outside the
 * shared, local and parameter windows) against the grid's when asked. */
bool ptx_race_check_bytes(run *R, warp *w, uint32_t lane, uint32_t pc, int space, uint64_t va,
			  unsigned size, bool write);

/* The shared bytes an ld or st touches, lane by lane; out-of-range lanes are
 * left to the access to fault. */
bool ptx_race_check(run *R, warp *w, const ptx_ins *in, uint32_t pc, uint32_t m, bool write);

static inline uint64_t cta_linear(const run *R)
{
	return R->cta[0] + (uint64_t)R->l->grid[0] * (R->cta[1] + (uint64_t)R->l->grid[1] * R->cta[2]);
}

#endif

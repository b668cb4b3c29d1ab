/* The simulated machine's parallel per-CPU run (tests/cpu_job.h "A
 * parallel run"): each selected CPU's share runs as a fiber of its own
 * (ucontext) on one host thread, and the fibers take turns at the
 * simulated CPU's hardware-seam calls after a seeded, random number of
 * them, so that two CPUs' checks interleave anywhere a real machine's
 * could: a piece of state the harness shares between CPUs by mistake is
 * then changed under a check by another CPU's run, and shows. Each fiber
 * has its simulated CPU switched in (sim_cpu_switch) and its per-CPU
 * block (hw_cpu_local) while it runs. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
#include "sim.h"
#include "../../pmu/percpu.h"
#include "../../tests/cpu_job.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#define FIBER_STACK (1024u * 1024u) /* ASan's frames are large */
#else
#define FIBER_STACK (256u * 1024u)
#endif
/* Seam calls a fiber runs before the next turn: 1 to QUANTUM_MAX (ours: a
 * check makes hundreds, so turns fall inside every check). */
#define QUANTUM_MAX 64u

struct fiber {
	ucontext_t uc;
	char *stack;
	bool done;
	void *fake; /* ASan: the fake stack of this fiber while it is away */
};

static struct {
	struct cpu_par *p;
	struct fiber *f;
	ucontext_t sched;
	unsigned cur, left;
	uint64_t rng;
	bool on;
	bool share;		 /* the fault of host/unit/test_cpu_par.c: one block for all */
	void *fake;		 /* ASan: the scheduler's fake stack while a fiber runs */
	const void *main_bottom; /* the scheduler's stack, for ASan */
	size_t main_size;
} par;

void sim_par_share_blocks(bool on)
{
	par.share = on;
}

static uint64_t next_rand(void)
{
	/* xorshift64 (Marsaglia 2003) */
	par.rng ^= par.rng << 13;
	par.rng ^= par.rng >> 7;
	par.rng ^= par.rng << 17;
	return par.rng;
}

/* ASan follows each switch of stacks (sanitizer/common_interface_defs.h):
 * told before it, and told it is done on the stack it lands on. */
#ifdef __SANITIZE_ADDRESS__
#define SWITCH_START(save, bottom, size) __sanitizer_start_switch_fiber(save, bottom, size)
#define SWITCH_DONE(save, bottom, size)	 __sanitizer_finish_switch_fiber(save, bottom, size)
#else
#define SWITCH_START(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define SWITCH_DONE(save, bottom, size)	 ((void)(save), (void)(bottom), (void)(size))
#endif

/* The running fiber back to the scheduler (gone: for good). */
static void to_scheduler(struct fiber *f, bool gone)
{
	SWITCH_START(gone ? 0 : &f->fake, par.main_bottom, par.main_size);
	swapcontext(&f->uc, &par.sched);
	SWITCH_DONE(f->fake, &par.main_bottom, &par.main_size);
}

void sim_par_tick(void)
{
	if (!par.on || --par.left)
		return;
	to_scheduler(&par.f[par.cur], false);
}

void sim_par_halt(void)
{
	struct fiber *f;

	if (!par.on)
		return;
	f = &par.f[par.cur];
	cpu_par_halted(par.p, par.cur);
	f->done = true; /* to the scheduler: nothing more to run */
	to_scheduler(f, true);
}

static void fiber_main(unsigned i)
{
	SWITCH_DONE(0, &par.main_bottom, &par.main_size);
	cpu_par_enter(par.p, i);
	par.f[i].done = true;
	to_scheduler(&par.f[i], true);
}

/* Fiber i's simulated CPU and block in, and its turn. */
static void run_turn(unsigned i, const uint32_t *flags)
{
	const struct cpu_par *p = par.p;

	if (sim_cpu_switch(p->sel[i]) != 0) {
		fprintf(stderr, "pmuharness-sim: cannot switch to CPU %u\n", p->sel[i]);
		abort();
	}
	/* the boot CPU keeps the run's state, as on its firmware stack; the
	 * shared-state fault gives every AP the last CPU's block */
	unsigned b = par.share ? p->k - 1 : i;
	sim.pcpu = flags[p->sel[i]] & CPUSEL_BSP
		       ? 0
		       : ((struct pcpu_base *)(p->stacks + (uintptr_t)b * PCPU_STACK))->block;
	par.cur = i;
	par.left = 1 + (unsigned)(next_rand() % QUANTUM_MAX);
	SWITCH_START(&par.fake, par.f[i].stack, FIBER_STACK);
	swapcontext(&par.sched, &par.f[i].uc);
	SWITCH_DONE(par.fake, 0, 0);
}

/* Fiber i, ready to start at fiber_main (getcontext returns once here:
 * nothing jumps back to it). */
static bool make_fiber(struct fiber *f, unsigned i)
{
	f->stack = malloc(FIBER_STACK);
	if (!f->stack || getcontext(&f->uc) != 0)
		return false;
	f->uc.uc_stack.ss_sp = f->stack;
	f->uc.uc_stack.ss_size = FIBER_STACK;
	f->uc.uc_link = 0;
	makecontext(&f->uc, (void (*)(void))fiber_main, 1, i);
	return true;
}

static bool make_fibers(unsigned k)
{
	par.f = calloc(k, sizeof(*par.f));
	for (unsigned i = 0; par.f && i < k; i++)
		if (!make_fiber(&par.f[i], i))
			return false;
	return par.f != 0;
}

static void free_fibers(unsigned k)
{
	for (unsigned i = 0; par.f && i < k; i++)
		free(par.f[i].stack);
	free(par.f);
	par.f = 0;
}

void sim_par_run(struct cpu_par *p, const uint32_t *flags, uint64_t seed)
{
	unsigned me = sim.cpu_no, left = p->k;

	if (!make_fibers(p->k)) {
		fprintf(stderr, "pmuharness-sim: out of memory for %u fibers\n", p->k);
		abort();
	}
	par.p = p;
	par.rng = seed * 2654435761u + 0x9e3779b97f4a7c15ull;
	par.on = true;
	while (left) {
		unsigned i = (unsigned)(next_rand() % p->k);
		for (; par.f[i].done; i = (i + 1) % p->k)
			;
		run_turn(i, flags);
		left -= par.f[i].done;
	}
	par.on = false;
	sim.pcpu = 0;
	sim_cpu_switch(me);
	sim.pcpu = 0;
	free_fibers(p->k);
}

/* The sampling kernel's control flow, from its labels (x86/sample.S and
 * x86/sample_i386.S): the harness's own account of what the kernel
 * retires, independent of any decoding of its bytes. */
#include <stddef.h>
#include "sample.h"

/* Every label of x86/sample.S; as char arrays, their addresses are the code's. */
#define L(n) extern const char pmh_smp_##n[]
L(p1);
L(p2);
L(b0);
L(b1);
L(u1);
L(t1);
L(b2);
L(x0);
L(x1);
L(x2);
L(x3);
L(x4);
L(x5);
L(x6);
L(x7);
L(x8);
L(tst);
L(b4);
L(nop);
L(t4);
L(b5);
L(b7);
L(u7);
L(t7);
L(sub);
L(b8);
L(exit);
L(fn);
L(b3);
L(fn2);
L(b6);
L(end);
#ifdef __i386__
L(p3);
L(p4);
L(p5);
L(e0);
L(e1);
#endif
#undef L

void pmh_smp_kernel(uint64_t n, struct wl_args *a);

#define A(n)		    ((uint64_t)(uintptr_t)pmh_smp_##n)
#define pmh_smp_kernel_addr ((uint64_t)(uintptr_t)pmh_smp_kernel)

/* The prologue up to the jump into the loop's test, and the epilogue
 * between the back edge that falls through and the RET. */
#ifdef __i386__
#define PROLOGUE pmh_smp_kernel_addr, A(p1), A(p2), A(p3), A(p4), A(p5)
#define EPILOGUE A(e0), A(e1),
#else
#define PROLOGUE pmh_smp_kernel_addr, A(p1), A(p2)
#define EPILOGUE
#endif

struct walk {
	void (*f)(void *ctx, const struct smp_step *st);
	void *ctx;
	uint64_t n;
};

static void emit(struct walk *w, uint64_t ip, uint64_t next, enum smp_kind k, bool taken)
{
	struct smp_step st = {.ip = ip, .next = next, .kind = (uint8_t)k, .taken = taken};
	w->n++;
	if (w->f)
		w->f(w->ctx, &st);
}

/* Straight-line instructions: each falls through to the next label. */
static void line(struct walk *w, const uint64_t *ip, unsigned n, uint64_t after)
{
	for (unsigned i = 0; i < n; i++)
		emit(w, ip[i], i + 1 < n ? ip[i + 1] : after, SMP_NONE, false);
}

static uint32_t xorshift32(uint32_t x)
{
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/* One pass of the loop's body, b1 to b7 (state: the xorshift state). */
static void body(struct walk *w, uint32_t *state)
{
	const uint64_t xs[] = {A(x0), A(x1), A(x2), A(x3), A(x4), A(x5), A(x6), A(x7), A(x8)};

	emit(w, A(b1), A(t1), SMP_JMP, true);
	emit(w, A(b2), A(fn), SMP_CALL, true);
	emit(w, A(b3), A(x0), SMP_RET, true);
	line(w, xs, sizeof(xs) / sizeof(xs[0]), A(tst));
	*state = xorshift32(*state);
	bool odd = *state & 1;
	emit(w, A(tst), A(b4), SMP_NONE, false);
	emit(w, A(b4), odd ? A(t4) : A(nop), SMP_JCC, odd);
	if (!odd)
		emit(w, A(nop), A(t4), SMP_NONE, false);
	emit(w, A(b5), A(fn2), SMP_CALL_IND, true);
	emit(w, A(b6), A(b7), SMP_RET, true);
	emit(w, A(b7), A(t7), SMP_JMP_IND, true);
}

uint64_t smp_walk(uint64_t iterations, void (*f)(void *ctx, const struct smp_step *st), void *ctx)
{
	const uint64_t pro[] = {PROLOGUE};
	const uint64_t epi[] = {EPILOGUE 0};
	const unsigned n_epi = sizeof(epi) / sizeof(epi[0]) - 1;
	struct walk w = {.f = f, .ctx = ctx};
	uint32_t state = SMP_SEED;

	line(&w, pro, sizeof(pro) / sizeof(pro[0]), A(b0));
	emit(&w, A(b0), A(sub), SMP_JMP, true);
	for (uint64_t i = 0; i <= iterations; i++) {
		bool more = i < iterations;
		emit(&w, A(sub), A(b8), SMP_NONE, false);
		emit(&w, A(b8), more ? A(b1) : (n_epi ? epi[0] : A(exit)), SMP_JCC, more);
		if (more)
			body(&w, &state);
	}
	line(&w, epi, n_epi, A(exit));
	emit(&w, A(exit), 0, SMP_RET, true);
	return w.n;
}

bool smp_is_insn(uint64_t ip)
{
	const uint64_t all[] = {PROLOGUE, A(b0),  A(b1), A(b2), A(x0),	A(x1), A(x2),
				A(x3),	  A(x4),  A(x5), A(x6), A(x7),	A(x8), A(tst),
				A(b4),	  A(nop), A(b5), A(b7), A(sub), A(b8), EPILOGUE A(exit),
				A(b3),	  A(b6)};
	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] == ip)
			return true;
	return false;
}

void smp_bounds(uint64_t *lo, uint64_t *hi)
{
	*lo = pmh_smp_kernel_addr;
	*hi = A(end);
}

uint64_t smp_exit_ip(void)
{
	return A(exit);
}

const char *smp_kind_name(unsigned k)
{
	static const char *const names[SMP_KINDS] = {
	    [SMP_NONE] = "none",       [SMP_JCC] = "jcc",   [SMP_JMP] = "jmp",
	    [SMP_JMP_IND] = "jmp-ind", [SMP_CALL] = "call", [SMP_CALL_IND] = "call-ind",
	    [SMP_RET] = "ret",
	};
	return k < SMP_KINDS ? names[k] : "?";
}

/* The kernel's vector is its walk's (smp_walk), not a per-iteration
 * construction: the pattern branch's side changes the count. The
 * simulator runs its code (traced); the harness counts with smp_walk. */
const struct workload wl_sample = {
    .name = "sample",
    .mem = WL_MEM_NONE,
    .traced = true,
    .run = pmh_smp_kernel,
};

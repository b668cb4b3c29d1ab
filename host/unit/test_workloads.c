/* The x86-64 kernels of x86/workload.S, run natively in user mode (every
 * instruction they use is legal in ring 3), against their construction in
 * events/workloads.c: each runs and keeps the ABI; single-stepped with
 * EFLAGS.TF it retires exactly the instructions its vector says; the random
 * kernels carry the xorshift state and branch on its bit 0 as documented;
 * the walking kernels touch exactly the documented bytes, and nothing when
 * a pass has no element. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../../events/workload.h"

typedef void kernel_fn(uint64_t n, struct wl_args *a);
extern kernel_fn pmh_wl_loop, pmh_wl_branchy, pmh_wl_calls, pmh_wl_recurse, pmh_wl_br_taken,
    pmh_wl_br_none, pmh_wl_br_random, pmh_wl_ind_random, pmh_wl_locked, pmh_wl_segload,
    pmh_wl_misaligned, pmh_wl_far, pmh_wl_cpuid, pmh_wl_clflush, pmh_wl_x87, pmh_wl_chase,
    pmh_wl_chase_dirty, pmh_wl_store_walk, pmh_wl_pf_t0, pmh_wl_pf_nta, pmh_wl_pf_w,
    pmh_wl_nt_store, pmh_wl_pages, pmh_wl_code;

static const struct kernel {
	const struct workload *w;
	kernel_fn *fn;
} kernels[] = {
    {&wl_loop, pmh_wl_loop},
    {&wl_branchy, pmh_wl_branchy},
    {&wl_calls, pmh_wl_calls},
    {&wl_recurse, pmh_wl_recurse},
    {&wl_br_taken, pmh_wl_br_taken},
    {&wl_br_none, pmh_wl_br_none},
    {&wl_br_random, pmh_wl_br_random},
    {&wl_ind_random, pmh_wl_ind_random},
    {&wl_locked, pmh_wl_locked},
    {&wl_segload, pmh_wl_segload},
    {&wl_misaligned, pmh_wl_misaligned},
    {&wl_far, pmh_wl_far},
    {&wl_cpuid, pmh_wl_cpuid},
    {&wl_clflush, pmh_wl_clflush},
    {&wl_x87, pmh_wl_x87},
    {&wl_chase, pmh_wl_chase},
    {&wl_chase_dirty, pmh_wl_chase_dirty},
    {&wl_store_walk, pmh_wl_store_walk},
    {&wl_pf_t0, pmh_wl_pf_t0},
    {&wl_pf_nta, pmh_wl_pf_nta},
    {&wl_pf_w, pmh_wl_pf_w},
    {&wl_nt_store, pmh_wl_nt_store},
    {&wl_pages, pmh_wl_pages},
};
#define N_KERNELS (sizeof(kernels) / sizeof(kernels[0]))

#define LINE	 64
#define BUF_SIZE (1u << 20)

/* The kernel's last p (rax) for the chase kernels. */
typedef void *chase_fn(uint64_t n, struct wl_args *a);

/* Calls fn(n, a) with rbx, rbp, r12-r15 set to known values; returns 1 if
 * the kernel gave them and rsp back. */
int abi_call(uint64_t n, struct wl_args *a, kernel_fn *fn);
/* Calls fn(n, a) with EFLAGS.TF set: a SIGTRAP after every instruction. */
void tf_call(uint64_t n, struct wl_args *a, kernel_fn *fn);
void tf_back(void);
__asm__(".text\n"
	"abi_call:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	mov %rsp, abi_rsp(%rip)\n"
	"	mov $0x1111, %ebx; mov $0x2222, %ebp; mov $0x3333, %r12d\n"
	"	mov $0x4444, %r13d; mov $0x5555, %r14d; mov $0x6666, %r15d\n"
	"	call *%rdx\n"
	"	xor %eax, %eax\n"
	"	cmp $0x1111, %rbx; jne 1f; cmp $0x2222, %rbp; jne 1f\n"
	"	cmp $0x3333, %r12; jne 1f; cmp $0x4444, %r13; jne 1f\n"
	"	cmp $0x5555, %r14; jne 1f; cmp $0x6666, %r15; jne 1f\n"
	"	cmp abi_rsp(%rip), %rsp; jne 1f\n"
	"	mov $1, %eax\n"
	"1:	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n"
	"tf_call:\n"
	"	pushfq; orq $0x100, (%rsp); popfq\n"
	"	call *%rdx\n"
	"tf_back:\n"
	"	pushfq; andq $~0x100, (%rsp); popfq\n"
	"	ret\n"
	".bss\n"
	"abi_rsp: .quad 0\n"
	".text\n");

/* ---- single-stepping --------------------------------------------------- */

#define HIST 1024 /* bytes of the kernel whose executions are counted */
static volatile uintptr_t tf_entry;
static volatile int tf_phase; /* 0 before the kernel, 1 in it, 2 after it */
static volatile uint64_t tf_steps;
static volatile uint32_t tf_hist[HIST];

/* A trap follows each instruction; its RIP is the next one. The first in
 * the kernel is at its entry (after the CALL); the one at tf_back follows
 * the kernel's RET. */
static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t rip = (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
	(void)sig;
	(void)si;
	if (tf_phase == 0 && rip == tf_entry) {
		tf_phase = 1;
		tf_steps = 0;
	} else if (tf_phase == 1) {
		tf_steps = tf_steps + 1;
		if (rip == (uintptr_t)tf_back)
			tf_phase = 2;
	}
	if (tf_phase == 1 && rip - tf_entry < HIST)
		tf_hist[rip - tf_entry] = tf_hist[rip - tf_entry] + 1;
}

/* Instructions fn retires for (n, a), by single-stepping. */
static uint64_t steps(kernel_fn *fn, uint64_t n, struct wl_args *a)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	assert_int_equal(sigaction(SIGTRAP, &sa, &old), 0);
	tf_entry = (uintptr_t)fn;
	tf_phase = 0;
	for (unsigned i = 0; i < HIST; i++)
		tf_hist[i] = 0;
	tf_call(n, a, fn);
	assert_int_equal(sigaction(SIGTRAP, &old, NULL), 0);
	assert_int_equal(tf_phase, 2);
	return tf_steps;
}

/* ---- buffers ------------------------------------------------------------- */

static unsigned char *buf;

static int setup(void **st)
{
	(void)st;
	buf = aligned_alloc(4096, BUF_SIZE);
	return buf ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	free(buf);
	return 0;
}

static bool walking(const struct workload *w)
{
	return w->mem != WL_MEM_NONE;
}

/* The arguments a kernel gets: a chain for the chase kernels. */
static struct wl_args args_for(const struct workload *w, uint64_t lines)
{
	struct wl_args a = {buf, lines, LINE, 0x0123456789abcdefull};
	if (w->mem == WL_MEM_CHASE || w->mem == WL_MEM_CHASE_DIRTY)
		a.buf = workload_chain(buf, lines, LINE, 7);
	return a;
}

/* Every kernel runs 0, 1 and 1000 iterations and keeps rbx, rbp, r12-r15
 * and rsp (x87: and the caller's x87 control word). */
static void every_kernel_runs(void **st)
{
	static const uint64_t iters[] = {0, 1, 1000};
	(void)st;
	for (unsigned k = 0; k < N_KERNELS; k++) {
		for (unsigned i = 0; i < 3; i++) {
			struct wl_args a = args_for(kernels[k].w, 16);
			uint16_t cw = 0x027f,
				 cw_after = 0; /* 53-bit precision: not FNINIT's 037Fh */
			__asm__ volatile("fldcw %0" ::"m"(cw));
			assert_int_equal(abi_call(iters[i], &a, kernels[k].fn), 1);
			__asm__ volatile("fnstcw %0" : "=m"(cw_after));
			assert_int_equal(cw_after, cw);
		}
	}
	uint16_t cw = 0x037f;
	__asm__ volatile("fldcw %0" ::"m"(cw));
}

/* The kernels that do not use their arguments run with none. */
static void register_kernels_need_no_args(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_KERNELS; k++) {
		const struct workload *w = kernels[k].w;
		if (w->mem != WL_MEM_NONE || w == &wl_br_random || w == &wl_ind_random ||
		    w == &wl_locked || w == &wl_misaligned || w == &wl_clflush || w == &wl_x87)
			continue;
		assert_int_equal(abi_call(100, NULL, kernels[k].fn), 1);
	}
}

/* A pass of 0 elements touches no memory: the buffer is an inaccessible
 * page. */
static void empty_pass_touches_nothing(void **st)
{
	(void)st;
	void *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(none != MAP_FAILED);
	for (unsigned k = 0; k < N_KERNELS; k++) {
		if (!walking(kernels[k].w))
			continue;
		struct wl_args a = {none, 0, LINE, 1};
		assert_int_equal(abi_call(1000, &a, kernels[k].fn), 1);
	}
	munmap(none, 4096);
}

/* Single-stepped, every kernel retires fixed + N x (per_iter + per_elem x
 * lines) instructions. MOV to SS holds the trap of the next instruction
 * back (SDM Vol. 3A 6.8.3): wl_segload traps once less per iteration. */
static unsigned cpuid_trap_said;

static void instruction_counts_exact(void **st)
{
	static const uint64_t iters[] = {0, 1, 3, 8};
	static const uint64_t lines[] = {0, 1, 5};
	(void)st;
	for (unsigned k = 0; k < N_KERNELS; k++) {
		for (unsigned i = 0; i < 4; i++) {
			for (unsigned l = 0; l < 3; l++) {
				struct workload w = *kernels[k].w;
				struct wl_args a = args_for(&w, lines[l]);
				struct workload_vector v = {0};
				w.args = &a;
				workload_iteration(&w, &v);
				uint64_t want = w.fixed.instructions + iters[i] * v.instructions;
				if (kernels[k].w == &wl_segload)
					want -= iters[i];
				uint64_t got = steps(kernels[k].fn, iters[i], &a);
				/* CPUID always exits to a hypervisor (SDM Vol. 3C
				 * 25.1.2), which may drop the single-step trap of
				 * the instruction it emulated (seen on the build
				 * machines, ours): one trap fewer an iteration */
				if (kernels[k].w == &wl_cpuid && got + iters[i] == want &&
				    iters[i]) {
					if (!cpuid_trap_said++)
						print_message("note: this host drops the "
							      "single-step trap after CPUID\n");
					continue;
				}
				if (got != want)
					fail_msg("%s: N %llu lines %llu: %llu instructions, "
						 "construction says %llu",
						 w.name, (unsigned long long)iters[i],
						 (unsigned long long)lines[l],
						 (unsigned long long)got, (unsigned long long)want);
			}
		}
	}
}

/* Instruction offsets in the kernel retired exactly `count` times. */
static unsigned offsets_with(uint32_t count, unsigned *first)
{
	unsigned n = 0;
	for (unsigned i = 0; i < HIST; i++)
		if (tf_hist[i] == count && n++ == 0)
			*first = i;
	return n;
}

/* The random kernels leave args->state = xorshift^N(state) and take their
 * pattern path as the new state's bit 0 says: wl_br_random's jz is taken
 * (to the jc, after the jnc) when it is 0; wl_ind_random goes to its first
 * target when it is 0, to the second when it is 1. */
static void random_kernels_follow_xorshift(void **st)
{
	const uint64_t seed = 0x0123456789abcdefull, n = 1000;
	uint64_t x = seed, zeros = 0;
	(void)st;
	for (uint64_t i = 0; i < n; i++) {
		x = wl_xorshift(x);
		zeros += !(x & 1);
	}
	assert_true(zeros != n - zeros && zeros > 1 && zeros < n - 1);
	for (int ind = 0; ind < 2; ind++) {
		kernel_fn *fn = ind ? pmh_wl_ind_random : pmh_wl_br_random;
		struct wl_args a = {NULL, 0, 0, seed};
		abi_call(0, &a, fn);
		assert_true(a.state == seed);
		assert_int_equal(abi_call(n, &a, fn), 1);
		assert_true(a.state == x);
		a.state = seed;
		steps(fn, n, &a);
		assert_true(a.state == x);
		unsigned at0 = 0, at1 = 0;
		assert_int_equal(offsets_with((uint32_t)zeros, &at0), 1);
		assert_int_equal(offsets_with((uint32_t)(n - zeros), &at1), 1);
		if (ind)
			assert_true(at0 < at1); /* 5f (bit 0 clear) comes before 6f */
		else
			assert_true(at0 > at1); /* the jc at 3f comes after the jnc */
	}
}

/* workload_chain links all elements into one cycle from element 0 in a
 * seeded order; one pass of wl_chase ends back at element 0. */
static void chain_is_one_cycle(void **st)
{
	const uint64_t lines = 1000, stride = 128;
	static uint8_t seen[1000];
	unsigned sequential = 0;
	(void)st;
	memset(buf, 0xa5, lines * stride);
	void *p0 = workload_chain(buf, lines, stride, 42);
	assert_ptr_equal(p0, buf);
	memset(seen, 0, sizeof(seen));
	uintptr_t p = (uintptr_t)p0;
	for (uint64_t i = 0; i < lines; i++) {
		uintptr_t off = p - (uintptr_t)buf;
		assert_true(off % stride == 0 && off / stride < lines);
		assert_int_equal(seen[off / stride], 0);
		seen[off / stride] = 1;
		uintptr_t next = *(uintptr_t *)p;
		sequential += next == p + stride;
		/* the rest of the element is not written */
		assert_int_equal(((unsigned char *)p)[sizeof(uintptr_t)], 0xa5);
		p = next;
	}
	assert_true(p == (uintptr_t)buf);
	assert_true(sequential < lines / 10); /* shuffled, not a stride walk */

	struct wl_args a = {p0, lines, stride, 1};
	chase_fn *chase = (chase_fn *)(void *)pmh_wl_chase;
	assert_ptr_equal(chase(1, &a), buf);
	assert_ptr_equal(chase(3, &a), buf);
	a.lines = 1; /* a partial pass ends at element 0's successor */
	assert_ptr_equal(chase(1, &a), *(void **)buf);

	/* the same seed, the same order; another seed, another */
	uintptr_t first = *(uintptr_t *)buf;
	workload_chain(buf, lines, stride, 42);
	assert_true(*(uintptr_t *)buf == first);
	workload_chain(buf, lines, stride, 43);
	assert_true(*(uintptr_t *)buf != first);
	workload_chain(buf + lines * stride, 1, stride, 43); /* one element: itself */
	assert_true(*(uintptr_t *)(buf + lines * stride) == (uintptr_t)(buf + lines * stride));
}

/* wl_chase_dirty stores the next pointer into each element's second word
 * and writes nothing else. */
static void chase_dirty_stores_second_word(void **st)
{
	const uint64_t lines = 200;
	(void)st;
	memset(buf, 0xa5, lines * LINE);
	struct wl_args a = {workload_chain(buf, lines, LINE, 9), lines, LINE, 1};
	chase_fn *chase = (chase_fn *)(void *)pmh_wl_chase_dirty;
	assert_ptr_equal(chase(1, &a), buf);
	for (uint64_t k = 0; k < lines; k++) {
		uintptr_t *e = (uintptr_t *)(buf + k * LINE);
		assert_true(e[1] == e[0]);
		for (unsigned b = 2 * sizeof(uintptr_t); b < LINE; b++)
			assert_int_equal(((unsigned char *)e)[b], 0xa5);
	}
}

/* wl_store_walk writes p at buf + i x stride (8 bytes), wl_nt_store at
 * buf + i x 8; no other byte changes. */
static void stores_write_documented_bytes(void **st)
{
	const uint64_t lines = 37, stride = 192;
	(void)st;
	for (int nt = 0; nt < 2; nt++) {
		uint64_t step = nt ? 8 : stride, end = lines * step + 4096;
		memset(buf, 0xa5, end);
		struct wl_args a = {buf, lines, stride, 1};
		assert_int_equal(abi_call(2, &a, nt ? pmh_wl_nt_store : pmh_wl_store_walk), 1);
		for (uint64_t off = 0; off < end; off++) {
			bool stored = off % step < 8 && off / step < lines;
			if (!stored) {
				assert_int_equal(buf[off], 0xa5);
			} else if (off % step == 0) {
				uintptr_t v;
				memcpy(&v, buf + off, sizeof(v));
				assert_true(v == (uintptr_t)(buf + off));
			}
		}
	}
}

/* workload_iteration: per_iter + per_elem x args->lines, every word. */
static void iteration_sums_construction(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_KERNELS; k++) {
		struct workload w = *kernels[k].w;
		struct wl_args a = {buf, 7, LINE, 1};
		struct workload_vector v = {0};
		const uint64_t *it = (const uint64_t *)&w.per_iter,
			       *el = (const uint64_t *)&w.per_elem;
		const uint64_t *out = (const uint64_t *)&v;
		workload_iteration(&w, &v); /* no args: per_iter */
		assert_memory_equal(&v, &w.per_iter, sizeof(v));
		w.args = &a;
		workload_iteration(&w, &v);
		for (size_t i = 0; i < sizeof(v) / sizeof(uint64_t); i++)
			assert_true(out[i] == it[i] + 7 * el[i]);
	}
	struct workload w = wl_chase;
	struct wl_args a = {buf, 1000, LINE, 1};
	struct workload_vector v = {0};
	w.args = &a;
	workload_iteration(&w, &v);
	assert_int_equal(v.instructions, 7 + 3 * 1000);
	assert_int_equal(v.loads, 1000);
	assert_int_equal(v.branches, 3 + 1000);
}

/* The construction is consistent with itself: kinds of branches within
 * the branches, the outcome block 0, per-element counts only where a
 * kernel walks, each call returns. */
static void construction_consistent(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_KERNELS; k++) {
		const struct workload *w = kernels[k].w;
		const struct workload_vector *vs[] = {&w->per_iter, &w->per_elem, &w->fixed};
		for (unsigned j = 0; j < 3; j++) {
			const struct workload_vector *v = vs[j];
			assert_true(v->taken <= v->branches && v->cond <= v->branches);
			assert_true(v->calls + v->rets + v->far + v->indirect <= v->branches);
			assert_true(v->x87_fastflag + v->x87_mul <= v->x87 &&
				    v->nt_stores <= v->stores);
			assert_true(v->locked <= v->loads && v->misaligned <= v->loads + v->stores);
			const uint64_t *o = &v->uops;
			for (const uint64_t *e = (const uint64_t *)(v + 1); o < e; o++)
				assert_true(*o == 0);
		}
		assert_true(w->per_iter.calls == w->per_iter.rets);
		assert_int_equal(w->fixed.rets, 1);
		assert_true(w->per_iter.instructions > 0);
		assert_int_equal(walking(w), w->per_elem.instructions != 0);
		assert_int_equal(w->call_depth, w == &wl_recurse ? 24 : 0);
	}
}

/* Single-stepped N iterations of wl_code over a: the construction's count. */
static void code_steps_exact(struct wl_args *a)
{
	static const uint64_t iters[] = {0, 1, 3};
	struct workload w = wl_code;
	struct workload_vector v = {0};

	w.args = a;
	workload_iteration(&w, &v);
	for (unsigned i = 0; i < 3; i++) {
		uint64_t got = steps(pmh_wl_code, iters[i], a);
		uint64_t want = w.fixed.instructions + iters[i] * v.instructions;
		if (got != want)
			fail_msg("code: N %llu blocks %llu stride %llu: %llu instructions, "
				 "construction says %llu",
				 (unsigned long long)iters[i], (unsigned long long)a->lines,
				 (unsigned long long)a->stride, (unsigned long long)got,
				 (unsigned long long)want);
		assert_int_equal(abi_call(iters[i], a, pmh_wl_code), 1);
	}
}

/* wl_code over the code workload_code writes: an I-cache walk (blocks a
 * line apart in one executable buffer) and an ITLB walk (one block at the
 * start of a frame that every page of a window maps: a memfd mapped at
 * consecutive addresses, as the harness's window maps one frame), each
 * retiring the instructions of its construction, for any block count. */
static void code_walks_run_as_constructed(void **st)
{
	const size_t pages = 16, bytes = 4 * 4096;
	(void)st;
	uint8_t *x = mmap(NULL, bytes, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(x != MAP_FAILED);
	workload_code(x, bytes / LINE, LINE);
	assert_true(x[0] == 0xff && x[LINE + 3] == 0x85 && x[LINE + 8] == 0xc3);
	static const uint64_t blocks[] = {1, 5, 4 * 4096 / LINE};
	for (unsigned b = 0; b < 3; b++) {
		struct wl_args a = {x, blocks[b], LINE, 1};
		code_steps_exact(&a);
	}
	munmap(x, bytes);

	int fd = memfd_create("wl_code", 0);
	assert_true(fd >= 0 && ftruncate(fd, 4096) == 0);
	uint8_t *win = mmap(NULL, pages * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(win != MAP_FAILED);
	for (size_t i = 0; i < pages; i++)
		assert_true(mmap(win + i * 4096, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				 MAP_SHARED | MAP_FIXED, fd, 0) == win + i * 4096);
	workload_code(win, 1, 4096);
	for (size_t i = 0; i < pages; i++) /* one frame: every page holds the block */
		assert_true(win[i * 4096] == 0xff && win[i * 4096 + 8] == 0xc3);
	struct wl_args a = {win, pages, 4096, 1};
	code_steps_exact(&a);
	a.lines = 1;
	code_steps_exact(&a);
	munmap(win, pages * 4096);
	close(fd);

	const struct workload_vector *v = &wl_code.per_iter;
	assert_true(v->calls == v->rets && v->taken <= v->branches && v->cond <= v->branches);
	assert_true(wl_code.per_elem.cond == wl_code.per_elem.branches);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_kernel_runs),
	    cmocka_unit_test(register_kernels_need_no_args),
	    cmocka_unit_test(empty_pass_touches_nothing),
	    cmocka_unit_test(instruction_counts_exact),
	    cmocka_unit_test(random_kernels_follow_xorshift),
	    cmocka_unit_test(chain_is_one_cycle),
	    cmocka_unit_test(chase_dirty_stores_second_word),
	    cmocka_unit_test(stores_write_documented_bytes),
	    cmocka_unit_test(iteration_sums_construction),
	    cmocka_unit_test(construction_consistent),
	    cmocka_unit_test(code_walks_run_as_constructed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

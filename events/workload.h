/* Calibrated workloads: small assembly kernels (x86/workload.S for
 * x86-64, x86/workload_i386.S for i386) whose per-iteration effect is
 * known from their construction and written next to them in
 * events/workloads.c. On the target the kernel runs; on the host the
 * simulator reads the same construction (and walks the same buffers) and
 * computes what its caches, TLBs and branch predictor make of it. */
#ifndef PMH_EVENTS_WORKLOAD_H
#define PMH_EVENTS_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

/* Segment registers in the order of K8 event 20h's unit mask bits. */
enum wl_seg { WL_ES, WL_CS, WL_SS, WL_DS, WL_FS, WL_GS, WL_SEGS };

/* What one iteration of a workload does. The first block is construction:
 * exact counts of what the kernel's instructions are (the rules of
 * events/semantics.h compare measurements with these). The second block is
 * outcome: what the memory hierarchy and the branch predictor make of the
 * construction; on hardware only the PMU can tell, on the host the
 * simulator's micro-architecture model (host/sim/uarch.c) fills it in. The
 * harness never reads the outcome block of a workload's construction (it
 * is zero there). */
struct workload_vector {
	/* ---- construction ---- */
	uint64_t instructions;
	uint64_t branches;	/* retired branch instructions of every kind */
	uint64_t branch_misses; /* outcome (kept here for the older models) */
	uint64_t cycles;	/* the simulator's cycles (models set it) */
	uint64_t loads;		/* memory reads, one per instruction that reads */
	uint64_t stores;	/* memory writes */
	uint64_t taken;	      /* branches that transfer control (jmp, taken jcc, call, ret, far) */
	uint64_t cond;	      /* conditional branches */
	uint64_t calls, rets; /* near calls and returns */
	uint64_t far;	      /* far control transfers (lret) */
	uint64_t indirect;    /* near indirect jumps */
	uint64_t seg_loads[WL_SEGS];
	uint64_t locked;     /* LOCK-prefixed instructions */
	uint64_t misaligned; /* accesses that cross an 8-byte boundary */
	uint64_t pf_load;    /* PREFETCHT0/T1/T2 (and 3DNow! PREFETCH) */
	uint64_t pf_store;   /* PREFETCHW */
	uint64_t pf_nta;     /* PREFETCHNTA */
	uint64_t clflush;
	uint64_t cpuid;
	uint64_t x87;	       /* x87 arithmetic instructions (FADD, FMUL, FCOMI) */
	uint64_t x87_fastflag; /* of which FCOMI/FUCOMI/FCMOVcc (the fast flag path) */
	uint64_t x87_mul;      /* of which FMUL */
	uint64_t nt_stores;    /* MOVNTI */
	/* Intel TSX (RTM) and KVM's emulation, as the kernel is built: what a
	 * CPU that runs its transactions as written retires inside them, and
	 * what a hypervisor retires for it */
	uint64_t tx_insn;	/* instructions retired inside RTM transactions (IN_TX) */
	uint64_t tx_br;		/* branches among them */
	uint64_t tx_abort_insn; /* of tx_insn, those of transactions that abort (IN_TXCP) */
	uint64_t tx_abort_br;
	uint64_t emulated;    /* instructions KVM emulates (its forced-emulation prefix) */
	uint64_t emulated_br; /* branches among them */
	/* ---- outcome (simulator; 0 in a workload's construction) ---- */
	uint64_t uops;		/* micro-ops / macro-ops retired */
	uint64_t taken_misses;	/* mispredicted branches that were taken */
	uint64_t ret_misses;	/* mispredicted near returns */
	uint64_t ras_overflows; /* return-address-stack overflows */
	uint64_t indirect_misses;
	uint64_t l1d_access;		 /* L1D accesses (loads, stores, prefetches) */
	uint64_t l1d_miss;		 /* of which missed L1D */
	uint64_t l1d_evict, l1d_evict_m; /* L1D lines evicted, of which Modified */
	/* Requests that reached L2, by origin (the Skylake L2_RQSTS origins)
	 * and result: [origin][0] miss, [1] hit E/S, [2] hit M. */
	uint64_t l2[5][3];
	uint64_t l2_evict_m; /* Modified lines L2 wrote back to memory */
	uint64_t llc_ref, llc_miss;
	uint64_t dtlb_l1_miss, dtlb_l2_miss; /* L1 DTLB misses; of which L2 DTLB missed too */
	uint64_t itlb_l1_miss, itlb_l2_miss; /* the same for instruction fetch */
	uint64_t ic_fetch;		     /* instruction-cache fetch blocks */
	uint64_t ic_miss;	/* of which missed the L1I (its refills: l2[WL_L2_CODE_RD]) */
	uint64_t stall_cycles;	/* dispatch stalled (memory, serialisation) */
	uint64_t stall_runs;	/* the separate stretches of them, each one wait */
	uint64_t masked_cycles; /* cycles with RFLAGS.IF clear */
	uint64_t ref_cycles;	/* reference-clock (TSC-rate) cycles */
};
/* The L2 request origins of struct workload_vector.l2 (the Skylake note's
 * umask bits 0x01, 0x02, 0x04, 0x08, 0x10) and results. */
enum wl_l2_origin { WL_L2_DATA_RD, WL_L2_RFO, WL_L2_CODE_RD, WL_L2_L1PF, WL_L2_L2PF };
enum wl_l2_result { WL_L2_MISS, WL_L2_HIT_ES, WL_L2_HIT_M };

/* How a kernel touches memory: the simulator's model walks the same
 * buffer the same way. */
enum wl_mem {
	WL_MEM_NONE,	     /* registers only (or one fixed line: args.buf, 64 bytes) */
	WL_MEM_CHASE,	     /* load the pointer at each element: p = *p, args.lines times */
	WL_MEM_CHASE_DIRTY,  /* the same, then store to p[1] (the same line: it becomes M) */
	WL_MEM_STRIDE_STORE, /* store at buf + i * stride, i < lines (blind stores: RFOs) */
	WL_MEM_STRIDE_PF,    /* prefetch at buf + i * stride (kind from the vector) */
	WL_MEM_STRIDE_NT,    /* MOVNTI at buf + i * 8, i < lines */
	WL_MEM_PAGES,	     /* load buf + i * stride (a page walk), i < lines */
	/* Calls the code at buf: args.lines blocks `stride` bytes apart, each
	 * "dec ecx; jnz next block" and the last falling through to a RET
	 * (workload_code writes them; ecx = lines at the call). Fetches
	 * buf + i * stride, i < lines. */
	WL_MEM_CODE,
};

/* The run-time arguments of a kernel: a buffer the harness allocated and
 * prepared, its element count and stride, and the state of a pseudo-random
 * pattern, which the kernel carries from one call to the next. */
struct wl_args {
	void *buf;	/* chase: element 0 of the chain; else the first byte */
	uint64_t lines; /* elements in one pass (one iteration) */
	uint64_t stride;
	uint64_t state; /* xorshift64 state (wl_br_random, wl_ind_random); never 0 */
};

/* Features a kernel needs from CPUID (the rules SKIP without them). */
#define WL_NEEDS_SSE   (1u << 0) /* PREFETCHT0/NTA, MOVNTI needs SSE2 */
#define WL_NEEDS_SSE2  (1u << 1)
#define WL_NEEDS_CLFSH (1u << 2)
#define WL_NEEDS_PFW   (1u << 3) /* PREFETCHW: 3DNow! or 3DNowPrefetch */
#define WL_NEEDS_FCOMI (1u << 4) /* FCOMI: CPUID.1:EDX FPU and CMOV */
#define WL_NEEDS_RTM   (1u << 5) /* XBEGIN/XEND/XABORT: CPUID.(7,0):EBX[11] */
#define WL_NEEDS_FEP   (1u << 6) /* KVM's forced-emulation prefix taken by the host */

struct workload {
	const char *name;
	/* One iteration: per_iter, plus per_elem times args.lines for a
	 * kernel that walks a buffer (the pass over it is the iteration). */
	struct workload_vector per_iter;
	struct workload_vector per_elem;
	/* Fixed cost of one call outside the loop (call, setup, ret). */
	struct workload_vector fixed;
	enum wl_mem mem;
	uint32_t needs; /* WL_NEEDS_* */
	/* The depth of nested calls of one iteration (wl_recurse), else 0. */
	unsigned call_depth;
	/* Branch pattern of a conditional the predictor meets (simulator):
	 * the direction of the kernel's pattern branch per iteration. */
	enum { WL_BR_LOOP, WL_BR_ALT, WL_BR_RANDOM, WL_BR_IND_RANDOM } pattern;
	/* The simulator runs the kernel's code instruction by instruction
	 * (host/sim/sim_trace.c) instead of its vectors: the sampling kernel
	 * (events/sample.h), whose records name its instructions. */
	bool traced;
	/* target: the assembly kernel; arguments for the walking kernels */
	void (*run)(uint64_t iterations, struct wl_args *a);
	/* The arguments the harness set for this run (NULL: none). */
	struct wl_args *args;
};

/* The per-iteration construction of w with its arguments (per_iter +
 * per_elem x lines), into v. */
void workload_iteration(const struct workload *w, struct workload_vector *v);

/* One step of the xorshift64 generator the random kernels run (Marsaglia,
 * "Xorshift RNGs", J. Stat. Softw. 8(14), 2003: shifts 13, 7, 17); the
 * kernel branches on bit 0 of the new state. Shared by the kernels'
 * documentation, the harness and the simulator. */
static inline uint64_t wl_xorshift(uint64_t x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* Chain building for WL_MEM_CHASE: links `lines` elements `stride` bytes
 * apart in buf into one cycle in a pseudo-random order (seeded: the same
 * order on every run), so that no stride prefetcher can follow it; each
 * element's first word points to the next. Returns &buf[first]. */
void *workload_chain(void *buf, uint64_t lines, uint64_t stride, uint64_t seed);

extern const struct workload wl_loop;	   /* tight dec/jnz loop */
extern const struct workload wl_branchy;   /* alternating taken / not-taken branches */
extern const struct workload wl_calls;	   /* a near call and return */
extern const struct workload wl_recurse;   /* nested calls deeper than a return stack */
extern const struct workload wl_br_taken;  /* a conditional branch always taken */
extern const struct workload wl_br_none;   /* a conditional branch never taken */
extern const struct workload wl_br_random; /* a conditional on a xorshift bit */
extern const struct workload
    wl_ind_random; /* an indirect jump to one of two targets by a xorshift bit */
extern const struct workload wl_locked;	     /* LOCK ADD to one line */
extern const struct workload wl_segload;     /* ES, DS, SS reloaded with their own selectors */
extern const struct workload wl_misaligned;  /* an 8-byte load across an 8-byte boundary */
extern const struct workload wl_far;	     /* a far return to the same code segment */
extern const struct workload wl_cpuid;	     /* CPUID leaf 0 */
extern const struct workload wl_clflush;     /* CLFLUSH of one line */
extern const struct workload wl_x87;	     /* FADD, FMUL, FCOMI */
extern const struct workload wl_chase;	     /* pointer chase over args */
extern const struct workload wl_chase_dirty; /* pointer chase, storing to each line */
extern const struct workload wl_store_walk;  /* blind stores, one per line */
extern const struct workload wl_pf_t0;	     /* PREFETCHT0, one per line */
extern const struct workload wl_pf_nta;	     /* PREFETCHNTA, one per line */
extern const struct workload wl_pf_w;	     /* PREFETCHW, one per line */
extern const struct workload wl_nt_store;    /* MOVNTI, eight per line */
extern const struct workload wl_pages;	     /* one load per page */
extern const struct workload wl_code;	     /* a call into written code: one block per stride */
extern const struct workload wl_tx_commit;   /* an RTM transaction of args.lines steps, committed */
extern const struct workload wl_tx_abort;    /* the same transaction, aborted by XABORT */
extern const struct workload wl_kvm_fep;     /* two JNEs KVM emulates (forced-emulation prefix) */

/* The code of wl_code: one block at mem + i * stride for i < blocks, each
 * "dec %ecx; jnz rel32 (the next block); ret" (9 bytes, the same in 32-
 * and 64-bit mode; stride >= 16). A single block of stride 4096 at the
 * start of a frame that every page of a window maps runs one block per
 * page. */
#define WL_CODE_BLOCK 9u
void workload_code(void *mem, uint64_t blocks, uint64_t stride);

#endif

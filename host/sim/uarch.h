/* The micro-architecture of a simulated CPU: what its caches, TLBs, branch
 * predictor and pipeline make of a workload's construction, the outcome
 * block of struct workload_vector (events/workload.h). The simulator never
 * reads the harness's expectations: it walks the buffer the harness
 * prepared, runs the kernel's branches through a predictor and prices the
 * result with published latencies.
 *
 * Each model's reset calls uarch_setup() with its constants, which also
 * publishes them as the CPUID cache leaves (Intel leaf 04H, AMD
 * 8000_0005h/8000_0006h), so that the harness's own CPUID parser
 * (pmu/cache.h) reads the geometry the model simulates. A model without
 * constants publishes none (the harness SKIPs its memory rules) and is
 * simulated with uarch_default.
 *
 * Files: uarch.c (a workload's outcome, the memo, timing, the run),
 * uarch_walk.c (a walking kernel's pass, translated), uarch_mem.c (caches
 * and TLBs), uarch_branch.c (predictor, return stack,
 * indirect targets), uarch_cpuid.c (the CPUID leaves). Host-only,
 * freestanding. */
#ifndef PMH_SIM_UARCH_H
#define PMH_SIM_UARCH_H

#include <stdbool.h>
#include <stdint.h>
#include "../../events/workload.h"

struct sim_cpu;

struct ua_cache {
	uint32_t size; /* bytes; 0: no such level */
	uint16_t ways;
};

struct ua_tlb {
	uint16_t entries; /* 4 KiB pages; 0: none */
	uint16_t ways;	  /* == entries: fully associative */
};

/* How the L2 relates to the L1D. */
enum ua_l2_policy {
	/* Keeps its copy on a hit; the L1's Modified victims are written into
	 * it, clean ones dropped (Skylake client, Core). */
	UA_L2_NONINCLUSIVE,
	/* A victim cache: L1 victims go in with their state, memory fills go
	 * to the L1 only, a hit moves the line back to the L1 (K7, K8). */
	UA_L2_EXCLUSIVE,
};

struct uarch_cfg {
	const char *name;
	bool amd; /* CPUID layout: 8000_0005h/8000_0006h, else leaf 04H */
	/* Intel parts before leaf 04H (P6, early NetBurst): the leaf 02H
	 * descriptor registers EAX-EDX that describe this geometry, published
	 * instead of leaf 04H; all 0: leaf 04H. */
	uint32_t leaf2[4];
	uint16_t line;
	struct ua_cache l1d, l1i, l2, l3;
	enum ua_l2_policy l2_policy;
	bool l3_inclusive;			  /* the L3 back-invalidates what it evicts */
	struct ua_tlb dtlb1, dtlb2, itlb1, itlb2; /* L2 TLBs: 0 entries when none */
	/* Load-to-use latencies in core cycles, and a page walk's cost. */
	uint16_t lat_l1, lat_l2, lat_l3, lat_mem, lat_walk;
	uint8_t mlp;	     /* L1D misses in flight for independent accesses */
	uint8_t width;	     /* instructions issued per cycle */
	uint8_t ras;	     /* return-address stack entries */
	uint16_t mispredict; /* cycles lost to a mispredicted branch */
	/* Cycles of the serialising and microcoded kinds, each; lock_spec is
	 * the part of a locked op spent in its speculative phase. */
	uint16_t cpuid_cyc, lock_cyc, lock_spec_cyc, seg_cyc, far_cyc, clflush_cyc, x87_cyc;
	/* An L2 streamer (realism "prefetch"): per mille of a strided walk's
	 * demand L2 misses that its prefetches turn into hits, drawn per walk. */
	bool l2_streamer;
	uint16_t pf_min_pm, pf_max_pm;
};

/* The micro-architecture a model without constants is simulated with:
 * nothing published. */
extern const struct uarch_cfg uarch_default;

/* A model's reset: s runs on c, and CPUID says so. */
void uarch_setup(struct sim_cpu *s, const struct uarch_cfg *c);
/* The micro-architecture s runs on (its own or the default). */
const struct uarch_cfg *uarch_of(const struct sim_cpu *s);
/* Power-on: cold caches, TLBs and predictor; nothing remembered. */
void uarch_power_on(void);
/* CLFLUSH of buf[0..bytes) (written back and invalidated), or WBINVD of
 * every cache when buf is 0; what the walks left is forgotten. */
void uarch_flush(struct sim_cpu *s, const void *buf, uint64_t bytes);
/* A CR3 load: every TLB entry goes (the harness maps nothing global), and
 * a remembered walk with it (the tables it was translated by may differ). */
void uarch_tlb_flush(void);

/* Runs iterations of w on s: each iteration's vector (construction plus
 * outcome) goes to adv, identical consecutive iterations in one call. A
 * random pattern advances w->args->state as the kernel does. */
typedef void (*uarch_advance_fn)(struct sim_cpu *s, const struct workload_vector *v,
				 uint64_t iterations);
void uarch_run(struct sim_cpu *s, const struct workload *w, uint64_t iterations,
	       uarch_advance_fn adv);

/* ---- between the uarch files ------------------------------------------ */

/* The CPUID cache leaves of c (uarch_cpuid.c). */
void uarch_publish(struct sim_cpu *s, const struct uarch_cfg *c);

/* Memory (uarch_mem.c). The level an access was served from. */
enum ua_level { UA_HIT_L1 = 1, UA_HIT_L2, UA_HIT_L3, UA_HIT_MEM, UA_LEVELS };
/* UA_FETCH: an instruction fetch (ua_mem_fetch only). */
enum ua_op { UA_LOAD, UA_STORE, UA_PF_T0, UA_PF_NTA, UA_PF_W, UA_NT_STORE, UA_FETCH };
/* Cold caches and TLBs of geometry c. */
void ua_mem_reset(const struct uarch_cfg *c);
/* One data access at virtual address va, physical pa (the DTLBs see va,
 * the caches pa): counts into o; *walk set when the page walk ran. */
enum ua_level ua_mem_access(uint64_t va, uint64_t pa, enum ua_op op, struct workload_vector *o,
			    bool *walk);
/* One instruction fetch block at va, physical pa: the ITLBs, then the L1I
 * and below it (origin WL_L2_CODE_RD); counts into o, *walk as above. */
enum ua_level ua_mem_fetch(uint64_t va, uint64_t pa, struct workload_vector *o, bool *walk);
/* The line at physical pa leaves every level; every line leaves every
 * level (the TLBs keep their entries); every TLB entry goes. */
void ua_mem_flush(uint64_t pa);
void ua_mem_invalidate(void);
void ua_mem_tlb_flush(void);

/* A walking kernel's pass (uarch_walk.c): what it came to, the accesses
 * each level served, and its cycles (serial for the chase and the code
 * walk, summed for the others). */
struct ua_pass {
	struct workload_vector o;
	uint64_t n[UA_LEVELS];
	uint64_t lat;
};
/* The physical address of va through the tables s's CR3 names (SDM Vol.
 * 3A 4.5); false when it is not mapped (the kernel would fault). */
bool ua_phys(const struct sim_cpu *s, uint64_t va, uint64_t *pa);
/* One pass of w over w->args's buffer as the kernel makes it, added into
 * p; an address that is not mapped ends it. */
void ua_walk(const struct sim_cpu *s, const struct uarch_cfg *c, const struct workload *w,
	     struct ua_pass *p);
/* Realism "prefetch": the L2 streamer's share of p's misses. */
void ua_prefetched(struct sim_cpu *s, const struct uarch_cfg *c, const struct workload *w,
		   struct ua_pass *p);

/* Branches (uarch_branch.c). What one iteration's branches came to. */
struct ua_br {
	uint64_t misses, taken_misses, ret_misses, ras_overflows, indirect_misses;
};
/* Cold predictor for c. */
void ua_br_reset(const struct uarch_cfg *c);
/* One iteration of w's branches: pattern (bit: the xorshift bit of a
 * random pattern, the parity of an alternating one), calls and returns,
 * the loop branch; adds what they came to into b. */
void ua_br_iteration(const struct workload *w, bool bit, struct ua_br *b);

#endif

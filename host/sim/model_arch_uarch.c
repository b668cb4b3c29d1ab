/* The micro-architectures of the Intel models (host/sim/uarch.h), which
 * model_arch.c's reset publishes in CPUID leaf 04H. Arrow Lake and Alder
 * Lake publish none: the harness SKIPs their memory rules. */
#include "model_arch.h"
#include "uarch.h"

/* Skylake client (Core i7-6700): L1D and L1I 32 KiB 8-way, L2 256 KiB 4-way
 * non-inclusive (the L1's dirty victims written into it), L3 8 MiB 16-way
 * inclusive, 64-byte lines; L1 DTLB 64 entries 4-way, STLB 1536 entries
 * 12-way (Intel 64 and IA-32 Architectures Optimization Reference Manual,
 * Skylake cache and TLB parameters). Load-to-use 4, L2 12, L3 42 cycles,
 * memory 42 cycles + 51 ns at 4 GHz (7-cpu.com, Skylake measurements); a
 * misprediction costs 15-20 cycles and the return stack has 16 entries
 * (Agner Fog, microarchitecture manual, Skylake); CPUID takes 100-250
 * cycles and LOCK ADD about 18 (Agner Fog, instruction tables, Skylake).
 * The L2 streamer is the optimization manual's; what share of a strided
 * walk it serves (2-10 %), the misses in flight, the page walk and the
 * other costs are ours. */
const struct uarch_cfg arch_ua_skylake = {
    .name = "skylake",
    .line = 64,
    .l1d = {32 * 1024, 8},
    .l1i = {32 * 1024, 8},
    .l2 = {256 * 1024, 4},
    .l3 = {8 * 1024 * 1024, 16},
    .l2_policy = UA_L2_NONINCLUSIVE,
    .l3_inclusive = true,
    .dtlb1 = {64, 4},
    .dtlb2 = {1536, 12},
    .itlb1 = {128, 8},
    .lat_l1 = 4,
    .lat_l2 = 12,
    .lat_l3 = 42,
    .lat_mem = 246,
    .lat_walk = 25,
    .mlp = 10,
    .width = 4,
    .ras = 16,
    .mispredict = 17,
    .cpuid_cyc = 150,
    .lock_cyc = 18,
    .lock_spec_cyc = 4,
    .seg_cyc = 15,
    .far_cyc = 40,
    .clflush_cyc = 50,
    .x87_cyc = 3,
    .l2_streamer = true,
    .pf_min_pm = 20,
    .pf_max_pm = 100,
};

/* Core 2 (Merom, 4 MiB L2): L1D and L1I 32 KiB 8-way, L2 4 MiB 16-way, the
 * last level; DTLB0 16 entries 4-way (loads), DTLB 256 entries 4-way
 * (optimization reference manual, Intel Core microarchitecture). L1 3 and
 * L2 14 cycles (the same manual); 16 return-stack entries and a penalty of
 * about 15 cycles (Agner Fog, microarchitecture manual, Core 2); memory and
 * the costs ours. */
const struct uarch_cfg arch_ua_core2 = {
    .name = "core2",
    .line = 64,
    .l1d = {32 * 1024, 8},
    .l1i = {32 * 1024, 8},
    .l2 = {4 * 1024 * 1024, 16},
    .l2_policy = UA_L2_NONINCLUSIVE,
    .dtlb1 = {16, 4},
    .dtlb2 = {256, 4},
    .itlb1 = {128, 4},
    .lat_l1 = 3,
    .lat_l2 = 14,
    .lat_mem = 200,
    .lat_walk = 20,
    .mlp = 8,
    .width = 4,
    .ras = 16,
    .mispredict = 15,
    .cpuid_cyc = 150,
    .lock_cyc = 20,
    .lock_spec_cyc = 4,
    .seg_cyc = 15,
    .far_cyc = 40,
    .clflush_cyc = 50,
    .x87_cyc = 3,
    .l2_streamer = true,
    .pf_min_pm = 20,
    .pf_max_pm = 100,
};

/* Core Duo (Yonah, 2 MiB L2): L1D and L1I 32 KiB 8-way, L2 2 MiB 8-way, the
 * last level; one DTLB of 128 entries 4-way (optimization reference
 * manual, Pentium M and Intel Core Duo); L1 3 and L2 14 cycles, a
 * misprediction about 13 (Agner Fog, microarchitecture manual, Pentium M);
 * return stack, memory and costs ours. */
const struct uarch_cfg arch_ua_yonah = {
    .name = "yonah",
    .line = 64,
    .l1d = {32 * 1024, 8},
    .l1i = {32 * 1024, 8},
    .l2 = {2 * 1024 * 1024, 8},
    .l2_policy = UA_L2_NONINCLUSIVE,
    .dtlb1 = {128, 4},
    .itlb1 = {128, 4},
    .lat_l1 = 3,
    .lat_l2 = 14,
    .lat_mem = 180,
    .lat_walk = 20,
    .mlp = 8,
    .width = 3,
    .ras = 16,
    .mispredict = 13,
    .cpuid_cyc = 150,
    .lock_cyc = 20,
    .lock_spec_cyc = 4,
    .seg_cyc = 15,
    .far_cyc = 40,
    .clflush_cyc = 50,
    .x87_cyc = 3,
    .l2_streamer = true,
    .pf_min_pm = 20,
    .pf_max_pm = 100,
};

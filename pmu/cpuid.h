/* CPUID leaves and the bits and fields the harness reads, named once (as
 * Linux's cpufeatures.h and kvm-unit-tests' X86_FEATURE_* do). Leaves are
 * CPUID_LEAF_*; a bit is CPUID_<leaf>_<register>_<name>. Sources: SDM Vol. 2A
 * CPUID, AMD APM Vol. 3 #24594 Appendix E (CPUID) and RDPMC, Linux
 * arch/x86/include/asm/cpufeatures.h. */
#ifndef PMH_PMU_CPUID_H
#define PMH_PMU_CPUID_H

/* Basic leaves */
#define CPUID_LEAF_MAX	    0x0 /* EAX highest basic leaf, EBX-EDX-ECX vendor */
#define CPUID_LEAF_FEATURES 0x1 /* signature and feature flags */
#define CPUID_LEAF_CACHE_PARAMS                                                                    \
	0x4			     /* Intel deterministic cache parameters, a subleaf per cache  \
				      */
#define CPUID_LEAF_POWER	0x6  /* thermal and power management */
#define CPUID_LEAF_EXT_FEATURES 0x7  /* structured extended features, subleaf 0 */
#define CPUID_LEAF_PERFMON	0xa  /* Intel architectural performance monitoring */
#define CPUID_LEAF_ARCH_LBR	0x1c /* architectural LBRs: depths, filters */
#define CPUID_LEAF_HYBRID	0x1a /* native model ID: the core type */
#define CPUID_LEAF_PERFMON_EXT	0x23 /* its extended leaf (perfmon v6) */
#define CPUID_LEAF_HYPERVISOR	0x40000000u /* EAX highest leaf, EBX-ECX-EDX signature */

/* Extended leaves */
#define CPUID_LEAF_EXT_MAX	    0x80000000u /* EAX highest extended leaf */
#define CPUID_LEAF_EXT_MAX_VALID    0xffff0000u /* the bits of EAX that say it is one */
#define CPUID_LEAF_AMD_FEATURES	    0x80000001u /* AMD feature flags */
#define CPUID_LEAF_BRAND	    0x80000002u /* brand string, three leaves from here */
#define CPUID_LEAF_BRAND_LAST	    0x80000004u
#define CPUID_LEAF_AMD_L1	    0x80000005u /* AMD L1 caches and TLBs */
#define CPUID_LEAF_AMD_L2_L3	    0x80000006u /* AMD L2 and L3 caches, L2 TLBs */
#define CPUID_LEAF_AMD_CACHE_PARAMS 0x8000001du /* AMD cache topology, as leaf 04H */
#define CPUID_LEAF_AMD_PERFMON	    0x80000022u /* AMD extended performance monitoring */
#define CPUID_LEAF_AMD_IBS	    0x8000001bu /* AMD instruction-based sampling features */
#define CPUID_AMD1_ECX_IBS	    (1u << 10)	/* 8000_0001h ECX: IBS */

/* Leaf 1 EAX: signature fields (SDM Vol. 2A CPUID, figure 3-6) */
#define CPUID_1_EAX_STEPPING(eax)   ((eax)&0xf)
#define CPUID_1_EAX_MODEL(eax)	    (((eax) >> 4) & 0xf)
#define CPUID_1_EAX_FAMILY(eax)	    (((eax) >> 8) & 0xf)
#define CPUID_1_EAX_EXT_MODEL(eax)  (((eax) >> 16) & 0xf)
#define CPUID_1_EAX_EXT_FAMILY(eax) (((eax) >> 20) & 0xff)
/* Leaf 1 EBX: logical processors per package and the initial APIC ID */
#define CPUID_1_EBX_LOGICAL(ebx) (((ebx) >> 16) & 0xff)
#define CPUID_1_EBX_APIC_ID(ebx) ((ebx) >> 24)
/* Leaf 1 ECX */
#define CPUID_1_ECX_PDCM       (1u << 15) /* IA32_PERF_CAPABILITIES exists (SDM Vol. 2A CPUID) */
#define CPUID_1_ECX_X2APIC     (1u << 21) /* x2APIC mode available */
#define CPUID_1_ECX_HYPERVISOR (1u << 31) /* running under a hypervisor */
/* Leaf 1 EDX */
#define CPUID_1_EDX_APIC (1u << 9)  /* on-chip local APIC */
#define CPUID_1_EDX_HTT	 (1u << 28) /* EBX[23:16] counts logical processors */

/* Leaf 6 ECX[0]: IA32_MPERF and IA32_APERF exist (SDM Vol. 2A CPUID leaf 06H;
 * AMD EffFreq, APM Vol. 3 CPUID Fn0000_0006_ECX) */
#define CPUID_6_ECX_APERFMPERF (1u << 0)

/* Leaf 7 ECX: IA32_PKRS exists (SDM Vol. 2A CPUID, Vol. 3A 4.6.2) */
#define CPUID_7_ECX_PKS (1u << 31)
/* Leaf 7 EBX: HLE and RTM, Intel TSX (SDM Vol. 2A CPUID; Vol. 1 16.3.1) */
#define CPUID_7_EBX_HLE (1u << 4)
#define CPUID_7_EBX_RTM (1u << 11)
/* Leaf 7 EDX[29]: IA32_ARCH_CAPABILITIES exists (SDM Vol. 2A CPUID) */
#define CPUID_7_EDX_ARCH_CAPS (1u << 29)
/* Leaf 7 EDX (Linux cpufeatures.h; intel/core.c tfa_get_event_constraints) */
#define CPUID_7_EDX_RTM_ALWAYS_ABORT (1u << 11)
#define CPUID_7_EDX_TSX_FORCE_ABORT  (1u << 13)
#define CPUID_7_EDX_HYBRID	     (1u << 15) /* two core types: leaf 1AH says which */
#define CPUID_7_EDX_ARCH_LBR	     (1u << 19) /* architectural LBRs: leaf 1CH */
/* Leaf 1CH (SDM Vol. 2A CPUID): EAX[7:0] bit n offers depth 8(n + 1);
 * EBX[0] CPL filtering, [1] branch filtering, [2] call-stack mode; ECX[0]
 * the mispredicted bit in LBR_INFO */
#define CPUID_1C_EAX_DEPTHS(eax) ((eax)&0xff)
#define CPUID_1C_EBX_CPL	 (1u << 0)
#define CPUID_1C_EBX_FILTER	 (1u << 1)
#define CPUID_1C_EBX_CALLSTACK	 (1u << 2)
#define CPUID_1C_ECX_MISPRED	 (1u << 0)
/* 8000_0022h (AMD APM Vol. 3 E.4.23): EAX[1] LbrExtV2, EAX[2]
 * LBR and PMC freeze; EBX[9:4] the LBR v2 stack's entries */
#define CPUID_AMD22_EAX_LBRV2	       (1u << 1)
#define CPUID_AMD22_EAX_LBR_FREEZE     (1u << 2)
#define CPUID_AMD22_EBX_LBR_DEPTH(ebx) (((ebx) >> 4) & 0x3f)
/* CPUID.1:EDX[21] DS, ECX[2] DTES64 (SDM Vol. 2A CPUID) */
#define CPUID_1_EDX_DS	   (1u << 21)
#define CPUID_1_ECX_DTES64 (1u << 2)

/* Leaf 1AH EAX[31:24]: the core type (SDM Vol. 2A CPUID; Linux
 * INTEL_CPU_TYPE_CORE / _ATOM in intel-family.h) */
#define CPUID_1A_EAX_CORE_TYPE(eax) ((eax) >> 24)
#define CPU_CORE_TYPE_ATOM	    0x20 /* E-core */
#define CPU_CORE_TYPE_CORE	    0x40 /* P-core */

/* Leaf 7 subleaf 1 EAX: leaf 23H is there (Linux ARCH_PERFMON_EXT) */
#define CPUID_7_1_EAX_PERFMON_EXT (1u << 8)

/* Leaf 23H (SDM Vol. 2A CPUID, Architectural Performance Monitoring Extended
 * Leaf; Linux update_pmu_cap in events/intel/core.c): subleaf 0 EAX is the
 * bitmap of valid subleafs, bit 1 for subleaf 1 (Linux once tested bit 0);
 * subleaf 1 EAX the GP counters, EBX the fixed counters, a bit per counter
 * (there may be holes). */
#define CPUID_23_SUBLEAF_COUNTERS 1
#define CPUID_23_EAX_COUNTERS	  (1u << CPUID_23_SUBLEAF_COUNTERS)

/* Leaf 0AH (SDM Vol. 2A CPUID; SDM Vol. 3B 20.2.1) */
#define CPUID_0A_EAX_VERSION(eax)	 ((eax)&0xff)
#define CPUID_0A_EAX_GP_COUNTERS(eax)	 (((eax) >> 8) & 0xff)
#define CPUID_0A_EAX_GP_WIDTH(eax)	 (((eax) >> 16) & 0xff)
#define CPUID_0A_EAX_EBX_LENGTH(eax)	 ((eax) >> 24)
#define CPUID_0A_EDX_FIXED_COUNTERS(edx) ((edx)&0x1f)
#define CPUID_0A_EDX_FIXED_WIDTH(edx)	 (((edx) >> 5) & 0xff)
/* AnyThread deprecated: EVNTSEL.ANY and the fixed counters' AnyThread bits
 * are not to be set (SDM Vol. 3B §20.2.5, CPUID leaf 0AH EDX[15]). */
#define CPUID_0A_EDX_ANYTHREAD_DEPRECATED (1u << 15)

/* Leaf 8000_0001h ECX (AMD APM Vol. 3 E.4.2 and RDPMC) */
#define CPUID_AMD_ECX_PERFCTR_CORE (1u << 23) /* six core counters at C001_0200h */
#define CPUID_AMD_ECX_PERFCTR_NB   (1u << 24) /* northbridge counters, RDPMC 6-9 */
#define CPUID_AMD_ECX_PERFCTR_LLC  (1u << 28) /* L3 counters, RDPMC 10-15 */

/* Leaf 04H and AMD leaf 8000_001Dh, one subleaf per cache until type 0
 * (SDM Vol. 2A CPUID leaf 04H; AMD CPUID Specification #25481 Fn8000_001D) */
#define CPUID_4_EAX_TYPE(eax)	    ((eax)&0x1f)
#define CPUID_4_TYPE_NONE	    0
#define CPUID_4_TYPE_DATA	    1
#define CPUID_4_TYPE_INSTRUCTION    2
#define CPUID_4_TYPE_UNIFIED	    3
#define CPUID_4_EAX_LEVEL(eax)	    (((eax) >> 5) & 0x7)
#define CPUID_4_EAX_FULLY_ASSOC	    (1u << 9)
#define CPUID_4_EBX_WAYS(ebx)	    (((ebx) >> 22) + 1)
#define CPUID_4_EBX_PARTITIONS(ebx) ((((ebx) >> 12) & 0x3ff) + 1)
#define CPUID_4_EBX_LINE(ebx)	    (((ebx)&0xfff) + 1)
#define CPUID_4_ECX_SETS(ecx)	    ((ecx) + 1)
#define CPUID_4_MAX_SUBLEAF	    16 /* a bound: parts enumerate 4 or 5 caches */

/* Leaf 8000_0001h ECX[22] TopologyExtensions: leaf 8000_001Dh is there
 * (AMD CPUID Specification #25481 Fn8000_0001_ECX) */
#define CPUID_AMD_ECX_TOPOEXT (1u << 22)

/* Leaf 8000_0005h (AMD CPUID Specification #25481 Fn8000_0005): EBX the
 * 4 KiB-page L1 TLBs, ECX the L1 data cache, EDX the L1 instruction cache.
 * Associativity is the way count, FFh fully associative. */
#define CPUID_AMD_L1_DTLB_ASSOC(ebx)   ((ebx) >> 24)
#define CPUID_AMD_L1_DTLB_ENTRIES(ebx) (((ebx) >> 16) & 0xff)
#define CPUID_AMD_L1_ITLB_ASSOC(ebx)   (((ebx) >> 8) & 0xff)
#define CPUID_AMD_L1_ITLB_ENTRIES(ebx) ((ebx)&0xff)
#define CPUID_AMD_L1_SIZE_KB(r)	       ((r) >> 24)
#define CPUID_AMD_L1_ASSOC(r)	       (((r) >> 16) & 0xff)
#define CPUID_AMD_L1_LINE(r)	       ((r)&0xff)
#define CPUID_AMD_L1_FULLY	       0xff

/* Leaf 8000_0006h (AMD CPUID Specification #25481 Fn8000_0006): EBX the
 * 4 KiB-page L2 TLBs, ECX the L2 cache, EDX the L3 cache (size in 512 KiB
 * units). Associativity is the 4-bit code of the table in pmu/cache.c. */
#define CPUID_AMD_L2_DTLB_ASSOC(ebx)   ((ebx) >> 28)
#define CPUID_AMD_L2_DTLB_ENTRIES(ebx) (((ebx) >> 16) & 0xfff)
#define CPUID_AMD_L2_ITLB_ASSOC(ebx)   (((ebx) >> 12) & 0xf)
#define CPUID_AMD_L2_ITLB_ENTRIES(ebx) ((ebx)&0xfff)
#define CPUID_AMD_L2_SIZE_KB(ecx)      ((ecx) >> 16)
#define CPUID_AMD_L3_SIZE_512K(edx)    ((edx) >> 18)
#define CPUID_AMD_L2_ASSOC(r)	       (((r) >> 12) & 0xf)
#define CPUID_AMD_L2_LINE(r)	       ((r)&0xff)
#define CPUID_AMD_L2_ASSOC_FULLY       0xf

/* Leaf 8000_0022h (AMD APM Vol. 3 E.4.23) */
#define CPUID_AMD_PERFMON_EAX_V2	     (1u << 0) /* PerfMonV2: the global MSRs */
#define CPUID_AMD_PERFMON_EBX_CORE_PMCS(ebx) ((ebx)&0xf)

#endif

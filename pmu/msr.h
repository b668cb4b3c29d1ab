/* MSR and bit names used across drivers and checks. Addresses from
 * SDM Vol. 4 Table 2-2, the SDM Vol. 3B performance-monitoring chapter, AMD APM
 * Vol. 2 #24593 §13.2, Linux arch/x86/include/asm/msr-index.h and the KNC
 * PMU guide #327357 §1.4.3. */
#ifndef PMH_PMU_MSR_H
#define PMH_PMU_MSR_H

#define MSR_IA32_TSC		0x10
#define MSR_IA32_APIC_BASE	0x1b
#define MSR_IA32_BIOS_SIGN_ID	0x8b /* microcode revision in EDX after CPUID(1) */
#define MSR_IA32_MISC_ENABLE	0x1a0
#define MISC_ENABLE_EMON	(1ull << 7)
#define MISC_ENABLE_LIMIT_CPUID (1ull << 22) /* CPUID leaf 0 reports 2 when set */
#define MSR_TSX_FORCE_ABORT	0x10f	     /* bit 0: RTM aborts, PMC3 free */
#define TFA_RTM_FORCE_ABORT	(1ull << 0)  /* Linux msr-index.h MSR_TFA_RTM_FORCE_ABORT */
/* TSX control (SDM Vol. 4 Table 2-2; Linux msr-index.h): ARCH_CAPABILITIES
 * bit 7 says IA32_TSX_CTRL exists; its bit 0 makes every RTM transaction
 * abort, bit 1 hides RTM and HLE from CPUID. */
#define MSR_IA32_ARCH_CAPABILITIES 0x10a
#define ARCH_CAP_TSX_CTRL_MSR	   (1ull << 7)
#define MSR_IA32_TSX_CTRL	   0x122
#define TSX_CTRL_RTM_DISABLE	   (1ull << 0)
#define TSX_CTRL_CPUID_CLEAR	   (1ull << 1)

#define APIC_BASE_BSP	 (1ull << 8)
#define APIC_BASE_X2APIC (1ull << 10)
#define APIC_BASE_ENABLE (1ull << 11)

/* P6 and architectural perfmon (§3, §4) */
#define MSR_P6_PERFCTR0	      0xc1
#define PMC_WRITE_BITS	      32 /* 0xC1+i keep bits 31:0 of a write, sign-extended (§2) */
#define MSR_P6_EVNTSEL0	      0x186
#define MSR_IA32_PMC0	      0x4c1 /* full-width alias */
#define MSR_PERF_CAPABILITIES 0x345
/* IA32_PERF_CAPABILITIES fields (SDM Vol. 3B "IA32_PERF_CAPABILITIES MSR
 * Enumeration"; Linux perf_event.h union perf_capabilities) */
#define PERF_CAP_LBR_FMT      0x3full
#define PERF_CAP_PEBS_TRAP    (1ull << 6)
#define PERF_CAP_PEBS_ARCH    (1ull << 7)
#define PERF_CAP_PEBS_FMT(c)  (((c) >> 8) & 0xf)
#define PERF_CAP_SMM_FRZ      (1ull << 12)
#define PERF_CAP_FW_WRITE     (1ull << 13)
#define PERF_CAP_PEBS_BASE    (1ull << 14)
#define PERF_CAP_PERF_METRICS (1ull << 15)
#define PERF_CAP_PEBS_PT      (1ull << 16)
#define MSR_FIXED_CTR0	      0x309
/* Perfmon v6: counter n's registers at a stride of 4, the GP counters past
 * the eight legacy ones only there (Linux msr-index.h MSR_IA32_PMC_V6_*) */
#define MSR_V6_GP0_CTR		   0x1900
#define MSR_V6_GP0_CFG_A	   0x1901 /* the event select */
#define MSR_V6_FX0_CTR		   0x1980
#define MSR_V6_STEP		   4
#define V6_LEGACY_GP		   8	      /* GP counters at 0xC1+i / 0x186+i */
#define V6_LEGACY_FIXED		   4	      /* fixed counters at 0x309+i */
#define RDPMC_FIXED		   (1u << 30) /* RDPMC ECX of fixed counter i: RDPMC_FIXED | i (§2) */
#define MSR_FIXED_CTR_CTRL	   0x38d
#define MSR_PERF_GLOBAL_STATUS	   0x38e
#define MSR_PERF_GLOBAL_CTRL	   0x38f
#define MSR_PERF_GLOBAL_OVF_CTRL   0x390
#define MSR_PERF_GLOBAL_STATUS_SET 0x391
#define MSR_DEBUGCTL		   0x1d9
/* IA32_DEBUGCTL (SDM Vol. 4 Table 2-2): the freezes of Intel arch perfmon
 * v2+ ("Freezing LBR and Performance Counters on PMI"), FREEZE_WHILE_SMM
 * where PERF_CAPABILITIES[12] says so */
#define DEBUGCTL_FREEZE_PERFMON_ON_PMI (1ull << 12)
#define DEBUGCTL_FREEZE_WHILE_SMM      (1ull << 14)
/* GLOBAL_STATUS / GLOBAL_STATUS_RESET bit 59, v4: CTR_FRZ, the counters are
 * frozen by the freeze on PMI (SDM Vol. 3B 20.2.4.1); GLOBAL_CTRL bit 48,
 * EN_PERF_METRICS (Linux perf_event.h GLOBAL_CTRL_EN_PERF_METRICS) */
#define GLOBAL_STATUS_CTR_FRZ	    (1ull << 59)
#define GLOBAL_CTRL_EN_PERF_METRICS (1ull << 48)
/* IA32_PERF_METRICS: eight 8-bit fractions of TOPDOWN.SLOTS (fixed counter
 * 3), level 1 in bits 31:0 (Linux tools/perf/Documentation/topdown.txt) */
#define MSR_PERF_METRICS 0x329

/* Event-select bits shared by P6, arch, AMD and KNC (§1) */
#define EVTSEL_LOW32	      0xffffffffull /* bits 31:0, the select of P6, arch v1-v5 and KNC */
#define EVTSEL_EVENT_MAX      0xff	    /* event select 7:0 */
#define EVTSEL_UMASK_SHIFT    8		    /* unit mask 15:8 */
#define EVTSEL_EVENT_HI_SHIFT 32	    /* AMD from Fam10h: event[11:8] at 35:32 */
#define EVTSEL_USR	      (1ull << 16)
#define EVTSEL_OS	      (1ull << 17)
#define EVTSEL_EDGE	      (1ull << 18)
#define EVTSEL_PC	      (1ull << 19)
#define EVTSEL_INT	      (1ull << 20)
#define EVTSEL_ANY	      (1ull << 21)
#define EVTSEL_EN	      (1ull << 22)
#define EVTSEL_INV	      (1ull << 23)
#define EVTSEL_CMASK_SHIFT    24
/* Intel TSX qualifiers, Haswell on (SDM Vol. 3B 20.3.6.5; Linux HSW_IN_TX,
 * HSW_IN_TX_CHECKPOINTED): count inside RTM regions only; take back what
 * an aborted region counted (IA32_PERFEVTSEL2 only). */
#define EVTSEL_IN_TX   (1ull << 32)
#define EVTSEL_IN_TXCP (1ull << 33)

/* NetBurst (§5); the ESCRs the driver and the catalogue bind events to,
 * thread 0's (ESCRn0): thread 1's ESCRn1 is the next address */
#define MSR_P4_COUNTER0	  0x300
#define MSR_P4_CCCR0	  0x360
#define MSR_P4_BSU_ESCR0  0x3a0
#define MSR_P4_FSB_ESCR0  0x3a2
#define MSR_P4_CRU_ESCR0  0x3b8
#define MSR_P4_TBPU_ESCR0 0x3c2
#define MSR_P4_CRU_ESCR2  0x3cc

/* Knights Corner (KNC §1.4.3, table 1-2) */
#define MSR_KNC_PERFCTR0	0x20
#define MSR_KNC_EVNTSEL0	0x28
#define MSR_KNC_SPFLT_CTRL	0x2c
#define MSR_KNC_GLOBAL_STATUS	0x2d
#define MSR_KNC_GLOBAL_OVF_CTRL 0x2e
#define MSR_KNC_GLOBAL_CTRL	0x2f
/* PERF_SPFLT_CONTROL bit 63, USER_PREF: the SPFLT instruction's flag; bit i
 * puts IA32_PerfCnt i under it (KNC PMU guide #327357 §1.4.3.4, table 1-7) */
#define KNC_SPFLT_USER_PREF (1ull << 63)

/* AMD (§7): legacy PERF_CTL i / PERF_CTR i at +i; the core extension's at +2i */
#define MSR_K7_EVNTSEL0		  0xc0010000
#define MSR_K7_PERFCTR0		  0xc0010004
#define MSR_F15H_PERF_CTL0	  0xc0010200
#define MSR_F15H_PERF_CTR0	  0xc0010201
#define MSR_AMD_GLOBAL_STATUS	  0xc0000300
#define MSR_AMD_GLOBAL_CTL	  0xc0000301
#define MSR_AMD_GLOBAL_STATUS_CLR 0xc0000302

/* Intel: SMIs since reset (SDM Vol. 4, Nehalem and later); a window during
 * which it moved was disturbed. */
#define MSR_SMI_COUNT 0x34

/* The P-state feedback counters (SDM Vol. 3B 15.2, Vol. 4 Table 2-2; AMD's
 * MPERF/APERF at the same addresses from family 10h): MPERF at a fixed
 * (the TSC's) rate, APERF at the actual core clock, both in C0 only.
 * Present when CPUID.06H:ECX[0]. */
#define MSR_IA32_MPERF 0xe7
#define MSR_IA32_APERF 0xe8

/* Supervisor protection keys (SDM Vol. 3A 4.6.2, Vol. 4 Table 2-2): bits
 * 63:32 are reserved and a WRMSR that sets one raises #GP; the guard.gp
 * check's known fault. Present when CPUID.(7,0):ECX[31] (PKS). */
#define MSR_IA32_PKRS	   0x6e1
#define PKRS_RESERVED_MASK 0xffffffff00000000ull

/* ---- Sampling hardware ------------------------------------------------- */
/* IA32_DEBUGCTL's branch bits (SDM Vol. 3B 18.4.1 "IA32_DEBUGCTL MSR";
 * AMD APM Vol. 2 13.1.1.6): LBR on, the branch trace store (TR, BTS,
 * BTINT, BTS_OFF_OS, BTS_OFF_USR) and the LBR freeze on PMI. */
#define DEBUGCTL_LBR		    (1ull << 0)
#define DEBUGCTL_BTF		    (1ull << 1)
#define DEBUGCTL_TR		    (1ull << 6)
#define DEBUGCTL_BTS		    (1ull << 7)
#define DEBUGCTL_BTINT		    (1ull << 8)
#define DEBUGCTL_BTS_OFF_OS	    (1ull << 9)
#define DEBUGCTL_BTS_OFF_USR	    (1ull << 10)
#define DEBUGCTL_FREEZE_LBRS_ON_PMI (1ull << 11)
/* GLOBAL_STATUS bit 58 LBR_FRZ (v4, SDM Vol. 3B 20.2.4.1; AMD PerfMonV2
 * the same bit, Linux amd/lbr.c), bit 62 the DS buffer's threshold
 * (OvfDSBuffer, SDM Vol. 3B 20.2.4) */
#define GLOBAL_STATUS_LBR_FRZ	  (1ull << 58)
#define GLOBAL_STATUS_DS_BUFFER	  (1ull << 62)
#define MSR_AMD_GLOBAL_STATUS_SET 0xc0000303
/* IA32_MISC_ENABLE: the DS features the processor does not have (SDM Vol.
 * 4 Table 2-2) */
#define MISC_ENABLE_BTS_UNAVAIL	 (1ull << 11)
#define MISC_ENABLE_PEBS_UNAVAIL (1ull << 12)
/* Legacy (model-specific) LBRs: the top-of-stack index and the filter
 * (Nehalem on), the stacks at one of two pairs of bases (Linux intel/lbr.c
 * intel_pmu_lbr_init_*), LBR_INFO (Skylake on, format 5) */
#define MSR_LBR_SELECT	  0x1c8
#define MSR_LBR_TOS	  0x1c9
#define MSR_LBR_CORE_FROM 0x40
#define MSR_LBR_CORE_TO	  0x60
#define MSR_LBR_NHM_FROM  0x680
#define MSR_LBR_NHM_TO	  0x6c0
#define MSR_LBR_INFO_0	  0xdc0
#define LBR_FMT_INFO	  5    /* PERF_CAPABILITIES[5:0]: LBR_INFO holds MISPRED */
#define LBR_FMT_EIP_FLAGS 3    /* FROM[63] is MISPRED */
#define LBR_FMT_ARCH	  0x3f /* architectural LBRs (CPUID 1CH) */
#define LBR_INFO_MISPRED  (1ull << 63)
/* Architectural LBRs (SDM Vol. 3B 18.1.2 "Architectural Last Branch
 * Records"; CPUID.(7,0):EDX[19], leaf 1CH): entry 0 is the youngest */
#define MSR_ARCH_LBR_CTL   0x14ce
#define MSR_ARCH_LBR_DEPTH 0x14cf
#define MSR_ARCH_LBR_FROM  0x1500
#define MSR_ARCH_LBR_TO	   0x1600
#define MSR_ARCH_LBR_INFO  0x1200
#define ARCH_LBR_CTL_EN	   (1ull << 0)
#define ARCH_LBR_CTL_OS	   (1ull << 1)
#define ARCH_LBR_CTL_USR   (1ull << 2)
#define ARCH_LBR_CTL_STACK (1ull << 3)
#define ARCH_LBR_CTL_BR(k)                                                                         \
	(1ull << (16 + (k))) /* JCC, REL_JMP, IND_JMP, REL_CALL, IND_CALL, RET, OTHER */
/* AMD LBR v2 (AMD APM Vol. 2 13.1.1.9; CPUID 8000_0022h EAX[1], EBX[9:4]
 * entries; Linux amd/lbr.c): FROM/TO pairs, FROM[63] mispredicted, TO[63]
 * valid; LBR_SELECT as Intel's legacy filter; DBG_EXTN_CFG[6] enables */
#define MSR_AMD_LBR_SELECT   0xc000010e
#define MSR_AMD_DBG_EXTN_CFG 0xc000010f
#define AMD_DBG_EXTN_LBRV2EN (1ull << 6)
#define MSR_AMD_SAMP_BR_FROM 0xc0010300
#define AMD_LBR_FROM_MISPRED (1ull << 63)
#define AMD_LBR_TO_VALID     (1ull << 63)
/* LBR_SELECT (legacy Intel and AMD): a set bit suppresses (SDM Vol. 3B
 * Table 18-2) */
#define LBR_SEL_CPL_EQ_0  (1ull << 0)
#define LBR_SEL_CPL_NEQ_0 (1ull << 1)
#define LBR_SEL_JCC	  (1ull << 2)
#define LBR_SEL_REL_CALL  (1ull << 3)
#define LBR_SEL_IND_CALL  (1ull << 4)
#define LBR_SEL_RET	  (1ull << 5)
#define LBR_SEL_IND_JMP	  (1ull << 6)
#define LBR_SEL_REL_JMP	  (1ull << 7)
#define LBR_SEL_FAR	  (1ull << 8)
#define LBR_SEL_CALLSTACK (1ull << 9) /* EN_CALLSTACK, Haswell on (Linux intel/lbr.c) */
/* The debug store (SDM Vol. 3B 18.6.3.4 "Debug Store (DS) Mechanism",
 * 20.6.2.4 PEBS): the DS save area's linear address, PEBS per counter,
 * adaptive PEBS's record groups (Ice Lake on) */
#define MSR_IA32_DS_AREA     0x600
#define MSR_IA32_PEBS_ENABLE 0x3f1
#define MSR_PEBS_DATA_CFG    0x3f2
/* AMD IBS (AMD APM Vol. 2 13.3; CPUID 8000_0001h ECX[10], 8000_001Bh) */
#define MSR_AMD_IBS_FETCH_CTL	   0xc0011030
#define MSR_AMD_IBS_FETCH_LINADDR  0xc0011031
#define MSR_AMD_IBS_FETCH_PHYSADDR 0xc0011032
#define MSR_AMD_IBS_OP_CTL	   0xc0011033
#define MSR_AMD_IBS_OP_RIP	   0xc0011034
#define MSR_AMD_IBS_OP_DATA	   0xc0011035
#define MSR_AMD_IBS_OP_DATA2	   0xc0011036
#define MSR_AMD_IBS_OP_DATA3	   0xc0011037
#define MSR_AMD_IBS_DC_LINADDR	   0xc0011038
#define MSR_AMD_IBS_DC_PHYSADDR	   0xc0011039
#define MSR_AMD_IBS_CTL		   0xc001103a
#define MSR_AMD_IBS_BR_TARGET	   0xc001103b

/* x2APIC: MSR = 0x800 + (xAPIC offset >> 4) (§8) */
#define MSR_X2APIC_BASE 0x800

#endif

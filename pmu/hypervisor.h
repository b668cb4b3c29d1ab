/* The hypervisor the harness runs under, found as Linux finds it, and what
 * turns its virtual PMU on. Everything comes from CPUID through the seam
 * (pmu/hw.h), so the host tests fake any hypervisor with a CPUID table. */
#ifndef PMH_PMU_HYPERVISOR_H
#define PMH_PMU_HYPERVISOR_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/* The leaves 4000_0000h-4000_FF00h in steps of 100h are scanned (Linux
 * hypervisor_cpuid_base(), once in arch/x86/include/asm/processor.h), and a known
 * hypervisor at a later base is preferred to the Hyper-V interface at
 * 4000_0000h: Xen with Viridian and KVM with Hyper-V enlightenments show
 * "Microsoft Hv" there first (Linux arch/x86/kernel/cpu/hypervisor.c keeps
 * the detection with the highest base). */
enum hv_id {
	HV_NONE,    /* CPUID.1:ECX[31] clear: bare metal, as far as CPUID says */
	HV_UNKNOWN, /* the bit set, no signature the table knows */
	HV_KVM,
	HV_XEN,
	HV_HYPERV,
	HV_VMWARE,
	HV_BHYVE,
	HV_ACRN,
	HV_QNX,
	HV_PARALLELS,
	HV_VBOX,
	HV_TCG,
	HV_COUNT
};

struct hv_info {
	enum hv_id id;
	char name[24];	    /* "KVM", "Xen", "Hyper-V"; an unknown one's signature,
			       "unknown" when it has none; "none" */
	char signature[13]; /* the 12 bytes of EBX-ECX-EDX up to the first NUL,
			       unprintable bytes as '?'; "" when no leaf answered */
	uint32_t base;	    /* the leaf it answered at (4000_0000h + k * 100h); 0: none */
	uint32_t max_leaf;  /* EAX of that leaf */
	char version[32];   /* "4.17", "10.0.20348"; "" where no leaf enumerates it */
	bool hyperv_face;   /* a Hyper-V interface at 4000_0000h in front of it */
};

/* Fills hv from CPUID. hv_bit is CPUID.1:ECX[31]: without it nothing is read
 * and hv says HV_NONE, so bare metal is never scanned. */
void hv_identify(struct hv_info *hv, bool hv_bit);
/* "KVM", "Xen", "Hyper-V", ...; "unknown" for HV_UNKNOWN, "none" for HV_NONE. */
const char *hv_id_name(enum hv_id id);
/* How the hypervisor's virtual PMU is turned on, with the public source
 * that says so ("enable it with ... (source)"), or that no switch is known. */
const char *hv_pmu_switch(enum hv_id id);
/* The value of the cpu.hypervisor line: `KVM (signature "KVMKVMKVM" at
 * 0x40000000)`, `none`, ... */
void hv_describe(const struct hv_info *hv, char *buf, size_t n);
/* Why a run under hv has no PMU, what says what was seen:
 * "hypervisor KVM exposes no PMU (CPUID.0AH version 0): enable it with ...".
 * hybrid_host: the guest sees an Intel hybrid model, whose vPMU KVM turns
 * off whatever its switches say. Under 172 characters for what up to 45, so
 * that the verdict line holds it whole. */
void hv_no_pmu_reason(const struct hv_info *hv, bool hybrid_host, const char *what, char *buf,
		      size_t n);

#endif

/* AMD's extended APIC registers (AMD APM Vol. 2 16.4.5 "Extended
 * Interrupts"): the feature register at 400h (EAX[23:16]: the number of
 * extended LVT entries; bits 2:0 the IER, specific-EOI and extended-ID
 * capabilities), the control register at 410h and the extended interrupt
 * LVT entries at 500h + 10h n: vector 7:0, message type 10:8 (000b fixed,
 * 100b NMI), delivery status 12, mask 16, masked at reset. Linux programs
 * IBS's entry there (arch/x86/kernel/apic/apic.c setup_APIC_eilvt). The
 * entries are kept in sim_ibs.lvt with the mask bit inverted, so that the
 * zeroed power-on state (sim_smp_reset) reads masked. */
#include "sim.h"
#include "sim_apic_ext.h"
#include "../../apic/apic.h"
#include "../../pmu/cpuid.h"

#define EXT_FEATURE 0x400
#define EXT_CONTROL 0x410
#define EXT_LVT0    0x500
/* 8000_0001h ECX[3] ExtApicSpace (AMD APM Vol. 3 E.4.2) */
#define CPUID_AMD1_ECX_EXTAPIC (1u << 3)
/* The fields of an entry software writes: vector, message type, mask. */
#define EILVT_RW (LVT_VECTOR_MASK | LVT_DM_MASK | LVT_MASKED)

static bool ext_space(const struct sim_cpu *s)
{
	for (unsigned i = 0; i < s->n_cpuid; i++)
		if (s->cpuid[i].leaf == CPUID_LEAF_AMD_FEATURES && s->cpuid[i].subleaf == 0)
			return (s->cpuid[i].r.ecx & CPUID_AMD1_ECX_EXTAPIC) != 0;
	return false;
}

bool sim_apic_ext_reg(const struct sim_cpu *s, uint32_t off)
{
	if (off & 0xf || !ext_space(s))
		return false;
	return off == EXT_FEATURE || off == EXT_CONTROL ||
	       (off >= EXT_LVT0 && off < EXT_LVT0 + 0x10 * SIM_EILVT_N);
}

static uint32_t entry(const struct sim_cpu *s, unsigned n)
{
	return (uint32_t)s->smp.ibs.lvt[n] ^ LVT_MASKED;
}

uint32_t sim_apic_ext_read(struct sim_cpu *s, uint32_t off)
{
	if (off == EXT_FEATURE) /* no IER, specific EOI or 8-bit IDs here (ours) */
		return (uint32_t)SIM_EILVT_N << 16;
	if (off == EXT_CONTROL) /* their enables: reserved where not offered */
		return 0;
	/* delivery status (bit 12) stays idle: delivery is immediate */
	return entry(s, (off - EXT_LVT0) >> 4);
}

void sim_apic_ext_write(struct sim_cpu *s, uint32_t off, uint32_t val)
{
	if (off < EXT_LVT0)
		return;
	s->smp.ibs.lvt[(off - EXT_LVT0) >> 4] = (val & EILVT_RW) ^ LVT_MASKED;
}

void sim_apic_ext_raise(struct sim_cpu *s, unsigned n)
{
	if (n >= SIM_EILVT_N || !ext_space(s))
		return;
	uint32_t e = entry(s, n);
	unsigned v = e & LVT_VECTOR_MASK;

	if (e & LVT_MASKED)
		return; /* a masked entry drops the interrupt */
	if ((e & LVT_DM_MASK) == LVT_DM_NMI) {
		s->nmi_pending = true;
	} else if ((e & LVT_DM_MASK) == LVT_DM_FIXED && v >= 16) {
		/* the IRR, as a fixed LVT delivery sets it (sim_apic.c) */
		s->irr[v / 8] |= (uint8_t)(1u << (v % 8));
	} else {
		return; /* SMI, ExtINT and vectors 0-15: not modelled (ours) */
	}
	sim_deliver(s);
}

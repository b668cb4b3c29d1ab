/* The simulated local APIC: the LVT performance-counter entry, IRR/ISR and
 * EOI, self-IPIs through the ICR, and PMI/NMI delivery into the same
 * isr_dispatch() the target's stubs call, reached through xAPIC MMIO or
 * x2APIC MSRs. Apart from sim.c so that the interrupt path reads on its own;
 * the PMI-path faults (pmi-storm, duplicate-pmi, wrong-vector, lost-pmi,
 * lvt-stuck-masked) and the APIC's own (eoi-ignored, nmi-lost) act here. */
#include "sim.h"
#include "sim_apic_ext.h" /* IBS: AMD extended APIC space */
#include "../../apic/apic.h"
#include "../../apic/idt.h"
#include "../../apic/isr.h"
#include "../../lib/str.h"
#include "../../pmu/msr.h"

static bool x2apic(const struct sim_cpu *s)
{
	return (s->apic_base & APIC_BASE_X2APIC) != 0;
}

static void set_bit(uint8_t *v, unsigned n)
{
	v[n / 8] |= (uint8_t)(1u << (n % 8));
}

/* The highest set bit of a 256-bit vector, or -1: a byte at a time (the
 * simulator asks after every step of every workload). */
static int highest(const uint8_t *v)
{
	for (int b = 31; b >= 0; b--)
		if (v[b])
			return b * 8 + 31 - __builtin_clz(v[b]);
	return -1;
}

static void clear_bit(uint8_t *v, unsigned n)
{
	v[n / 8] &= (uint8_t) ~(1u << (n % 8));
}

/* pmi-storm: a flag that will not clear keeps the PMU's request up, so the
 * APIC takes it again whenever LVTPC is unmasked or the PMI is EOIed ("the
 * NMI line will continue to be asserted while the OVF bit is set", Linux p4_pmu_handle_irq
 * P4). KNC's line is an edge (§1.4.3.9): no pending hook, no repeat. */
static void storm_again(struct sim_cpu *s)
{
	/* A handler with no storm guard would loop for ever on the host: the
	 * simulated storm ends after SIM_STORM_MAX repeats. */
	if (s->fault == SF_PMI_STORM && s->m->pending && s->m->pending(s) &&
	    s->storm_repeats < SIM_STORM_MAX) {
		s->storm_repeats++;
		sim_pmi_request(s);
	}
}

/* After a PMI's handler returned: under duplicate-pmi every counter whose
 * overflow it collected raises a PMI of its own, instead of sharing one. */
static void after_pmi(struct sim_cpu *s)
{
	if (s->fault == SF_DUPLICATE_PMI && s->pmi_ovf > 1)
		s->pmi_owed += s->pmi_ovf - 1;
	s->pmi_ovf = 0;
	if (s->pmi_owed) {
		s->pmi_owed--;
		sim_pmi_request(s);
	}
}

/* wrong-vector: the APIC raises the PMI on another vector of LVTPC's
 * priority class, drawn from the seed, never LVTPC's own. On real hardware
 * that vector's gate is whatever the firmware put there. */
static unsigned wrong_vector(struct sim_cpu *s)
{
	unsigned vec = s->lvt_pc & LVT_VECTOR_MASK;
	unsigned v = (vec & 0xf0u) + (unsigned)sim_rand(s, 0, 14);
	return v >= vec ? v + 1 : v;
}

void sim_pmi_request(struct sim_cpu *s)
{
	s->st.pmi_raised++;
	if (s->fault == SF_LOST_PMI)
		return;
	if (s->lvt_pc & LVT_MASKED) {
		/* A masked LVT entry drops the edge: the KNC ISR protocol
		 * (§1.4.3.9) exists because of exactly this. */
		s->st.pmi_dropped++;
		return;
	}
	if (s->m->lvt_automask)
		s->lvt_pc |= LVT_MASKED;
	if ((s->lvt_pc & LVT_DM_MASK) == LVT_DM_NMI)
		s->nmi_pending = true;
	else if (s->fault == SF_WRONG_VECTOR)
		set_bit(s->irr, wrong_vector(s));
	else
		set_bit(s->irr, s->lvt_pc & LVT_VECTOR_MASK);
	sim_deliver(s);
}

static void dispatch(struct sim_cpu *s, unsigned vector)
{
	struct int_frame f;
	pmh_memset(&f, 0, sizeof(f));
	f.vector = vector;
	/* The simulated RIP is the instruction count retired by workloads, so
	 * skid is measurable the same way as on the target. */
	f.rip = 0x100000 + s->st.instructions;
	f.rflags = s->irq_enabled ? 0x202 : 0x2;
	/* The entry stub runs before the handler stops the counters, the exit
	 * path after it restarted them: both are counted on real cores. */
	uint32_t site = s->real.last_site;
	unsigned cpl = s->cpl; /* an interrupt at CPL 3 runs its handler at 0 */
	s->cpl = 0;
	sim_real_access(s, SA_ENTRY, vector);
	isr_dispatch(&f);
	sim_real_access(s, SA_EXIT, vector);
	s->cpl = cpl;
	s->real.last_site = site;
}

void sim_deliver(struct sim_cpu *s)
{
	if (s->depth > 4)
		return;
	s->depth++;
	for (;;) {
		if (s->nmi_pending && !s->in_nmi) {
			s->nmi_pending = false;
			s->in_nmi = true;
			s->st.nmi_delivered++;
			dispatch(s, VEC_NMI);
			s->in_nmi = false; /* IRET unblocks NMIs */
			if ((s->lvt_pc & LVT_DM_MASK) == LVT_DM_NMI)
				after_pmi(s);
			continue;
		}
		int v = highest(s->irr);
		int inserv = highest(s->isr);
		/* The processor priority is the higher of the TPR's class and
		 * the class in service; a fixed interrupt is taken only in a
		 * class above it (SDM Vol. 3A 11.8.3). NMIs ignore it. */
		unsigned ppr = s->tpr >> 4;
		if (inserv >= 0 && (unsigned)inserv >> 4 > ppr)
			ppr = (unsigned)inserv >> 4;
		if (v < 0 || !s->irq_enabled || ((unsigned)v >> 4) <= ppr)
			break;
		clear_bit(s->irr, (unsigned)v);
		set_bit(s->isr, (unsigned)v);
		bool pmi = (unsigned)v == (s->lvt_pc & LVT_VECTOR_MASK);
		if (pmi)
			s->st.pmi_delivered++;
		s->irq_enabled = false; /* interrupt gate */
		dispatch(s, (unsigned)v);
		s->irq_enabled = true; /* IRET restores IF */
		if (pmi)
			after_pmi(s);
	}
	s->depth--;
}

static uint32_t vec32(const uint8_t *v, uint32_t k)
{
	return k < 8 ? (uint32_t)v[4 * k] | (uint32_t)v[4 * k + 1] << 8 |
			   (uint32_t)v[4 * k + 2] << 16 | (uint32_t)v[4 * k + 3] << 24
		     : 0;
}

static uint32_t apic_reg_read(struct sim_cpu *s, uint32_t off)
{
	switch (off) {
	case APIC_ID: /* xAPIC: ID in bits 31:24; x2APIC: the whole register */
		return x2apic(s) ? s->apic_id : s->apic_id << 24;
	case APIC_VERSION:
		return (5u << 16) | 0x14; /* MaxLVT 5: LVTPC present */
	case APIC_TPR:
		return s->tpr;
	case APIC_SVR:
		return s->svr;
	case APIC_LVT_PC:
		return s->lvt_pc;
	default:
		/* IBS: AMD's extended APIC registers 400h-53Fh (sim_apic_ext.c) */
		if (sim_apic_ext_reg(s, off))
			return sim_apic_ext_read(s, off);
		/* ISR/IRR: eight 32-bit registers 16 bytes apart (vectors 32k..32k+31) */
		if (off >= APIC_ISR0 && off < APIC_ISR0 + 0x80 && !(off & 0xf))
			return vec32(s->isr, (off - APIC_ISR0) >> 4);
		if (off >= APIC_IRR0 && off < APIC_IRR0 + 0x80 && !(off & 0xf))
			return vec32(s->irr, (off - APIC_IRR0) >> 4);
		return 0;
	}
}

/* An IPI to this CPU. nmi-lost: an NMI sent through the ICR never arrives
 * (the PMU's NMI, through LVTPC, still does). */
static void self_ipi(struct sim_cpu *s, uint32_t icr)
{
	if ((icr & LVT_DM_MASK) == LVT_DM_NMI) {
		if (s->fault != SF_NMI_LOST)
			s->nmi_pending = true;
	} else {
		set_bit(s->irr, icr & 0xff);
	}
	sim_deliver(s);
}

static uint32_t icr_hi; /* xAPIC ICR destination (bits 31:24) */

static void apic_reg_write(struct sim_cpu *s, uint32_t off, uint64_t val)
{
	switch (off) {
	case APIC_EOI: {
		/* EOI retires the highest vector in service (SDM Vol. 3A
		 * 11.8.5); eoi-ignored: the write is taken, the bit stays */
		int v = highest(s->isr);
		s->st.eoi++;
		if (v >= 0 && s->fault != SF_EOI_IGNORED)
			clear_bit(s->isr, (unsigned)v);
		storm_again(s);
		sim_deliver(s);
		break;
	}
	case APIC_TPR:
		s->tpr = (uint32_t)val & 0xff;
		sim_deliver(s); /* a lower priority lets in what was held */
		break;
	case APIC_SVR:
		s->svr = (uint32_t)val;
		break;
	case APIC_LVT_PC: {
		uint32_t v = (uint32_t)val & (LVT_VECTOR_MASK | LVT_DM_MASK | LVT_MASKED);
		if (s->fault == SF_LVT_STUCK_MASKED)
			v |= LVT_MASKED;
		uint32_t old = s->lvt_pc;
		s->lvt_pc = v;
		sim_real_lvt(s, old, v);
		if ((old & LVT_MASKED) && !(v & LVT_MASKED))
			storm_again(s);
		break;
	}
	case APIC_ICR_HI:
		icr_hi = (uint32_t)val;
		break;
	case APIC_ICR_LO:
		/* destination shorthand 01 = self (SDM Vol. 3A 11.6.1), or no
		 * shorthand with physical destination = this CPU's APIC ID;
		 * x2APIC carries the destination in ICR bits 63:32. */
		if (((val >> 18) & 3) == 1 ||
		    (((val >> 18) & 3) == 0 && !(val & (1u << 11)) &&
		     (x2apic(s) ? (uint32_t)(val >> 32) : icr_hi >> 24) == s->apic_id))
			self_ipi(s, (uint32_t)val);
		break;
	case APIC_SELF_IPI:
		if (x2apic(s))
			self_ipi(s, (uint32_t)val & 0xff);
		break;
	default:
		/* IBS: AMD's extended APIC registers 400h-53Fh (sim_apic_ext.c) */
		if (sim_apic_ext_reg(s, off))
			sim_apic_ext_write(s, off, (uint32_t)val);
		break;
	}
}

/* No IDT here: the simulator calls isr_dispatch() for every vector. */
void idt_claim(unsigned vector, bool ours)
{
	(void)vector;
	(void)ours;
}

uint32_t hw_mmio_read32(uint64_t addr)
{
	sim_real_access(&sim, SA_MMIO, (uint32_t)addr & 0xfff);
	uint64_t base = sim.apic_base & ~0xfffull;
	if (!x2apic(&sim) && addr >= base && addr < base + 0x1000)
		return apic_reg_read(&sim, (uint32_t)(addr - base));
	return 0xffffffffu; /* nothing else is mapped */
}

void hw_mmio_write32(uint64_t addr, uint32_t val)
{
	sim_real_access(&sim, SA_MMIO, 0x1000 | ((uint32_t)addr & 0xfff));
	uint64_t base = sim.apic_base & ~0xfffull;
	if (!x2apic(&sim) && addr >= base && addr < base + 0x1000)
		apic_reg_write(&sim, (uint32_t)(addr - base), val);
}

/* x2APIC registers are MSRs 0x800 + offset / 16 (SDM Vol. 3A, "x2APIC
 * Register Address Space"); they raise #GP while the APIC is in xAPIC mode. */
int sim_x2apic_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *val)
{
	if (!x2apic(s))
		return HW_FAULT_GP;
	*val = apic_reg_read(s, (msr - MSR_X2APIC_BASE) << 4);
	return HW_OK;
}

int sim_x2apic_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t val)
{
	if (!x2apic(s))
		return HW_FAULT_GP;
	apic_reg_write(s, (msr - MSR_X2APIC_BASE) << 4, val);
	return HW_OK;
}

/* NetBurst PEBS (Intel SDM Vol. 3B 18.15.7 "Processor Event-Based
 * Sampling (PEBS)" of the Pentium 4 and Intel Xeon, 18.16.3 with
 * Hyper-Threading, 17.4.9 "BTS and DS Save Area"; Linux
 * arch/x86/include/asm/perf_event_p4.h, arch/x86/events/intel/p4.c
 * p4_pmu_enable_pebs), for the models whose sim_smp_cfg says pebs_p4:
 *  - one counter samples: "PEBS can only be carried out using the one
 *    performance counter, the MSR_IQ_COUNTER4 MSR" (counter 16, 310H), with
 *    Hyper-Threading "MSR_IQ_CCCR4 (MSR address 370H) for logical processor
 *    0 and MSR_IQ_CCCR5 (MSR address 371H) for logical processor 1": counter
 *    17 where the harness runs on logical processor 1 (model_netburst.c);
 *  - MSR_PEBS_ENABLE (3F1H): bit 25 ENABLE_PEBS_MY_THR turns it on for the
 *    writer's logical processor, 26 ENABLE_PEBS_OTH_THR for the other one
 *    (18.16.3; reserved without Hyper-Threading), 24 UOP_TAG and the replay
 *    tagging metrics 0-16 (Linux P4_PEBS_ENABLE 0x02000000,
 *    P4_PEBS_ENABLE_UOP_TAG 0x01000000, p4_pebs_bind_map up to 0x18000)
 *    are held; any other bit #GPs (ours). Some editions' 18.15.7.1 name bit
 *    24 the enable; 18.16.3, Vol. 4's MSR table and Linux name 25, as here.
 *    MSR_PEBS_MATRIX_VERT (3F2H) holds the replay metrics' bits 0-4 (Linux
 *    writes 1, 2, 3 and 10H), others #GP (ours). Replay tagging itself is
 *    not modelled: nothing replays here;
 *  - IA32_DS_AREA (600H): the save area's linear address (non-canonical
 *    #GPs). Its layout (17.4.9.1): with CPUID.1:ECX[2] DTES64 or in IA-32e
 *    mode the 64-bit one (PEBS base, index, absolute maximum, interrupt
 *    threshold at 20H-38H, the counter reset at 40H; records of 90H bytes:
 *    RFLAGS, RIP, RAX-R15), else the 32-bit one (10H-1CH, the reset at 20H;
 *    records of 40 bytes: EFLAGS, linear IP, EAX, EBX, ECX, EDX, ESI, EDI,
 *    EBP, ESP). The simulator runs the host's x86-64 code: IA-32e mode;
 *  - once the counter wraps, the next event it counts writes a record at
 *    the PEBS index and the index moves on by one record ("After the counter
 *    overflows, the processor copies the current state of the
 *    general-purpose and EFLAGS registers and instruction pointer into a
 *    record ... The processor then resets the count in the performance
 *    counter and restarts the counter", 18.15.7; the next event, not the
 *    one that wrapped, as Core's "armed" PEBS, 18.4.4, and sim_pebs.c: ours
 *    for NetBurst). The IP is the next instruction's: "architectural state
 *    of the instruction executed after the instruction that caused the
 *    event" (18.4.4); NetBurst has no EventingIP. The counter is reloaded
 *    with the 40-bit reset value; nothing is written past the absolute
 *    maximum ("A circular buffer is not supported"); at the interrupt
 *    threshold the PMI, with no status bit: NetBurst has no global status.
 * The registers are 0 (the kernel's are not modelled, as in sim_pebs.c).
 * The simulator samples whatever the counter counts; the SDM supports PEBS
 * for the at-retirement execution_event, front_end_event and replay_event
 * only (18.15.7), and says nothing of the others (ours). An assist costs
 * sim_smp_cfg.pebs_assist cycles (realism "overhead"). Faults: pebs-next-ip
 * writes the sampled instruction's own IP (the inverse error of a record
 * without an EventingIP); pebs-reset-ignored leaves the counter where it
 * is; ds-threshold-lost (sim_ds.c) raises no PMI. */
#include "sim_ds.h"
#include "../../lib/str.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"
#include "../../events/sample.h"

#define P4_MATRIX_VERT	0x3f2
#define P4_PEBS_METRICS 0x1ffffull /* replay tagging metrics, bits 0-16 */
#define P4_PEBS_UOP_TAG (1ull << 24)
#define P4_PEBS_MY_THR	(1ull << 25)
#define P4_PEBS_OTH_THR (1ull << 26)
#define P4_VERT_RW	0x1full
#define P4_IQ_COUNTER4	16
#define P4_IQ_COUNTER5	17
#define P4_RESET_MASK	((1ull << 40) - 1) /* "A 40-bit value" (17.4.9) */
#define CANONICAL_BITS	48
#define EFLAGS_FIXED	0x2ull /* bit 1 reads 1 */
#define EFLAGS_IF	0x200ull

/* A layout of the DS save area: the PEBS fields' offsets, the size of a
 * pointer and of a record. */
struct p4_layout {
	unsigned base, index, max, thr, reset, word, size;
};
static const struct p4_layout lay64 = {0x20, 0x28, 0x30, 0x38, 0x40, 8, 0x90};
static const struct p4_layout lay32 = {0x10, 0x14, 0x18, 0x1c, 0x20, 4, 40};

static const struct sim_smp_cfg *cfg(const struct sim_cpu *s)
{
	return s->m->smp;
}

/* CPUID.1's ECX (reg 2) or EDX (reg 3) as the model's reset set it. */
static uint32_t cpuid1(const struct sim_cpu *s, unsigned reg)
{
	for (unsigned i = 0; i < s->n_cpuid; i++)
		if (s->cpuid[i].leaf == 1 && s->cpuid[i].subleaf == 0)
			return reg == 2 ? s->cpuid[i].r.ecx : s->cpuid[i].r.edx;
	return 0;
}

static bool hyperthreading(const struct sim_cpu *s)
{
	return (cpuid1(s, 3) & CPUID_1_EDX_HTT) != 0;
}

/* The counter that samples for this logical processor (18.16.3). */
static unsigned pebs_ctr(const struct sim_cpu *s)
{
	return hyperthreading(s) && (s->apic_id & 1) ? P4_IQ_COUNTER5 : P4_IQ_COUNTER4;
}

static const struct p4_layout *layout(const struct sim_cpu *s)
{
	bool ia32e = sizeof(void *) == 8; /* the host's code runs in IA-32e mode */
	return ia32e || (cpuid1(s, 2) & CPUID_1_ECX_DTES64) ? &lay64 : &lay32;
}

/* A field of n bytes of the save area (little-endian, as the core). */
static uint64_t get(const struct sim_cpu *s, unsigned off, unsigned n)
{
	uint64_t v = 0;
	pmh_memcpy(&v, (const void *)(uintptr_t)(s->smp.ds.area + off), n);
	return v;
}

static void put(const struct sim_cpu *s, unsigned off, uint64_t v, unsigned n)
{
	pmh_memcpy((void *)(uintptr_t)(s->smp.ds.area + off), &v, n);
}

bool sim_p4_pebs_msr(const struct sim_cpu *s, uint32_t msr)
{
	const struct sim_smp_cfg *c = cfg(s);

	return c && c->pebs_p4 &&
	       (msr == MSR_IA32_DS_AREA || msr == MSR_IA32_PEBS_ENABLE || msr == P4_MATRIX_VERT);
}

int sim_p4_pebs_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	const struct sim_ds *d = &s->smp.ds;

	*v = msr == MSR_IA32_DS_AREA	   ? d->area
	     : msr == MSR_IA32_PEBS_ENABLE ? d->pebs_enable
					   : d->data_cfg; /* MATRIX_VERT */
	return HW_OK;
}

static bool canonical(uint64_t a)
{
	int64_t x = (int64_t)(a << (64 - CANONICAL_BITS)) >> (64 - CANONICAL_BITS);
	return (uint64_t)x == a;
}

int sim_p4_pebs_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	struct sim_ds *d = &s->smp.ds;
	uint64_t rw = P4_PEBS_METRICS | P4_PEBS_UOP_TAG | P4_PEBS_MY_THR |
		      (hyperthreading(s) ? P4_PEBS_OTH_THR : 0);

	if (msr == MSR_IA32_DS_AREA) {
		if (!canonical(v))
			return HW_FAULT_GP;
		d->area = v;
	} else if (msr == MSR_IA32_PEBS_ENABLE) {
		if (v & ~rw)
			return HW_FAULT_GP;
		d->pebs_enable = v;
		if (!(v & P4_PEBS_MY_THR))
			d->armed = 0; /* off: the counter waits for nothing */
	} else {
		if (v & ~P4_VERT_RW)
			return HW_FAULT_GP;
		d->data_cfg = v;
	}
	return HW_OK;
}

/* Writes the record of st at the PEBS index; true when the index reached
 * the interrupt threshold. Nothing past the absolute maximum. */
static bool record(struct sim_cpu *s, const struct sim_step *st)
{
	const struct p4_layout *l = layout(s);
	uint64_t ip = sim_has_fault(s, SF_PEBS_NEXT_IP) ? st->ip : st->next;
	uint64_t flags = EFLAGS_FIXED | (s->irq_enabled ? EFLAGS_IF : 0);
	uint8_t rec[0x90];

	pmh_memset(rec, 0, sizeof(rec));
	pmh_memcpy(rec, &flags, l->word);
	pmh_memcpy(rec + l->word, &ip, l->word);
	uint64_t idx = get(s, l->index, l->word), max = get(s, l->max, l->word);
	if (idx < get(s, l->base, l->word) || idx + l->size > max)
		return false;
	sim_ds_write(idx, rec, l->size);
	put(s, l->index, idx + l->size, l->word);
	s->smp.ds.records++;
	return idx + l->size >= get(s, l->thr, l->word);
}

void sim_p4_pebs_step(struct sim_cpu *s, const struct sim_step *st)
{
	const struct sim_smp_cfg *c = cfg(s);
	struct sim_ds *d = &s->smp.ds;
	unsigned i = pebs_ctr(s);
	uint64_t bit = 1ull << i;
	struct workload_vector v;

	if (!c || !c->pebs_p4 || !(d->pebs_enable & P4_PEBS_MY_THR) || !d->area || i >= s->n_ctr)
		return;
	if (!(d->armed & bit)) {
		if (st->wrapped & bit)
			d->armed |= bit; /* the next event writes the record */
		return;
	}
	sim_step_vector(st, &v);
	if (!s->m->rate(s, i, &v))
		return;
	d->armed &= ~bit;
	bool thr = record(s, st);
	if (!sim_has_fault(s, SF_PEBS_RESET_IGNORED))
		sim_ctr_set(s, i, get(s, layout(s)->reset, 8) & P4_RESET_MASK);
	if (thr) /* the PMI alone: NetBurst has no global status to set */
		sim_ds_threshold(s, false);
	if (c->pebs_assist && sim_real(s, SE_OVERHEAD))
		sim_retire(s, 0, 0, c->pebs_assist); /* the assist's cycles */
}

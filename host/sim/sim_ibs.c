/* AMD instruction-based sampling (AMD APM Vol. 2 13.3; the fields as
 * Linux arch/x86/include/asm/perf_event.h and amd-ibs.h name them), on the
 * traced kernel's instructions, each one op here (sim_trace.c).
 *  - Op sampling: while IbsOpEn is set and IbsOpVal clear, IbsOpCurCnt
 *    counts ops (IbsOpCntCtl 1) or cycles (0; one per instruction here);
 *    once it has reached the period (IbsOpMaxCnt << 4, bits 26:20 as they
 *    are where OpCntExt) the next op is tagged. When it retires IBS_OP_RIP
 *    takes its address, IBS_OP_DATA its branch bits and IBS_BR_TARGET its
 *    target; IbsOpVal is set and counting stops until software clears it
 *    (Linux arch/x86/events/amd/ibs.c perf_ibs_handle_irq re-enables).
 *  - Fetch sampling: IbsFetchCnt counts fetches, one per instruction here
 *    (ours: a front end fetches aligned blocks); the fetch after the
 *    period is tagged: IBS_FETCH_LINADDR its address, IbsFetchVal,
 *    IbsFetchComp and a latency. IbsRandEn randomizes the count's bits 3:0
 *    at each start.
 *  - Either sample raises an interrupt through the extended LVT entry
 *    IBS_CTL names (read-only: LvtOffsetVal and the model's offset).
 * Realism "skid" draws where samples land: IbsOpCurCnt restarts from the
 * random bits 6:0 hardware preloads (perf_event.h IBS_OP_CUR_CNT_RAND:
 * "random bits preloaded by hardware"), and the tag-to-retire and fetch
 * latencies vary (ours). Faults: ibs-rip-outside (IBS_OP_RIP one byte
 * into the tagged instruction: an address no instruction retired from),
 * ibs-lvt-ignored (the interrupt goes through LVTPC). sim_ibs.op_count
 * holds the fetch counter's 20 bits (IbsFetchCnt shows 19:4); the op
 * counter lives in IBS_OP_CTL itself. */
#include "sim.h"
#include "sim_apic_ext.h"
#include "../../pmu/msr.h"
#include "../../events/sample.h"

/* CPUID 8000_001Bh EAX (Linux perf_event.h IBS_CAPS_*) */
#define CAPS_FETCHSAM  (1u << 1)
#define CAPS_OPSAM     (1u << 2)
#define CAPS_RDWROPCNT (1u << 3)
#define CAPS_OPCNT     (1u << 4)
#define CAPS_BRNTRGT   (1u << 5)
#define CAPS_OPCNTEXT  (1u << 6)
/* IBS_FETCH_CTL (C001_1030h) */
#define F_MAXCNT     0xffffull
#define F_CNT	     (0xffffull << 16)
#define F_LAT	     (0xffffull << 32)
#define F_EN	     (1ull << 48)
#define F_VAL	     (1ull << 49)
#define F_COMP	     (1ull << 50)
#define F_PHYS_VALID (1ull << 52)
#define F_RAND_EN    (1ull << 57)
/* IBS_OP_CTL (C001_1033h) */
#define O_MAXCNT     0xffffull
#define O_EN	     (1ull << 17)
#define O_VAL	     (1ull << 18)
#define O_CNT_CTL    (1ull << 19)
#define O_MAXCNT_EXT (0x7full << 20)
#define O_CUR	     (0x7ffffffull << 32)
#define O_CUR_RAND   0x7full
/* IBS_OP_DATA (C001_1035h) */
#define D_RETURN    (1ull << 34)
#define D_BRN_TAKEN (1ull << 35)
#define D_BRN_MISP  (1ull << 36)
#define D_BRN_RET   (1ull << 37)
/* IBS_CTL (C001_103Ah) */
#define CTL_LVT_VALID (1ull << 8)

static const struct sim_smp_cfg *cfg(const struct sim_cpu *s)
{
	return s->m->smp;
}

static uint32_t caps(const struct sim_cpu *s)
{
	return cfg(s) ? cfg(s)->ibs_caps : 0;
}

bool sim_ibs_msr(const struct sim_cpu *s, uint32_t msr)
{
	if (!caps(s))
		return false;
	if (msr == MSR_AMD_IBS_BR_TARGET)
		return (caps(s) & CAPS_BRNTRGT) != 0;
	return msr >= MSR_AMD_IBS_FETCH_CTL && msr <= MSR_AMD_IBS_CTL;
}

/* The fetch's physical address, through the tables the core runs on. */
static uint64_t fetch_phys(struct sim_cpu *s)
{
	uint64_t pa = 0;
	bool big;

	if (!(s->smp.ibs.fetch_ctl & F_PHYS_VALID) ||
	    !sim_translate(s, s->smp.ibs.fetch_linaddr, &pa, &big))
		return 0;
	return pa;
}

int sim_ibs_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	struct sim_ibs *b = &s->smp.ibs;

	switch (msr) {
	case MSR_AMD_IBS_FETCH_CTL:
		*v = b->fetch_ctl;
		break;
	case MSR_AMD_IBS_FETCH_LINADDR:
		*v = b->fetch_linaddr;
		break;
	case MSR_AMD_IBS_FETCH_PHYSADDR:
		*v = fetch_phys(s);
		break;
	case MSR_AMD_IBS_OP_CTL:
		*v = b->op_ctl;
		break;
	case MSR_AMD_IBS_OP_RIP:
		*v = b->op_rip;
		break;
	case MSR_AMD_IBS_OP_DATA:
	case MSR_AMD_IBS_OP_DATA2:
	case MSR_AMD_IBS_OP_DATA3:
		*v = b->op_data[msr - MSR_AMD_IBS_OP_DATA];
		break;
	case MSR_AMD_IBS_CTL:
		*v = CTL_LVT_VALID | cfg(s)->ibs_lvt;
		break;
	case MSR_AMD_IBS_BR_TARGET:
		*v = b->br_target;
		break;
	default: /* the data cache addresses: the kernel has no load or store */
		*v = 0;
		break;
	}
	return HW_OK;
}

/* A write to IBS_OP_CTL: the count as written where RdWrOpCnt lets
 * software write it (else from 0), CntCtl and the extended maximum only
 * where CPUID offers them. */
static void op_write(struct sim_cpu *s, uint64_t v)
{
	if (!(caps(s) & CAPS_OPCNT))
		v &= ~O_CNT_CTL;
	if (!(caps(s) & CAPS_OPCNTEXT))
		v &= ~O_MAXCNT_EXT;
	if (!(caps(s) & CAPS_RDWROPCNT))
		v &= ~O_CUR;
	s->smp.ibs.op_ctl = v;
}

/* A write to IBS_FETCH_CTL: the counter starts from IbsFetchCnt as
 * written, bits 3:0 random where IbsRandEn (AMD APM Vol. 2 13.3). */
static void fetch_write(struct sim_cpu *s, uint64_t v)
{
	struct sim_ibs *b = &s->smp.ibs;

	b->fetch_ctl = v;
	b->op_count = ((v & F_CNT) >> 16) << 4;
	if (v & F_RAND_EN)
		b->op_count |= sim_rand(s, 0, 15);
}

int sim_ibs_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	struct sim_ibs *b = &s->smp.ibs;

	switch (msr) {
	case MSR_AMD_IBS_FETCH_CTL:
		fetch_write(s, v);
		break;
	case MSR_AMD_IBS_FETCH_LINADDR:
		b->fetch_linaddr = v;
		break;
	case MSR_AMD_IBS_OP_CTL:
		op_write(s, v);
		break;
	case MSR_AMD_IBS_OP_RIP:
		b->op_rip = v;
		break;
	case MSR_AMD_IBS_OP_DATA:
	case MSR_AMD_IBS_OP_DATA2:
	case MSR_AMD_IBS_OP_DATA3:
		b->op_data[msr - MSR_AMD_IBS_OP_DATA] = v;
		break;
	case MSR_AMD_IBS_CTL: /* set by firmware, read-only (ours: #GP) */
		return HW_FAULT_GP;
	case MSR_AMD_IBS_BR_TARGET:
		b->br_target = v;
		break;
	default: /* addresses the hardware fills: writes dropped (ours) */
		break;
	}
	return HW_OK;
}

/* A sample is complete: its interrupt, through the extended LVT entry
 * IBS_CTL names (through LVTPC under ibs-lvt-ignored). */
static void raise_irq(struct sim_cpu *s)
{
	if (sim_has_fault(s, SF_IBS_LVT_IGNORED))
		sim_pmi_request(s);
	else
		sim_apic_ext_raise(s, cfg(s)->ibs_lvt);
}

/* The tagged op st retired: the sample, the counter restarted. */
static void op_sample(struct sim_cpu *s, const struct sim_step *st)
{
	struct sim_ibs *b = &s->smp.ibs;
	bool skid = sim_real(s, SE_SKID), br = st->kind != SMP_NONE;
	uint64_t tag = skid ? sim_rand(s, 4, 64) : 8; /* tag to retire, cycles (ours) */
	uint64_t comp = skid ? sim_rand(s, 0, tag) : 1;

	b->op_rip = st->ip + (sim_has_fault(s, SF_IBS_RIP_OUTSIDE) ? 1 : 0);
	b->op_data[0] = comp | tag << 16 | (st->kind == SMP_RET ? D_RETURN : 0) |
			(br && st->taken ? D_BRN_TAKEN : 0) | (br && st->mispred ? D_BRN_MISP : 0) |
			(br ? D_BRN_RET : 0);
	b->op_data[1] = b->op_data[2] = 0; /* no load or store: registers only */
	b->br_target = br && st->taken ? st->next : 0;
	uint64_t cur = skid ? sim_rand(s, 0, O_CUR_RAND) : 0;
	b->op_ctl = (b->op_ctl & ~O_CUR) | O_VAL | cur << 32;
	raise_irq(s);
}

static uint64_t op_period(const struct sim_cpu *s, uint64_t c)
{
	uint64_t ext = (caps(s) & CAPS_OPCNTEXT) ? c & O_MAXCNT_EXT : 0;
	return (c & O_MAXCNT) << 4 | ext;
}

static void op_step(struct sim_cpu *s, const struct sim_step *st)
{
	struct sim_ibs *b = &s->smp.ibs;
	uint64_t c = b->op_ctl, period = op_period(s, c);
	uint64_t cur = (c & O_CUR) >> 32;

	if (!(caps(s) & CAPS_OPSAM) || !(c & O_EN) || (c & O_VAL) || !period)
		return;
	if (cur < period)
		b->op_ctl = (c & ~O_CUR) | (cur + 1) << 32;
	else
		op_sample(s, st);
}

static void fetch_step(struct sim_cpu *s, const struct sim_step *st)
{
	struct sim_ibs *b = &s->smp.ibs;
	uint64_t c = b->fetch_ctl, period = (c & F_MAXCNT) << 4;
	uint64_t pa;
	bool big;

	if (!(caps(s) & CAPS_FETCHSAM) || !(c & F_EN) || (c & F_VAL) || !period)
		return;
	if (b->op_count < period) {
		b->op_count++;
		b->fetch_ctl = (c & ~F_CNT) | ((b->op_count >> 4) & 0xffff) << 16;
		return;
	}
	/* the fetch completes after an L1 hit's few cycles (ours) */
	uint64_t lat = sim_real(s, SE_SKID) ? sim_rand(s, 2, 40) : 4;
	b->fetch_linaddr = st->ip;
	b->fetch_ctl = (c & ~(F_LAT | F_CNT)) | F_VAL | F_COMP | lat << 32 |
		       (sim_translate(s, st->ip, &pa, &big) ? F_PHYS_VALID : 0);
	b->op_count = 0;
	raise_irq(s);
}

void sim_ibs_step(struct sim_cpu *s, const struct sim_step *st)
{
	if (!caps(s))
		return;
	op_step(s, st);
	fetch_step(s, st);
}

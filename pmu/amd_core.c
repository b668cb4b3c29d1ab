/* PMU driver: AMD core performance counter extension, Fam15h and later
 * (facts §0, §2, §7, §9). CPUID 8000_0001h ECX[23] gives six 48-bit counters
 * with CTL at C001_0200+2i and CTR at C001_0201+2i. With PerfMonV2
 * (8000_0022h EAX[0]) the counter count comes from 8000_0022h EBX[3:0] and
 * the global MSRs exist: GlobalStatus (read-only), GlobalCtl and
 * GlobalStatusClr (write 1 to clear). Without it overflow is the sign rule
 * of the legacy PMU: bit 47 clear on a counter preloaded with it set. */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "msr.h"
#include "pmu.h"

#define CORE_N 6
#define CORE_WIDTH 48
#define CORE_FLAGS (PMU_F_USR | PMU_F_OS | PMU_F_EDGE | PMU_F_INT | PMU_F_INV | PMU_F_CMASK(0xff))
/* GlobalStatus bit 58: LBR stack frozen (facts §7). */
#define V2_LBR_FROZEN (1ull << 58)
/* Bound on the status loop of the PMI protocol (facts §9 uses 100 for
 * Intel and KNC). */
#define V2_MAX_LOOPS 100

static bool v2(const struct pmu *p) { return (p->caps & PMU_CAP_PERFMON_V2) != 0; }

static uint64_t width_mask(void) { return pmu_width_mask(CORE_WIDTH); }

static int init(struct pmu *p)
{
	const struct cpu_ids *ids = p->cpu ? &p->cpu->ids : 0;
	bool perfmon_v2 = ids && ids->max_ext_leaf >= 0x80000022u && (ids->ext22.eax & 1);

	p->n_gp = CORE_N;
	p->caps = PMU_CAP_EDGE_INV_CMASK;
	/* CntMask is 8 bits (facts §1); the reserved range after K8 is not in
	 * our documents: 15 is above any core's events per cycle. */
	p->cmask_max = 15;
	p->version = 0;
	if (perfmon_v2) {
		unsigned n = ids->ext22.ebx & 0xf;
		/* 8000_0022h EBX[3:0] is the core PMC count (facts §7); a zero
		 * there would leave no counters, so keep the extension's six. */
		if (n)
			p->n_gp = n;
		p->version = 2;
		p->caps |= PMU_CAP_GLOBAL_CTRL | PMU_CAP_STATUS_REG | PMU_CAP_PERFMON_V2;
		p->global_status_msr = MSR_AMD_GLOBAL_STATUS;
		p->global_ctrl_msr = MSR_AMD_GLOBAL_CTL;
		p->global_ovf_msr = MSR_AMD_GLOBAL_STATUS_CLR;
	} else {
		p->caps |= PMU_CAP_SIGN_OVERFLOW;
	}
	p->n_fixed = 0;
	for (unsigned i = 0; i < p->n_gp; i++) {
		struct pmu_counter *c = &p->ctr[i];
		c->kind = PMU_CTR_GP;
		c->index = (uint8_t)i;
		c->width = CORE_WIDTH;
		c->preload_bits = CORE_WIDTH; /* writes keep 48 bits (facts §2) */
		c->sign_extends = false;
		c->ctl_msr = MSR_F15H_PERF_CTL0 + 2 * i;
		c->ctr_msr = MSR_F15H_PERF_CTL0 + 2 * i + 1;
		c->full_msr = 0;
		c->rdpmc = i;
		pmh_fmt(c->name, sizeof(c->name), "gp%u", i);
	}
	p->n = p->n_gp;
	/* RDPMC 6-9 reads the northbridge / data fabric counters with 8000_0001h
	 * ECX[24], 10-15 the L3 counters with ECX[28] (AMD APM Vol. 3 RDPMC):
	 * the first index with no counter behind it is past those. */
	p->rdpmc_bad = p->n_gp;
	if (ids && (ids->ext1.ecx >> 24 & 1) && p->rdpmc_bad < 10)
		p->rdpmc_bad = 10;
	if (ids && (ids->ext1.ecx >> 28 & 1) && p->rdpmc_bad < 16)
		p->rdpmc_bad = 16;
	/* No LVTPC auto-mask on AMD (facts §8); a late PMI for an overflow
	 * already handled is documented (NMI latency, facts §9). */
	p->pmi_flags = PMU_PMI_LATE_ECHO;
	return 0;
}

static bool valid(const struct pmu *p, unsigned ctr) { return ctr < p->n; }

static int program(struct pmu *p, unsigned ctr, const struct pmu_event *ev, uint32_t flags)
{
	uint64_t sel;

	if (!valid(p, ctr) || !ev || ev->fixed_only || ev->code > 0xfff)
		return -1;
	if (ev->counters && !(ev->counters & (1ull << ctr)))
		return -1;
	/* 12-bit event select: bits 7:0 and 35:32 (facts §1). */
	sel = (uint64_t)(ev->code & 0xff) | ((uint64_t)(ev->code >> 8) << 32) |
	      ((uint64_t)ev->umask << 8) | (flags & CORE_FLAGS);
	p->active &= ~(1ull << ctr);
	return hw_wrmsr(p->ctr[ctr].ctl_msr, sel);
}

static int write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	int st;

	(void)path; /* a single full-width counter MSR (facts §2) */
	if (!valid(p, ctr))
		return -1;
	val &= width_mask();
	st = hw_wrmsr(p->ctr[ctr].ctr_msr, val);
	if (st != HW_OK)
		return st;
	pmu_track_armed(p, ctr, val);
	return HW_OK;
}

static int read(struct pmu *p, unsigned ctr, uint64_t *val)
{
	*val = 0;
	if (!valid(p, ctr))
		return -1;
	return hw_rdmsr(p->ctr[ctr].ctr_msr, val);
}

static int set_enable(struct pmu *p, uint64_t mask, bool on)
{
	int ret = HW_OK;

	for (unsigned i = 0; i < p->n; i++) {
		uint64_t sel;
		int st;
		if (!(mask & (1ull << i)))
			continue;
		st = hw_rdmsr(p->ctr[i].ctl_msr, &sel);
		if (st == HW_OK)
			st = hw_wrmsr(p->ctr[i].ctl_msr, on ? sel | EVTSEL_EN : sel & ~EVTSEL_EN);
		if (st != HW_OK && ret == HW_OK)
			ret = st;
	}
	return ret;
}

static int set_global(struct pmu *p, uint64_t mask, bool on)
{
	uint64_t g;
	int st;

	if (!v2(p))
		return HW_OK;
	st = hw_rdmsr(MSR_AMD_GLOBAL_CTL, &g);
	if (st != HW_OK)
		return st;
	g = on ? g | mask : g & ~mask;
	return hw_wrmsr(MSR_AMD_GLOBAL_CTL, g & pmu_all_mask(p));
}

/* Linux sets both the counter's EN and its GlobalCtl bit (facts §9). */
static int start(struct pmu *p, uint64_t mask)
{
	int st, st2;

	mask &= pmu_all_mask(p);
	p->active |= mask;
	st = set_enable(p, mask, true);
	st2 = set_global(p, mask, true);
	return st != HW_OK ? st : st2;
}

static int stop(struct pmu *p, uint64_t mask)
{
	int st, st2;

	mask &= pmu_all_mask(p);
	p->active &= ~mask;
	st2 = set_global(p, mask, false);
	st = set_enable(p, mask, false);
	return st2 != HW_OK ? st2 : st;
}


static int overflow_status(struct pmu *p, uint64_t *mask)
{
	uint64_t s;
	int st;

	*mask = 0;
	if (!v2(p))
		return pmu_sign_overflow(p, mask);
	st = hw_rdmsr(MSR_AMD_GLOBAL_STATUS, &s);
	*mask = s & pmu_all_mask(p);
	return st;
}

static int ack(struct pmu *p, uint64_t mask)
{
	mask &= pmu_all_mask(p);
	p->armed &= ~mask;
	if (!v2(p))
		return HW_OK; /* nothing to clear: the counter is disarmed */
	return hw_wrmsr(MSR_AMD_GLOBAL_STATUS_CLR, mask);
}

/* PerfMonV2 handler order (facts §9): GlobalCtl = 0, read GlobalStatus,
 * clear what was read through GlobalStatusClr, re-read until it reads 0.
 * The set to restart stays in p->active. Returns -1 when the status does
 * not clear within the loop bound. */
static int collect_v2(struct pmu *p, uint64_t *mask)
{
	int st = hw_wrmsr(MSR_AMD_GLOBAL_CTL, 0);

	if (st != HW_OK)
		return st;
	for (unsigned loop = 0; loop < V2_MAX_LOOPS; loop++) {
		uint64_t s;
		st = hw_rdmsr(MSR_AMD_GLOBAL_STATUS, &s);
		if (st != HW_OK)
			return st;
		if (!s)
			return HW_OK;
		*mask |= s & pmu_all_mask(p);
		p->armed &= ~s;
		st = hw_wrmsr(MSR_AMD_GLOBAL_STATUS_CLR, s);
		if (st != HW_OK)
			return st;
	}
	return -1;
}

static int pmi_collect(struct pmu *p, uint64_t *mask)
{
	int st, st2;

	*mask = 0;
	if (v2(p))
		return collect_v2(p, mask);
	/* Without PerfMonV2: the generic handler (facts §9), as on the legacy
	 * PMU. */
	st = set_enable(p, (p->armed | p->active) & pmu_all_mask(p), false);
	st2 = pmu_sign_overflow(p, mask);
	p->armed &= ~*mask;
	return st != HW_OK ? st : st2;
}

static int reset(struct pmu *p)
{
	int ret = HW_OK;

	if (v2(p)) {
		/* What Linux writes on CPU online (facts §7). */
		ret = hw_wrmsr(MSR_AMD_GLOBAL_CTL, 0);
		int st = hw_wrmsr(MSR_AMD_GLOBAL_STATUS_CLR, pmu_all_mask(p) | V2_LBR_FROZEN);
		if (ret == HW_OK)
			ret = st;
	}
	for (unsigned i = 0; i < p->n; i++) {
		int st = hw_wrmsr(p->ctr[i].ctl_msr, 0);
		int st2 = hw_wrmsr(p->ctr[i].ctr_msr, 0);
		if (ret == HW_OK)
			ret = st != HW_OK ? st : st2;
	}
	p->active = 0;
	p->armed = 0;
	return ret;
}

static size_t msrs(struct pmu *p, struct pmu_msr_desc *out, size_t max)
{
	/* PERF_CTL: event[7:0], umask, USR..CMASK less bit 19 (no field on AMD
	 * cores, facts §1) and reserved bit 21, event[11:8] at 35:32,
	 * GuestOnly/HostOnly at 41:40 (facts §1); a KVM guest has 63:36
	 * reserved (L:arch/x86/kvm/svm/pmu.c amd_pmu_refresh). */
	const uint64_t guest_host = p->cpu && p->cpu->hypervisor ? 0 : 0x30000000000ull;
	const uint64_t sel_mask = 0xfffd7ffffull | guest_host;
	size_t n = 0;

	for (unsigned i = 0; i < p->n && n + 1 < max; i++) {
		out[n] = (struct pmu_msr_desc){
		    .addr = p->ctr[i].ctl_msr, .access = PMU_MSR_RW, .rw_mask = sel_mask};
		pmh_fmt(out[n].name, sizeof(out[n].name), "PERF_CTL%u", i);
		n++;
		out[n] = (struct pmu_msr_desc){
		    .addr = p->ctr[i].ctr_msr, .access = PMU_MSR_RW, .rw_mask = width_mask()};
		pmh_fmt(out[n].name, sizeof(out[n].name), "PERF_CTR%u", i);
		n++;
	}
	if (v2(p) && n + 3 <= max) {
		out[n++] =
		    (struct pmu_msr_desc){MSR_AMD_GLOBAL_STATUS, "GlobalStatus", PMU_MSR_RO, 0};
		out[n++] = (struct pmu_msr_desc){MSR_AMD_GLOBAL_CTL, "GlobalCtl", PMU_MSR_RW,
						 pmu_all_mask(p)};
		out[n++] = (struct pmu_msr_desc){MSR_AMD_GLOBAL_STATUS_CLR, "GlobalStatusClr",
						 PMU_MSR_WO, 0};
	}
	return n;
}

struct amd_gen {
	uint16_t cfg; /* Linux's config: umask << 8 | event */
	const char *name;
};

/* facts §7 event maps. */
static const struct amd_gen map_k7[GEN_COUNT] = {
    [GEN_CYCLES] = {0x0076, "cpu-clocks-not-halted"},
    [GEN_INSTRUCTIONS] = {0x00c0, "retired-instructions"},
    [GEN_BRANCHES] = {0x00c2, "retired-branches"},
    [GEN_BRANCH_MISSES] = {0x00c3, "retired-mispredicted-branches"},
    [GEN_CACHE_REFS] = {0x077d, "l2-requests"},
    [GEN_CACHE_MISSES] = {0x077e, "l2-misses"},
};

static const struct amd_gen map_f17[GEN_COUNT] = {
    [GEN_CYCLES] = {0x0076, "cycles-not-in-halt"},
    [GEN_INSTRUCTIONS] = {0x00c0, "ex_ret_instr"},
    [GEN_BRANCHES] = {0x00c2, "ex_ret_brn"},
    [GEN_BRANCH_MISSES] = {0x00c3, "ex_ret_brn_misp"},
    [GEN_CACHE_REFS] = {0xff60, "l2-cache-accesses"},
    [GEN_CACHE_MISSES] = {0x0964, "l2-cache-misses"},
};

static int generic_event(struct pmu *p, enum pmu_generic g, unsigned ctr, struct pmu_event *out)
{
	const struct amd_gen *map = (p->cpu && p->cpu->family >= 0x17) ? map_f17 : map_k7;

	if (g >= GEN_COUNT || !map[g].name)
		return HW_UNSUPPORTED; /* ref-cycles: no AMD encoding */
	if (!valid(p, ctr))
		return HW_REFUSED;
	pmh_memset(out, 0, sizeof(*out));
	out->code = map[g].cfg & 0xff;
	out->umask = (uint8_t)(map[g].cfg >> 8);
	pmh_strlcpy(out->name, map[g].name, sizeof(out->name));
	return HW_OK;
}

const struct pmu_ops pmu_amd_core_ops = {
    .name = "amd-core",
    .id = PMU_DRV_AMD_CORE,
    .init = init,
    .program = program,
    .write = write,
    .read = read,
    .start = start,
    .stop = stop,
    .overflow_status = overflow_status,
    .ack = ack,
    .pmi_collect = pmi_collect,
    .reset = reset,
    .msrs = msrs,
    .generic_event = generic_event,
};

/* Driver selection, the functional probe and helpers shared by all families. */
#include "pmu.h"
#include "msr.h"
#include "../lib/str.h"
#include "../lib/fmt.h"

const struct pmu_ops *pmu_ops_for(enum pmu_driver_id id)
{
	switch (id) {
	case PMU_DRV_INTEL_P6:
		return &pmu_intel_p6_ops;
	case PMU_DRV_INTEL_ARCH:
		return &pmu_intel_arch_ops;
	case PMU_DRV_INTEL_NETBURST:
		return &pmu_intel_netburst_ops;
	case PMU_DRV_INTEL_KNC:
		return &pmu_intel_knc_ops;
	case PMU_DRV_AMD_LEGACY:
		return &pmu_amd_legacy_ops;
	case PMU_DRV_AMD_CORE:
		return &pmu_amd_core_ops;
	default:
		return 0;
	}
}

const char *pmu_status_name(enum pmu_status s)
{
	switch (s) {
	case PMU_FUNCTIONAL:
		return "functional";
	case PMU_NOT_FUNCTIONAL:
		return "not-functional";
	default:
		return "absent";
	}
}

uint64_t pmu_width_mask(unsigned bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

uint64_t pmu_all_mask(const struct pmu *p)
{
	return pmu_width_mask(p->n);
}

unsigned pmu_global_bit(const struct pmu *p, unsigned i)
{
	const struct pmu_counter *k = &p->ctr[i];
	return k->kind == PMU_CTR_FIXED ? PMU_GLOBAL_FIXED_BIT + k->index : k->index;
}

uint64_t pmu_max_period(const struct pmu *p, unsigned ctr)
{
	const struct pmu_counter *c = &p->ctr[ctr];
	/* A preload of -n must keep the counter's top bit set, so that the
	 * overflow is the carry out of the top bit: at most 2^(bits-1). */
	return 1ull << (c->preload_bits - 1);
}

void pmu_track_armed(struct pmu *p, unsigned ctr, uint64_t held)
{
	if ((held >> (p->ctr[ctr].width - 1)) & 1)
		p->armed |= 1ull << ctr;
	else
		p->armed &= ~(1ull << ctr);
}

int pmu_sign_overflow(struct pmu *p, uint64_t *mask)
{
	int ret = HW_OK;

	for (unsigned i = 0; i < p->n; i++) {
		uint64_t v;
		int st;
		if (!(p->armed & (1ull << i)))
			continue;
		st = hw_rdmsr(p->ctr[i].ctr_msr, &v);
		if (st != HW_OK) {
			if (ret == HW_OK)
				ret = st;
			continue;
		}
		if (!((v >> (p->ctr[i].width - 1)) & 1))
			*mask |= 1ull << i;
	}
	return ret;
}

int pmu_ctr_read(struct pmu *p, unsigned ctr, uint64_t *val)
{
	int st;

	*val = 0;
	if (!pmu_has_ctr(p, ctr))
		return HW_REFUSED;
	st = hw_rdmsr(p->ctr[ctr].ctr_msr, val);
	*val &= pmu_width_mask(p->ctr[ctr].width);
	return st;
}

int pmu_evtsel_enable(struct pmu *p, uint64_t mask, bool on)
{
	int ret = HW_OK;

	for (unsigned i = 0; i < p->n_gp; i++) {
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

int pmu_zero_gp(struct pmu *p)
{
	int ret = HW_OK;

	for (unsigned i = 0; i < p->n_gp; i++) {
		int st = hw_wrmsr(p->ctr[i].ctl_msr, 0);
		int st2 = hw_wrmsr(p->ctr[i].ctr_msr, 0);
		if (ret == HW_OK)
			ret = st != HW_OK ? st : st2;
	}
	return ret;
}

void pmu_gp_counter(struct pmu_counter *c, unsigned i, unsigned width, uint32_t ctl_msr,
		    uint32_t ctr_msr)
{
	pmh_memset(c, 0, sizeof(*c));
	c->kind = PMU_CTR_GP;
	c->index = (uint8_t)i;
	c->width = (uint8_t)width;
	c->preload_bits = (uint8_t)width;
	c->sign_extends = false;
	c->ctl_msr = ctl_msr;
	c->ctr_msr = ctr_msr;
	c->rdpmc = i;
	pmh_fmt(c->name, sizeof(c->name), "gp%u", i);
}

void pmu_p6_counter(struct pmu_counter *c, unsigned i, unsigned width)
{
	pmu_gp_counter(c, i, width, MSR_P6_EVNTSEL0 + i, MSR_P6_PERFCTR0 + i);
	c->preload_bits = PMC_WRITE_BITS;
	c->sign_extends = true;
}

int pmu_generic_from_map(const struct pmu *p, const struct pmu_gen_map *map, enum pmu_generic g,
			 unsigned ctr, struct pmu_event *out)
{
	if ((unsigned)g >= GEN_COUNT || !map[g].name)
		return HW_UNSUPPORTED;
	if (ctr >= p->n_gp)
		return HW_REFUSED;
	pmh_memset(out, 0, sizeof(*out));
	out->code = map[g].enc & 0xff;
	out->umask = (uint8_t)(map[g].enc >> 8);
	pmh_strlcpy(out->name, map[g].name, sizeof(out->name));
	return HW_OK;
}

int pmu_status_collect(struct pmu *p, uint64_t valid, uint64_t *seen)
{
	uint64_t s = 0;
	int st = hw_wrmsr(p->global_ctrl_msr, 0);

	*seen = 0;
	if (st == HW_OK)
		st = hw_rdmsr(p->global_status_msr, &s);
	for (unsigned round = 0; st == HW_OK && (s & valid); round++) {
		if (round == PMU_PMI_MAX_ROUNDS)
			return HW_STUCK;
		*seen |= s & valid;
		st = hw_wrmsr(p->global_ovf_msr, s & valid);
		if (st == HW_OK)
			st = hw_rdmsr(p->global_status_msr, &s);
	}
	return st;
}

void pmu_msr_desc(struct pmu_msr_desc *d, uint32_t addr, const char *name, uint8_t access,
		  uint64_t rw_mask)
{
	d->addr = addr;
	pmh_strlcpy(d->name, name, sizeof(d->name));
	d->access = access;
	d->rw_mask = rw_mask;
}

int pmu_preload(struct pmu *p, unsigned ctr, uint64_t n)
{
	const struct pmu_counter *c = &p->ctr[ctr];
	uint64_t v;

	if (n == 0 || n > pmu_max_period(p, ctr))
		return HW_REFUSED;
	/* -n in the counter's width; on sign-extending families the low 32
	 * bits are written and bit 31 extends into the upper bits. */
	v = (0 - n) & pmu_width_mask(c->width);
	return p->ops->write(p, ctr, v, PMU_WRITE_PRELOAD);
}

static bool under_hv(const struct pmu *p)
{
	return p->cpu && p->cpu->hypervisor;
}

/* Under a hypervisor a PMU that is absent or does not work is the
 * hypervisor's doing: p->reason, what was seen, goes inside a reason that
 * names the hypervisor and how its vPMU is turned on (hv_no_pmu_reason).
 * Bare metal keeps the reason as it is. */
static void hv_note(struct pmu *p)
{
	const struct cpu_info *ci = p->cpu;
	char what[sizeof(p->reason)];

	if (!under_hv(p))
		return;
	pmh_strlcpy(what, p->reason, sizeof(what));
	hv_no_pmu_reason(&ci->hv, cpu_hybrid(ci) != CPU_HYBRID_NO, what, p->reason,
			 sizeof(p->reason));
}

/* Counters the firmware left enabled (Linux arch/x86/events/core.c check_hw_exists, "Broken
 * BIOS"): the first is named in p->warning. Returns the first GP counter
 * whose enable reads clear, the one the probe may use (Linux probes such a
 * counter, reg_safe), or p->n_gp when there is none. */
static unsigned firmware_counters(struct pmu *p)
{
	uint64_t ctl;
	unsigned safe = p->n_gp, left = 0;

	for (unsigned i = 0; i < p->n_gp; i++) {
		/* a control that cannot be read is not known to be enabled: the
		 * probe reports what its counter does */
		if (hw_rdmsr(p->ctr[i].ctl_msr, &ctl) != HW_OK || !(ctl & p->ctl_enable)) {
			if (safe == p->n_gp)
				safe = i;
			continue;
		}
		if (!left++)
			pmh_fmt(p->warning, sizeof(p->warning),
				"firmware left %s enabled (MSR 0x%x = 0x%llx)", p->ctr[i].name,
				p->ctr[i].ctl_msr, (unsigned long long)ctl);
	}
	if (left > 1) {
		size_t n = pmh_strlen(p->warning);
		pmh_fmt(p->warning + n, sizeof(p->warning) - n, " and %u more counters", left - 1);
	}
	if (!left && p->n_fixed && hw_rdmsr(MSR_FIXED_CTR_CTRL, &ctl) == HW_OK && ctl)
		pmh_fmt(p->warning, sizeof(p->warning),
			"firmware left fixed counters enabled (FIXED_CTR_CTRL = 0x%llx)",
			(unsigned long long)ctl);
	return safe;
}

static void not_functional(struct pmu *p, const char *what, const struct pmu_counter *c, int st)
{
	p->status = PMU_NOT_FUNCTIONAL;
	pmh_fmt(p->reason, sizeof(p->reason), "%s %s (MSR 0x%x) raised %s", what, c->name,
		c->ctr_msr, hw_err_name(st));
	hv_note(p);
}

/* Linux's sanity probe (arch/x86/events/core.c check_hw_exists): warn about counters
 * the firmware left enabled, then flip 16 bits of a counter it did not
 * enable (one that counts would not read back what was written) and read
 * the value back. */
static void probe(struct pmu *p)
{
	unsigned k = firmware_counters(p);
	struct pmu_counter *c0 = &p->ctr[k];
	uint64_t orig, back, val;
	int st;

	p->probed = k;

	if (k == p->n_gp) {
		p->status = PMU_NOT_FUNCTIONAL;
		pmh_fmt(p->reason, sizeof(p->reason),
			"the firmware left every counter enabled: none can be probed");
		return;
	}
	st = hw_rdmsr(c0->ctr_msr, &orig);
	if (st != HW_OK) {
		not_functional(p, "reading", c0, st);
		return;
	}
	val = (orig ^ 0xffffull) & 0x7fffffffull;
	st = p->ops->write(p, k, val, PMU_WRITE_LEGACY);
	if (st != HW_OK) {
		not_functional(p, "writing", c0, st);
		return;
	}
	st = hw_rdmsr(c0->ctr_msr, &back);
	if (p->ops->write(p, k, orig & pmu_width_mask(c0->width), PMU_WRITE_FULL) != HW_OK &&
	    p->ops->write(p, k, orig, PMU_WRITE_LEGACY) != HW_OK) {
		/* the firmware's value is lost; the probe's verdict stands */
	}
	if (st != HW_OK || back != val) {
		p->status = PMU_NOT_FUNCTIONAL;
		/* shorter inside a hypervisor's reason, so that the verdict line
		 * holds it whole */
		pmh_fmt(p->reason, sizeof(p->reason),
			under_hv(p) ? "%s MSR 0x%x wrote 0x%llx, read back 0x%llx"
				    : "%s (MSR 0x%x) wrote 0x%llx, read back 0x%llx",
			c0->name, c0->ctr_msr, (unsigned long long)val, (unsigned long long)back);
		hv_note(p);
		return;
	}
	p->status = PMU_FUNCTIONAL;
	if (hw_rdpmc(c0->rdpmc, &back) == HW_OK)
		p->caps |= PMU_CAP_RDPMC;
}

void pmu_attach(struct pmu *p, const struct cpu_info *ci)
{
	pmh_memset(p, 0, sizeof(*p));
	p->cpu = ci;
	p->ops = pmu_ops_for(ci->driver);
	pmh_strlcpy(p->name, pmu_driver_name(ci->driver), sizeof(p->name));
	if (!p->ops) {
		p->status = PMU_ABSENT;
		pmh_strlcpy(p->reason, ci->driver_reason, sizeof(p->reason));
		return;
	}
	if (p->ops->init(p) != HW_OK) {
		p->status = PMU_ABSENT;
		if (!p->reason[0])
			pmh_strlcpy(p->reason, "driver found no counters", sizeof(p->reason));
		hv_note(p);
		return;
	}
	/* The first RDPMC index past the GP counters, unless the driver knows
	 * of more (AMD's northbridge and L3 counters). */
	if (!p->rdpmc_bad)
		for (unsigned i = 0; i < p->n_gp; i++)
			if (p->ctr[i].rdpmc + 1 > p->rdpmc_bad)
				p->rdpmc_bad = p->ctr[i].rdpmc + 1;
	probe(p);
}

void pmu_release(struct pmu *p)
{
	if (p->ops && p->ops->release)
		p->ops->release(p);
}

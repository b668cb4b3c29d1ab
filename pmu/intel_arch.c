/* PMU driver: Intel architectural performance monitoring v1..v5 (SDM Vol. 3B
 * 20.2; Linux arch/x86/events/intel/core.c). Everything comes from
 * CPUID.0AH: GP counters at 0xC1+i/0x186+i,
 * fixed counters (v2+) at 0x309+i under FIXED_CTR_CTRL, the global
 * control/status/ack registers (v2+), STATUS_SET (v4+), and full-width
 * writes through 0x4C1+i when PERF_CAPABILITIES says so. Perfmon v6 lists
 * the counters as bitmaps in leaf 23H instead, GP counters past the eighth at
 * the v6 addresses 0x1900+4n (full width). v1 has no global
 * registers: it is enabled per EVNTSEL.EN and overflow is the top bit going
 * clear, as on P6. */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "cpuid.h"
#include "intel_arch.h"
#include "msr.h"

#define GLOBAL_MAX	32	     /* GP and fixed counters each have 32 bits there */
#define STATUS_CONDCHGD (1ull << 63) /* SDM Vol. 3B 20.2.2 GLOBAL_STATUS */
#define STATUS_BUF_OVF	(1ull << 62)
#define EBX_LENGTH_MIN	7  /* Linux gives up below (Linux intel_pmu_init) */
#define GP_WIDTH_MIN	32 /* a width below the 32 written bits is nonsense */
#define WIDTH_MAX	64
#define FIXED_MIN	3 /* v2-v4 on bare metal: max(EDX[4:0], 3) (Linux intel_pmu_init) */

#define TFA_PMC 3 /* the counter TSX_FORCE_ABORT takes (Linux intel_set_tfa) */

/* Driver-private state in p->drv[]. */
#define FIXED_SHADOW drv[0] /* FIXED_CTR_CTRL as programmed, all fields */
#define ENABLED	     drv[1] /* flat counters whose EN / fixed field is written */
#define NHM_RESET    drv[5] /* 1: programming needs the Nehalem reset first */
#define TFA_FOUND    drv[6] /* MSR_TSX_FORCE_ABORT as init found it */
#define TFA	     drv[7] /* 1: PMC3 needs MSR_TSX_FORCE_ABORT bit 0 */

static bool has_globals(const struct pmu *p)
{
	return p->version >= ARCH_V_GLOBALS;
}

uint64_t intel_arch_global_bits(const struct pmu *p, uint64_t mask)
{
	uint64_t b = 0;
	for (unsigned i = 0; i < p->n; i++) {
		if (!(mask & (1ull << i)))
			continue;
		b |= 1ull << pmu_global_bit(p, i);
	}
	return b;
}

static uint64_t flat_mask(const struct pmu *p, uint64_t bits)
{
	uint64_t m = 0;
	for (unsigned i = 0; i < p->n; i++)
		if (bits & intel_arch_global_bits(p, 1ull << i))
			m |= 1ull << i;
	return m;
}

/* Fixed counter index under FIXED_CTR_CTRL; it takes full-width writes
 * (kvm-unit-tests x86/pmu.c writes and reads them full-width). */
static void set_fixed(struct pmu_counter *c, unsigned index, unsigned width)
{
	pmh_memset(c, 0, sizeof(*c));
	c->kind = PMU_CTR_FIXED;
	c->index = (uint8_t)index;
	c->width = (uint8_t)width;
	c->ctr_msr =
	    index < V6_LEGACY_FIXED ? MSR_FIXED_CTR0 + index : MSR_V6_FX0_CTR + MSR_V6_STEP * index;
	c->ctl_msr = MSR_FIXED_CTR_CTRL;
	c->rdpmc = RDPMC_FIXED | index;
	c->preload_bits = (uint8_t)width;
	c->sign_extends = false;
	pmh_fmt(c->name, sizeof(c->name), "fixed%u", index);
}

/* PERF_CAPABILITIES is there when CPUID.1:ECX[15] (PDCM); bit 13 allows
 * full-width writes through 0x4C1+i (SDM Vol. 3B 'Full-Width Writes to
 * Performance Counter Registers'; Linux intel_pmu_init). */
static bool full_width_writes(const struct pmu *p)
{
	uint64_t cap;
	if (!(p->cpu->ids.leaf1.ecx & CPUID_1_ECX_PDCM))
		return false;
	if (hw_rdmsr(MSR_PERF_CAPABILITIES, &cap) != HW_OK)
		return false;
	return (cap & PERF_CAP_FW_WRITE) != 0;
}

/* Alder Lake and Raptor Lake P-cores without leaf 23H: CPUID.0AH lists
 * what both core types share; Linux's intel_pmu_init gives the P-core
 * ("cpu_core") two GP and one fixed counter more, the E-core what 0AH says.
 * With the E-cores off, 0AH already lists the P-core's own 8 GP (dumps of an
 * i9-12900K and an i5-1350P so set: 0AH EAX 0x08300805, leaf 7 EDX[15]
 * still set), and nothing is added. */
#define P_CORE_GP 8 /* Golden Cove / Raptor Cove GP counters (Linux cpu_core) */
static unsigned hybrid_core_extra(const struct pmu *p)
{
	const struct cpu_info *ci = p->cpu;

	if (ci->ids.core_type != CPU_CORE_TYPE_CORE || cpu_perfmon_bitmaps(&ci->ids) ||
	    CPUID_0A_EAX_GP_COUNTERS(ci->ids.leaf0a.eax) >= P_CORE_GP)
		return 0;
	return cpu_hybrid(ci) == CPU_HYBRID_0A_SHARED; /* the models: pmu/cpu.c */
}

/* Whether CPUID.0AH describes a PMU the driver can use; the reason when not. */
static bool leaf0a_usable(struct pmu *p, unsigned n_gp, unsigned mask_len, unsigned gp_width)
{
	if (p->version == 0 || n_gp == 0) {
		pmh_fmt(p->reason, sizeof(p->reason),
			"CPUID.0AH reports version %u with %u GP counters", p->version, n_gp);
		return false;
	}
	if (mask_len < EBX_LENGTH_MIN) {
		pmh_fmt(p->reason, sizeof(p->reason),
			"CPUID.0AH:EAX[31:24] event mask length %u is below %u", mask_len,
			EBX_LENGTH_MIN);
		return false;
	}
	if (gp_width < GP_WIDTH_MIN || gp_width > WIDTH_MAX) {
		pmh_fmt(p->reason, sizeof(p->reason), "CPUID.0AH reports a GP width of %u bits",
			gp_width);
		return false;
	}
	return true;
}

/* The fixed counters (v2+) by CPUID.0AH: their mask, and their width in
 * *width. */
static uint32_t fixed_layout(const struct pmu *p, unsigned gp_width, unsigned *width)
{
	const struct cpuid_regs *a = &p->cpu->ids.leaf0a;
	unsigned nf = CPUID_0A_EDX_FIXED_COUNTERS(a->edx);
	uint32_t mask;

	*width = 0;
	if (!has_globals(p))
		return 0;
	nf += hybrid_core_extra(p);
	if (cpu_perfmon_bitmaps(&p->cpu->ids))
		nf = 0; /* leaf 23H EBX has them all */
	/* Linux intel_pmu_init's fixed-counter count: v2-v4 assume at least 3 on bare metal
	 * (v2 parts may not report them), as-is under a hypervisor; v5 adds
	 * the ECX bitmask. */
	if (p->version < ARCH_V_FIXED_MASK && !p->cpu->hypervisor && nf < FIXED_MIN)
		nf = FIXED_MIN;
	mask = (uint32_t)pmu_width_mask(nf);
	if (p->version >= ARCH_V_FIXED_MASK)
		mask |= a->ecx;
	if (cpu_perfmon_bitmaps(&p->cpu->ids))
		mask = p->cpu->ids.leaf23[1].ebx;
	*width = CPUID_0A_EDX_FIXED_WIDTH(a->edx);
	if (*width == 0) /* not reported: they share the GP width */
		*width = gp_width;
	if (*width > WIDTH_MAX)
		*width = WIDTH_MAX;
	return mask;
}

/* Capabilities and global registers by version; fw: full-width writes. */
static void set_caps(struct pmu *p, bool fw)
{
	p->caps = PMU_CAP_EDGE_INV_CMASK;
	p->cmask_max = 255; /* CMASK 31:24 (SDM Vol. 3B 20.2.1.1) */
	p->ctl_enable = EVTSEL_EN;
	if (has_globals(p)) {
		p->caps |= PMU_CAP_GLOBAL_CTRL | PMU_CAP_STATUS_REG;
		p->global_ctrl_msr = MSR_PERF_GLOBAL_CTRL;
		p->global_status_msr = MSR_PERF_GLOBAL_STATUS;
		p->global_ovf_msr = MSR_PERF_GLOBAL_OVF_CTRL;
		/* DEBUGCTL.FREEZE_PERFMON_ON_PMI clears GLOBAL_CTRL at a PMI
		 * request (SDM Vol. 3B "Freezing LBR and Performance Counters on
		 * PMI"); v4 sets GLOBAL_STATUS.CTR_FRZ instead (20.2.4.1) */
		p->caps |= PMU_CAP_FREEZE_PMI;
		if (p->version >= ARCH_V_STATUS_SET)
			p->caps |= PMU_CAP_FREEZE_CTR_FRZ;
	} else {
		p->caps |= PMU_CAP_SIGN_OVERFLOW; /* v1: Linux x86_pmu_handle_irq */
	}
	if (p->n_fixed)
		p->caps |= PMU_CAP_FIXED;
	if (p->version >= ARCH_V_STATUS_SET) {
		p->caps |= PMU_CAP_STATUS_SET;
		p->global_status_set_msr = MSR_PERF_GLOBAL_STATUS_SET;
	}
	if (fw)
		p->caps |= PMU_CAP_FULL_WIDTH;
}

/* Skylake microcode with TSX_FORCE_ABORT (CPUID.7:EDX[13]) and without
 * RTM_ALWAYS_ABORT (EDX[11]) keeps PMC3 for itself unless MSR 0x10F bit 0
 * is set (Linux
 * arch/x86/events/intel/core.c intel_set_tfa). reset() sets the
 * bit; release() gives back the value found here, which the firmware or
 * another owner may have set. */
static void force_abort_detect(struct pmu *p, unsigned n_gp)
{
	struct cpuid_regs r;

	p->TFA = 0;
	p->TFA_FOUND = 0;
	if (p->cpu->ids.max_leaf < CPUID_LEAF_EXT_FEATURES || n_gp <= TFA_PMC)
		return;
	hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	p->TFA = (r.edx & CPUID_7_EDX_TSX_FORCE_ABORT) && !(r.edx & CPUID_7_EDX_RTM_ALWAYS_ABORT);
	if (p->TFA && hw_rdmsr(MSR_TSX_FORCE_ABORT, &p->TFA_FOUND) != HW_OK)
		p->TFA_FOUND = 0; /* unreadable: power-on's 0 */
}

static int init(struct pmu *p)
{
	const struct cpuid_regs *a = &p->cpu->ids.leaf0a;
	unsigned n_gp = CPUID_0A_EAX_GP_COUNTERS(a->eax), gp_width = CPUID_0A_EAX_GP_WIDTH(a->eax);
	unsigned mask_len = CPUID_0A_EAX_EBX_LENGTH(a->eax);
	uint32_t fixed_mask;
	unsigned fixed_width;
	bool fw;

	p->version = CPUID_0A_EAX_VERSION(a->eax);
	if (!leaf0a_usable(p, n_gp, mask_len, gp_width))
		return HW_UNSUPPORTED;
	n_gp += 2 * hybrid_core_extra(p);
	if (n_gp > GLOBAL_MAX)
		n_gp = GLOBAL_MAX;
	/* A set EBX bit marks an architectural event unavailable (SDM Vol. 3B 20.2.1.2). */
	p->arch_ebx = a->ebx & (uint32_t)pmu_width_mask(mask_len);

	fixed_mask = fixed_layout(p, gp_width, &fixed_width);
	fw = full_width_writes(p);
	/* leaf 23H's bitmap, else the first n_gp */
	uint32_t gp_mask = cpu_perfmon_bitmaps(&p->cpu->ids) ? p->cpu->ids.leaf23[1].eax
							     : (uint32_t)pmu_width_mask(n_gp);
	p->n_gp = 0;
	for (unsigned i = 0; i < GLOBAL_MAX && p->n_gp < PMU_MAX_COUNTERS; i++) {
		if (!(gp_mask & (1u << i)))
			continue;
		struct pmu_counter *c = &p->ctr[p->n_gp++];
		if (i >= V6_LEGACY_GP) { /* v6 only: full width, no alias */
			pmu_gp_counter(c, i, gp_width, MSR_V6_GP0_CFG_A + MSR_V6_STEP * i,
				       MSR_V6_GP0_CTR + MSR_V6_STEP * i);
			c->full_msr = c->ctr_msr;
			continue;
		}
		pmu_p6_counter(c, i, gp_width);
		if (fw) {
			c->full_msr = MSR_IA32_PMC0 + i;
			c->preload_bits = (uint8_t)gp_width;
		}
	}
	p->n_fixed = 0;
	for (unsigned i = 0; i < GLOBAL_MAX && p->n_gp + p->n_fixed < PMU_MAX_COUNTERS; i++) {
		if (fixed_mask & (1u << i))
			set_fixed(&p->ctr[p->n_gp + p->n_fixed++], i, fixed_width);
	}
	p->n = p->n_gp + p->n_fixed;
	set_caps(p, fw);
	/* Arch perfmon masks LVTPC on delivery (Linux's i386
	 * watchdog, arch/i386/kernel/nmi.c). pmi_collect stops
	 * the counters (GLOBAL_CTRL = 0, or EN on v1) and clears every flag
	 * before LVTPC is unmasked, last, as Linux does on its late_ack cores
	 * (Haswell on: unmasking with a flag still set raises another PMI,
	 * Linux intel_pmu_handle_irq late_ack). Linux's generic v1 handler unmasks
	 * first, and then an overflow between the unmask and the stop raises a
	 * second PMI for what this one collects; with the counters stopped
	 * first nothing is lost by unmasking last (KNC §1.4.3.9). */
	p->pmi_flags = PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE;
	force_abort_detect(p, p->n_gp);
	p->NHM_RESET = intel_arch_nhm_erratum(p->cpu) && p->n_gp >= NHM_PMCS;
	return HW_OK;
}

static int write_fixed_ctrl(struct pmu *p)
{
	uint64_t v = 0;
	for (unsigned i = p->n_gp; i < p->n; i++)
		if (p->ENABLED & (1ull << i))
			v |= p->FIXED_SHADOW & (0xfull << FIX_SHIFT(p->ctr[i].index));
	return hw_wrmsr(MSR_FIXED_CTR_CTRL, v);
}

static int program(struct pmu *p, unsigned ctr, const struct pmu_event *ev, uint32_t flags)
{
	const struct pmu_counter *c;

	if (!pmu_event_allowed(p, ctr, ev))
		return HW_REFUSED;
	c = &p->ctr[ctr];
	if (c->kind == PMU_CTR_GP) {
		if (ev->fixed_only || ev->code > EVTSEL_EVENT_MAX)
			return HW_REFUSED;
		p->active &= ~(1ull << ctr);
		p->ENABLED &= ~(1ull << ctr);
		int st = p->NHM_RESET ? intel_arch_nhm_reset() : HW_OK;
		/* EN stays clear until start() */
		return pmu_first_err(st, hw_wrmsr(c->ctl_msr, pmu_evtsel(ev, flags)));
	}
	/* A fixed counter counts one event only. */
	if (c->index >= ARCH_FIXED_EVENTS ||
	    (uint16_t)(ev->umask << EVTSEL_UMASK_SHIFT | ev->code) !=
		intel_arch_fixed_event[c->index])
		return HW_REFUSED;
	p->active &= ~(1ull << ctr);
	p->ENABLED &= ~(1ull << ctr);
	uint64_t f = ((flags & PMU_F_OS) ? FIX_OS : 0) | ((flags & PMU_F_USR) ? FIX_USR : 0) |
		     ((flags & PMU_F_INT) ? FIX_PMI : 0);
	p->FIXED_SHADOW &= ~(0xfull << FIX_SHIFT(c->index));
	p->FIXED_SHADOW |= f << FIX_SHIFT(c->index);
	return write_fixed_ctrl(p);
}

static uint64_t sext32(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
}

static int write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	const struct pmu_counter *c;
	uint64_t wmask, held;
	int st;

	if (!pmu_has_ctr(p, ctr))
		return HW_REFUSED;
	c = &p->ctr[ctr];
	wmask = pmu_width_mask(c->width);
	if (c->kind == PMU_CTR_FIXED || c->full_msr == c->ctr_msr) {
		/* One MSR, full width on every path (kvm-unit-tests x86/pmu.c; v6). */
		held = val & wmask;
		st = hw_wrmsr(c->ctr_msr, held);
	} else if (path == PMU_WRITE_FULL || (path == PMU_WRITE_PRELOAD && c->full_msr)) {
		if (!c->full_msr)
			return HW_UNSUPPORTED; /* no alias without PERF_CAPABILITIES[13] */
		held = val & wmask;
		st = hw_wrmsr(c->full_msr, held);
	} else {
		/* 0xC1+i: the CPU keeps bits 31:0 and sign-extends bit 31
		 * (kvm-unit-tests x86/pmu.c check_rdpmc). */
		held = sext32(val) & wmask;
		st = hw_wrmsr(c->ctr_msr, val);
	}
	if (st != HW_OK)
		return st;
	pmu_track_armed(p, ctr, held);
	return HW_OK;
}

static uint64_t fixed_flat(const struct pmu *p)
{
	return pmu_all_mask(p) & ~pmu_width_mask(p->n_gp);
}

static int start(struct pmu *p, uint64_t mask)
{
	int st;

	mask &= pmu_all_mask(p);
	/* Each counter's own enable (EN, fixed field), then the global
	 * enable on v2+ (Linux intel_pmu_enable_all). */
	st = pmu_evtsel_enable(p, mask & ~p->ENABLED, true);
	if (st != HW_OK)
		return st;
	p->ENABLED |= mask;
	if (mask & fixed_flat(p)) {
		st = write_fixed_ctrl(p);
		if (st != HW_OK)
			return st;
	}
	p->active |= mask;
	if (has_globals(p))
		return hw_wrmsr(MSR_PERF_GLOBAL_CTRL, intel_arch_global_bits(p, p->active));
	return HW_OK;
}

static int stop(struct pmu *p, uint64_t mask)
{
	int st;

	mask &= pmu_all_mask(p);
	p->active &= ~mask;
	p->ENABLED &= ~(mask & pmu_width_mask(p->n_gp));
	/* v1: per-counter EN is the only switch. v2+: the global enable stops
	 * them at once (Linux intel_pmu_disable_all), then EN is cleared as Linux's
	 * per-event disable does, so that a stopped GP counter never rests on
	 * the global enable alone (count.enable tests that gate by itself). */
	if (!has_globals(p))
		return pmu_evtsel_enable(p, mask, false);
	st = hw_wrmsr(MSR_PERF_GLOBAL_CTRL, intel_arch_global_bits(p, p->active));
	pmu_evtsel_enable(p, mask, false);
	return st;
}

static int overflow_status(struct pmu *p, uint64_t *mask)
{
	uint64_t s;
	int st;

	*mask = 0;
	if (!has_globals(p))
		return pmu_sign_overflow(p, mask);
	st = hw_rdmsr(MSR_PERF_GLOBAL_STATUS, &s);
	if (st != HW_OK)
		return st;
	*mask = flat_mask(p, s);
	return HW_OK;
}

static int ack(struct pmu *p, uint64_t mask)
{
	p->armed &= ~mask;
	if (!has_globals(p))
		return HW_OK;
	/* GLOBAL_OVF_CTRL is write-1-to-clear (SDM Vol. 3B 20.2.2) */
	return hw_wrmsr(MSR_PERF_GLOBAL_OVF_CTRL,
			intel_arch_global_bits(p, mask & pmu_all_mask(p)));
}

static int pmi_collect(struct pmu *p, uint64_t *mask)
{
	uint64_t s;
	int st;

	*mask = 0;
	if (!has_globals(p)) {
		/* v1: stop every counter by EN, then the top-bit rule; start()
		 * with p->active resumes. */
		st = pmu_evtsel_enable(p, p->active, false);
		p->ENABLED &= ~p->active;
		if (st != HW_OK)
			return st;
		st = pmu_sign_overflow(p, mask);
		p->armed &= ~*mask;
		return st;
	}
	/* Linux intel_pmu_handle_irq: GLOBAL_CTRL = 0, read status, ack
	 * with OVF_CTRL = status, re-read until 0, at most 100 rounds. */
	st = pmu_status_collect(p, ~0ull, &s);
	*mask = flat_mask(p, s);
	p->armed &= ~*mask;
	return st;
}

static int reset(struct pmu *p)
{
	int ret = has_globals(p) ? hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 0) : HW_OK;

	ret = pmu_first_err(ret, pmu_zero_gp(p));
	if (p->n_fixed)
		ret = pmu_first_err(ret, hw_wrmsr(MSR_FIXED_CTR_CTRL, 0));
	for (unsigned i = p->n_gp; i < p->n; i++)
		ret = pmu_first_err(ret, hw_wrmsr(p->ctr[i].ctr_msr, 0));
	if (has_globals(p)) {
		uint64_t all = intel_arch_global_bits(p, pmu_all_mask(p));
		ret = pmu_first_err(ret, hw_wrmsr(MSR_PERF_GLOBAL_OVF_CTRL,
						  all | STATUS_BUF_OVF | STATUS_CONDCHGD));
	}
	/* Linux sets TFA while PMC3 is in use; the harness may use it in any
	 * check, so from its first reset until release(). */
	if (p->TFA)
		ret = pmu_first_err(ret, hw_wrmsr(MSR_TSX_FORCE_ABORT, 1));
	p->active = 0;
	p->armed = 0;
	p->FIXED_SHADOW = 0;
	p->ENABLED = 0;
	return ret;
}

static void release(struct pmu *p)
{
	if (p->TFA) /* RTM and PMC3 back as they were found */
		hw_wrmsr(MSR_TSX_FORCE_ABORT, p->TFA_FOUND);
}

const struct pmu_ops pmu_intel_arch_ops = {
    PMU_DRIVER_OPS("intel-arch", PMU_DRV_INTEL_ARCH),
    /* rr (src/PerfCounters.cc skid_size) has not seen a PMI come more than
     * 100 conditional branches after its overflow from Merom to Rocket Lake,
     * 125 from Alder Lake on: 300 and 375 instructions of the skid check's
     * loop (a branch in three). 1000 instructions, ten times rr's 100 (the
     * margin ours), holds both. */
    .skid_limit = 1000,
    .msrs = intel_arch_msrs,
    .generic_event = intel_arch_generic_event,
    .release = release,
};

/* msr.access: every PMU MSR the driver documents reads without a fault, and
 * every bit a read-write register documents as holding (its rw_mask) holds
 * both values: each bit is flipped alone, read back, and the register is put
 * back. One bit at a time keeps the PMU quiet: no single bit of a cleared
 * control starts a counter that could interrupt. Writes go out twice, as
 * erratum N15 asks for NetBurst counters (specification update #249199); twice is harmless
 * elsewhere. */
#include "../measure.h"
#include "../hv_policy.h"
#include "../../pmu/msr.h"
#include "../../lib/fmt.h"

#define MAX_MSRS 96 /* room for more than any driver documents */
/* An event select's event and unit-mask fields (SDM Vol. 3B §20.2.1, and
 * AMD's event bits 11:8 at 35:32, APM Vol. 2 §13.2.1). */
#define SEL_EVENT_FIELDS                                                                           \
	(EVTSEL_EVENT_MAX | 0xffull << EVTSEL_UMASK_SHIFT | 0xfull << EVTSEL_EVENT_HI_SHIFT)

static int put(uint32_t msr, uint64_t v)
{
	int st = hw_wrmsr(msr, v);
	return st == HW_OK ? hw_wrmsr(msr, v) : st;
}

/* The general-purpose counter whose event select msr is, or -1. */
static int select_of(const struct pmu *p, uint32_t msr)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->ctr[i].kind == PMU_CTR_GP && p->ctr[i].ctl_msr == msr)
			return (int)i;
	return -1;
}

/* Bit b of d did not hold or raised #GP (st): under a hypervisor, the
 * bits of an event select a guest is not given are its to refuse
 * (recorded): pin control, which drives a package pin, the host's (KVM
 * drops it on AMD); AnyThread, which counts the other thread's work, not
 * the guest's (Xen's core2 vPMU refuses it: xen/arch/x86/cpu/vpmu_intel.c
 * ARCH_CTRL_MASK; KVM gives no v3 guest it); and the event and unit mask
 * of an allow-list (Xen vpmu=arch, vpmu=ipc). True when that is so. */
static bool hv_dropped(struct check_ctx *c, const struct pmu_msr_desc *d, unsigned b, int st)
{
	static const char what[][40] = {"event-select bit 19 (pin control)", "AnyThread",
					"event selects: listed events only"};
	char why[RESULT_MSG];
	uint64_t bit = 1ull << b;
	unsigned k = bit == EVTSEL_PC ? 0 : bit == EVTSEL_ANY ? 1 : 2;

	if (c->cpu->hypervisor && d->addr == MSR_FIXED_CTR_CTRL && b % 4 == 2)
		k = 1; /* a fixed counter's AnyThread (SDM Vol. 3B §20.2.2) */
	else if (!c->cpu->hypervisor || select_of(c->pmu, d->addr) < 0 ||
		 (k == 2 && (!(bit & SEL_EVENT_FIELDS) || st != HW_FAULT_GP)))
		return false; /* an allow-list refuses with #GP, it drops nothing */
	pmh_fmt(why, sizeof(why), "%s (MSR 0x%x): flipping bit %u %s: the hypervisor's", d->name,
		d->addr, b, st == HW_OK ? "did not hold" : "raised #GP");
	hv_record(c->s, c->cpu_index, HV_POLICY, HVG_OTHER, what[k], why);
	return true;
}

/* Flips each rw_mask bit of d alone; returns false after the first that
 * does not hold (reported). */
static bool bits_hold(struct check_ctx *c, const struct pmu_msr_desc *d, uint64_t v)
{
	for (unsigned b = 0; b < 64; b++) {
		uint64_t t = v ^ (1ull << b), r = 0;
		if (!(d->rw_mask >> b & 1))
			continue;
		int st = put(d->addr, t);
		if (st == HW_OK)
			st = hw_rdmsr(d->addr, &r);
		put(d->addr, v);
		if (st == HW_FAULT_GP && hv_dropped(c, d, b, st))
			continue;
		if (st != HW_OK) {
			check_fail(c, "%s (MSR 0x%x): flipping bit %u raised %s", d->name, d->addr,
				   b, hw_err_name(st));
			return false;
		}
		if ((r ^ t) & d->rw_mask && hv_dropped(c, d, b, HW_OK))
			continue;
		if ((r ^ t) & d->rw_mask) {
			check_fail(c,
				   "%s (MSR 0x%x): wrote 0x%llx, read back 0x%llx: bit %u of "
				   "read-write mask 0x%llx not held",
				   d->name, d->addr, (unsigned long long)t, (unsigned long long)r,
				   b, (unsigned long long)d->rw_mask);
			return false;
		}
	}
	return true;
}

/* Under a hypervisor an event select may take only the events on its
 * list: any other value, 0 included, raises #GP (Xen vpmu=arch and
 * vpmu=ipc: xen/arch/x86/cpu/vpmu_intel.c core2_vpmu_do_wrmsr). When the
 * write of v raised #GP and the same counter takes instructions retired,
 * *d goes on from that value (*v) with its event and unit-mask bits left
 * alone, and the restriction is recorded. */
static bool hv_listed(struct check_ctx *c, struct pmu_msr_desc *d, uint64_t *v)
{
	int i = select_of(c->pmu, d->addr);
	uint64_t a = 0;
	char why[RESULT_MSG];

	if (!c->cpu->hypervisor || i < 0 || !hv_setup_quiet(c, (unsigned)i, GEN_INSTRUCTIONS) ||
	    hw_rdmsr(d->addr, &a) != HW_OK || put(d->addr, a) != HW_OK)
		return false;
	pmh_fmt(why, sizeof(why),
		"%s (MSR 0x%x) raised #GP on WRMSR of 0x%llx and took instructions retired "
		"(0x%llx): the hypervisor allows a list of events (Xen vpmu=arch: the "
		"architectural ones; vpmu=ipc: instructions and cycles)",
		d->name, d->addr, (unsigned long long)*v, (unsigned long long)a);
	hv_record(c->s, c->cpu_index, HV_POLICY, HVG_OTHER, "event selects: listed events only",
		  why);
	*v = a;
	d->rw_mask &= ~SEL_EVENT_FIELDS;
	return true;
}

/* Whether msr is a counter the host holds (tests/hv_policy.h): its value
 * moves under the check; Intel's full-width alias is 400h above it (SDM
 * Vol. 3B §20.2.6). */
static bool host_counter(const struct check_ctx *c, uint32_t msr)
{
	for (unsigned i = 0; i < c->pmu->n; i++)
		if (hv_is_taken(c, i) &&
		    (c->pmu->ctr[i].ctr_msr == msr || c->pmu->ctr[i].ctr_msr + 0x400 == msr))
			return true;
	return false;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	struct pmu_msr_desc d[MAX_MSRS];
	size_t n = p->ops->msrs(p, d, MAX_MSRS);
	unsigned ok = 0, rw = 0;

	m_quiesce(c);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 0;
		int st;
		if (d[i].access != PMU_MSR_WO) {
			st = hw_rdmsr(d[i].addr, &v);
			if (st != HW_OK) {
				check_fail(c, "expected %s (MSR 0x%x) readable, got %s on RDMSR",
					   d[i].name, d[i].addr, hw_err_name(st));
				continue;
			}
		}
		if (d[i].access == PMU_MSR_RW) {
			st = put(d[i].addr, v);
			if (st == HW_FAULT_GP && hv_listed(c, &d[i], &v))
				st = HW_OK;
			if (st != HW_OK) {
				check_fail(
				    c, "expected %s (MSR 0x%x) writable, got %s on WRMSR of 0x%llx",
				    d[i].name, d[i].addr, hw_err_name(st), (unsigned long long)v);
				continue;
			}
			if (!host_counter(c, d[i].addr) && !bits_hold(c, &d[i], v))
				continue;
			rw++;
		}
		ok++;
	}
	m_quiesce(c);
	if (n == 0)
		check_fail(c, "expected the driver to document its MSRs, got none");
	else
		check_pass(c,
			   "%u of %u documented MSRs accessed without a fault; %u read-write "
			   "registers hold each documented bit both ways",
			   ok, (unsigned)n, rw);
}

PMH_CHECK(msr_access, .id = "msr.access", .summary = "documented PMU MSRs are accessible",
	  .order = 30, .needs_pmu = true, .run = run);

/* amd.legacy-alias: with the core performance counter extension (CPUID
 * 8000_0001h ECX[23] PerfCtrExtCore, Family 15h on) the legacy PerfEvtSel0-3
 * (C001_0000h-3h) and PerfCtr0-3 (C001_0004h-7h) stay, as the first four
 * core counters' PERF_CTL / PERF_CTR (C001_0200h+2i / C001_0201h+2i) under a
 * second address (AMD APM Vol. 2 §13.2 "Performance Counters"; BKDG for
 * Fam15h #42301 §2.7; Linux arch/x86/events/amd/core.c amd_pmu_addr_offset
 * moves to the extension's addresses; Linux arch/x86/kvm/svm/pmu.c
 * get_gp_pmc_amd gives both one counter). The driver says which view a PMU
 * has (struct pmu n_legacy). Measured: a value written through one view
 * reads back through the other, both ways, selects and counters, each
 * counter its own value (a view wired to another counter shows); and a
 * counter counting through the core view moves as much through the legacy
 * PerfCtr. */
#include "../measure.h"
#include "../../lib/fmt.h"

enum view { CORE, LEGACY };

static uint32_t msr_of(const struct pmu *p, unsigned i, bool ctl, enum view v)
{
	if (v == LEGACY)
		return (ctl ? p->legacy_ctl_msr : p->legacy_ctr_msr) + i;
	return ctl ? p->ctr[i].ctl_msr : p->ctr[i].ctr_msr;
}

static void name_of(char *buf, size_t n, unsigned i, bool ctl, enum view v)
{
	if (v == LEGACY)
		pmh_fmt(buf, n, "legacy %s%u", ctl ? "PerfEvtSel" : "PerfCtr", i);
	else
		pmh_fmt(buf, n, "core %s%u", ctl ? "PERF_CTL" : "PERF_CTR", i);
}

/* What counter i gets through view v: a select with EN and INT clear
 * (nothing counts, nothing interrupts) and the counter's own counter mask,
 * events C0h and C2h, which every counter of Family 15h takes (BKDG
 * #42301 PMCx event list; Linux amd_get_event_constraints_f15h); a 48-bit
 * counter value of its own. */
static uint64_t pattern(unsigned i, bool ctl, enum view v)
{
	if (ctl && v == CORE)
		return 0xc0 | PMU_F_OS | PMU_F_USR | PMU_F_CMASK(i + 1);
	if (ctl)
		return 0xc2 | PMU_F_OS | PMU_F_CMASK(i + 9);
	return (v == CORE ? 0x123456789aull : 0xa987654321ull) + ((uint64_t)i << 40);
}

/* Writes each counter's select (ctl) or counter through view from, then
 * reads each back through the other view. False when an access faulted
 * (FAILed). */
static bool cross(struct check_ctx *c, bool ctl, enum view from)
{
	struct pmu *p = c->pmu;
	enum view to = from == CORE ? LEGACY : CORE;
	char wn[24], rn[24];
	uint64_t v;

	for (unsigned i = 0; i < p->n_legacy; i++)
		if (!m_wrmsr(c, msr_of(p, i, ctl, from), pattern(i, ctl, from)))
			return false;
	for (unsigned i = 0; i < p->n_legacy; i++) {
		if (!m_rdmsr(c, msr_of(p, i, ctl, to), &v))
			return false;
		if (v == pattern(i, ctl, from))
			continue;
		name_of(wn, sizeof(wn), i, ctl, from);
		name_of(rn, sizeof(rn), i, ctl, to);
		check_fail(c,
			   "0x%llx written to %s (0x%x) reads 0x%llx through %s (0x%x): expected "
			   "one register (the legacy MSRs alias the core counters)",
			   (unsigned long long)pattern(i, ctl, from), wn, msr_of(p, i, ctl, from),
			   (unsigned long long)v, rn, msr_of(p, i, ctl, to));
	}
	return true;
}

/* Counter i counts instructions through the core view (the driver's
 * set-up and start): its legacy PerfCtr moves by what the counter counted.
 * False when an op failed (FAILed). */
static bool moves(struct check_ctx *c, unsigned i)
{
	struct pmu *p = c->pmu;
	uint32_t legacy = p->legacy_ctr_msr + i;
	uint64_t before, after, core, mask = pmu_width_mask(p->ctr[i].width);

	if (!m_setup_or_fail(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR) ||
	    !m_rdmsr(c, legacy, &before))
		return false;
	if (m_window(c, 1ull << i, &wl_loop, M_N_ITERS) == M_FAULT) /* an SMI: still one count */
		return false;
	if (!m_read(c, i, &core) || !m_rdmsr(c, legacy, &after))
		return false;
	if (core == 0)
		check_fail(c, "%s did not count instructions through the core view",
			   p->ctr[i].name);
	else if (((after - before) & mask) != core)
		check_fail(c,
			   "%s counted %llu from 0 through the core view; legacy PerfCtr%u (0x%x) "
			   "went from %llu to %llu: expected it to move with it (alias)",
			   p->ctr[i].name, (unsigned long long)core, i, legacy,
			   (unsigned long long)before, (unsigned long long)after);
	return true;
}

/* Why the driver gave this PMU no legacy view. */
static const char *why_none(const struct cpu_info *ci)
{
	if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON)
		return "no core counter extension (CPUID 8000_0001h ECX[23] clear): C001_0000h-7h "
		       "are the only counters, no other view to alias";
	return "not an AMD PMU: the legacy PerfEvtSel/PerfCtr MSRs (C001_0000h-7h) and their "
	       "core aliases are AMD's";
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	bool ok;

	if (!p->n_legacy) {
		check_skip(c, "%s", why_none(c->cpu));
		return;
	}
	m_quiesce(c);
	ok = cross(c, true, CORE) && cross(c, true, LEGACY) && cross(c, false, CORE) &&
	     cross(c, false, LEGACY);
	m_quiesce(c);
	for (unsigned i = 0; ok && i < p->n_legacy; i++)
		ok = moves(c, i);
	m_quiesce(c);
	check_pass(c,
		   "PerfEvtSel0-%u and PerfCtr0-%u (0x%x, 0x%x) are PERF_CTL and PERF_CTR0-%u: "
		   "written through either view, read through the other; each legacy PerfCtr "
		   "moves with its counter counting",
		   p->n_legacy - 1, p->n_legacy - 1, p->legacy_ctl_msr, p->legacy_ctr_msr,
		   p->n_legacy - 1);
}

PMH_CHECK(amd_legacy_alias, .id = "amd.legacy-alias",
	  .summary = "AMD legacy counter MSRs alias the core counters", .order = 75,
	  .needs_pmu = true, .run = run);

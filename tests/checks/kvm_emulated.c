/* kvm.emulated: under KVM, what KVM emulates for the guest retires in the
 * guest's counters as instructions and, for branches, branch instructions
 * (Linux 5.17: 9cd803d496e7 "KVM: x86: Update vPMCs when retiring
 * instructions", 018d70ffcfec "KVM: x86: Update vPMCs when retiring branch
 * instructions"; arch/x86/kvm/pmu.c kvm_pmu_trigger_event). KVM's
 * forced-emulation prefix, "ud2" and the bytes "kvm", makes it emulate the
 * instruction after it where the host's kvm module has
 * force_emulation_prefix on (arch/x86/kvm/x86.c handle_ud; off, the ud2
 * is a #UD for the guest), as kvm-unit-tests x86/pmu.c
 * check_emulated_instr measures it (lib/x86/desc.h KVM_FEP, desc.c
 * is_fep_available). A guarded probe (pmu/hw.h hw_run_workload_guarded)
 * of one iteration of wl_kvm_fep tells whether the host takes the prefix;
 * then instructions retired and branch instructions retired, each on a
 * counter of its own, over FEP_N and 2 x FEP_N iterations: 5 instructions
 * and 3 branches an iteration, 2 of each emulated (events/workloads.c
 * wl_kvm_fep). Intel: exact in a majority of the repeats, as
 * kvm-unit-tests expects where the vPMU has a global control. AMD counts
 * the VMRUN of each VM exit in the guest as an instruction and a branch
 * (kvm-unit-tests 89126fa4, its "errata" instructions_retired_overcount
 * and branches_retired_overcount, where it takes ">="): up to one more of
 * each an emulated instruction, and the AMD slack (K8 BKDG §10.1). */
#include "../measure.h"

#define FEP_N 1000 /* iterations: 2000 VM exits a window (ours) */

struct fep_ctr {
	enum pmu_generic g;
	int ctr;
	int64_t built, emulated; /* per FEP_N iterations */
	struct mdiff d;
};

/* Why KVM's emulation cannot be measured here, or NULL. */
static const char *fep_unusable(struct check_ctx *c)
{
	if (!c->cpu->hypervisor)
		return "not under a hypervisor (CPUID.1:ECX[31] clear): instructions are emulated "
		       "for a KVM guest only";
	if (c->cpu->hv.id != HV_KVM)
		return "not under KVM: the forced-emulation prefix is KVM's (Linux "
		       "arch/x86/kvm/x86.c handle_ud)";
	return 0;
}

/* The guarded probe: true when the host took the prefix (c decided when
 * not). */
static bool fep_probe(struct check_ctx *c)
{
	int e = hw_run_workload_guarded(&wl_kvm_fep, 1);

	if (e == HW_OK)
		return true;
	if (e == HW_FAULT_UD)
		check_skip(c,
			   "KVM's forced-emulation prefix raised #UD: the host's kvm module runs "
			   "with force_emulation_prefix off, its default (Linux "
			   "arch/x86/kvm/x86.c handle_ud; kvm-unit-tests x86/pmu.c needs it)");
	else if (e == HW_UNSUPPORTED)
		check_skip(c, "this platform cannot run a workload under a fault guard");
	else
		check_fail(c,
			   "KVM's forced-emulation prefix raised %s (vector %d), not #UD or "
			   "nothing (Linux arch/x86/kvm/x86.c handle_ud)",
			   hw_err_name(e), e);
	return false;
}

/* A counter for f->g other than avoid; false (SKIPped or FAILed) when none. */
static bool fep_setup(struct check_ctx *c, struct fep_ctr *f, int avoid)
{
	const struct workload_vector *v = &wl_kvm_fep.per_iter;
	bool insn = f->g == GEN_INSTRUCTIONS;

	f->built = (int64_t)(insn ? v->instructions : v->branches) * FEP_N;
	f->emulated = (int64_t)(insn ? v->emulated : v->emulated_br) * FEP_N;
	for (int from = 0; from >= 0 && (unsigned)from < c->pmu->n; from = f->ctr + 1) {
		f->ctr = m_counter_for(c, f->g, (unsigned)from);
		if (f->ctr < 0)
			break;
		if (f->ctr != avoid)
			return m_setup_or_fail(c, (unsigned)f->ctr, f->g, PMU_F_OS);
	}
	check_skip(c, "no counter for %s here", m_gen_name(f->g));
	return false;
}

/* Counts of FEP_N iterations within what this vendor's KVM allows. */
static bool fep_ok(const struct check_ctx *c, const struct fep_ctr *f)
{
	if (c->cpu->vendor != VENDOR_AMD)
		return m_exact(&f->d, f->built);
	return f->d.med >= f->built - m_diff_slack(c) &&
	       f->d.med <= f->built + f->emulated + m_diff_slack(c);
}

static void fep_fail(struct check_ctx *c, const struct fep_ctr *f)
{
	bool none = f->d.med == f->built - f->emulated;

	check_fail(c,
		   "%s counting %s over %u iterations of %s: got %lld, expected %lld, %lld "
		   "emulated by KVM (%u of %u repeats)%s",
		   c->pmu->ctr[f->ctr].name, m_gen_name(f->g), FEP_N, wl_kvm_fep.name,
		   (long long)f->d.med, (long long)f->built, (long long)f->emulated, f->d.agree,
		   f->d.rep,
		   none ? ": the emulated not counted; known: KVM before 5.17 (9cd803d496e7, "
			  "018d70ffcfec)"
			: "");
}

static void run(struct check_ctx *c)
{
	struct fep_ctr f[2] = {{.g = GEN_INSTRUCTIONS, .ctr = -1}, {.g = GEN_BRANCHES, .ctr = -1}};
	const char *why = fep_unusable(c);

	if (why) {
		check_skip(c, "%s", why);
		return;
	}
	if (!fep_probe(c) || !fep_setup(c, &f[0], -1) || !fep_setup(c, &f[1], f[0].ctr)) {
		m_quiesce(c);
		return;
	}
	uint64_t both = 1ull << f[0].ctr | 1ull << f[1].ctr;
	for (unsigned k = 0; k < 2; k++) {
		int st = m_diff(c, (unsigned)f[k].ctr, both, 0, 0, &wl_kvm_fep, FEP_N, &f[k].d);
		if (st != M_OK) {
			m_fail_status(c, st, 0, c->pmu->ctr[f[k].ctr].name);
			m_quiesce(c);
			return;
		}
	}
	m_quiesce(c);
	c->fig.tolerance = c->cpu->vendor == VENDOR_AMD ? "AMD: + one VMRUN an emulation" : "exact";
	for (unsigned k = 0; k < 2; k++)
		if (!fep_ok(c, &f[k]))
			fep_fail(c, &f[k]);
	check_pass(c,
		   "%lld instructions and %lld branches over %u iterations, %lld and %lld of them "
		   "emulated by KVM (forced-emulation prefix); %s (Linux 5.17 9cd803d496e7, "
		   "018d70ffcfec)",
		   (long long)f[0].d.med, (long long)f[1].d.med, FEP_N, (long long)f[0].emulated,
		   (long long)f[1].emulated,
		   c->cpu->vendor == VENDOR_AMD ? "AMD: at most one VMRUN more an emulation "
						  "(kvm-unit-tests 89126fa4)"
						: "exact");
}

PMH_CHECK(kvm_emulated, .id = "kvm.emulated",
	  .summary = "instructions KVM emulates count as instructions and branches", .order = 48,
	  .needs_pmu = true, .run = run);

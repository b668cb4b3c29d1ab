/* Output formats: the identification header as "key: value" lines, the
 * closing summary line, and the JSON results document (report_json.c). */
#include "suite.h"
#include "hv_policy.h"
#include "platform.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

void report_identity(struct suite *s)
{
	const struct suite_cpu b = suite_bound(s);
	const struct cpu_info *ci = b.cpu;
	const struct pmu *p = b.pmu;
	const struct apic_info *ai = b.apic;
	char hv[192];

	suite_emit(s, "pmuharness: %s", PMH_VERSION);
	suite_emit(s, "cpu.vendor: %s (%s)", cpu_vendor_name(ci->vendor), ci->ids.vendor);
	suite_emit(s, "cpu.family: 0x%x", ci->family);
	suite_emit(s, "cpu.model: 0x%x", ci->model);
	suite_emit(s, "cpu.stepping: 0x%x", ci->stepping);
	suite_emit(s, "cpu.brand: %s", ci->brand);
	if (ci->ids.core_type) /* hybrid: this CPU's core type, leaf 1AH */
		suite_emit(s, "cpu.core_type: 0x%x %s", ci->ids.core_type,
			   cpu_core_type_name(ci->ids.core_type));
	if (ci->microcode_valid)
		suite_emit(s, "cpu.microcode: 0x%x", ci->microcode);
	else
		suite_emit(s, "cpu.microcode: %s", ci->microcode_note);
	hv_describe(&ci->hv, hv, sizeof(hv));
	suite_emit(s, "cpu.hypervisor: %s", hv);
	suite_emit(s, "apic.mode: %s", apic_mode_name(ai->mode));
	suite_emit(s, "apic.id: 0x%x", ai->id);
	suite_emit(s, "apic.max_lvt: %u", ai->max_lvt);
	suite_emit(s, "pmu.driver: %s", pmu_driver_name(ci->driver));
	suite_emit(s, "pmu.reason: %s", ci->driver_reason);
	if (p->ops) {
		if (p->version)
			suite_emit(s, "pmu.version: %u", p->version);
		suite_emit(s, "pmu.counters: %u general-purpose x %u bits, %u fixed x %u bits",
			   p->n_gp, p->n_gp ? p->ctr[0].width : 0, p->n_fixed,
			   p->n_fixed ? p->ctr[p->n_gp].width : 0);
		if (ci->driver == PMU_DRV_INTEL_ARCH) /* which leaf listed them */
			suite_emit(s, "pmu.enumeration: cpuid %s",
				   cpu_perfmon_bitmaps(&ci->ids) ? "0x23" : "0x0a");
	}
	suite_emit(s, "pmu.status: %s", pmu_status_name(p->status));
	if (p->status != PMU_FUNCTIONAL)
		suite_emit(s, "pmu.status_reason: %s", p->reason);
	if (p->warning[0])
		suite_emit(s, "pmu.warning: %s", p->warning);
}

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case V_PASS:
		return "PASS";
	case V_FAIL:
		return "FAIL";
	case V_SKIP:
		return "SKIP";
	default:
		return "NONE";
	}
}

enum run_verdict run_verdict_of(const struct run_counts *c)
{
	if (c->harness_error)
		return RV_ERROR;
	if (c->failed)
		return RV_FAIL;
	if (!c->passed && !c->skipped)
		return RV_NO_VERDICT; /* nothing was selected or nothing ran */
	if (!c->pmu_usable)
		return RV_NO_PMU;
	return c->pmu_passed ? RV_PASS : RV_NO_VERDICT;
}

struct run_counts suite_counts(const struct suite *s)
{
	/* results missing (s->dropped) make it ERROR: never a verdict, PASS
	 * or FAIL, that the results kept cannot show */
	const struct pmu *p = suite_bound(s).pmu;
	struct run_counts c = {s->passed,
			       s->failed,
			       s->skipped,
			       s->pmu_passed,
			       p && p->status == PMU_FUNCTIONAL,
			       s->harness_error || s->dropped};
	return c;
}

struct run_counts suite_share(const struct suite *s, const struct run_counts *before)
{
	struct run_counts c = suite_counts(s);

	c.passed -= before->passed;
	c.failed -= before->failed;
	c.skipped -= before->skipped;
	c.pmu_passed -= before->pmu_passed;
	c.pmu_usable = false; /* the CPU's own PMU: the caller's to say */
	c.harness_error = false;
	return c;
}

enum run_verdict suite_verdict(const struct suite *s)
{
	struct run_counts c = suite_counts(s);
	return run_verdict_of(&c);
}

const char *run_verdict_name(enum run_verdict v)
{
	static const char *const n[] = {[RV_PASS] = "PASS",
					[RV_FAIL] = "FAIL",
					[RV_ERROR] = "ERROR",
					[RV_NO_PMU] = "NO PMU",
					[RV_NO_VERDICT] = "NO VERDICT"};
	return v <= RV_NO_VERDICT ? n[v] : "?";
}

enum pmh_exit run_verdict_exit(enum run_verdict v)
{
	static const unsigned char e[] = {[RV_PASS] = PMH_EXIT_PASS,
					  [RV_FAIL] = PMH_EXIT_FAIL,
					  [RV_ERROR] = PMH_EXIT_ERROR,
					  [RV_NO_PMU] = PMH_EXIT_NO_PMU,
					  [RV_NO_VERDICT] = PMH_EXIT_NO_VERDICT};
	return v <= RV_NO_VERDICT ? (enum pmh_exit)e[v] : PMH_EXIT_ERROR;
}

unsigned run_exit_kut(enum pmh_exit e)
{
	/* kvm-unit-tests lib/report.c report_summary: "77 >> 1" when every
	 * test skipped; scripts/arch-run.bash run_qemu reads QEMU's 1 as 0 */
	if (e == PMH_EXIT_PASS)
		return 0;
	return e == PMH_EXIT_NO_PMU || e == PMH_EXIT_NO_VERDICT ? 77 >> 1 : 1;
}

static void verdict_reason(const struct suite *s, enum run_verdict v, char *buf, size_t n)
{
	char r[120];
	const struct suite_cpu b = suite_bound(s);
	/* a PASS under a hypervisor's restrictions says what was not measured
	 * beside what was (tests/hv_policy.c) */
	bool restricted = hv_restricted_summary(s, r, sizeof(r) - 2);

	if (restricted)
		pmh_strlcpy(r + pmh_strlen(r), "; ", 3);
	switch (v) {
	case RV_ERROR:
		if (s->harness_error || !s->dropped)
			pmh_fmt(buf, n, "the harness could not run");
		else
			pmh_fmt(buf, n, "%u results missing: %s (see the error above)", s->dropped,
				s->cpus_not_run ? "CPUs not run for want of memory for them"
						: "the results table was full");
		break;
	case RV_FAIL:
		pmh_fmt(buf, n, "%u check%s failed", s->failed, s->failed == 1 ? "" : "s");
		break;
	case RV_NO_PMU:
		pmh_fmt(buf, n, "no usable PMU to validate: %s",
			b.pmu && b.pmu->reason[0] ? b.pmu->reason : "no driver");
		break;
	case RV_NO_VERDICT:
		pmh_fmt(buf, n, "no check that measures the PMU ran (%u selected checks passed)",
			s->passed);
		break;
	default:
		pmh_fmt(buf, n, "%s%s%u PMU checks measured and passed, none failed",
			restricted ? "restricted by the hypervisor: " : "", restricted ? r : "",
			s->pmu_passed);
		break;
	}
}

void report_summary(struct suite *s)
{
	enum run_verdict v = suite_verdict(s);
	char why[256];

	if (s->cpus_not_run)
		suite_emit(s,
			   "error: %u results missing: %u selected CPUs were not run for want of "
			   "memory for their results",
			   s->dropped, s->cpus_not_run);
	else if (s->dropped)
		suite_emit(s, "error: %u results did not fit in the results table of %u",
			   s->dropped, s->cap_results);
	if (s->hv_lost)
		suite_emit(s, "warning: %u hypervisor findings did not fit in their table",
			   s->hv_lost);
	suite_emit(s, "%u passed, %u failed, %u skipped", s->passed, s->failed, s->skipped);
	verdict_reason(s, v, why, sizeof(why));
	suite_emit(s, "verdict: %s (%s)", run_verdict_name(v), why);
	suite_emit(s, "%s", "");
	suite_emit(s, "    ==========  %s  ==========", run_verdict_name(v));
	suite_emit(s, "%s", "");
}

void report_kut_summary(struct suite *s)
{
	char more[64] = "";
	struct pmh_sb sb;

	if (s->opt->output != OUTPUT_KUT)
		return;
	/* the runner shows it in brackets beside the test's result, from the
	 * last five lines (scripts/runtime.bash extract_summary) */
	pmh_sb_init(&sb, more, sizeof(more));
	if (s->failed)
		pmh_sb_add(&sb, ", %u unexpected failures", s->failed);
	if (s->skipped)
		pmh_sb_add(&sb, ", %u skipped", s->skipped);
	suite_emit(s, "SUMMARY: %u tests%s; verdict %s", s->passed + s->failed + s->skipped, more,
		   run_verdict_name(suite_verdict(s)));
}

void report_start(struct suite *s, const struct platform *p, uint64_t t0_us)
{
	s->platform = p;
	s->t0_us = t0_us;
	s->have_sys = p->smbios && smbios_parse(p->smbios, p->smbios_len, &s->sys);
	if (!p->clock || !p->clock(p->ctx, s->started, sizeof(s->started)))
		s->started[0] = 0;
}

void report_verdict_reason(const struct suite *s, char *buf, size_t n)
{
	verdict_reason(s, suite_verdict(s), buf, n);
}

void results_file_outcome(char *msg, size_t cap, const char *name, const char *why)
{
	size_t n = pmh_strlen(msg);

	if (why)
		pmh_fmt(msg + n, cap - n, "%s%s: %s", n ? "; " : "", name, why);
	else
		pmh_fmt(msg + n, cap - n, "%s%s written and verified", n ? "; " : "", name);
}

void results_saved_line(char *line, size_t cap, bool ok, const char *msg)
{
	if (ok)
		pmh_fmt(line, cap, "results.saved: %s", msg);
	else
		pmh_fmt(line, cap,
			"error: results files: %s; what is missing is on the console and serial "
			"only",
			msg);
}

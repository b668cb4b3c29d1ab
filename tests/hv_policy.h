/* Under a hypervisor, what the guest's PMU withholds by the hypervisor's
 * policy (an event filter, an allow-list, a fixed-counter bitmap), what is
 * a known hypervisor bug and what the host took: findings the run reports
 * beside the checks' verdicts instead of reading them as PMU faults. On
 * bare metal none of this applies, and the same observations stay FAILs:
 * every function here returns false when CPUID.1:ECX[31] is clear. */
#ifndef PMH_TESTS_HV_POLICY_H
#define PMH_TESTS_HV_POLICY_H

#include "suite.h"

/* Sets counter ctr up with generic event g (stopped, zeroed) without
 * judging: false when any op failed, for a reference that cannot be taken
 * to leave the caller's observation as it was. */
bool hv_setup_quiet(struct check_ctx *c, unsigned ctr, enum pmu_generic g);

/* Tells a withheld event from a dead counter: instructions retired,
 * programmed on the same counter, count over M_N_ITERS iterations of
 * wl_loop. *n: what they counted. The counter's set-up is lost. False when
 * it could not be programmed or counted nothing; an op that faulted while
 * measuring FAILs c as every measurement does. */
bool hv_counter_counts(struct check_ctx *c, unsigned ctr, int64_t *n);

/* The event (its name) counted exactly 0 on every counter the caller ran
 * it on, ctr the first. Under a hypervisor, when instructions count on ctr,
 * this is the hypervisor's filter: the restriction is recorded, why (for
 * the caller's SKIP or row note) says so, and true is returned. On a fixed
 * counter the reference is its own event on a general-purpose counter
 * (hv_fixed_withheld). */
bool hv_zero_withheld(struct check_ctx *c, unsigned ctr, const char *event, char *why, size_t n);
/* (When instructions do not count on ctr either but did earlier in the
 * run, the host took it: recorded as hv_failed does, true.) */

/* Programming the event on ctr raised e. Under a hypervisor, when e is #GP
 * and the same counter takes instructions retired, the hypervisor allows a
 * list of events (Xen vpmu=arch or vpmu=ipc): recorded, said in why, true. */
bool hv_gp_withheld(struct check_ctx *c, unsigned ctr, const char *event, int e, char *why,
		    size_t n);

/* Fixed counter f did not count its event where counter by counted ref
 * (its event on a general-purpose counter, or another fixed counter). Under
 * a hypervisor this is a fixed-counter bitmap that leaves f out (KVM's
 * event filter): recorded, said in why, true. */
bool hv_fixed_withheld(struct check_ctx *c, unsigned f, const char *event, unsigned by, int64_t ref,
		       char *why, size_t n);

/* A check under a hypervisor FAILed: a known bug of that hypervisor that
 * explains the check's failure is named in it and recorded; then each
 * counter it set up that counted
 * earlier in the run (suite.hv_counted) is probed with instructions
 * retired, and one that counts nothing now was taken by the host (VMware's
 * vPMC when the host profiles, KVM's pinned host perf events): the FAIL
 * becomes a SKIP that says so, and the finding is recorded
 * ("pmu.host:"). A counter that never counted stays a failure. */
void hv_failed(struct check_ctx *c);
/* Under a hypervisor, before the checks of a CPU: which general-purpose
 * counters count instructions now (suite.hv_counted), so that one the host
 * takes during the run can be told from one that never counted. */
void hv_census(struct suite *s, unsigned cpu_index);
/* The census also finds the counters that move while disabled: the
 * host's (suite.hv_taken; on a Skylake-era part with TSX, PMC3 under Xen,
 * which keeps TSX_FORCE_ABORT from its guests). No measurement sets them
 * up (m_setup refuses them), and a failure on one is a SKIP. */
bool hv_is_taken(const struct check_ctx *c, unsigned ctr);
/* Notes that counter ctr counted (a measurement saw events on it). */
void hv_counted(struct check_ctx *c, unsigned ctr);

/* Known hypervisor bugs a check can meet, each named with the releases
 * that carry it and the fix. */
enum hv_bug {
	HVB_LVTPC_MASKED, /* LVTPC masked on every PMI where the APIC does not */
	HVB_DOUBLE_PMI,	  /* two PMIs for one overflow */
	HVB_XEN_STATUS,	  /* GLOBAL_STATUS only as the PMI handler copied it */
	HVB_COUNT
};
/* The bug's description when the run is under the hypervisor that had it
 * (KVM for both), else NULL. */
const char *hv_bug_text(const struct check_ctx *c, enum hv_bug b);
/* Records bug b as a finding ("pmu.hypervisor_bug:") with what was seen;
 * false (nothing recorded) when hv_bug_text is NULL. */
bool hv_bug_seen(struct check_ctx *c, enum hv_bug b, const char *seen);

/* Records a finding (kind HV_POLICY, HV_BUG or HV_HOST; group for the
 * verdict's summary of restrictions) once per run and prints its line:
 * "pmu.restricted:", "pmu.hypervisor_bug:" or "pmu.host:". */
void hv_record(struct suite *s, unsigned cpu, enum hv_kind kind, enum hv_group group,
	       const char *what, const char *why);

/* The verdict's summary of the run's restrictions ("5 events not counted,
 * fixed counter 2"): false when there are none. */
bool hv_restricted_summary(const struct suite *s, char *buf, size_t n);

#endif

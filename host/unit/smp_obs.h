/* The sampling faults seen through their checks, for the driver tests that
 * observe every fault of a model: a whole run of the sampling checks on
 * the model with the fault (one seed, every realism effect) must FAIL one
 * of them, whose line names the fault's symptom; host/unit/test_lbr.c and
 * the others judge them over every seed. Include after cmocka.h and sim.h. */
#ifndef PMH_TESTS_UNIT_SMP_OBS_H
#define PMH_TESTS_UNIT_SMP_OBS_H
#include "sim_whole.h"

#define SMP_CHECKS                                                                                 \
	"checks=lbr.stack,lbr.filter,lbr.freeze,lbr.callstack,pebs.record,bts.trace,ibs.sample"

/* Whether f is a sampling fault; if so, that a sampling check fails. */
static inline bool smp_fault_observed(const char *model, enum sim_fault f)
{
	const uint64_t smp = SIM_LBR_FAULTS | SIM_PEBS_FAULTS | SIM_BTS_FAULTS | SIM_IBS_FAULTS;

	if (!(smp & SIM_F(f)))
		return false;
	(void)run_whole(model, f, SIM_REALISM_ALL, 1, SMP_CHECKS);
	if (!strstr(whole_log, "\nFAIL "))
		fail_msg("%s %s: no sampling check failed; the run:\n%s", model, sim_fault_name(f),
			 whole_log);
	return true;
}

#endif

/* Model "manycore": a machine of 256 logical CPUs of two core types, each
 * the "alderlake" model's CPU (its configurations, register file and
 * realism numbers): CPUs 0-63 Golden Cove P-cores (8 GP + 4 fixed
 * counters), 64-255 Gracemont E-cores (6 + 3), for the per-CPU run at
 * scale: every result of every CPU kept, in the JSON and on the screen,
 * with all of them at once. No part has 256 CPUs of these cores: the
 * machine is what is modelled, not a product (ours), so its whole run is
 * pinned by host/unit/test_results_storage.c and the fault matrix leaves
 * it out (the faults are alderlake's, run there).
 *
 * The alderlake model finds its configuration through s->m (model_arch.h
 * arch_cfg_of) and the core type from the CPU's number against
 * s->hybrid_first_atom, so each hook runs with s->m pointing at alderlake
 * and puts manycore back, as a guest's model calls its host's
 * (sim_guest.c), but bare metal: no hypervisor, and sim_model.host stays
 * NULL. */
#include "model_arch.h"

#define MANYCORE_CPUS	 256
#define MANYCORE_P_CORES 64 /* CPUs 0-63; the rest E-cores */
#define MANYCORE_TEST	 "test_results_storage.c"

static const struct sim_model *alderlake(void)
{
	static const struct sim_model *m;

	if (!m)
		m = sim_model_find("alderlake");
	return m;
}

/* alderlake made s's model for one call: returns manycore. */
static const struct sim_model *enter(struct sim_cpu *s)
{
	const struct sim_model *own = s->m;

	s->m = alderlake();
	return own;
}

static void mc_reset(struct sim_cpu *s)
{
	const struct sim_model *own = enter(s);
	s->hybrid_first_atom = MANYCORE_P_CORES;
	s->m->reset(s);
	s->m = own;
}

static int mc_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	const struct sim_model *own = enter(s);
	int st = s->m->rdmsr(s, msr, v);
	s->m = own;
	return st;
}

static int mc_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	const struct sim_model *own = enter(s);
	int st = s->m->wrmsr(s, msr, v);
	s->m = own;
	return st;
}

static int mc_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	const struct sim_model *own = enter(s);
	int st = s->m->rdpmc(s, ecx, v);
	s->m = own;
	return st;
}

static uint64_t mc_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	const struct sim_model *own = enter(s);
	uint64_t r = s->m->rate(s, i, v);
	s->m = own;
	return r;
}

static bool mc_overflow(struct sim_cpu *s, unsigned i)
{
	const struct sim_model *own = enter(s);
	bool pmi = s->m->overflow(s, i);
	s->m = own;
	return pmi;
}

static uint64_t mc_pending(struct sim_cpu *s)
{
	const struct sim_model *own = enter(s);
	uint64_t p = s->m->pending(s);
	s->m = own;
	return p;
}

static void mc_retired(struct sim_cpu *s, const struct workload_vector *v, uint64_t k)
{
	const struct sim_model *own = enter(s);
	s->m->retired(s, v, k);
	s->m = own;
}

static const struct sim_model manycore = {
    .name = "manycore",
    .doc = "the alderlake model's CPUs, 64 P-cores and 192 E-cores on one machine (ours): "
	   "the per-CPU run's results at scale, every CPU at once",
    .driver = PMU_DRV_INTEL_ARCH,
    .faults = 0,
    .fault_na = {[SF_STUCK_COUNTER... SF_COUNT - 1] =
		     "a pinned configuration: its whole run is judged by host/unit/" MANYCORE_TEST
		     ", not the fault matrix (the alderlake model has the faults)"},
    .reset = mc_reset,
    .rdmsr = mc_rdmsr,
    .wrmsr = mc_wrmsr,
    .rdpmc = mc_rdpmc,
    .rate = mc_rate,
    .overflow = mc_overflow,
    .lvt_automask = true,
    .pending = mc_pending,
    .retired = mc_retired,
    /* alderlake's numbers: realism and every other reader of s->m->si
     * see the same silicon as the hooks */
    .si = &si_alderlake,
    .cpus = MANYCORE_CPUS,
    .pinned_by = MANYCORE_TEST,
};
SIM_MODEL(manycore);

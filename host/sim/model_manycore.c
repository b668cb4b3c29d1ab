/* Model "manycore": a machine of 256 logical CPUs of one core type, each
 * the "skylake" model's CPU (its configuration, register file, sampling
 * hardware and realism numbers), for the per-CPU run at scale: every
 * result of every CPU kept, in the JSON and on the screen. No Skylake part
 * has 256 CPUs: the machine is what is modelled, not a product, so its
 * whole run is pinned by host/unit/test_results_storage.c and the fault
 * matrix leaves it out (the faults are skylake's, run there).
 *
 * The skylake model finds its configuration through s->m (model_arch.h
 * arch_cfg_of), so each hook runs with s->m pointing at skylake and puts
 * manycore back, as a guest's model calls its host's (sim_guest.c), but
 * bare metal: no hypervisor, and sim_model.host stays NULL. */
#include "model_arch.h"
#include "sim_smp.h"

#define MANYCORE_CPUS 256
#define MANYCORE_TEST "test_results_storage.c"

static const struct sim_model *skylake(void)
{
	static const struct sim_model *m;

	if (!m)
		m = sim_model_find("skylake");
	return m;
}

/* skylake made s's model for one call: returns manycore. */
static const struct sim_model *enter(struct sim_cpu *s)
{
	const struct sim_model *own = s->m;

	s->m = skylake();
	return own;
}

static void mc_reset(struct sim_cpu *s)
{
	const struct sim_model *own = enter(s);
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

/* skylake's numbers (model_arch_models.c si_skylake): realism and every
 * other reader of s->m->si see the same silicon as the hooks. */
static const struct sim_silicon si_manycore =
    SI_SKYLAKE(.late_ack = true, .smi_count = true, .smm_counts = true, .turbo_x100 = 120, );

static const struct sim_model manycore = {
    .name = "manycore",
    .doc = "the skylake model's CPU, 256 of them on one machine (ours): the per-CPU run's "
	   "results at scale",
    .driver = PMU_DRV_INTEL_ARCH,
    .faults = 0,
    .fault_na = {[SF_STUCK_COUNTER... SF_COUNT - 1] =
		     "a pinned configuration: its whole run is judged by host/unit/" MANYCORE_TEST
		     ", not the fault matrix (the skylake model has the faults)"},
    .reset = mc_reset,
    .rdmsr = mc_rdmsr,
    .wrmsr = mc_wrmsr,
    .rdpmc = mc_rdpmc,
    .rate = mc_rate,
    .overflow = mc_overflow,
    .lvt_automask = true,
    .pending = mc_pending,
    .retired = mc_retired,
    .si = &si_manycore,
    .cpus = MANYCORE_CPUS,
    .pinned_by = MANYCORE_TEST,
    .smp = &sim_smp_skylake,
};
SIM_MODEL(manycore);

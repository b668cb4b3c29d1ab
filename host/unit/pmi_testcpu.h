/* The test-only CPU of test_pmi.c: the simulator model "pmitest" and its
 * driver (see test_pmi.c), with the set-up its cases share. Include after
 * <cmocka.h> and the apic/, pmu/ and sim/ headers. */
#ifndef PMH_TESTS_UNIT_PMI_TESTCPU_H
#define PMH_TESTS_UNIT_PMI_TESTCPU_H

/* ---- the test model -------------------------------------------------------- */

#define T_CTR0	   0x20
#define T_SEL0	   0x28
#define T_STATUS   0x2d
#define T_OVF_CTRL 0x2e
#define T_GLOBAL   0x2f
#define T_SEL_EN   (1ull << 22)
#define R_STATUS   2
#define R_GLOBAL   3

static void m_reset(struct sim_cpu *s)
{
	sim_vendor(s, 1, "GenuineIntel");
	sim_set_cpuid(s, 1, 0, sim_fms(6, 0x99, 0), 0, 0, 0);
	s->n_ctr = 2;
	s->width[0] = s->width[1] = 40;
}

static int m_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	if (msr == T_CTR0 || msr == T_CTR0 + 1)
		*v = s->ctr[msr - T_CTR0];
	else if (msr == T_SEL0 || msr == T_SEL0 + 1)
		*v = s->reg[msr - T_SEL0];
	else if (msr == T_STATUS)
		*v = s->reg[R_STATUS];
	else if (msr == T_GLOBAL)
		*v = s->reg[R_GLOBAL];
	else if (msr == T_OVF_CTRL)
		*v = 0;
	else
		return HW_FAULT_GP;
	return HW_OK;
}

static int m_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	if (msr == T_CTR0 || msr == T_CTR0 + 1)
		sim_ctr_set(s, msr - T_CTR0, v);
	else if (msr == T_SEL0 || msr == T_SEL0 + 1)
		s->reg[msr - T_SEL0] = v;
	else if (msr == T_OVF_CTRL) {
		if (!sim_has_fault(s, SF_ACK_IGNORED))
			s->reg[R_STATUS] &= ~v; /* the PMI line falls with status */
	} else if (msr == T_GLOBAL)
		s->reg[R_GLOBAL] = v & 3;
	else
		return HW_FAULT_GP; /* status is read-only */
	return HW_OK;
}

static uint64_t m_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	bool on = sim_counting(s, (s->reg[i] & T_SEL_EN) != 0, (s->reg[R_GLOBAL] >> i) & 1);
	return on ? v->instructions : 0;
}

/* The 1-bit line: an edge only when status was clear (KNC §1.4.3.9). */
static bool m_overflow(struct sim_cpu *s, unsigned i)
{
	bool edge = s->reg[R_STATUS] == 0;
	s->reg[R_STATUS] |= 1ull << i;
	return edge;
}

static struct sim_model pmitest = {
    .name = "pmitest",
    .doc = "test-only model: 2 counters, status + ack, 1-bit edge PMI line (KNC §1.4.3.9)",
    .driver = PMU_DRV_NONE,
    .faults = SIM_F(SF_LOST_PMI) | SIM_F(SF_SPURIOUS_PMI) | SIM_F(SF_ACK_IGNORED),
    .reset = m_reset,
    .rdmsr = m_rdmsr,
    .wrmsr = m_wrmsr,
    .rate = m_rate,
    .overflow = m_overflow,
    .lvt_automask = true,
};
SIM_MODEL(pmitest);

/* ---- the test driver ------------------------------------------------------- */

/* Runs at the top of pmi_collect, before the counters stop: what happens
 * between PMI delivery and the driver's stop. */
static void (*collect_hook)(void);
static unsigned collect_calls;
static bool lvt_masked_in_collect;

static int t_write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	(void)path;
	return hw_wrmsr(p->ctr[ctr].ctr_msr, val);
}

static int t_read(struct pmu *p, unsigned ctr, uint64_t *val)
{
	return hw_rdmsr(p->ctr[ctr].ctr_msr, val);
}

static int t_start(struct pmu *p, uint64_t mask)
{
	uint64_t g;
	for (unsigned i = 0; i < p->n; i++)
		if (mask & (1ull << i))
			hw_wrmsr(p->ctr[i].ctl_msr, T_SEL_EN | PMU_F_INT | 0xc0);
	hw_rdmsr(T_GLOBAL, &g);
	return hw_wrmsr(T_GLOBAL, g | mask);
}

static int t_stop(struct pmu *p, uint64_t mask)
{
	uint64_t g;
	(void)p;
	hw_rdmsr(T_GLOBAL, &g);
	return hw_wrmsr(T_GLOBAL, g & ~mask);
}

static int t_status(struct pmu *p, uint64_t *mask)
{
	(void)p;
	return hw_rdmsr(T_STATUS, mask);
}

static int t_ack(struct pmu *p, uint64_t mask)
{
	(void)p;
	return hw_wrmsr(T_OVF_CTRL, mask);
}

/* KNC #327357 §1.4.3.9 / Linux knc_pmu_handle_irq: stop, then ack and
 * re-read status until clear. */
static int t_pmi_collect(struct pmu *p, uint64_t *mask)
{
	uint64_t st;

	collect_calls++;
	lvt_masked_in_collect = (apic_lvt_pc_read() & LVT_MASKED) != 0;
	if (collect_hook) {
		void (*h)(void) = collect_hook;
		collect_hook = 0;
		h();
	}
	*mask = 0;
	t_stop(p, 3);
	for (unsigned n = 0; n < PMU_PMI_MAX_ROUNDS; n++) {
		t_status(p, &st);
		if (!st)
			return HW_OK;
		*mask |= st;
		t_ack(p, st);
	}
	return HW_STUCK;
}

static const struct pmu_ops tops = {
    .name = "pmitest",
    .write = t_write,
    .read = t_read,
    .start = t_start,
    .stop = t_stop,
    .overflow_status = t_status,
    .ack = t_ack,
    .pmi_collect = t_pmi_collect,
};

static struct pmu pmu;
static struct apic_info ai;

static const struct workload one_insn = {
    .name = "test-one-instruction",
    .per_iter = {1, 0, 0, 1, 0, 0},
};

static void run(uint64_t iters)
{
	hw_run_workload(&one_insn, iters);
}

static void setup_cpu(enum sim_fault fault, bool automask, uint32_t pmi_flags)
{
	pmitest.lvt_automask = automask;
	assert_int_equal(sim_start("pmitest", fault), 0);
	assert_int_equal(apic_detect(&ai), 0);
	memset(&pmu, 0, sizeof(pmu));
	pmu.ops = &tops;
	pmu.n_gp = pmu.n = 2;
	for (unsigned i = 0; i < 2; i++) {
		pmu.ctr[i].kind = PMU_CTR_GP;
		pmu.ctr[i].index = (uint8_t)i;
		pmu.ctr[i].width = 40;
		pmu.ctr[i].preload_bits = 40;
		pmu.ctr[i].ctr_msr = T_CTR0 + i;
		pmu.ctr[i].ctl_msr = T_SEL0 + i;
	}
	pmu.pmi_flags = pmi_flags;
	collect_hook = 0;
	collect_calls = 0;
}

static void go(uint64_t active)
{
	pmu.active = active;
	assert_int_equal(tops.start(&pmu, active), 0);
}

static int teardown(void **st)
{
	(void)st;
	pmi_disarm();
	return 0;
}

#endif

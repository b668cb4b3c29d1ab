/* The debug store's save area and threshold PMI (ds_area.h). */
#include "ds_area.h"
#include "checks/pmi_common.h"
#include "../lib/str.h"
#include "../pmu/percpu.h"

/* Per CPU (pmu/percpu.h): each CPU's DS area, records and handler. */
static struct ds_save area PMH_PERCPU __attribute__((aligned(64)));
static uint64_t records[DS_RECORDS_BYTES / 8] PMH_PERCPU __attribute__((aligned(64)));
static struct ds_pmi pmi PMH_PERCPU;

struct ds_handler {
	struct pmu *p;
	uint32_t lvt;
	bool nmi;
};
static struct ds_handler h PMH_PERCPU;

struct ds_save *ds_area(void)
{
	return &PCPU(area);
}

uint64_t *ds_records(void)
{
	return PCPU(records);
}

struct ds_pmi *ds_pmi(void)
{
	return &PCPU(pmi);
}

void ds_area_set(struct ds_buf *b, void *buf, uint64_t bytes)
{
	pmh_memset(ds_area(), 0, sizeof(area));
	b->base = b->index = (uint64_t)(uintptr_t)buf;
	b->max = b->threshold = b->base + bytes;
}

bool ds_fw_save(struct check_ctx *c, struct ds_fw *fw, bool pebs, bool data_cfg)
{
	*fw = (struct ds_fw){.pebs = pebs, .data_cfg_saved = pebs && data_cfg};
	return m_rdmsr(c, MSR_IA32_DS_AREA, &fw->area) &&
	       (!fw->pebs || m_rdmsr(c, MSR_IA32_PEBS_ENABLE, &fw->enable)) &&
	       (!fw->data_cfg_saved || m_rdmsr(c, MSR_PEBS_DATA_CFG, &fw->data_cfg)) &&
	       m_rdmsr(c, MSR_DEBUGCTL, &fw->debugctl);
}

bool ds_fw_restore(struct check_ctx *c, const struct ds_fw *fw)
{
	return (!fw->pebs || m_wrmsr(c, MSR_IA32_PEBS_ENABLE, fw->enable)) &&
	       (!fw->data_cfg_saved || m_wrmsr(c, MSR_PEBS_DATA_CFG, fw->data_cfg)) &&
	       m_wrmsr(c, MSR_IA32_DS_AREA, fw->area) && m_wrmsr(c, MSR_DEBUGCTL, fw->debugctl);
}

/* GLOBAL_STATUS first, all of it acked, LVTPC unmasked, EOI. */
static void handler(struct int_frame *f)
{
	const struct ds_handler *d = &PCPU(h); /* the CPU that took the PMI */
	struct ds_pmi *s = ds_pmi();
	uint64_t st = 0;

	(void)f;
	if (hw_rdmsr(d->p->global_status_msr, &st) == HW_OK && st) {
		int e = hw_wrmsr(d->p->global_ovf_msr, st); /* the status is what is judged */
		(void)e;
	}
	if (!s->pmis++)
		s->status = st;
	if (s->pmis < DS_PMI_STORM) /* a status that will not clear: LVTPC stays masked */
		apic_lvt_pc_write(d->lvt);
	if (!d->nmi)
		apic_eoi();
}

bool ds_pmi_begin(struct check_ctx *c)
{
	struct ds_handler *d = &PCPU(h);

	d->p = c->pmu;
	d->nmi = c->opt->pmi == PMI_NMI;
	if (!pmi_begin(c))
		return false;
	d->lvt = apic_lvt_pc_read(); /* armed, unmasked */
	isr_set_handler(d->nmi ? VEC_NMI : VEC_PMI, handler);
	return true;
}

static bool pmis_reach(const void *arg)
{
	return ds_pmi()->pmis >= *(const uint64_t *)arg;
}

static void wait_pmis(uint64_t want)
{
	struct pmi_window w;
	uint64_t more = want + 1;

	pmi_window_open(&w);
	if (want)
		apic_wait_us(pmis_reach, &want, PMI_WAIT_US);
	apic_wait_us(pmis_reach, &more, PMI_QUIET_US);
	pmi_window_close(&w);
}

void ds_window_open(struct check_ctx *c, struct ds_window *w)
{
	struct ds_pmi *s = ds_pmi();

	w->smi = m_smi_count(c, &w->smi0);
	w->irq = hw_irq_enabled();
	s->pmis = s->status = 0;
	hw_irq_disable();
}

bool ds_window_close(struct check_ctx *c, const struct ds_window *w, const struct ds_buf *b,
		     bool pmis)
{
	uint64_t smi1 = 0;

	if (pmis)
		wait_pmis(b->index >= b->threshold ? 1 : 0);
	if (w->irq)
		hw_irq_enable();
	return w->smi && m_smi_count(c, &smi1) && smi1 != w->smi0;
}

/* The debug store as the checks that write through it use it (pebs.record,
 * bts.trace): the DS save area they point IA32_DS_AREA at and the PMI
 * handler that takes the DS buffer's threshold interrupt.
 *
 * The save area is the 64-bit layout (SDM Vol. 3B 18.6.3.4, the 64-bit DS
 * save area; Linux arch/x86/include/asm/intel_ds.h struct debug_store):
 * the BTS buffer's base, index, absolute maximum and interrupt threshold,
 * the PEBS buffer's the same, then the counters' PEBS reset values. One
 * area serves both checks: they run one after the other, and each sets
 * all of it before it writes IA32_DS_AREA.
 *
 * The handler counts PMIs, keeps the global status the first one found,
 * acknowledges all of it, unmasks LVTPC (up to DS_PMI_STORM PMIs: a status
 * that will not clear leaves it masked) and EOIs a fixed-vector delivery. */
#ifndef PMH_TESTS_DS_AREA_H
#define PMH_TESTS_DS_AREA_H

#include "suite.h"

#define DS_PMI_STORM 16 /* PMIs after which the handler leaves LVTPC masked */

/* One buffer's pointers in the save area. */
struct ds_buf {
	uint64_t base, index, max, threshold;
};

struct ds_save {
	struct ds_buf bts, pebs;
	uint64_t reset[8 + 4]; /* PEBS: GP counters 0-7, fixed 0-3 */
};

/* This CPU's save area (pmu/percpu.h: the hardware writes each CPU's
 * records where that CPU's area points). */
struct ds_save *ds_area(void);

/* This CPU's records' memory, one buffer for whichever check runs (they
 * run one after the other): the image keeps its zero-filled buffers in the
 * file (linker/pmuharness.lds), so the three checks share one. 64-byte
 * aligned, DS_RECORDS_BYTES long. */
#define DS_RECORDS_BYTES 3840
uint64_t *ds_records(void);

/* Zeroes the save area, then points buffer b at bytes of buf, its index at
 * the base and its threshold at the absolute maximum. */
void ds_area_set(struct ds_buf *b, void *buf, uint64_t bytes);

/* The firmware's debug-store registers, which the checks give back: the
 * DS area and DEBUGCTL, with pebs PEBS_ENABLE, with data_cfg PEBS_DATA_CFG
 * (adaptive PEBS). Saved in that order; given back PEBS first (its records
 * off before the area moves), then the area, then DEBUGCTL (BTS back on
 * only once the firmware's area is). False when an access failed
 * (m_rdmsr, m_wrmsr: FAILed). */
struct ds_fw {
	uint64_t area, debugctl, enable, data_cfg;
	bool pebs, data_cfg_saved;
};
bool ds_fw_save(struct check_ctx *c, struct ds_fw *fw, bool pebs, bool data_cfg);
bool ds_fw_restore(struct check_ctx *c, const struct ds_fw *fw);

/* What the handler saw since the window opened, on this CPU. */
struct ds_pmi {
	volatile uint64_t pmis, status;
};
struct ds_pmi *ds_pmi(void);

/* Arms the PMI service (pmi_begin) and puts the handler on the configured
 * delivery's vector; false where pmi_begin SKIPped or FAILed. pmi_end
 * disarms it. */
bool ds_pmi_begin(struct check_ctx *c);

/* A window the hardware writes the DS buffer in: open clears ds_pmi(), reads
 * MSR_SMI_COUNT where there is one and turns interrupts off; close waits
 * for the PMI b's threshold owes where pmis (one where the index reached
 * it, none where not: up to PMI_WAIT_US, then a quiet PMI_QUIET_US for one
 * more, interrupts on at PMI_TPR meanwhile), puts interrupts back as they were and says whether
 * an SMI was counted meanwhile (the check runs the window again). */
struct ds_window {
	uint64_t smi0;
	bool smi, irq;
};
void ds_window_open(struct check_ctx *c, struct ds_window *w);
bool ds_window_close(struct check_ctx *c, const struct ds_window *w, const struct ds_buf *b,
		     bool pmis);

#endif

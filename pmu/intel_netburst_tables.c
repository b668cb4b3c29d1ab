/* Intel NetBurst: the driver's tables, every ESCR with its select value and
 * counter group, the counters each ESCR feeds, and the ESCR binding of the
 * events the driver knows. Apart from intel_netburst.c because they are
 * transcribed from the SDM's ESCR tables and checked against them entry by
 * entry; the driver keeps the logic that programs CCCRs and ESCRs. */
#include "../lib/str.h"
#include "intel_netburst.h"
#include "msr.h"

/* Every ESCR of Linux msr-index.h (46; IQ_ESCR0/1 exist on models 1-2 only)
 * with the
 * ESCR-select number the SDM gives it within its counter group. ESCRx0 feeds
 * the group's first counters (BPU 0,1; MS 4,5; FLAME 8,9; IQ 12,13,16),
 * ESCRx1 the others (2,3; 6,7; 10,11; 14,15,17). SSU_ESCR1 (0x3bf) is in
 * that count, but Linux's msr-index.h marks it "guess: not in manual";
 * no event here uses it. */
static const struct escr escrs[] = {
    {0x3a0, 7, 0, 0, "BSU_ESCR0"},   {0x3a1, 7, 0, 1, "BSU_ESCR1"},
    {0x3a2, 6, 0, 0, "FSB_ESCR0"},   {0x3a3, 6, 0, 1, "FSB_ESCR1"},
    {0x3aa, 2, 0, 0, "MOB_ESCR0"},   {0x3ab, 2, 0, 1, "MOB_ESCR1"},
    {0x3ac, 4, 0, 0, "PMH_ESCR0"},   {0x3ad, 4, 0, 1, "PMH_ESCR1"},
    {0x3b2, 0, 0, 0, "BPU_ESCR0"},   {0x3b3, 0, 0, 1, "BPU_ESCR1"},
    {0x3b4, 1, 0, 0, "IS_ESCR0"},    {0x3b5, 1, 0, 1, "IS_ESCR1"},
    {0x3b6, 3, 0, 0, "ITLB_ESCR0"},  {0x3b7, 3, 0, 1, "ITLB_ESCR1"},
    {0x3c8, 5, 0, 0, "IX_ESCR0"},    {0x3c9, 5, 0, 1, "IX_ESCR1"},
    {0x3c0, 0, 1, 0, "MS_ESCR0"},    {0x3c1, 0, 1, 1, "MS_ESCR1"},
    {0x3c4, 1, 1, 0, "TC_ESCR0"},    {0x3c5, 1, 1, 1, "TC_ESCR1"},
    {0x3c2, 2, 1, 0, "TBPU_ESCR0"},  {0x3c3, 2, 1, 1, "TBPU_ESCR1"},
    {0x3a6, 0, 2, 0, "FLAME_ESCR0"}, {0x3a7, 0, 2, 1, "FLAME_ESCR1"},
    {0x3a4, 1, 2, 0, "FIRM_ESCR0"},  {0x3a5, 1, 2, 1, "FIRM_ESCR1"},
    {0x3ae, 2, 2, 0, "SAAT_ESCR0"},  {0x3af, 2, 2, 1, "SAAT_ESCR1"},
    {0x3b0, 3, 2, 0, "U2L_ESCR0"},   {0x3b1, 3, 2, 1, "U2L_ESCR1"},
    {0x3a8, 5, 2, 0, "DAC_ESCR0"},   {0x3a9, 5, 2, 1, "DAC_ESCR1"},
    {0x3ba, 0, 3, 0, "IQ_ESCR0"},    {0x3bb, 0, 3, 1, "IQ_ESCR1"},
    {0x3ca, 1, 3, 0, "ALF_ESCR0"},   {0x3cb, 1, 3, 1, "ALF_ESCR1"},
    {0x3bc, 2, 3, 0, "RAT_ESCR0"},   {0x3bd, 2, 3, 1, "RAT_ESCR1"},
    {0x3be, 3, 3, 0, "SSU_ESCR0"},   {0x3bf, 3, 3, 1, "SSU_ESCR1"},
    {0x3b8, 4, 3, 0, "CRU_ESCR0"},   {0x3b9, 4, 3, 1, "CRU_ESCR1"},
    {0x3cc, 5, 3, 0, "CRU_ESCR2"},   {0x3cd, 5, 3, 1, "CRU_ESCR3"},
    {0x3e0, 6, 3, 0, "CRU_ESCR4"},   {0x3e1, 6, 3, 1, "CRU_ESCR5"},
};
#define N_ESCR (sizeof(escrs) / sizeof(escrs[0]))

/* Counters an ESCR feeds (Linux p4_event_bind_map's counters per thread and
 * the SDM's table
 * of counters per ESCR). */
uint32_t netburst_escr_counters(const struct escr *e)
{
	static const uint32_t half0[4] = {0x3, 0x30, 0x300, 0x13000};
	static const uint32_t half1[4] = {0xc, 0xc0, 0xc00, 0x2c000};
	return e->half ? half1[e->group] : half0[e->group];
}

size_t netburst_escr_count(void)
{
	return N_ESCR;
}

const struct escr *netburst_escr_find(uint32_t addr)
{
	for (unsigned k = 0; k < N_ESCR; k++)
		if (escrs[k].addr == addr)
			return &escrs[k];
	return 0;
}

void netburst_make_event(struct pmu_event *ev, unsigned which, uint32_t mask)
{
	static const struct {
		uint8_t code, select;
		uint32_t escr;
		const char *name;
	} t[] = {
	    [EV_GLOBAL_POWER_EVENTS] = {0x13, 6, MSR_P4_FSB_ESCR0, "GLOBAL_POWER_EVENTS"},
	    [EV_INSTR_RETIRED] = {0x02, 4, MSR_P4_CRU_ESCR0, "INSTR_RETIRED"},
	    [EV_BRANCH_RETIRED] = {0x06, 5, MSR_P4_CRU_ESCR2, "BRANCH_RETIRED"},
	    [EV_MISPRED_BRANCH_RETIRED] = {0x03, 4, MSR_P4_CRU_ESCR0, "MISPRED_BRANCH_RETIRED"},
	    [EV_RETIRED_BRANCH_TYPE] = {0x04, 2, MSR_P4_TBPU_ESCR0, "RETIRED_BRANCH_TYPE"},
	    [EV_BSQ_CACHE_REFERENCE] = {0x0c, 7, MSR_P4_BSU_ESCR0, "BSQ_CACHE_REFERENCE"},
	};
	pmh_memset(ev, 0, sizeof(*ev));
	ev->code = t[which].code;
	ev->escr_mask = mask;
	ev->escr_select = t[which].select;
	ev->escr_msr = t[which].escr;
	/* Thread-0 counters of the ESCR, less counter 1: its CCCR ENABLE bit
	 * does not work (Linux p4_pmu_enable_event). */
	ev->counters = netburst_escr_counters(netburst_escr_find(t[which].escr)) & ~(1u << 1);
	pmh_strlcpy(ev->name, t[which].name, sizeof(ev->name));
}

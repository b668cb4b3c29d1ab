/* How the PMI reaches the CPU: on the fixed PMI vector or as an NMI (the
 * LVTPC delivery mode, SDM Vol. 3A 11.5.1). The pmi option picks it and the
 * PMI service arms it; a header of its own so that the options (tests/) name
 * it without pulling in the PMI service, and apic/ never includes tests/. */
#ifndef PMH_APIC_PMI_MODE_H
#define PMH_APIC_PMI_MODE_H

enum pmi_delivery { PMI_FIXED, PMI_NMI };

#endif

/* The "yonah", "core2" and "skylake" models (model_arch.c): their
 * sim_cpu.reg[] layout and the firmware realism in model_arch_firmware.c. */
#ifndef PMH_SIM_MODEL_ARCH_H
#define PMH_SIM_MODEL_ARCH_H

#include "sim.h"

#define REG_EVNTSEL(i)	  (i)
#define REG_FIXED_CTRL	  16
#define REG_GLOBAL_CTRL	  17
#define REG_GLOBAL_STATUS 18
#define REG_UCODE	  19
#define REG_TFA		  20 /* MSR_TSX_FORCE_ABORT (0x10F) */

/* Power-on under realism "firmware"; globals: arch perfmon v2+, tfa: the
 * microcode has TSX_FORCE_ABORT. */
void arch_firmware(struct sim_cpu *s, bool globals, bool tfa);
/* Whether the TSX workaround holds PMC3 (counter k == 3). */
bool arch_pmc3_taken(const struct sim_cpu *s, unsigned k, bool tfa);
/* IA32_MISC_ENABLE and MSR_TSX_FORCE_ABORT. */
int arch_firmware_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v, bool tfa);
int arch_firmware_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v, bool tfa);

#endif

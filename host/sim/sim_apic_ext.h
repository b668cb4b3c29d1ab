/* AMD's extended APIC register space in the simulated local APIC (AMD APM
 * Vol. 2 16.4.5 "Extended Interrupts"): the Extended APIC Feature register
 * (400h), Extended APIC Control (410h) and the extended interrupt LVT
 * entries (500h + 10h n, n < 4), where CPUID 8000_0001h ECX[3]
 * (ExtApicSpace) says the CPU has them. sim_apic.c's register dispatch
 * (xAPIC MMIO and x2APIC MSRs 840h-853h, offset >> 4) calls these; IBS
 * (sim_ibs.c) raises its interrupts through the entry IBS_CTL names. */
#ifndef PMH_SIM_SIM_APIC_EXT_H
#define PMH_SIM_SIM_APIC_EXT_H

#include <stdbool.h>
#include <stdint.h>

struct sim_cpu;

#define SIM_EILVT_N 4 /* extended LVT entries (Linux apicdef.h APIC_EILVT_NR_MAX) */

/* Whether off (an xAPIC offset) is an extended APIC register of s. */
bool sim_apic_ext_reg(const struct sim_cpu *s, uint32_t off);
uint32_t sim_apic_ext_read(struct sim_cpu *s, uint32_t off);
void sim_apic_ext_write(struct sim_cpu *s, uint32_t off, uint32_t val);
/* An interrupt through extended LVT entry n: its vector as a fixed
 * interrupt or an NMI, as the entry's message type says; dropped where it
 * is masked (or n names no entry). */
void sim_apic_ext_raise(struct sim_cpu *s, unsigned n);

#endif

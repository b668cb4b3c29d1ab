/* The harness's own IDT: a copy of the firmware's 256 gates with our entries
 * for exceptions, NMI and the PMI vector; the firmware's IDTR comes back on
 * every exit path (target only, but idt_claim, which the host's simulator
 * also provides). */
#ifndef PMH_APIC_IDT_H
#define PMH_APIC_IDT_H

#include <stdbool.h>
#include <stdint.h>

struct idtr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* One table serves every CPU: the first call builds it; each CPU's own
 * IDTR is kept per CPU (pmu/percpu.h). */
/* Saves this CPU's IDTR (the firmware's), loads our table on it. */
void idt_install(void);
/* Loads our IDT on another CPU (after idt_install on the BSP). A CPU of a
 * parallel run that got it so treats the BSP's firmware IDTR as its own
 * (idt_restore, idt_firmware), as in a serial run. */
void idt_load_ap(void);
/* Puts this CPU's firmware IDTR back on it. */
void idt_restore(void);
void idt_read(struct idtr *r);
/* This CPU's firmware IDTR as saved by idt_install. */
struct idtr idt_firmware(void);
/* Points gate `vector` of our IDT at the harness's entry stub (ours) or
 * back at the firmware's gate; for the PMI's class 0xE0-0xED, which the PMI
 * service watches for PMIs on the wrong vector while armed (0xEE and 0xEF
 * are always ours). Anything else, or before idt_install, is left alone.
 * CPUs claim at once in a parallel run: a gate stays ours until every claim
 * on it is given back. The simulator dispatches every vector itself: there
 * it does nothing. */
void idt_claim(unsigned vector, bool ours);
/* Points gate `vector` of our IDT at stub as a DPL-3 interrupt gate, which
 * INT n at CPL 3 may take (SDM Vol. 3A 6.12.1.1), keeping the gate it
 * replaces; stub NULL puts that gate back once no other CPU holds it (one
 * vector at a time). False (nothing changed) unless our IDT is the one
 * loaded on this CPU. Target only (the ring-3 excursion, x86/hw_user.c). */
bool idt_user_gate(unsigned vector, void *stub);

#endif

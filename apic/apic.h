/* Local APIC access in the mode the firmware chose (xAPIC MMIO or x2APIC
 * MSRs), through the hardware seam. Register offsets are xAPIC offsets. */
#ifndef PMH_APIC_APIC_H
#define PMH_APIC_APIC_H

#include <stdbool.h>
#include <stdint.h>

#define APIC_ID	     0x20
#define APIC_VERSION 0x30
#define APIC_TPR     0x80
#define APIC_EOI     0xb0
#define APIC_SVR     0xf0
/* SVR (SDM Vol. 3A 11.9): APIC software enable, the spurious vector */
#define APIC_SVR_ENABLE 0x100u
#define APIC_SVR_VECTOR 0xffu
#define APIC_ISR0	0x100
#define APIC_IRR0	0x200
#define APIC_ESR	0x280
#define APIC_ICR_LO	0x300
#define APIC_ICR_HI	0x310
/* The LVT entries (SDM Vol. 3A 11.5.1): thermal from MaxLVT 5, PC from 4 */
#define APIC_LVT_TIMER	 0x320
#define APIC_LVT_THERMAL 0x330
#define APIC_LVT_PC	 0x340 /* performance-counter LVT entry (SDM Vol. 3A Table 11-1) */
#define APIC_LVT_LINT0	 0x350
#define APIC_LVT_LINT1	 0x360
#define APIC_LVT_ERROR	 0x370
#define APIC_SELF_IPI	 0x3f0 /* x2APIC only */

#define LVT_VECTOR_MASK	     0xffu
#define LVT_DM_FIXED	     (0u << 8)
#define LVT_DM_NMI	     (4u << 8)
#define LVT_DM_MASK	     (7u << 8)
#define LVT_DELIVERY_PENDING (1u << 12)
#define LVT_MASKED	     (1u << 16)
/* ICR fields (SDM Vol. 3A 11.6.1) */
#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_LEVEL_ASSERT     (1u << 14)
#define ICR_DEST_SELF	     (1u << 18) /* destination shorthand 01 */

enum apic_mode { APIC_MODE_DISABLED, APIC_MODE_XAPIC, APIC_MODE_X2APIC };

struct apic_info {
	enum apic_mode mode;
	uint64_t base; /* physical base of the xAPIC page */
	uint32_t id;
	uint32_t version; /* APIC_VERSION bits 7:0 */
	unsigned max_lvt; /* APIC_VERSION bits 23:16 */
	bool bsp;
};

/* Reads IA32_APIC_BASE and keeps the firmware's mode; never changes it. */
int apic_detect(struct apic_info *ai);
const char *apic_mode_name(enum apic_mode m);
uint32_t apic_read(uint32_t off);
void apic_write(uint32_t off, uint32_t val);
void apic_eoi(void);

/* The mode detected by apic_detect(). */
enum apic_mode apic_current_mode(void);
/* Why the performance-counter LVT entry cannot be used (APIC disabled, or
 * MaxLVT < 4 so that there is no LVTPC; SDM Vol. 3A 11.5.1), or 0 when it can. */
const char *apic_lvt_pc_unusable(const struct apic_info *ai);
/* LVTPC: xAPIC offset 0x340 / x2APIC MSR 0x834. */
uint32_t apic_lvt_pc_read(void);
void apic_lvt_pc_write(uint32_t val);
/* Sets the task priority (bits 7:4 the class at or below which fixed
 * interrupts are held off, SDM Vol. 3A 11.8.3); returns the old value. */
uint32_t apic_tpr_swap(uint32_t tpr);
/* Whether vector v is in service (ISR bit set). */
bool apic_in_service(unsigned vector);
/* A fixed-delivery interrupt to this CPU: ICR shorthand self (xAPIC) or the
 * SELF_IPI MSR 0x83F (x2APIC). Returns 0, or -1 if the ICR stayed busy. */
int apic_self_ipi(uint8_t vector);
/* An NMI to this CPU: ICR physical destination = own APIC ID, because the
 * self shorthand is only valid with fixed delivery (SDM Vol. 3A 11.6.1,
 * valid ICR combinations). Returns 0, or -1 if the ICR stayed busy. */
int apic_self_nmi(void);

/* Spins (hw_relax) until done(arg) holds or `us` microseconds have passed,
 * timed by the TSC at hw_wait_ticks_per_us(): the one bounded wait of the
 * APIC code, the PMI service and the APIC checks. done may be 0 (a plain
 * delay). Returns whether done held, asked once more at the deadline. */
bool apic_wait_us(bool (*done)(const void *arg), const void *arg, uint64_t us);

/* Software-enables this CPU's local APIC (after apic_detect) where the
 * firmware left it disabled (SVR bit 8 clear: its reset value is 0xFF, SDM
 * Vol. 3A 11.4.7), with the spurious vector 0xFF; *saved gets the SVR found.
 * Returns true when it changed it. */
bool apic_sw_enable(uint32_t *saved);
/* Puts back an SVR apic_sw_enable changed. */
void apic_sw_restore(uint32_t saved);

#endif

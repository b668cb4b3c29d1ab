/* Local APIC access (SDM Vol. 3A 11.4, 11.12.1.2): xAPIC MMIO at IA32_APIC_BASE, or x2APIC MSR
 * 0x800 + (offset >> 4). The mode is detected once on each CPU and kept as
 * the firmware left it. */
#include "apic.h"
#include "../pmu/hw.h"
#include "../pmu/msr.h"
#include "../pmu/percpu.h"

/* Per CPU (pmu/percpu.h): each CPU reaches its own APIC, in the mode and
 * with the ID apic_detect found there (APIC_MODE_DISABLED before). */
struct apic_cpu {
	enum apic_mode mode;
	uint64_t base;
	uint32_t self_id; /* xAPIC: 8-bit ID; x2APIC: 32-bit ID */
};
static struct apic_cpu apic_cpu PMH_PERCPU;

static struct apic_cpu *cpu(void)
{
	return &PCPU(apic_cpu);
}

int apic_detect(struct apic_info *ai)
{
	struct apic_cpu *s = cpu();
	uint64_t v = 0;
	uint32_t ver;

	ai->mode = APIC_MODE_DISABLED;
	if (hw_rdmsr(MSR_IA32_APIC_BASE, &v) != HW_OK || !(v & APIC_BASE_ENABLE)) {
		s->mode = APIC_MODE_DISABLED;
		return -1;
	}
	s->mode = (v & APIC_BASE_X2APIC) ? APIC_MODE_X2APIC : APIC_MODE_XAPIC;
	s->base = v & 0xffffff000ull;
	ai->mode = s->mode;
	ai->base = s->base;
	ai->bsp = (v & APIC_BASE_BSP) != 0;
	ai->id = apic_read(APIC_ID);
	if (s->mode == APIC_MODE_XAPIC)
		ai->id >>= 24;
	s->self_id = ai->id;
	ver = apic_read(APIC_VERSION);
	ai->version = ver & 0xff;
	ai->max_lvt = (ver >> 16) & 0xff;
	return 0;
}

const char *apic_mode_name(enum apic_mode m)
{
	return m == APIC_MODE_X2APIC ? "x2apic" : m == APIC_MODE_XAPIC ? "xapic" : "disabled";
}

uint32_t apic_read(uint32_t off)
{
	const struct apic_cpu *s = cpu();
	uint64_t v = 0;

	if (s->mode == APIC_MODE_X2APIC) {
		hw_rdmsr(MSR_X2APIC_BASE + (off >> 4), &v);
		return (uint32_t)v;
	}
	if (s->mode == APIC_MODE_XAPIC)
		return hw_mmio_read32(s->base + off);
	return 0;
}

void apic_write(uint32_t off, uint32_t val)
{
	const struct apic_cpu *s = cpu();

	if (s->mode == APIC_MODE_X2APIC)
		hw_wrmsr(MSR_X2APIC_BASE + (off >> 4), val);
	else if (s->mode == APIC_MODE_XAPIC)
		hw_mmio_write32(s->base + off, val);
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

bool apic_sw_enable(uint32_t *saved)
{
	if (cpu()->mode == APIC_MODE_DISABLED)
		return false;
	*saved = apic_read(APIC_SVR);
	if (*saved & APIC_SVR_ENABLE)
		return false;
	apic_write(APIC_SVR, *saved | APIC_SVR_ENABLE | APIC_SVR_VECTOR);
	return true;
}

void apic_sw_restore(uint32_t saved)
{
	apic_write(APIC_SVR, saved);
}

enum apic_mode apic_current_mode(void)
{
	return cpu()->mode;
}

const char *apic_lvt_pc_unusable(const struct apic_info *ai)
{
	if (!ai || ai->mode == APIC_MODE_DISABLED)
		return "the local APIC is disabled (IA32_APIC_BASE enable bit clear)";
	if (ai->max_lvt < 4)
		return "the local APIC has no performance-counter LVT entry "
		       "(MaxLVT < 4, SDM Vol. 3A 11.5.1)";
	return 0;
}

uint32_t apic_lvt_pc_read(void)
{
	return apic_read(APIC_LVT_PC);
}

void apic_lvt_pc_write(uint32_t val)
{
	apic_write(APIC_LVT_PC, val);
}

uint32_t apic_tpr_swap(uint32_t tpr)
{
	uint32_t old = apic_read(APIC_TPR) & 0xff;
	apic_write(APIC_TPR, tpr & 0xff);
	return old;
}

bool apic_in_service(unsigned vector)
{
	if (vector > 255)
		return false;
	/* ISR bits 255:0 as eight 32-bit registers 16 bytes apart */
	return (apic_read(APIC_ISR0 + (vector / 32) * 0x10) >> (vector % 32)) & 1;
}

bool apic_wait_us(bool (*done)(const void *arg), const void *arg, uint64_t us)
{
	uint64_t per_us = hw_wait_ticks_per_us();
	uint64_t limit = us > UINT64_MAX / per_us ? UINT64_MAX : us * per_us;
	uint64_t t0 = hw_rdtsc();

	while (!(done && done(arg))) {
		if (hw_rdtsc() - t0 >= limit)
			return done && done(arg);
		hw_relax();
	}
	return true;
}

/* The ICR has sent the previous IPI (delivery status, SDM Vol. 3A 11.6.1);
 * x2APIC has no such bit. */
static bool icr_sent(const void *arg)
{
	(void)arg;
	return cpu()->mode != APIC_MODE_XAPIC || !(apic_read(APIC_ICR_LO) & ICR_DELIVERY_PENDING);
}

/* How long the ICR may stay busy before a send is called failed. */
#define ICR_IDLE_US 1000

static int icr_idle(void)
{
	return apic_wait_us(icr_sent, 0, ICR_IDLE_US) ? 0 : -1;
}

/* Writes the ICR with interrupts off so that an interrupt handler cannot
 * change ICR_HI between the two xAPIC writes. */
static int icr_send(uint32_t lo, uint32_t dest)
{
	enum apic_mode mode = cpu()->mode;
	bool irq = hw_irq_enabled();
	int rc;

	if (mode == APIC_MODE_DISABLED)
		return -1;
	hw_irq_disable();
	rc = icr_idle();
	if (rc == 0) {
		if (mode == APIC_MODE_X2APIC) {
			hw_wrmsr(MSR_X2APIC_BASE + (APIC_ICR_LO >> 4), (uint64_t)dest << 32 | lo);
		} else {
			apic_write(APIC_ICR_HI, dest << 24);
			apic_write(APIC_ICR_LO, lo);
		}
		rc = icr_idle();
	}
	if (irq)
		hw_irq_enable();
	return rc;
}

int apic_self_ipi(uint8_t vector)
{
	if (cpu()->mode == APIC_MODE_X2APIC) {
		/* SELF_IPI (0x83F): fixed delivery, vector only */
		hw_wrmsr(MSR_X2APIC_BASE + (APIC_SELF_IPI >> 4), vector);
		return 0;
	}
	return icr_send(ICR_DEST_SELF | LVT_DM_FIXED | ICR_LEVEL_ASSERT | vector, 0);
}

int apic_self_nmi(void)
{
	return icr_send(LVT_DM_NMI | ICR_LEVEL_ASSERT, cpu()->self_id);
}

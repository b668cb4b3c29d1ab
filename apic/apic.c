/* Local APIC access (facts §8): xAPIC MMIO at IA32_APIC_BASE, or x2APIC MSR
 * 0x800 + (offset >> 4). The mode is detected once and kept as the firmware
 * left it. */
#include "apic.h"
#include "../pmu/hw.h"
#include "../pmu/msr.h"

static enum apic_mode mode;
static uint64_t base;

int apic_detect(struct apic_info *ai)
{
	uint64_t v = 0;
	uint32_t ver;

	ai->mode = APIC_MODE_DISABLED;
	if (hw_rdmsr(MSR_IA32_APIC_BASE, &v) != HW_OK || !(v & APIC_BASE_ENABLE)) {
		mode = APIC_MODE_DISABLED;
		return -1;
	}
	mode = (v & APIC_BASE_X2APIC) ? APIC_MODE_X2APIC : APIC_MODE_XAPIC;
	base = v & 0xffffff000ull;
	ai->mode = mode;
	ai->base = base;
	ai->bsp = (v & APIC_BASE_BSP) != 0;
	ai->id = apic_read(APIC_ID);
	if (mode == APIC_MODE_XAPIC)
		ai->id >>= 24;
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
	uint64_t v = 0;

	if (mode == APIC_MODE_X2APIC) {
		hw_rdmsr(MSR_X2APIC_BASE + (off >> 4), &v);
		return (uint32_t)v;
	}
	if (mode == APIC_MODE_XAPIC)
		return hw_mmio_read32(base + off);
	return 0;
}

void apic_write(uint32_t off, uint32_t val)
{
	if (mode == APIC_MODE_X2APIC)
		hw_wrmsr(MSR_X2APIC_BASE + (off >> 4), val);
	else if (mode == APIC_MODE_XAPIC)
		hw_mmio_write32(base + off, val);
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

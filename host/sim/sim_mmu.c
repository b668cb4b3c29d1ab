/* The simulated CPU's paging: 4-level IA-32e (SDM Vol. 3A 4.5), the mode
 * of the UEFI image the simulator stands in for. Host addresses are the
 * simulated CPU's physical ones, and the firmware's tables map them 1:1
 * with 1 GiB pages (as OVMF does where the CPU has them, SDM 4.5.4), every
 * slot of the lower half but one: slot 1 (512 GiB-1 TiB), which no host
 * memory uses (ASan's shadow gap) and the harness's window takes. What
 * the harness builds (events/pagewin.c) is walked entry by entry, as a
 * page walker does. Host-only. */
#include "sim.h"
#include "uarch.h"

#define E_P	  0x1ull
#define E_RW	  0x2ull
#define E_A	  0x20ull
#define E_PS	  0x80ull
#define ADDR	  0x000ffffffffff000ull /* an entry's address bits (SDM Table 4-20) */
#define FREE_SLOT 1u

static _Alignas(4096) uint64_t fw_top[512];
static _Alignas(4096) uint64_t fw_pdpt[256][512];

/* The firmware's identity map, built at the first use. */
static uint64_t fw_root(void)
{
	if (!fw_top[0]) {
		for (uint64_t s = 0; s < 256; s++) {
			if (s == FREE_SLOT)
				continue;
			for (uint64_t i = 0; i < 512; i++)
				fw_pdpt[s][i] = (s << 39 | i << 30) | E_P | E_RW | E_A | E_PS;
			fw_top[s] = (uint64_t)(uintptr_t)fw_pdpt[s] | E_P | E_RW | E_A;
		}
	}
	return (uint64_t)(uintptr_t)fw_top;
}

void hw_paging_get(struct hw_paging *p)
{
	p->mode = HW_PG_LEVEL4;
	p->root = sim.cr3 ? sim.cr3 : fw_root();
	p->pse = true;
}

int hw_paging_load(const struct hw_paging *p)
{
	if (p->mode != HW_PG_LEVEL4 || (p->root & 0xfff))
		return HW_UNSUPPORTED;
	sim.cr3 = p->root == fw_root() ? 0 : p->root;
	uarch_tlb_flush(); /* MOV to CR3: the non-global entries go */
	return HW_OK;
}

bool sim_translate(const struct sim_cpu *s, uint64_t va, uint64_t *pa, bool *big)
{
	const uint64_t *t = (const uint64_t *)(uintptr_t)(s->cr3 ? s->cr3 : fw_root());

	*big = false;
	for (unsigned shift = 39;; shift -= 9) {
		uint64_t e = t[(va >> shift) & 511];
		if (!(e & E_P))
			return false;
		if (shift == 12 || (e & E_PS)) {
			uint64_t off = va & ((1ull << shift) - 1);
			*pa = ((e & ADDR) & ~((1ull << shift) - 1)) + off;
			*big = shift > 12;
			return true;
		}
		t = (const uint64_t *)(uintptr_t)(e & ADDR);
	}
}

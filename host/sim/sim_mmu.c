/* The simulated CPU's paging: 4-level IA-32e (SDM Vol. 3A 4.5), the mode
 * of the UEFI image the simulator stands in for. The firmware's top table
 * is an empty page here, standing for an identity map of all memory (host
 * addresses are the simulated CPU's physical ones): a slot the harness's
 * copy of it leaves non-present is that identity map. What the harness
 * builds below a slot (events/pagewin.c) is walked entry by entry, as a
 * page walker does. Host-only. */
#include "sim.h"
#include "uarch.h"

#define E_P	     0x1ull
#define E_PS	     0x80ull
#define ADDR	     0x000ffffffffff000ull /* an entry's address bits (SDM Table 4-20) */
#define TOP_SLOT(va) (((va) >> 39) & 511)

static _Alignas(4096) uint64_t fw_top[512];

void hw_paging_get(struct hw_paging *p)
{
	p->mode = HW_PG_LEVEL4;
	p->root = sim.cr3 ? sim.cr3 : (uint64_t)(uintptr_t)fw_top;
	p->pse = true;
}

int hw_paging_load(const struct hw_paging *p)
{
	if (p->mode != HW_PG_LEVEL4 || (p->root & 0xfff))
		return HW_UNSUPPORTED;
	sim.cr3 = p->root == (uint64_t)(uintptr_t)fw_top ? 0 : p->root;
	uarch_tlb_flush(); /* MOV to CR3: the non-global entries go */
	return HW_OK;
}

bool sim_translate(const struct sim_cpu *s, uint64_t va, uint64_t *pa, bool *big)
{
	const uint64_t *t = (const uint64_t *)(uintptr_t)s->cr3;

	*big = false;
	if (!t || !(t[TOP_SLOT(va)] & E_P)) {
		*pa = va; /* the firmware's identity map */
		return true;
	}
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

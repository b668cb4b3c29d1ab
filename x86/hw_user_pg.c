/* The page tables of a ring-3 excursion on x86-64 (UEFI). The firmware's
 * identity map is usually supervisor-only, and a user-mode access needs
 * U/S = 1 in every paging-structure entry of its walk (SDM Vol. 3A 4.6.1).
 * The firmware's tables are never written (they may be read-only, and
 * other CPUs walk them): the excursion runs on a copy of the top table and
 * of each table on the walk of the pages CPL 3 touches, with U/S set on
 * those walks only. Every address translates as before, with the same
 * attributes, so the harness's interrupt handlers run unchanged. */
#include "hw_user.h"
#include "../lib/str.h"
#include "../pmu/percpu.h"

#define PT_ENTRIES 512
#define PT_PAGE	   4096u
#define PG_P	   (1ull << 0)
#define PG_US	   (1ull << 2)
#define PG_PS	   (1ull << 7)		 /* a 1 GiB or 2 MiB leaf (SDM Vol. 3A 4.5) */
#define PG_ADDR	   0x000ffffffffff000ull /* bits 51:12 */
/* The top table, a PDPT and a PD, a PT for the image's code and one for
 * its data (where the firmware split them into 4 KiB pages), and one more
 * for a workload's arguments elsewhere; more: HW_UNSUPPORTED. The tables
 * come from the firmware at start-up (user_pg_setup), not from the image:
 * its .bss is file-backed (linker/pmuharness.lds), and zero-filled buffers
 * stay out of the file. Each CPU of a parallel run builds its own tables at
 * once with the others: the pool and its count are per CPU (pmu/percpu.h),
 * each CPU's pool given by the platform on that CPU's stack. */
struct pg_pool {
	uint64_t (*page)[PT_ENTRIES];
	unsigned used;
};
static struct pg_pool pg PMH_PERCPU;

void user_pg_setup(void *mem, uint64_t bytes)
{
	uint64_t a = ((uint64_t)(uintptr_t)mem + PT_PAGE - 1) & ~(uint64_t)(PT_PAGE - 1);
	struct pg_pool *p = &PCPU(pg);

	p->page = 0; /* no pool: every excursion is HW_UNSUPPORTED */
	p->used = 0;
	if (mem && a + USER_PG_POOL * PT_PAGE <= (uint64_t)(uintptr_t)mem + bytes)
		p->page = (uint64_t(*)[PT_ENTRIES])(uintptr_t)a;
}

static uint64_t *copy_table(struct pg_pool *p, uint64_t phys)
{
	if (!p->page || p->used == USER_PG_POOL)
		return 0;
	uint64_t *t = p->page[p->used++];
	pmh_memcpy(t, (const void *)(uintptr_t)phys, sizeof(p->page[0]));
	return t;
}

static bool is_copy(const struct pg_pool *p, uint64_t phys)
{
	return p->page && phys >= (uintptr_t)p->page && phys < (uintptr_t)(p->page + USER_PG_POOL);
}

/* U/S on every entry of va's walk from top (`levels` levels), each table
 * on the way copied first where it is still the firmware's. */
static bool user_page(struct pg_pool *p, uint64_t *top, unsigned levels, uint64_t va)
{
	uint64_t *t = top;

	for (unsigned l = levels; l-- > 0;) {
		uint64_t *e = &t[(va >> (12 + 9 * l)) & (PT_ENTRIES - 1)];
		if (!(*e & PG_P))
			return false;
		*e |= PG_US;
		/* PS means a leaf in a PDPTE or PDE only (l 2 and 1) */
		if (l == 0 || ((l == 1 || l == 2) && (*e & PG_PS)))
			return true;
		if (!is_copy(p, *e & PG_ADDR)) {
			uint64_t *c = copy_table(p, *e & PG_ADDR);
			if (!c)
				return false;
			*e = (*e & ~PG_ADDR) | (uint64_t)(uintptr_t)c;
		}
		t = (uint64_t *)(uintptr_t)(*e & PG_ADDR);
	}
	return true;
}

int user_pg_build(const struct hw_paging *fw, const struct user_range *r, unsigned n,
		  struct hw_paging *out)
{
	unsigned levels = fw->mode == HW_PG_LEVEL5 ? 5 : 4;
	struct pg_pool *p = &PCPU(pg);
	uint64_t *top;

	if (fw->mode != HW_PG_LEVEL4 && fw->mode != HW_PG_LEVEL5)
		return HW_UNSUPPORTED;
	p->used = 0;
	top = copy_table(p, fw->root);
	if (!top)
		return HW_UNSUPPORTED;
	for (unsigned i = 0; i < n; i++) {
		uint64_t va = r[i].va & ~(uint64_t)(PT_PAGE - 1);
		for (; va < r[i].va + r[i].bytes; va += PT_PAGE)
			if (!user_page(p, top, levels, va))
				return HW_UNSUPPORTED;
	}
	*out = *fw;
	out->root = (uint64_t)(uintptr_t)top;
	return HW_OK;
}

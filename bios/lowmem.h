/* The low memory of the BIOS kernel alone: the real-mode thunk's place in
 * pc/lowmem.h's map (free conventional memory, below the AP trampoline),
 * shared by the C files and the assembly of bios/. */
#ifndef PMH_BIOS_LOWMEM_H
#define PMH_BIOS_LOWMEM_H
#include "../pc/lowmem.h"

/* The real-mode thunk (realmode.S) copied to RM_BASE, at most up to
 * RM_LIMIT. */
#define RM_BASE	 0x6000
#define RM_LIMIT 0x7000
#if RM_LIMIT > TRAMP_BASE
#error "the real-mode thunk runs into the AP trampoline"
#endif

#endif

/* AMD Family 15h's per-event counter restrictions (amd_f15h.c). */
#ifndef PMH_PMU_AMD_F15H_H
#define PMH_PMU_AMD_F15H_H

#include <stdbool.h>
#include <stdint.h>

#define AMD_F15H_FAMILY 0x15

/* The core counters (bit per counter 0-5) event code with umask may use on
 * Family 15h; 0 where none may (northbridge events, a forbidden umask). */
uint32_t amd_f15h_counters(uint16_t code, uint8_t umask);

#endif

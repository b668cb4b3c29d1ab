/* AMD Family 15h (Bulldozer to Excavator): the counters each event may use.
 * The core extension's six counters are not interchangeable there: events
 * are grouped by the unit that counts them, and each group reaches only
 * some counters (BKDG for Family 15h Models 00h-0Fh #42301, the counter
 * restrictions of its PMCx event list; the same table as Linux
 * arch/x86/events/amd/core.c
 * amd_get_event_constraints_f15h). */
#include "amd_f15h.h"

#define PMC0  0x01u
#define PMC3  0x08u
#define PMC20 0x07u /* counters 0-2 */
#define PMC30 0x0fu /* counters 0-3 */
#define PMC50 0x3fu /* counters 0-5 */
#define PMC53 0x38u /* counters 3-5 */

/* Unit masks with more than one bit: some FP events then need PMC3. */
static bool several(uint8_t umask)
{
	return umask & (umask - 1u);
}

/* The floating-point unit's events (codes 00h-1Fh). */
static uint32_t fp(uint16_t code, uint8_t umask)
{
	switch (code) {
	case 0x000:
		return (umask & 0xf0) && (umask & 0x0f) ? PMC3 : PMC53;
	case 0x004:
		return several(umask) ? PMC3 : PMC53;
	case 0x003:
	case 0x00b:
	case 0x00d:
		return PMC3;
	default:
		return PMC53;
	}
}

/* Load/store and data cache events (20h-5Fh, C0h-CFh). */
static uint32_t ls(uint16_t code, uint8_t umask)
{
	switch (code) {
	case 0x023:
	case 0x043:
	case 0x045:
	case 0x046:
	case 0x054:
	case 0x055:
		return PMC20;
	case 0x02d:
		return PMC3;
	case 0x02e:
		return PMC30;
	case 0x031:
		return several(umask) ? 0 : PMC20;
	case 0x1c0:
		return PMC53;
	default:
		return PMC50;
	}
}

uint32_t amd_f15h_counters(uint16_t code, uint8_t umask)
{
	switch (code & 0xf0) {
	case 0x00:
	case 0x10:
		return fp(code, umask);
	case 0x20:
	case 0x30:
	case 0x40:
	case 0x50:
	case 0xc0:
		return ls(code, umask);
	case 0x60:
	case 0x70: /* CU: 76h, cycles not in halt, among them */
	case 0x80:
	case 0x90:
	case 0xd0:
		if (code == 0x08f || code == 0x187 || code == 0x188)
			return PMC0;
		if ((code >= 0x0db && code <= 0x0df) || code == 0x1d6 || code == 0x1d8)
			return PMC50;
		return PMC20;
	default: /* E0h-FFh: the northbridge's, not the core's counters */
		return 0;
	}
}

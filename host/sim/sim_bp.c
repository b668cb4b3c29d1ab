/* The branch predictor behind the LBRs' and the BTS's mispredicted flags
 * (ours; no public model of a real one): a 2-bit saturating counter per
 * conditional branch, starting weakly taken; the last target per indirect
 * branch; a return stack of SIM_RAS entries; direct jumps and calls are
 * predicted once decoded. What it must get right for the checks is what
 * every real predictor does on the sampling kernel: its loop's back edge
 * and its direct branches are predicted, its returns too (the stack is
 * deeper than the kernel's one call), and its pseudo-random conditional is
 * mispredicted about half the time. */
#include "sim.h"
#include "../../events/sample.h"

static unsigned slot(struct sim_bp *bp, uint64_t at)
{
	unsigned i = (unsigned)((at ^ (at >> 6)) % SIM_BP_SLOTS);

	if (bp->at[i] != at) { /* a new branch takes the slot over */
		bp->at[i] = at;
		bp->ctr[i] = 2;
		bp->target[i] = 0;
	}
	return i;
}

bool sim_bp_mispredicts(struct sim_bp *bp, uint64_t at, uint8_t kind, bool taken, uint64_t to,
			uint64_t ret_to)
{
	unsigned i;
	bool miss = false;

	switch (kind) {
	case SMP_JCC:
		i = slot(bp, at);
		miss = (bp->ctr[i] >= 2) != taken;
		if (taken && bp->ctr[i] < 3)
			bp->ctr[i]++;
		else if (!taken && bp->ctr[i] > 0)
			bp->ctr[i]--;
		return miss;
	case SMP_CALL:
	case SMP_CALL_IND:
		bp->ras[bp->ras_top] = ret_to;
		bp->ras_top = (bp->ras_top + 1) % SIM_RAS;
		if (bp->ras_n < SIM_RAS)
			bp->ras_n++;
		if (kind == SMP_CALL)
			return false;
		/* fall through: an indirect call's target is predicted too */
		i = slot(bp, at);
		miss = bp->target[i] != to;
		bp->target[i] = to;
		return miss;
	case SMP_JMP_IND:
		i = slot(bp, at);
		miss = bp->target[i] != to;
		bp->target[i] = to;
		return miss;
	case SMP_RET:
		if (!bp->ras_n)
			return true;
		bp->ras_top = (bp->ras_top + SIM_RAS - 1) % SIM_RAS;
		bp->ras_n--;
		return bp->ras[bp->ras_top] != to;
	default:
		return false;
	}
}

/* The traced workloads (struct workload.traced: the sampling kernel,
 * x86/sample.S): the simulator decodes the kernel's x86-64 bytes as the
 * host build linked them and runs them one instruction at a time, so that
 * the addresses the sampling hardware records are the code's own and not
 * anything the harness wrote down. Each instruction retires into the
 * counters as a vector of one (sim_engine.c advance), then goes to the
 * sampling hardware (sim_smp_step) with the counters that wrapped as it
 * retired and the predictor's verdict on it.
 *
 * The decoder takes the forms the kernel is written in (Intel SDM Vol. 2
 * opcode map): MOV r32, imm32 (B8+r), LEA r64, [RIP+disp32] (REX.W 8D
 * /r), MOV r/m32, r32 (89 /r), XOR r/m32, r32 (31 /r), SHL/SHR r/m32, imm8
 * (C1 /4, /5), SUB r/m64, imm8 (REX.W 83 /5), TEST r/m8, imm8 (F6 /0), NOP
 * (90), JMP rel8/rel32 (EB, E9), Jcc rel8/rel32 (7x, 0F 8x), CALL rel32
 * (E8), CALL/JMP r/m64 (FF /2, /4), RET (C3); registers only (mod 11).
 * Anything else stops the simulator: on the target it would be an
 * instruction the kernel's contract says it does not have. */
#include "sim.h"
#include "../../events/sample.h"

#define TRACE_MAX_DEPTH 16 /* nested calls the kernel makes (it makes one) */

struct tcpu {
	uint64_t r[16];
	bool zf, cf;
	uint64_t rip;
	uint64_t stack[TRACE_MAX_DEPTH];
	unsigned sp;
	uint64_t caller; /* where the final RET goes: the harness's code */
};

/* One decoded instruction's effect. */
struct tins {
	uint64_t next; /* the instruction that retires after it */
	uint8_t kind;  /* enum smp_kind */
	bool taken;
};

static _Noreturn void bad(const uint8_t *p)
{
	(void)p;
	__builtin_trap(); /* an instruction outside the kernel's contract */
}

static int32_t s32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

static void flags32(struct tcpu *c, uint32_t v)
{
	c->zf = v == 0;
	c->cf = false;
}

/* The ModRM register-form operands: reg and rm with REX.R and REX.B. */
static void modrm(const uint8_t *p, uint8_t rex, unsigned *reg, unsigned *rm)
{
	if ((p[0] >> 6) != 3)
		bad(p);
	*reg = ((p[0] >> 3) & 7) | ((rex & 4) ? 8 : 0);
	*rm = (p[0] & 7) | ((rex & 1) ? 8 : 0);
}

static bool cond(const struct tcpu *c, uint8_t cc, const uint8_t *p)
{
	switch (cc) {
	case 0x2:
		return c->cf; /* JB */
	case 0x3:
		return !c->cf; /* JAE */
	case 0x4:
		return c->zf; /* JE */
	case 0x5:
		return !c->zf; /* JNE */
	default:
		bad(p);
	}
}

static void call_to(struct tcpu *c, struct tins *t, uint64_t ret, uint64_t to, uint8_t kind)
{
	if (c->sp == TRACE_MAX_DEPTH)
		bad((const uint8_t *)(uintptr_t)c->rip);
	c->stack[c->sp++] = ret;
	*t = (struct tins){.next = to, .kind = kind, .taken = true};
}

/* The one-byte-opcode ALU forms on registers. */
static bool alu(struct tcpu *c, const uint8_t *p, uint8_t rex, uint64_t *len)
{
	unsigned reg, rm;

	switch (p[0]) {
	case 0x89: /* MOV r/m32, r32 */
	case 0x31: /* XOR r/m32, r32 */
		modrm(p + 1, rex, &reg, &rm);
		if (p[0] == 0x89) {
			c->r[rm] = (uint32_t)c->r[reg];
		} else {
			c->r[rm] = (uint32_t)(c->r[rm] ^ c->r[reg]);
			flags32(c, (uint32_t)c->r[rm]);
		}
		*len = 2;
		return true;
	case 0xc1: /* SHL/SHR r/m32, imm8 */
		modrm(p + 1, rex, &reg, &rm);
		if ((reg & 7) == 4)
			c->r[rm] = (uint32_t)(c->r[rm] << (p[2] & 31));
		else if ((reg & 7) == 5)
			c->r[rm] = (uint32_t)c->r[rm] >> (p[2] & 31);
		else
			bad(p);
		flags32(c, (uint32_t)c->r[rm]);
		*len = 3;
		return true;
	case 0x83: /* SUB r/m64, imm8 (REX.W) */
		modrm(p + 1, rex, &reg, &rm);
		if ((reg & 7) != 5 || !(rex & 8))
			bad(p);
		uint64_t imm = (uint64_t)(int64_t)(int8_t)p[2];
		c->cf = c->r[rm] < imm;
		c->r[rm] -= imm;
		c->zf = c->r[rm] == 0;
		*len = 3;
		return true;
	case 0xf6: /* TEST r/m8, imm8 */
		modrm(p + 1, rex, &reg, &rm);
		if ((reg & 7) != 0 || rm >= 4)
			bad(p); /* AL..BL only: no REX byte registers here */
		flags32(c, (uint32_t)(c->r[rm] & p[2] & 0xff));
		*len = 3;
		return true;
	default:
		return false;
	}
}

/* Control transfers; false when p is not one. */
static bool branch(struct tcpu *c, const uint8_t *p, uint8_t rex, uint64_t at, struct tins *t)
{
	unsigned reg, rm;

	if (p[0] == 0xeb || (p[0] >= 0x70 && p[0] <= 0x7f)) { /* JMP/Jcc rel8 */
		uint64_t to = at + 2 + (uint64_t)(int64_t)(int8_t)p[1];
		bool jcc = p[0] != 0xeb, go = !jcc || cond(c, p[0] & 0xf, p);
		*t = (struct tins){
		    .next = go ? to : at + 2, .kind = jcc ? SMP_JCC : SMP_JMP, .taken = go};
		return true;
	}
	if (p[0] == 0xe9 || (p[0] == 0x0f && p[1] >= 0x80 && p[1] <= 0x8f)) { /* rel32 */
		unsigned n = p[0] == 0xe9 ? 5 : 6;
		uint64_t to = at + n + (uint64_t)(int64_t)s32(p + n - 4);
		bool jcc = p[0] != 0xe9, go = !jcc || cond(c, p[1] & 0xf, p);
		*t = (struct tins){
		    .next = go ? to : at + n, .kind = jcc ? SMP_JCC : SMP_JMP, .taken = go};
		return true;
	}
	if (p[0] == 0xe8) { /* CALL rel32 */
		call_to(c, t, at + 5, at + 5 + (uint64_t)(int64_t)s32(p + 1), SMP_CALL);
		return true;
	}
	if (p[0] == 0xff) { /* CALL/JMP r/m64 */
		modrm(p + 1, rex, &reg, &rm);
		if ((reg & 7) == 2)
			call_to(c, t, at + 2 + (rex ? 1 : 0), c->r[rm], SMP_CALL_IND);
		else if ((reg & 7) == 4)
			*t = (struct tins){.next = c->r[rm], .kind = SMP_JMP_IND, .taken = true};
		else
			bad(p);
		return true;
	}
	if (p[0] == 0xc3) { /* RET */
		uint64_t to = c->sp ? c->stack[--c->sp] : c->caller;
		*t = (struct tins){.next = to, .kind = SMP_RET, .taken = true};
		return true;
	}
	return false;
}

/* Decodes and executes the instruction at c->rip. */
static void one(struct tcpu *c, struct tins *t)
{
	uint64_t at = c->rip;
	const uint8_t *p = (const uint8_t *)(uintptr_t)at;
	uint8_t rex = 0;
	uint64_t len = 0;

	if ((p[0] & 0xf0) == 0x40)
		rex = *p++;
	uint64_t pre = rex ? 1 : 0;
	if (branch(c, p, rex, at, t))
		return;
	if (alu(c, p, rex, &len)) {
		*t = (struct tins){.next = at + pre + len};
		return;
	}
	if (p[0] >= 0xb8 && p[0] <= 0xbf && !(rex & 8)) { /* MOV r32, imm32 */
		c->r[(p[0] & 7) | ((rex & 1) ? 8 : 0)] = (uint32_t)s32(p + 1);
		*t = (struct tins){.next = at + pre + 5};
	} else if (p[0] == 0x8d && (rex & 8) && (p[1] & 0xc7) == 0x05) { /* LEA [RIP+d] */
		uint64_t next = at + pre + 6;
		c->r[((p[1] >> 3) & 7) | ((rex & 4) ? 8 : 0)] =
		    next + (uint64_t)(int64_t)s32(p + 2);
		*t = (struct tins){.next = next};
	} else if (p[0] == 0x90) {
		*t = (struct tins){.next = at + pre + 1};
	} else {
		bad(p);
	}
}

/* What one retired instruction adds to the counters: a vector of one. */
void sim_step_vector(const struct sim_step *st, struct workload_vector *v)
{
	*v = (struct workload_vector){.instructions = 1, .uops = 1, .cycles = 1};
	if (st->kind == SMP_NONE)
		return;
	v->branches = 1;
	v->taken = st->taken;
	v->cond = st->kind == SMP_JCC;
	v->calls = st->kind == SMP_CALL || st->kind == SMP_CALL_IND;
	v->rets = st->kind == SMP_RET;
	v->indirect = st->kind == SMP_JMP_IND;
	v->branch_misses = st->mispred;
	v->taken_misses = st->mispred && st->taken;
	v->ret_misses = st->mispred && st->kind == SMP_RET;
	v->indirect_misses = st->mispred && (st->kind == SMP_JMP_IND || st->kind == SMP_CALL_IND);
}

void sim_trace_run(struct sim_cpu *s, const struct workload *w, uint64_t iterations,
		   void (*advance)(struct sim_cpu *, const struct workload_vector *, uint64_t))
{
	struct tcpu c = {.rip = (uint64_t)(uintptr_t)w->run,
			 .caller = (uint64_t)(uintptr_t)sim_trace_run};
	c.r[7] = iterations; /* rdi */
	/* the call that entered the kernel (the platform's CALL *reg, 2 bytes
	 * before its return address): a branch the LBRs and the BTS see, and
	 * whose return is predicted; its instruction is the harness's, retired
	 * with the harness's code (realism "overhead") */
	(void)sim_bp_mispredicts(&s->smp.bp, c.caller - 2, SMP_CALL, true, c.rip, c.caller);
	sim_smp_branch(s, c.caller - 2, c.rip, SMP_CALL);

	/* Where nothing samples instruction by instruction (PEBS, IBS), a run
	 * of straight-line instructions retires as one advance of that many
	 * one-instruction iterations (exact: advance stops at each overflow
	 * point), taken before the branch that ends it. */
	bool batch = !sim_smp_per_insn(s);
	uint64_t pending = 0;
	const struct workload_vector one_insn = {.instructions = 1, .uops = 1, .cycles = 1};

	while (c.rip != c.caller) {
		struct tins t;
		uint64_t before[SIM_MAX_CTRS] = {0};
		one(&c, &t);
		if (batch && t.kind == SMP_NONE) {
			pending++;
			c.rip = t.next;
			continue;
		}
		if (pending)
			advance(s, &one_insn, pending);
		pending = 0;
		bool mis =
		    t.kind != SMP_NONE && sim_bp_mispredicts(&s->smp.bp, c.rip, t.kind, t.taken,
							     t.next, c.sp ? c.stack[c.sp - 1] : 0);
		struct sim_step st = {
		    .ip = c.rip, .next = t.next, .kind = t.kind, .taken = t.taken, .mispred = mis};
		struct workload_vector v;
		sim_step_vector(&st, &v);
		for (unsigned i = 0; i < s->n_ctr; i++)
			before[i] = s->ctr[i];
		advance(s, &v, 1);
		for (unsigned i = 0; i < s->n_ctr; i++)
			if (s->ctr[i] < before[i])
				st.wrapped |= 1ull << i;
		sim_smp_step(s, &st);
		c.rip = t.next;
	}
	if (pending)
		advance(s, &one_insn, pending);
}

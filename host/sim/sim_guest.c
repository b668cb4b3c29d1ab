/* A guest's model over its host's bare-metal model: a hypervisor model
 * (model_kvm.c, the other hypervisor models) names its host in
 * sim_model.host and applies its own rules around the host's handlers.
 * The host's model finds its configuration through s->m, so each call
 * into it runs with s->m pointing at the host and puts the guest back. */
#include "sim.h"

#define GUEST_CACHE 32

const struct sim_model *sim_guest_host(const struct sim_model *guest)
{
	static struct {
		const struct sim_model *guest, *host;
	} cache[GUEST_CACHE];
	for (unsigned i = 0; i < GUEST_CACHE; i++) {
		if (cache[i].guest == guest)
			return cache[i].host;
		if (!cache[i].guest) {
			const struct sim_model *h = guest->host ? sim_model_find(guest->host) : 0;
			if (!h || h == guest || h->host)
				return 0; /* no host, or a guest of a guest: not modelled */
			cache[i].guest = guest;
			cache[i].host = h;
			return h;
		}
	}
	return guest->host ? sim_model_find(guest->host) : 0;
}

/* The host's model, made current for one call: returns the guest's. */
static const struct sim_model *enter(struct sim_cpu *s)
{
	const struct sim_model *g = s->m;
	s->m = sim_guest_host(g);
	return g;
}

int sim_host_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	const struct sim_model *g = enter(s);
	int st = s->m->rdmsr(s, msr, v);
	s->m = g;
	return st;
}

int sim_host_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	const struct sim_model *g = enter(s);
	int st = s->m->wrmsr(s, msr, v);
	s->m = g;
	return st;
}

int sim_host_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	const struct sim_model *g = enter(s);
	int st = s->m->rdpmc ? s->m->rdpmc(s, ecx, v) : HW_FAULT_UD;
	s->m = g;
	return st;
}

uint64_t sim_host_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	const struct sim_model *g = enter(s);
	uint64_t r = s->m->rate(s, i, v);
	s->m = g;
	return r;
}

bool sim_host_overflow(struct sim_cpu *s, unsigned i)
{
	const struct sim_model *g = enter(s);
	bool pmi = s->m->overflow(s, i);
	s->m = g;
	return pmi;
}

uint64_t sim_host_pending(struct sim_cpu *s)
{
	const struct sim_model *g = enter(s);
	uint64_t p = s->m->pending ? s->m->pending(s) : 0;
	s->m = g;
	return p;
}

void sim_host_reset(struct sim_cpu *s)
{
	const struct sim_model *g = enter(s);
	s->m->reset(s);
	s->m = g;
}

uint64_t sim_host_msr(struct sim_cpu *s, uint32_t msr)
{
	uint64_t v = 0;
	return sim_host_rdmsr(s, msr, &v) == HW_OK ? v : 0;
}

/* The results JSON's "sampling" section: per feature (LBR, PEBS, BTS,
 * IBS) what the sampling checks detected on the suite's PMU (pmu/
 * sampling.h; the whole section null where no sampling check ran) and the
 * verdict of each of its checks, the worst over the CPUs (FAIL over PASS
 * over SKIP). Each check's own result, with its records counted in its
 * message, is in "results". */
#include "report_sampling.h"
#include "../pmu/pmu.h"
#include "../lib/str.h"

static const char *lbr_kind(unsigned k)
{
	static const char *const n[] = {[PMU_LBR_NONE] = "none",
					[PMU_LBR_LEGACY] = "model-specific",
					[PMU_LBR_ARCH] = "architectural",
					[PMU_LBR_AMD_V2] = "amd-v2"};
	return k < sizeof(n) / sizeof(n[0]) ? n[k] : "none";
}

static bool worse(enum verdict a, enum verdict b)
{
	static const int rank[] = {[V_PASS] = 2, [V_FAIL] = 3, [V_SKIP] = 1, [V_NONE] = 0};
	return rank[a] > rank[b];
}

/* Whether id is one of done[0..n). */
static bool listed(const char *const *done, unsigned n, const char *id)
{
	for (unsigned k = 0; k < n; k++)
		if (!pmh_strcmp(done[k], id))
			return true;
	return false;
}

/* "checks": {id: verdict} for the results whose id starts with prefix,
 * each id once: the ids said so far are kept, so that a run of many CPUs
 * (one result per check and CPU) costs results x checks, not results
 * squared. */
static void checks(struct pmh_sb *sb, const struct suite *s, const char *prefix)
{
	const char *done[SUITE_MAX_CHECKS];
	size_t np = pmh_strlen(prefix);
	unsigned n_done = 0;

	pmh_sb_add(sb, ", \"checks\": {");
	for (unsigned i = 0; i < s->n_results && n_done < SUITE_MAX_CHECKS; i++) {
		const struct result *r = &s->results[i];
		enum verdict v = r->v;
		if (pmh_strncmp(r->id, prefix, np) || listed(done, n_done, r->id))
			continue;
		for (unsigned j = i + 1; j < s->n_results; j++)
			if (worse(s->results[j].v, v) && !pmh_strcmp(s->results[j].id, r->id))
				v = s->results[j].v;
		pmh_sb_add(sb, "%s", n_done ? ", " : "");
		pmh_sb_json_str(sb, r->id);
		pmh_sb_add(sb, ": \"%s\"", verdict_name(v));
		done[n_done++] = r->id;
	}
	pmh_sb_add(sb, "}}");
}

static void why(struct pmh_sb *sb, bool has, const char *w)
{
	pmh_sb_add(sb, ", \"why_absent\": ");
	if (has)
		pmh_sb_add(sb, "null");
	else
		pmh_sb_json_str(sb, w);
}

void report_json_sampling(struct pmh_sb *sb, const struct suite *s)
{
	const struct pmu *p = suite_bound(s).pmu;
	const struct pmu_sampling *m = p ? &p->smp : 0;

	if (!m || !m->detected) {
		pmh_sb_add(sb, ",\n  \"sampling\": null");
		return;
	}
	const struct pmu_lbr *l = &m->lbr;
	pmh_sb_add(sb,
		   ",\n  \"sampling\": {\n    \"lbr\": {\"kind\": \"%s\", \"depth\": %u, "
		   "\"format\": %u, \"mispredicted_flag\": %s",
		   lbr_kind(l->kind), l->depth, l->format, l->mispred ? "true" : "false");
	why(sb, l->kind != PMU_LBR_NONE, l->why);
	checks(sb, s, "lbr.");
	pmh_sb_add(sb, ",\n    \"pebs\": {\"format\": %u, \"adaptive\": %s",
		   m->ds.pebs ? m->ds.pebs_fmt : 0, m->ds.pebs_baseline ? "true" : "false");
	why(sb, m->ds.pebs, m->ds.why_pebs);
	checks(sb, s, "pebs.");
	pmh_sb_add(sb, ",\n    \"bts\": {\"present\": %s", m->ds.bts ? "true" : "false");
	why(sb, m->ds.bts, m->ds.why_bts);
	checks(sb, s, "bts.");
	pmh_sb_add(sb, ",\n    \"ibs\": {\"features\": %u", m->ibs.caps);
	why(sb, m->ibs.caps != 0, m->ibs.why);
	checks(sb, s, "ibs.");
	pmh_sb_add(sb, "\n  }");
}

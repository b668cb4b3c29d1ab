/* Hypervisor identification from the leaves 4000_0000h-4000_FF00h, and per
 * hypervisor the switch that turns its virtual PMU on (hypervisor.h). */
#include "hypervisor.h"
#include "cpuid.h"
#include "hw.h"
#include "../lib/str.h"
#include "../lib/fmt.h"

/* Linux for_each_possible_hypervisor_cpuid_base(): every 100h up to
 * 4001_0000h; a hypervisor's EAX there is the last leaf of its own range. */
#define HV_LEAF_END  0x40010000u
#define HV_LEAF_STEP 0x100u
#define HV_SIG_LEN   12
#define HV_SIGS	     2
/* Hyper-V TLFS, "Hypervisor CPUID Leaves": 4000_0001h EAX "Hv#1" names the
 * Hyper-V interface whatever the vendor signature (VirtualBox and QEMU may
 * put another one there); 4000_0002h is the version (EAX build, EBX
 * major << 16 | minor). */
#define HYPERV_INTERFACE    0x31237648u /* "Hv#1" */
#define HYPERV_LEAF_IFACE   1
#define HYPERV_LEAF_VERSION 2
/* Xen public/arch-x86/cpuid.h: base + 1 EAX is major << 16 | minor. */
#define XEN_LEAF_VERSION 1

#define NO_SWITCH "no switch for a virtual PMU is known"

struct hv_sig {
	const char *bytes; /* EBX-ECX-EDX as bytes, little-endian per register */
	unsigned len;	   /* how many of the 12 bytes identify it */
};

struct hv_kind {
	enum hv_id id;
	const char *name;
	struct hv_sig sig[HV_SIGS];
	const char *pmu; /* hv_pmu_switch() */
};

/* One row per hypervisor: its name, its signatures with where they are
 * written down, and how its virtual PMU is turned on with the source. */
/* clang-format off */
static const struct hv_kind kinds[] = {
    /* Linux arch/x86/include/uapi/asm/kvm_para.h KVM_SIGNATURE; PMU: the
     * kvm module's enable_pmu (default on) and QEMU's "pmu" CPU property
     * (target/i386/cpu.c, default off) */
    {HV_KVM, "KVM", {{"KVMKVMKVM\0\0\0", 12}},
     "enable it with QEMU -cpu host,pmu=on and kvm.enable_pmu=1 (Linux arch/x86/kvm/x86.c "
     "enable_pmu)"},
    /* Xen public/arch-x86/cpuid.h XEN_CPUID_SIGNATURE_*; vpmu is off by default */
    {HV_XEN, "Xen", {{"XenVMMXenVMM", 12}},
     "enable it with vpmu=on on Xen's command line (Xen docs/misc/xen-command-line.pandoc "
     "vpmu)"},
    /* Hyper-V TLFS; Linux arch/x86/kernel/cpu/mshyperv.c ms_hyperv_platform() */
    {HV_HYPERV, "Hyper-V", {{"Microsoft Hv", 12}},
     "enable it on the host with Set-VMProcessor -Perfmon pmu (Hyper-V PowerShell "
     "Set-VMProcessor)"},
    /* Linux arch/x86/kernel/cpu/vmware.c; PMU: VMware KB 2030221 (Broadcom
     * 344161) "Using Virtual CPU Performance Monitoring Counters" */
    {HV_VMWARE, "VMware", {{"VMwareVMware", 12}},
     "enable it with Virtualize CPU performance counters, vpmc.enable = TRUE (VMware KB "
     "2030221)"},
    /* Linux arch/x86/kernel/cpu/bhyve.c */
    {HV_BHYVE, "bhyve", {{"bhyve bhyve ", 12}}, NO_SWITCH},
    /* Linux arch/x86/kernel/cpu/acrn.c acrn_cpuid_base() */
    {HV_ACRN, "ACRN", {{"ACRNACRNACRN", 12}}, NO_SWITCH},
    /* QNX Hypervisor user's guide 7.0, "Checking the guest's environment":
     * EBX and ECX, read big-endian, spell "QNXQVMBS" (EDX unspecified); the
     * 12-byte form is the one published lists of signatures give */
    {HV_QNX, "QNX", {{"QXNQSBMV", 8}, {" QNXQVMBSQG ", 12}}, NO_SWITCH},
    /* no Parallels document: the form published lists of signatures give,
     * and the same with each register's bytes swapped, as some versions show */
    {HV_PARALLELS, "Parallels", {{"prl hyperv  ", 12}, {" lrpepyh  vr", 12}}, NO_SWITCH},
    /* VirtualBox src/VBox/VMM/VMMR3/GIMHv.cpp, the default /GIM/HyperV/VendorID */
    {HV_VBOX, "VirtualBox", {{"VBoxVBoxVBox", 12}}, NO_SWITCH},
    /* QEMU target/i386/cpu.c cpu_x86_cpuid(): 4000_0000h under TCG, and
     * leaf 0AH zero unless the accelerator takes the host's CPUID (KVM) */
    {HV_TCG, "QEMU TCG", {{"TCGTCGTCGTCG", 12}},
     "TCG has none, use -accel kvm -cpu host,pmu=on (QEMU target/i386/cpu.c cpu_x86_cpuid)"},
};
/* clang-format on */
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static const struct hv_kind *kind_of(enum hv_id id)
{
	for (unsigned i = 0; i < N_KINDS; i++)
		if (kinds[i].id == id)
			return &kinds[i];
	return 0;
}

const char *hv_id_name(enum hv_id id)
{
	const struct hv_kind *k = kind_of(id);

	return k ? k->name : id == HV_NONE ? "none" : "unknown";
}

const char *hv_pmu_switch(enum hv_id id)
{
	const struct hv_kind *k = kind_of(id);

	return k ? k->pmu : NO_SWITCH;
}

static void sig_bytes(const struct cpuid_regs *r, char raw[HV_SIG_LEN])
{
	const uint32_t w[3] = {r->ebx, r->ecx, r->edx};

	for (int i = 0; i < HV_SIG_LEN; i++)
		raw[i] = (char)(w[i / 4] >> (8 * (i % 4)));
}

static const struct hv_kind *match(const char raw[HV_SIG_LEN])
{
	for (unsigned i = 0; i < N_KINDS; i++)
		for (unsigned j = 0; j < HV_SIGS && kinds[i].sig[j].bytes; j++) {
			const struct hv_sig *s = &kinds[i].sig[j];
			unsigned b = 0;
			while (b < s->len && raw[b] == s->bytes[b])
				b++;
			if (b == s->len)
				return &kinds[i];
		}
	return 0;
}

/* The signature as text: up to the first NUL, unprintable bytes as '?'. */
static void sig_text(const char raw[HV_SIG_LEN], char *dst)
{
	int i;

	for (i = 0; i < HV_SIG_LEN && raw[i]; i++)
		dst[i] = raw[i] >= 0x20 && raw[i] <= 0x7e ? raw[i] : '?';
	dst[i] = 0;
}

/* An unknown hypervisor's name: its signature without the blanks around it. */
static void unknown_name(const char *sig, char *dst, size_t n)
{
	size_t b = 0, e = pmh_strlen(sig);

	while (sig[b] == ' ')
		b++;
	while (e > b && sig[e - 1] == ' ')
		e--;
	if (e == b)
		pmh_strlcpy(dst, "unknown", n);
	else
		pmh_slice(dst, n, sig + b, e - b);
}

static bool same_regs(const struct cpuid_regs *a, const struct cpuid_regs *b)
{
	return a->eax == b->eax && a->ebx == b->ebx && a->ecx == b->ecx && a->edx == b->edx;
}

/* What a leaf the CPU does not implement returns: Intel gives the highest
 * basic leaf's values for any input above its range (SDM Vol. 2A CPUID),
 * and so does KVM for an Intel guest (Linux arch/x86/kvm/cpuid.c
 * get_out_of_range_cpuid_entry()); AMD gives zeros, which answer nothing. */
static void out_of_range(struct cpuid_regs *echo)
{
	struct cpuid_regs r;

	hw_cpuid(CPUID_LEAF_MAX, 0, &r);
	hw_cpuid(r.eax, 0, echo);
}

static void take(struct hv_info *hv, uint32_t base, const struct cpuid_regs *r,
		 const struct hv_kind *k, const char raw[HV_SIG_LEN])
{
	hv->base = base;
	hv->max_leaf = r->eax;
	sig_text(raw, hv->signature);
	hv->id = k ? k->id : HV_UNKNOWN;
	if (k)
		pmh_strlcpy(hv->name, k->name, sizeof(hv->name));
	else
		unknown_name(hv->signature, hv->name, sizeof(hv->name));
}

/* The version where a leaf documents it (Xen, Hyper-V); "" elsewhere. */
static void read_version(struct hv_info *hv)
{
	struct cpuid_regs r;

	if (hv->id == HV_XEN && hv->max_leaf >= hv->base + XEN_LEAF_VERSION) {
		hw_cpuid(hv->base + XEN_LEAF_VERSION, 0, &r);
		pmh_fmt(hv->version, sizeof(hv->version), "%u.%u", r.eax >> 16, r.eax & 0xffff);
	} else if (hv->id == HV_HYPERV && hv->max_leaf >= hv->base + HYPERV_LEAF_VERSION) {
		hw_cpuid(hv->base + HYPERV_LEAF_VERSION, 0, &r);
		if (r.ebx) /* VirtualBox leaves it 0 until the guest names itself */
			pmh_fmt(hv->version, sizeof(hv->version), "%u.%u.%u", r.ebx >> 16,
				r.ebx & 0xffff, r.eax);
	}
}

/* Whether the leaves at 4000_0000h are a Hyper-V interface: its signature,
 * or "Hv#1" at 4000_0001h under another vendor signature. */
static bool hyperv_interface(const struct hv_kind *k)
{
	struct cpuid_regs r;

	if (k && k->id == HV_HYPERV)
		return true;
	hw_cpuid(CPUID_LEAF_HYPERVISOR + HYPERV_LEAF_IFACE, 0, &r);
	return r.eax == HYPERV_INTERFACE;
}

/* A base answers with a known signature, or with EAX the last leaf of its
 * own range (Linux requires the signature; the range admits an unknown
 * hypervisor). The first base that answers with the values of an
 * out-of-range leaf ends the scan: nothing above it is implemented. The
 * first answer is kept unless a known hypervisor other than the Hyper-V
 * interface answers later. */
void hv_identify(struct hv_info *hv, bool hv_bit)
{
	struct cpuid_regs echo, r;
	char raw[HV_SIG_LEN];
	bool face = false;

	pmh_memset(hv, 0, sizeof(*hv));
	hv->id = hv_bit ? HV_UNKNOWN : HV_NONE;
	pmh_strlcpy(hv->name, hv_id_name(hv->id), sizeof(hv->name));
	if (!hv_bit)
		return;
	out_of_range(&echo);
	for (uint32_t base = CPUID_LEAF_HYPERVISOR; base < HV_LEAF_END; base += HV_LEAF_STEP) {
		hw_cpuid(base, 0, &r);
		if (same_regs(&r, &echo))
			break;
		sig_bytes(&r, raw);
		const struct hv_kind *k = match(raw);
		if (!k && (r.eax < base || r.eax - base >= HV_LEAF_STEP))
			continue;
		if (base == CPUID_LEAF_HYPERVISOR)
			face = hyperv_interface(k);
		if (!hv->base || (k && k->id != HV_HYPERV))
			take(hv, base, &r, k, raw);
	}
	hv->hyperv_face = face && hv->base > CPUID_LEAF_HYPERVISOR;
	read_version(hv);
}

void hv_describe(const struct hv_info *hv, char *buf, size_t n)
{
	const char *sp = hv->version[0] ? " " : "";

	if (hv->id == HV_NONE)
		pmh_fmt(buf, n, "none");
	else if (!hv->base)
		pmh_fmt(buf, n, "unknown (CPUID.1:ECX[31] set, no leaf of 0x%x-0x%x answers)",
			CPUID_LEAF_HYPERVISOR, HV_LEAF_END - HV_LEAF_STEP);
	else
		pmh_fmt(buf, n, "%s%s%s (%ssignature \"%s\" at 0x%x%s)", hv->name, sp, hv->version,
			hv->id == HV_UNKNOWN ? "unknown " : "", hv->signature, hv->base,
			hv->hyperv_face ? ", behind a Hyper-V interface at 0x40000000" : "");
}

void hv_no_pmu_reason(const struct hv_info *hv, bool hybrid_host, const char *what, char *buf,
		      size_t n)
{
	const char *how = hv_pmu_switch(hv->id);

	/* Linux arch/x86/kvm/pmu.c kvm_init_pmu_capability(): "Hybrid PMUs
	 * don't play nice with virtualization", enable_pmu is forced off */
	if (hv->id == HV_KVM && hybrid_host)
		how = "KVM disables its vPMU on hybrid hosts (Linux arch/x86/kvm/pmu.c "
		      "kvm_init_pmu_capability)";
	pmh_fmt(buf, n,
		hv->id == HV_UNKNOWN ? "hypervisor \"%s\" exposes no PMU (%s): %s"
				     : "hypervisor %s exposes no PMU (%s): %s",
		hv->name, what, how);
}

/* Hypervisor identification (pmu/hypervisor.c) on CPUID tables faked in the
 * simulator, and the NO PMU reason that names the hypervisor and how its
 * virtual PMU is turned on (pmu/cpu.c, pmu/pmu.c). Each test has an
 * assertion that fails when the rule it names is dropped. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "../../pmu/cpu.h"
#include "../../pmu/hypervisor.h"
#include "../../pmu/pmu.h"
#include "../sim/sim.h"

#define BASE0 0x40000000u
#define BASE1 0x40000100u
#define BASE2 0x40000200u
/* The highest basic leaf and its values, which Intel returns for any leaf
 * above its range (SDM Vol. 2A CPUID): leaf 16H of a Skylake. */
#define MAX_BASIC 0x16u
static const struct cpuid_regs echo = {0x00000fa0, 0x00001068, 0x00000064, 0};

static uint32_t w4(const char *p)
{
	return (uint32_t)(uint8_t)p[0] | (uint32_t)(uint8_t)p[1] << 8 |
	       (uint32_t)(uint8_t)p[2] << 16 | (uint32_t)(uint8_t)p[3] << 24;
}

/* A Skylake whose leaves above the basic range echo leaf 16H; hv_bit sets
 * CPUID.1:ECX[31]. */
static void machine(bool hv_bit)
{
	struct cpuid_regs r;

	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	sim_vendor(&sim, MAX_BASIC, "GenuineIntel");
	sim_set_cpuid(&sim, MAX_BASIC, 0, echo.eax, echo.ebx, echo.ecx, echo.edx);
	hw_cpuid(1, 0, &r);
	r.ecx = hv_bit ? r.ecx | 1u << 31 : r.ecx & ~(1u << 31);
	sim_set_cpuid(&sim, 1, 0, r.eax, r.ebx, r.ecx, r.edx);
}

static void leaf(uint32_t l, uint32_t eax, const char *sig12)
{
	sim_set_cpuid(&sim, l, 0, eax, w4(sig12), w4(sig12 + 4), w4(sig12 + 8));
}

static void echo_at(uint32_t l)
{
	sim_set_cpuid(&sim, l, 0, echo.eax, echo.ebx, echo.ecx, echo.edx);
}

static struct hv_info scan(void)
{
	struct hv_info hv;
	hv_identify(&hv, true);
	return hv;
}

static void describes(const struct hv_info *hv, const char *want)
{
	char buf[192];
	hv_describe(hv, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

/* Every signature of the table at 4000_0000h: its id, name and signature as
 * read; the next base echoes, as on Intel. */
static void every_signature(void **st)
{
	(void)st;
	static const struct {
		const char *sig;
		enum hv_id id;
		const char *name, *text;
	} t[] = {
	    {"KVMKVMKVM\0\0\0", HV_KVM, "KVM", "KVMKVMKVM"},
	    {"XenVMMXenVMM", HV_XEN, "Xen", "XenVMMXenVMM"},
	    {"Microsoft Hv", HV_HYPERV, "Hyper-V", "Microsoft Hv"},
	    {"VMwareVMware", HV_VMWARE, "VMware", "VMwareVMware"},
	    {"bhyve bhyve ", HV_BHYVE, "bhyve", "bhyve bhyve "},
	    {"ACRNACRNACRN", HV_ACRN, "ACRN", "ACRNACRNACRN"},
	    {"QXNQSBMV\x01\x02\0\0", HV_QNX, "QNX", "QXNQSBMV??"}, /* QNX's: EDX any */
	    {" QNXQVMBSQG ", HV_QNX, "QNX", " QNXQVMBSQG "},
	    {"prl hyperv  ", HV_PARALLELS, "Parallels", "prl hyperv  "},
	    {" lrpepyh  vr", HV_PARALLELS, "Parallels", " lrpepyh  vr"},
	    {"VBoxVBoxVBox", HV_VBOX, "VirtualBox", "VBoxVBoxVBox"},
	    {"TCGTCGTCGTCG", HV_TCG, "QEMU TCG", "TCGTCGTCGTCG"},
	};
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		machine(true);
		leaf(BASE0, BASE0 + 1, t[i].sig);
		echo_at(BASE1);
		struct hv_info hv = scan();
		assert_int_equal(hv.id, t[i].id);
		assert_string_equal(hv.name, t[i].name);
		assert_string_equal(hv.name, hv_id_name(t[i].id));
		assert_string_equal(hv.signature, t[i].text);
		assert_int_equal(hv.base, BASE0);
		assert_int_equal(hv.max_leaf, BASE0 + 1);
		assert_false(hv.hyperv_face);
		/* a known signature answers whatever EAX says (KVM before
		 * 2.6.x left it 0; Linux kvm_cpuid_base() takes it) */
		leaf(BASE0, 0, t[i].sig);
		assert_int_equal(scan().id, t[i].id);
	}
	machine(true);
	leaf(BASE0, BASE0 + 1, "KVMKVMKVM\0\0\0");
	describes(&(struct hv_info){0}, "none");
	struct hv_info hv = scan();
	describes(&hv, "KVM (signature \"KVMKVMKVM\" at 0x40000000)");
}

/* No CPUID.1:ECX[31], no scan: leaves that would name KVM are not read. */
static void no_bit_no_scan(void **st)
{
	(void)st;
	struct hv_info hv;

	machine(false);
	leaf(BASE0, BASE0 + 1, "KVMKVMKVM\0\0\0");
	hv_identify(&hv, false);
	assert_int_equal(hv.id, HV_NONE);
	assert_string_equal(hv.name, "none");
	assert_int_equal(hv.base, 0);
	assert_string_equal(hv.signature, "");
	/* and cpu_identify takes the bit from leaf 1 */
	struct cpu_info ci;
	cpu_identify(&ci);
	assert_false(ci.hypervisor);
	assert_int_equal(ci.hv.id, HV_NONE);
	describes(&ci.hv, "none");
}

/* Xen with Viridian: the Hyper-V interface at 4000_0000h, Xen at
 * 4000_0100h (Xen public/arch-x86/cpuid.h); Xen is the hypervisor, its
 * version from base + 1. */
static void xen_behind_viridian(void **st)
{
	(void)st;

	machine(true);
	leaf(BASE0, BASE0 + 5, "Microsoft Hv");
	sim_set_cpuid(&sim, BASE0 + 1, 0, 0x31237648u /* "Hv#1" */, 0, 0, 0);
	sim_set_cpuid(&sim, BASE0 + 2, 0, 20348, 0x000a0000u, 0, 0);
	leaf(BASE1, BASE1 + 5, "XenVMMXenVMM");
	sim_set_cpuid(&sim, BASE1 + 1, 0, 4u << 16 | 17, 0, 0, 0);
	echo_at(BASE2);
	struct hv_info hv = scan();
	assert_int_equal(hv.id, HV_XEN);
	assert_int_equal(hv.base, BASE1);
	assert_int_equal(hv.max_leaf, BASE1 + 5);
	assert_string_equal(hv.version, "4.17");
	assert_true(hv.hyperv_face);
	describes(&hv, "Xen 4.17 (signature \"XenVMMXenVMM\" at 0x40000100, behind a Hyper-V "
		       "interface at 0x40000000)");
}

/* KVM with Hyper-V enlightenments (QEMU hv-*): KVM at 4000_0100h is the
 * hypervisor, and Hyper-V's version leaf is not KVM's; with another vendor
 * signature the interface is still Hyper-V's by "Hv#1". */
static void kvm_behind_hyperv(void **st)
{
	(void)st;

	machine(true);
	leaf(BASE0, BASE0 + 0xb, "Microsoft Hv");
	sim_set_cpuid(&sim, BASE0 + 1, 0, 0x31237648u, 0, 0, 0);
	sim_set_cpuid(&sim, BASE0 + 2, 0, 14393, 0x00060003u, 0, 0);
	leaf(BASE1, BASE1 + 1, "KVMKVMKVM\0\0\0");
	echo_at(BASE2);
	struct hv_info hv = scan();
	assert_int_equal(hv.id, HV_KVM);
	assert_int_equal(hv.base, BASE1);
	assert_true(hv.hyperv_face);
	assert_string_equal(hv.version, "");
	describes(&hv, "KVM (signature \"KVMKVMKVM\" at 0x40000100, behind a Hyper-V interface "
		       "at 0x40000000)");

	leaf(BASE0, BASE0 + 0xb, "Linux KVM Hv"); /* QEMU hv-vendor-id= */
	hv = scan();
	assert_int_equal(hv.id, HV_KVM);
	assert_true(hv.hyperv_face);
	sim_set_cpuid(&sim, BASE0 + 1, 0, 0, 0, 0, 0); /* no "Hv#1": not Hyper-V's */
	hv = scan();
	assert_int_equal(hv.id, HV_KVM);
	assert_false(hv.hyperv_face);
}

/* Hyper-V alone: its version from 4000_0002h (Hyper-V TLFS), none when the
 * leaf is zero (VirtualBox until the guest names itself). */
static void hyperv_version(void **st)
{
	(void)st;

	machine(true);
	leaf(BASE0, BASE0 + 0xc, "Microsoft Hv");
	sim_set_cpuid(&sim, BASE0 + 1, 0, 0x31237648u, 0, 0, 0);
	sim_set_cpuid(&sim, BASE0 + 2, 0, 20348, 0x000a0000u, 0, 0);
	echo_at(BASE1);
	struct hv_info hv = scan();
	assert_int_equal(hv.id, HV_HYPERV);
	assert_false(hv.hyperv_face); /* it is the hypervisor, not in front of one */
	assert_string_equal(hv.version, "10.0.20348");
	describes(&hv, "Hyper-V 10.0.20348 (signature \"Microsoft Hv\" at 0x40000000)");
	sim_set_cpuid(&sim, BASE0 + 2, 0, 0, 0, 0, 0);
	assert_string_equal(scan().version, "");
	/* a leaf past EAX is not read */
	sim_set_cpuid(&sim, BASE0 + 2, 0, 20348, 0x000a0000u, 0, 0);
	leaf(BASE0, BASE0 + 1, "Microsoft Hv");
	assert_string_equal(scan().version, "");
	/* Xen alone: base + 1 */
	leaf(BASE0, BASE0 + 4, "XenVMMXenVMM");
	sim_set_cpuid(&sim, BASE0 + 1, 0, 4u << 16 | 15, 0, 0, 0);
	assert_string_equal(scan().version, "4.15");
}

/* An unknown signature names the hypervisor when its EAX is a leaf of its
 * own range; a known one at a later base wins over it. */
static void unknown_signature(void **st)
{
	(void)st;

	machine(true);
	leaf(BASE0, BASE0 + 2, "Jailhouse\0\0\0");
	echo_at(BASE1);
	struct hv_info hv = scan();
	assert_int_equal(hv.id, HV_UNKNOWN);
	assert_string_equal(hv.name, "Jailhouse");
	assert_string_equal(hv.signature, "Jailhouse");
	describes(&hv, "Jailhouse (unknown signature \"Jailhouse\" at 0x40000000)");

	leaf(BASE0, BASE0 + 2, "  odd\x07vmm   "); /* blanks trimmed, unprintable '?' */
	hv = scan();
	assert_string_equal(hv.name, "odd?vmm");
	assert_string_equal(hv.signature, "  odd?vmm   ");

	leaf(BASE0, BASE0 + 0x10, "\0\0\0\0\0\0\0\0\0\0\0\0"); /* VirtualBox's minimal */
	hv = scan();
	assert_int_equal(hv.id, HV_UNKNOWN);
	assert_string_equal(hv.name, "unknown");
	assert_int_equal(hv.base, BASE0);

	leaf(BASE0, BASE1 + 5, "Jailhouse\0\0\0"); /* EAX past its range */
	assert_int_equal(scan().base, 0);
	leaf(BASE0, 0x0000000d, "Jailhouse\0\0\0"); /* EAX below it */
	hv = scan();
	assert_int_equal(hv.base, 0);
	assert_string_equal(hv.name, "unknown");
	describes(&hv, "unknown (CPUID.1:ECX[31] set, no leaf of 0x40000000-0x4000ff00 answers)");

	leaf(BASE0, BASE0 + 2, "Jailhouse\0\0\0");
	leaf(BASE1, BASE1 + 1, "KVMKVMKVM\0\0\0");
	echo_at(BASE2);
	hv = scan();
	assert_int_equal(hv.id, HV_KVM);
	assert_false(hv.hyperv_face);
}

/* Bare-metal-like CPUID that returns the highest basic leaf for every leaf
 * above its range: nothing answers, and the first such base ends the scan,
 * so that what lies above it is not taken for a hypervisor. */
static void echo_ends_scan(void **st)
{
	(void)st;
	struct hv_info hv;

	machine(false);
	for (uint32_t b = BASE0; b <= BASE2; b += 0x100)
		echo_at(b);
	hv_identify(&hv, false);
	assert_int_equal(hv.id, HV_NONE);
	machine(true);
	for (uint32_t b = BASE0; b <= BASE2; b += 0x100)
		echo_at(b);
	hv = scan();
	assert_int_equal(hv.id, HV_UNKNOWN);
	assert_int_equal(hv.base, 0);
	/* KVM, then the echo, then a signature beyond it: not read */
	leaf(BASE0, BASE0 + 1, "KVMKVMKVM\0\0\0");
	leaf(BASE2, BASE2 + 1, "VMwareVMware");
	hv = scan();
	assert_int_equal(hv.id, HV_KVM);
	assert_int_equal(hv.base, BASE0);
	/* zeros (AMD's answer for a leaf it lacks) answer nothing and do not
	 * end the scan */
	sim_set_cpuid(&sim, BASE1, 0, 0, 0, 0, 0);
	hv = scan();
	assert_int_equal(hv.id, HV_VMWARE);
	assert_int_equal(hv.base, BASE2);
}

/* A KVM guest of a Skylake host without its vPMU: CPUID.0AH zero. */
static void kvm_guest(uint32_t fms, bool hv_bit)
{
	struct cpuid_regs r;

	machine(hv_bit);
	hw_cpuid(1, 0, &r);
	sim_set_cpuid(&sim, 1, 0, fms, r.ebx, r.ecx, r.edx);
	sim_set_cpuid(&sim, 0x0a, 0, 0, 0, 0, 0);
	leaf(BASE0, BASE0 + 1, "KVMKVMKVM\0\0\0");
	echo_at(BASE1);
}

/* NO PMU under KVM names KVM, its switch and the source; on bare metal the
 * same CPUID keeps the driver rule's reason. */
static void no_pmu_reason_kvm(void **st)
{
	(void)st;
	static struct cpu_info ci;
	static struct pmu p;
	const char *want = "hypervisor KVM exposes no PMU (CPUID.0AH version 0): enable it with "
			   "QEMU -cpu host,pmu=on and kvm.enable_pmu=1 (Linux arch/x86/kvm/x86.c "
			   "enable_pmu)";

	kvm_guest(sim_fms(6, 0x5e, 3), true);
	cpu_identify(&ci);
	assert_int_equal(ci.driver, PMU_DRV_NONE);
	assert_string_equal(ci.driver_reason, want);
	pmu_attach(&p, &ci);
	assert_int_equal(p.status, PMU_ABSENT);
	assert_string_equal(p.reason, want);

	kvm_guest(sim_fms(6, 0x5e, 3), false);
	cpu_identify(&ci);
	assert_string_equal(ci.driver_reason, "Intel family 0x6 model 0x5e is not a P6 model and "
					      "CPUID.0AH reports no architectural perfmon "
					      "(version 0)");

	kvm_guest(sim_fms(6, 0x5e, 3), true); /* the same under Xen */
	leaf(BASE0, BASE0 + 4, "XenVMMXenVMM");
	cpu_identify(&ci);
	assert_string_equal(ci.driver_reason,
			    "hypervisor Xen exposes no PMU (CPUID.0AH version 0): enable it with "
			    "vpmu=on on Xen's command line (Xen docs/misc/xen-command-line.pandoc "
			    "vpmu)");
	assert_string_equal(hv_pmu_switch(HV_VMWARE),
			    "enable it with Virtualize CPU performance counters, vpmc.enable = "
			    "TRUE (VMware KB 2030221)");
}

/* On an Intel hybrid host KVM turns its vPMU off whatever its switch says
 * (Linux arch/x86/kvm/pmu.c kvm_init_pmu_capability): the reason says so
 * instead of the switch. The guest sees its host's model. */
static void no_pmu_reason_hybrid(void **st)
{
	(void)st;
	static struct cpu_info ci;
	static const uint8_t hybrid[] = {0x97, 0x9a, 0xb7, 0xba, 0xbf, 0xaa,
					 0xac, 0xb5, 0xc5, 0xc6, 0xbd, 0xcc};

	for (unsigned i = 0; i < sizeof(hybrid); i++) {
		kvm_guest(sim_fms(6, hybrid[i], 2), true);
		cpu_identify(&ci);
		assert_int_not_equal(cpu_hybrid(&ci), CPU_HYBRID_NO);
		assert_string_equal(ci.driver_reason,
				    "hypervisor KVM exposes no PMU (CPUID.0AH version 0): KVM "
				    "disables its vPMU on hybrid hosts (Linux arch/x86/kvm/pmu.c "
				    "kvm_init_pmu_capability)");
	}
	kvm_guest(sim_fms(6, 0x97, 2), true); /* Xen on the same host: its switch */
	leaf(BASE0, BASE0 + 4, "XenVMMXenVMM");
	cpu_identify(&ci);
	assert_non_null(strstr(ci.driver_reason, "vpmu=on"));
	kvm_guest(sim_fms(6, 0x8f, 8), true); /* Sapphire Rapids: not hybrid */
	cpu_identify(&ci);
	assert_int_equal(cpu_hybrid(&ci), CPU_HYBRID_NO);
	assert_non_null(strstr(ci.driver_reason, "kvm.enable_pmu=1"));
}

/* The probe under a hypervisor (QEMU TCG's PMU MSRs read 0): the reason
 * says what the probe saw, inside the hypervisor's name and switch. */
static void no_pmu_reason_probe(void **st)
{
	(void)st;
	static struct cpu_info ci;
	static struct pmu p;

	assert_int_equal(sim_start("nopmu", SF_NONE), 0);
	cpu_identify(&ci);
	pmu_attach(&p, &ci);
	assert_int_equal(p.status, PMU_NOT_FUNCTIONAL);
	assert_string_equal(p.reason, "hypervisor QEMU TCG exposes no PMU (gp0 MSR 0xc1 wrote "
				      "0xffff, read back 0x0): TCG has none, use -accel kvm -cpu "
				      "host,pmu=on (QEMU target/i386/cpu.c cpu_x86_cpuid)");
	/* the verdict line adds 27 characters to it in a 200-byte buffer */
	assert_true(strlen(p.reason) + 27 < 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_signature),	    cmocka_unit_test(no_bit_no_scan),
	    cmocka_unit_test(xen_behind_viridian),  cmocka_unit_test(kvm_behind_hyperv),
	    cmocka_unit_test(hyperv_version),	    cmocka_unit_test(unknown_signature),
	    cmocka_unit_test(echo_ends_scan),	    cmocka_unit_test(no_pmu_reason_kvm),
	    cmocka_unit_test(no_pmu_reason_hybrid), cmocka_unit_test(no_pmu_reason_probe),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}

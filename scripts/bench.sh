#!/usr/bin/env bash
# `make bench`: boot-to-verdict wall time of the harness next to a minimal EFI
# program on the same firmware (the ratio is the figure), the harness's own
# elapsed time from its TSC, the Multiboot kernel's boot-to-verdict under
# SeaBIOS with -kernel beside the OVMF figure, network boot (OVMF over TFTP,
# SeaBIOS PXE + iPXE) beside both, and the simulated suite's timings.
set -uo pipefail
efi=$1; minimal=$2; sim=$3
kernel=$(dirname "$efi")/pmuharness-i686.elf
# The 32-bit identities of the BIOS kernel (host/qemu/test_bios_kernel.py);
# Opteron_G1 only under qemu-system-x86_64.
bios_cpus=("pentium2" "pentium3" "athlon" "qemu32,vendor=GenuineIntel,family=15,model=2"
           "coreduo" "n270" "Opteron_G1")
runs=${BENCH_RUNS:-3}
cpus=("Skylake-Client" "EPYC" "Opteron_G1" "Opteron_G5" "athlon,+lm" "pentium3,+lm"
      "qemu64,vendor=GenuineIntel,family=15,model=2" "qemu64,vendor=GenuineIntel,family=11,model=1" "max")
boot=$(dirname "$0")/qemu-boot.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { # efi cpu -> seconds (median of $runs) ; also leaves the last serial log
  for _ in $(seq "$runs"); do
    rm -rf "$tmp/esp"; s=$(date +%s%N)
    "$boot" "$1" --cpu "$2" --esp "$tmp/esp" --serial "$tmp/serial" >/dev/null 2>&1
    e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
  done | median
}
printf '%-48s %10s %10s %7s %12s\n' "cpu" "harness_ms" "minimal_ms" "ratio" "elapsed_us"
worst=0; : > "$tmp/uefi_ms"
for c in "${cpus[@]}"; do
  h=$(wall "$efi" "$c"); el=$(grep -a '^harness.elapsed_us:' "$tmp/serial" | tail -1 | tr -dc 0-9)
  echo "$h" >> "$tmp/uefi_ms"
  m=$(wall "$minimal" "$c")
  r=$(awk -v h="$h" -v m="$m" 'BEGIN {printf "%.3f", h / m}')
  worst=$(awk -v a="$worst" -v b="$r" 'BEGIN {print (b > a) ? b : a}')
  printf '%-48s %10s %10s %7s %12s\n' "$c" "$h" "$m" "$r" "${el:-?}"
done
echo "bench: worst boot-to-verdict ratio $worst (bar: <= 1.10)"
bios_wall() { # cpu -> seconds (median of $runs) of a -kernel boot under SeaBIOS
  local q=qemu-system-i386; [ "$1" = Opteron_G1 ] && q=qemu-system-x86_64
  for _ in $(seq "$runs"); do
    s=$(date +%s%N)
    QEMU=$q "$(dirname "$0")/bios-boot.sh" "$kernel" --cpu "$1" --serial "$tmp/serial" \
      --no-start-check >/dev/null 2>&1
    e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
  done | median
}
if [ -f "$kernel" ]; then
  printf '%-48s %10s %12s\n' "cpu (BIOS, -kernel)" "harness_ms" "elapsed_us"
  : > "$tmp/bios_ms"
  for c in "${bios_cpus[@]}"; do
    h=$(bios_wall "$c"); el=$(grep -a '^harness.elapsed_us:' "$tmp/serial" | tail -1 | tr -dc 0-9)
    echo "$h" >> "$tmp/bios_ms"
    printf '%-48s %10s %12s\n' "$c" "$h" "${el:-?}"
  done
  echo "bench: median boot-to-verdict: BIOS -kernel $(median < "$tmp/bios_ms") ms" \
    "(bar: <= 1000), UEFI OVMF $(median < "$tmp/uefi_ms") ms"
fi
net_wall() { # uefi|bios cpu -> seconds (median of $runs) of a network boot, no disk
  mkdir -p "$tmp/tftp"; printf 'on_finish = qemu-exit\n' > "$tmp/tftp/pmuharness.cfg"
  cp "$efi" "$tmp/tftp/pmuharness.efi"
  [ -f "$kernel" ] && cp "$kernel" "$(dirname "$0")/../boot/net/pmuharness.ipxe" "$tmp/tftp/"
  for _ in $(seq "$runs"); do
    s=$(date +%s%N)
    if [ "$1" = uefi ]; then
      "$boot" "$efi" --cpu "$2" --tftp "$tmp/tftp" --serial "$tmp/serial" >/dev/null 2>&1
    else
      "$(dirname "$0")/bios-boot.sh" none --cpu "$2" --pxe "$tmp/tftp" --serial "$tmp/serial" \
        --no-start-check >/dev/null 2>&1
    fi
    e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
  done | median
}
printf '%-48s %10s %12s\n' "network boot (cpu)" "harness_ms" "elapsed_us"
nu=$(net_wall uefi Skylake-Client); el=$(grep -a '^harness.elapsed_us:' "$tmp/serial" | tail -1 | tr -dc 0-9)
printf '%-48s %10s %12s\n' "UEFI OVMF TFTP (Skylake-Client)" "$nu" "${el:-?}"
nb="-"
if [ -f "$kernel" ]; then
  nb=$(net_wall bios pentium3); el=$(grep -a '^harness.elapsed_us:' "$tmp/serial" | tail -1 | tr -dc 0-9)
  printf '%-48s %10s %12s\n' "BIOS SeaBIOS PXE + iPXE (pentium3)" "$nb" "${el:-?}"
fi
echo "bench: median boot-to-verdict: network UEFI TFTP $nu ms, BIOS PXE+iPXE $nb ms" \
  "(disk UEFI OVMF $(median < "$tmp/uefi_ms") ms, BIOS -kernel $( [ -s "$tmp/bios_ms" ] && median < "$tmp/bios_ms" || echo -) ms)"
if [ -x "$sim" ]; then
  echo "bench: simulated suite per model (one run each, wall ms):"
  for m in $("$sim" --list-models | cut -f1); do
    s=$(date +%s%N); "$sim" --cpu "$m" >/dev/null 2>&1; e=$(date +%s%N)
    printf '  %-12s %8s\n' "$m" $(( (e - s) / 1000000 ))
  done
  # event.semantics' default set on the simulator's cost model: the check
  # reports the TSC time its windows took, which the models advance at their
  # cycle costs (host/sim/uarch*.c); the budget is 500 ms per CPU.
  echo "bench: event.semantics, default set, simulated time per CPU (budget: <= 500 ms):"
  for m in opteron skylake alderlake core2; do
    t=$("$sim" --cpu "$m" checks=event.semantics 2>/dev/null |
      sed -n 's/.*event\.semantics.* in \([0-9]*\) ms.*/\1/p' | head -n 1)
    printf '  %-12s %8s ms\n' "$m" "${t:-SKIP}"
  done
  fast=${sim}-fast
  [ -x "$fast" ] || fast=$sim
  s=$(date +%s%N); SIM_SEEDS=25 "$(dirname "$0")/sim-matrix.py" "$fast" >/dev/null 2>&1; e=$(date +%s%N)
  echo "bench: whole sim matrix, realism all, 25 seeds, $(basename "$fast"): wall time $(( (e - s) / 1000000 )) ms (bar: <= 30000)"
fi
# cpus = all on machines of 1, 4, 16 and 64 CPUs (OVMF under TCG with one host
# thread per vCPU, --mttcg; one run each): wall time, the harness's own elapsed
# time from its TSC, results in its JSON and the cost per CPU; the selected CPUs
# run at once.
cpus_run() { # smp cfg -> w (wall ms), el (elapsed_us), r (results in the JSON)
  rm -rf "$tmp/esp"; s=$(date +%s%N)
  "$boot" "$efi" --cpu Skylake-Client --smp "$1" --mttcg --esp "$tmp/esp" --timeout 600 \
    --cfg "$(printf 'on_finish = qemu-exit\n%s' "$2")" --serial "$tmp/serial" >/dev/null 2>&1
  e=$(date +%s%N); w=$(( (e - s) / 1000000 ))
  el=$(grep -a '^harness.elapsed_us:' "$tmp/serial" | tail -1 | tr -dc 0-9)
  ce=$(grep -a '^cpus.elapsed_us:' "$tmp/serial" | tail -1 | sed 's/^cpus.elapsed_us: \([0-9]*\).*/\1/')
  r=$(cat "$tmp"/esp/EFI/BOOT/*.json 2>/dev/null | grep -c '"id": ' || echo 0)
}
printf '%-48s %10s %12s %8s %10s\n' "cpus = all (OVMF TCG, Skylake-Client)" "wall_ms" "elapsed_us" \
  "results" "ms_per_cpu"
for n in ${BENCH_SMP:-1 4 16 64}; do
  cpus_run "$n" "cpus = all"
  printf '%-48s %10s %12s %8s %10s\n' "-smp $n" "$w" "${el:-?}" "$r" $(( w / n ))
done
# The same 16-CPU machine both ways, cpus = all (every CPU at once) beside
# cpus = serial (one after another), and all/serial of each figure; the bar is
# the wall time's (0.6, two host cores for the 16 vCPUs), and the harness's
# own time (TSC) beside it says how much of the wall time is the firmware's.
printf '%-48s %10s %12s %8s\n' "-smp 16 (OVMF TCG, --mttcg)" "wall_ms" "elapsed_us" "results"
cpus_run 16 "cpus = all"; wa=$w; ea=${el:-0}; ca=${ce:-0}
printf '%-48s %10s %12s %8s\n' "cpus = all" "$w" "${el:-?}" "$r"
cpus_run 16 "cpus = serial"; ws=$w; es=${el:-0}; cs=${ce:-0}
printf '%-48s %10s %12s %8s\n' "cpus = serial" "$w" "${el:-?}" "$r"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", b ? a / b : 0}'; }
echo "bench: -smp 16, cpus = all / serial: wall $(ratio "$wa" "$ws") (bar: <= 0.6 with two" \
  "host cores; this host has $(nproc)), harness elapsed $(ratio "$ea" "$es"), the CPUs'" \
  "part (cpus.elapsed_us) $(ratio "$ca" "$cs"): ${ca} us against ${cs} us"
if [ -x "$sim" ] && "$sim" --list-models | grep -q '^manycore'; then
  s=$(date +%s%N); "$sim" --cpu manycore cpus=all --json "$tmp/many.json" >/dev/null 2>&1
  e=$(date +%s%N)
  echo "bench: simulated 256-CPU machine (manycore), cpus = all: wall $(( (e - s) / 1000000 )) ms," \
    "$(grep -c '"id": ' "$tmp/many.json" 2>/dev/null || echo 0) results in its JSON"
fi
i686=$(dirname "$efi")/pmuharness-i686.elf
echo "bench: image sizes: $(basename "$efi") $(stat -c %s "$efi") bytes," \
  "$(basename "$i686") $( [ -f "$i686" ] && stat -c %s "$i686" || echo '?') bytes (budget: <= 524288 each)"

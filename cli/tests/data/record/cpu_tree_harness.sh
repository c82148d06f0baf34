#!/bin/sh
# The job of the `xpuperf record` tree test: rewrites the RAPL energy counter (across its
# wraparound), a hwmon temperature and /proc/meminfo of a copied recorded tree on a schedule, as the
# machine would while a job runs. The sysfs attributes are rewritten in place (same inode, no
# truncation: one write of a fixed-width value padded with blanks), as the kernel changes a sysfs
# value under a descriptor the recorder keeps open; /proc/meminfo, which the recorder opens for each
# read, is replaced whole (write, then rename). Usage: cpu_tree_harness.sh TREE
set -eu
tree=$1
rapl=$tree/sys/class/powercap/intel-rapl:0
temp=$tree/sys/class/hwmon/hwmon0/temp1_input
max=$(cat "$rapl/max_energy_range_uj")
put() { printf '%-24s\n' "$2" 1<>"$1"; }
available() {
  sed "s/^MemAvailable:.*/MemAvailable:   $1 kB/" "$tree/proc/meminfo" > "$tree/proc/meminfo.new"
  mv "$tree/proc/meminfo.new" "$tree/proc/meminfo"
}
hold=0.3
put "$rapl/energy_uj" $((max - 500000)); put "$temp" 70000; available 185483524; sleep $hold
put "$rapl/energy_uj" 250000; put "$temp" 95500; available 184434948; sleep $hold
put "$rapl/energy_uj" 2250000; put "$temp" 75000; available 186532100; sleep $hold

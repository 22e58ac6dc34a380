# The CPU a command uses, counted by the kernel for it and every process it
# starts (the servers pg_ctl daemonizes and qemu included), through a cgroup
# v2 group of its own. A full run is CPU-bound on 2 cores: wall time says
# how long a suite waited for the others as much as what it costs, its CPU
# says what it costs (doc/development.md, "Where a run's time goes").
# Where no cgroup v2 hierarchy can be written (a chroot, which mounts no
# /sys; a container without one), commands run unmeasured and their CPU is
# empty. Source it after scripts/common.sh; it runs nothing by itself.

# The cgroup v2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a
# hybrid machine), and the group this process is in, as a directory.
cpu_group_of_self() {
  local mount path
  mount=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts 2>/dev/null)
  path=$(sed -n 's/^0:://p' /proc/self/cgroup 2>/dev/null)
  [ -n "$mount" ] && [ -n "$path" ] && [ -w "$mount$path" ] || return 1
  echo "$mount${path%/}"
}

# cpu_seconds GROUP: the CPU seconds (user + system, rounded) GROUP and its
# descendants used.
cpu_seconds() {
  awk '$1 == "usage_usec" { printf "%d\n", ($2 + 500000) / 1000000 }' "$1/cpu.stat" 2>/dev/null
}

# with_cpu_account FILE COMMAND...: runs COMMAND (a function is fine) in a
# subshell moved into a new group under this process's own, then writes
# the CPU seconds it used to FILE, empty when unmeasured (no group, or the
# subshell could not move into it). Returns COMMAND's status. The group is
# removed if nothing is left in it (a server a stopped suite left behind
# keeps it; the run's own group, cpu_account_run, takes those with it).
with_cpu_account() {
  local out=$1 parent group="" rc=0
  shift
  if parent=$(cpu_group_of_self) && group=$(mktemp -d "$parent/locality-uuid.XXXXXX" 2>/dev/null); then
    rm -f "$out.moved"
    (! echo "$BASHPID" >"$group/cgroup.procs" 2>/dev/null || : >"$out.moved"; "$@") || rc=$?
    if [ -e "$out.moved" ]; then cpu_seconds "$group" >"$out"; else : >"$out"; fi
    rm -f "$out.moved"
    rmdir "$group" 2>/dev/null
  else
    "$@" || rc=$?
    : >"$out"
  fi
  return $rc
}

# cpu_account_run: moves this shell into a group of its own for the whole
# run (what it and everything it starts use: CPU_RUN_GROUP), or leaves it
# unmeasured (CPU_RUN_GROUP empty). Call once, at the start of a run.
CPU_RUN_GROUP=""
cpu_account_run() {
  local parent group
  parent=$(cpu_group_of_self) && group=$(mktemp -d "$parent/locality-uuid-run.XXXXXX" 2>/dev/null) || return 0
  if echo "$$" >"$group/cgroup.procs" 2>/dev/null; then CPU_RUN_GROUP=$group; else rmdir "$group"; fi
}

# cpu_release_run: CPU_RUN_SECONDS, what the run's group used (empty
# unmeasured); then this shell goes back to the parent group and the run's
# groups are removed (call it in this shell, not in a $(...): a subshell
# would still be in the group). Again at the end of a run that stops early
# (its EXIT trap): then a no-op.
CPU_RUN_SECONDS=""
cpu_release_run() {
  [ -n "$CPU_RUN_GROUP" ] || return 0
  CPU_RUN_SECONDS=$(cpu_seconds "$CPU_RUN_GROUP")
  echo "$$" >"$(dirname "$CPU_RUN_GROUP")/cgroup.procs" 2>/dev/null
  find "$CPU_RUN_GROUP" -depth -type d -exec rmdir {} + 2>/dev/null
  CPU_RUN_GROUP=""
}

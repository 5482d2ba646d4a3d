#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the conformance corpus as a 4-task Slurm job array on a one-node
# cluster started here, then merges the shards (docs/conform.md). Installs
# Debian 12's slurm-wlm and munge when missing (as root). Everything it starts
# (munged, slurmctld, slurmd) uses its own key, socket, ports and folder under
# /tmp, and is stopped by pid at the end; a system Slurm or munge is left alone.
# Exit status: that of `chainsim conform merge`, or 2 when the cluster would
# not come up.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
exe=$src/${BUILD_DIR:-build}/tools/chainsim
if [ ! -x "$exe" ]; then
	echo "slurm-check: no $exe: build first (scripts/setup.sh)" >&2
	exit 2
fi

missing=()
for p in slurm-wlm munge; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "slurm-check: missing Debian packages (run as root to install): ${missing[*]}" >&2
		exit 2
	fi
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "slurm-check: slurmd runs jobs as their user and must start as root" >&2
	exit 2
fi

work=$(mktemp -d /tmp/chainsim-slurm.XXXXXX)
pids=()
stop() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
}
trap stop EXIT

# munge: a fresh key and a private socket
mkdir -p "$work/munge"
chmod 0700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$work/munge/munge.key"
munged -F --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" \
	--pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
	--seed-file="$work/munge/munged.seed" >"$work/munge/out.log" 2>&1 &
pids+=($!)

host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/state" "$work/spool" "$work/results"
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=chainsimcheck
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

for _ in $(seq 50); do
	[ -S "$work/munge/munge.sock" ] && break
	sleep 0.1
done
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)

up=
for _ in $(seq 60); do
	state=$(sinfo -h -o %t 2>/dev/null || true)
	if [ "$state" = idle ]; then
		up=1
		break
	fi
	sleep 1
done
if [ -z "$up" ]; then
	echo "slurm-check: the one-node cluster did not come up (logs in $work)" >&2
	tail -n 20 "$work"/slurmctld.* "$work"/slurmd.* >&2 || true
	exit 2
fi

cat >"$work/conform.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=chainsim-conform
#SBATCH --array=0-3
#SBATCH --cpus-per-task=1
#SBATCH --output=$work/results/task-%a.log
cd "$src"
exec "$exe" conform --shard auto --no-progress \\
	--json "$work/results/shard-\$SLURM_ARRAY_TASK_ID.json" tests/conformance tests/outside
EOF
start=$(date +%s)
# --wait: until every task has ended; a failing task is no reason to stop,
# merge decides.
sbatch --wait --chdir="$src" "$work/conform.sbatch" || true
echo "slurm-check: the array ran in $(($(date +%s) - start)) s"
for f in "$work"/results/task-*.log; do
	echo "== $(basename "$f"): $(grep SUMMARY "$f" || echo 'no SUMMARY')"
done
rc=0
"$exe" conform merge "$work"/results/shard-*.json || rc=$?
stop
pids=()
if [ "$rc" -eq 0 ]; then
	rm -rf "$work"
else
	echo "slurm-check: merge exited $rc; results and logs kept in $work" >&2
fi
exit "$rc"

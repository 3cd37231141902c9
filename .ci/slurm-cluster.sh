#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for test/distributed/slurm.test.ts: Debian's slurmctld,
# slurmd and munge, the node declaring 4 GPUs as a generic resource by count (Gres=gpu:4). No GPU and
# no NVIDIA device files are needed, but Slurm 22.05's slurmd drops a GPU GRES without File= ("Removing
# file-less GPU gpu:(null) from final GRES list", also with Flags=CountOnly) and the node goes INVAL, so
# gres.conf names four stand-in character devices with /dev/null's numbers (1:3) under /run: nothing
# opens them (TaskPlugin=task/none constrains no devices). Run as root; idempotent (a running cluster
# is left as it is). A few seconds once the packages are installed.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v srun >/dev/null; then
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi

if srun --version >/dev/null 2>&1 && sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then
  echo "slurm: a cluster is running already"; sinfo; exit 0
fi

NODE="$(hostname -s)"
CPUS=8   # more than the machine's cores, so that 4 ranks fit beside anything else (config_overrides trusts it)
mkdir -p /etc/slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm /run/munge
chown -R slurm:slurm /var/lib/slurm /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=cudascript-ci
SlurmctldHost=${NODE}
AuthType=auth/munge
SlurmUser=slurm
SlurmdUser=root
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
GresTypes=gpu
NodeName=${NODE} CPUs=${CPUS} Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
FAKE=/run/cudascript-slurm
mkdir -p "$FAKE"
for i in 0 1 2 3; do [ -e "$FAKE/gpu$i" ] || mknod "$FAKE/gpu$i" c 1 3; done
echo "NodeName=${NODE} Name=gpu File=$FAKE/gpu[0-3]" > /etc/slurm/gres.conf

# munge: a key (the package makes one; make it if missing), then the daemon as its own user.
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
chmod 0400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
# -c: no state from an earlier run (a node marked INVAL by an older configuration stays so otherwise).
pgrep -x slurmctld >/dev/null || slurmctld -c
pgrep -x slurmd >/dev/null || slurmd

for _ in $(seq 1 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then
    sinfo -N -o '%N %T %G %c'
    exit 0
  fi
  scontrol update nodename="${NODE}" state=resume >/dev/null 2>&1 || true
  sleep 0.5
done
echo "slurm: the node did not become idle; its logs:" >&2
sinfo -N -l >&2 || true
tail -n 30 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1

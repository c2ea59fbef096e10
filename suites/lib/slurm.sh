# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# slurm.sh: a Slurm cluster on the namespace nodes of nodes.sh, for suites that
# run rdmacap --launcher srun (vm/slurm.sh, soak/faults-soak.sh). Debian's
# munge, slurmctld and slurmd (22.05), configured per run, every file in one
# directory (SLURM_CONF, munge's socket named in AuthInfo), nothing of the
# machine's /etc read. Source after common.sh and nodes.sh; needs munged,
# slurmctld, slurmd and sinfo.
#
#   slurm_up DIR NAME CTLADDR
#       in DIR (which must exist, mode 755): munged, with a 1,024-byte key made
#       here and its socket a path every namespace reaches; slurmctld in the
#       root namespace at CTLADDR (the nodes' bridge), in its own UTS namespace
#       named ctlNAME as SlurmctldHost says (it refuses to start otherwise);
#       slurm_node_start for every node of NODE_NS. Exports SLURM_CONF, adds
#       the PIDs to SLURM_DAEMONS and returns without waiting (slurm_idle
#       says when the nodes answer: 2-3 s later in the VM)
#   slurm_node_start DIR K
#       node K's slurmd of slurm_up DIR (again after a suite killed it): node
#       nK at NODE_ADDR[K], in namespace NODE_NS[K] with its own UTS and mount
#       namespace: hostname nK, a private /var/spool, cgroup v2 mounted
#       (cgroup.conf: IgnoreSystemd), proctrack/linuxproc, task/none,
#       select/linear, CPUs=2 as the guest has. Its PID added to SLURM_DAEMONS
#   slurm_idle N
#       0 when N nodes are idle (sinfo)
#   slurm_jobs
#       the cluster's jobs, an id a line (squeue: running and completing)
#   slurm_cancel
#       every job of the cluster's partition cancelled (scancel)
#
# nodes_remove "${SLURM_DAEMONS[@]}" stops the cluster: its daemons by PID, a
# slurmd given KillWait (5 s) for its steps' processes.

SLURM_DAEMONS=()
SLURM_PARTITION=rdc

slurm_up() {
	local w=$1 name=$2 ctl=$3 k

	dd if=/dev/urandom of="$w/munge.key" bs=1024 count=1 2>/dev/null &&
		chmod 400 "$w/munge.key" || return 1
	munged --force --foreground --key-file "$w/munge.key" --socket "$w/munge.sock" \
		--pid-file "$w/munged.pid" --log-file "$w/munged.log" --seed-file "$w/munge.seed" \
		3>&- </dev/null 2>"$w/munged.err" &
	SLURM_DAEMONS+=($!)
	mkdir -p "$w/state" || return 1
	{
		echo "ClusterName=rdc$name"
		echo "SlurmctldHost=ctl$name($ctl)"
		echo "AuthType=auth/munge"
		echo "AuthInfo=socket=$w/munge.sock"
		echo "SlurmUser=root"
		echo "StateSaveLocation=$w/state"
		echo "SlurmctldPidFile=$w/slurmctld.pid"
		echo "SlurmdSpoolDir=/var/spool/slurmd"
		echo "SlurmdPidFile=/var/spool/slurmd/slurmd.pid"
		echo "ProctrackType=proctrack/linuxproc"
		echo "TaskPlugin=task/none"
		echo "SelectType=select/linear"
		echo "MpiDefault=none"
		echo "ReturnToService=2"
		echo "KillWait=5"
		for k in "${!NODE_NS[@]}"; do
			echo "NodeName=n$k NodeAddr=${NODE_ADDR[$k]} CPUs=2 State=UNKNOWN"
		done
		echo "PartitionName=$SLURM_PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
	} >"$w/slurm.conf" || return 1
	printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$w/cgroup.conf" || return 1
	export SLURM_CONF=$w/slurm.conf
	# slurmctld authenticates through the socket: it must be there first
	rdc_wait_for 5 test -S "$w/munge.sock" || return 1
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare --uts sh -c 'hostname "$1" && exec slurmctld -D -i -f "$2" -L "$3"' \
		sh "ctl$name" "$w/slurm.conf" "$w/slurmctld.log" 3>&- </dev/null >"$w/slurmctld.out" 2>&1 &
	SLURM_DAEMONS+=($!)
	for k in "${!NODE_NS[@]}"; do
		slurm_node_start "$w" "$k" || return 1
	done
}

slurm_node_start() {
	local w=$1 k=$2

	mkdir -p "$w/spool$k" || return 1
	# shellcheck disable=SC2016 # expanded by the inner sh
	ip netns exec "${NODE_NS[$k]}" unshare --uts --mount --propagation private sh -c '
		hostname "$1" && mount --bind "$2" /var/spool && mkdir -p /var/spool/slurmd &&
		mount -t cgroup2 none /sys/fs/cgroup && mkdir -p /sys/fs/cgroup/system.slice &&
		exec slurmd -D -f "$3" -N "$1" -L "$4"' \
		sh "n$k" "$w/spool$k" "$w/slurm.conf" "$w/slurmd$k.log" 3>&- </dev/null \
		>"$w/slurmd$k.out" 2>&1 &
	SLURM_DAEMONS+=($!)
}

slurm_idle() {
	[ "$(sinfo -h -N -o %T 2>/dev/null | grep -c '^idle')" = "$1" ]
}

slurm_jobs() {
	squeue -h -o %i 2>/dev/null
}

slurm_cancel() {
	scancel --partition "$SLURM_PARTITION" 2>/dev/null
	return 0
}

# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# nodes.sh: network namespaces standing in for machines, each with its own
# veth on one bridge of the VM's root namespace, its own address and its own
# rxe device (needs Linux >= 7.1: rxe in a namespace). Sourced by suites that
# run agents "on other hosts" (vm/slurm.sh); needs ip and rdma.
#
#   nodes_make PREFIX NET N   bridge PREFIXbr at NET.254/24, namespaces
#                             PREFIXn0..n(N-1) at NET.1.., veth PREFIXvK,
#                             rxe PREFIXrK; sets NODE_NS, NODE_ADDR, NODE_DEV
#   nodes_run NAME ARGS...    rdmacap run ARGS (rdc_capture: TAP in
#                             $W/NAME.tap, OUT); what keeps it from 100%,
#                             verified, in why; the hosts' readiness said
#   nodes_spread N HOST...    what the last run's TAP lacks of N clients
#                             spread evenly over the client HOSTs (each a
#                             pattern of its section: "host=NAME role=client
#                             ..."), a section for the server too, the total
#                             and the counters back at baseline, added to why
#   nodes_run_dirs            how many run directories of rdmacap there are
#                             (/tmp/rdmacap-<run>-h<K>: the nodes share /tmp)
#   nodes_sshd DIR            an sshd in each node's namespace, listening only
#                             on its address, keys and config made in DIR (which
#                             must exist, mode 755), each sshd's /root an empty
#                             DIR/home (the VM's own .bashrc may be slow: sshd
#                             runs every command through the user's shell);
#                             exports RDMACAP_SSH_CONFIG, adds the PIDs to
#                             NODE_SSHD, waits until the last node answers
#   nodes_sshd_start DIR K    node K's sshd of nodes_sshd DIR started again
#                             (a suite killed it), its PID added to NODE_SSHD
#   nodes_remove [PID...]     the nodes' daemons (PIDs the suite started)
#                             ended (SIGTERM, SIGKILL 10 s later) and reaped, then rxe links, namespaces
#                             and the bridge (a namespace and its rxe together
#                             race in the kernel's teardown)

NODE_NS=()
NODE_ADDR=()
NODE_DEV=()
NODE_BR=
NODE_SSHD=()

nodes_make() {
	local p=$1 net=$2 n=$3 k
	modprobe -a rdma_rxe ib_uverbs rdma_ucm veth bridge || return 1
	NODE_BR=${p}br
	ip link add "$NODE_BR" type bridge && ip addr add "$net.254/24" dev "$NODE_BR" &&
		ip link set "$NODE_BR" up || return 1
	for ((k = 0; k < n; k++)); do
		NODE_NS+=("${p}n$k")
		NODE_ADDR+=("$net.$((k + 1))")
		NODE_DEV+=("${p}r$k")
		ip netns add "${p}n$k" || return 1
		ip link add "${p}v$k" type veth peer name "${p}b$k" || return 1
		ip link set "${p}v$k" netns "${p}n$k" || return 1
		ip link set "${p}b$k" master "$NODE_BR" up || return 1
		ip -n "${p}n$k" addr add "$net.$((k + 1))/24" dev "${p}v$k" || return 1
		ip -n "${p}n$k" link set "${p}v$k" up && ip -n "${p}n$k" link set lo up || return 1
		ip netns exec "${p}n$k" rdma link add "${p}r$k" type rxe netdev "${p}v$k" || return 1
	done
}

nodes_sshd() {
	local w=$1 k
	ssh-keygen -q -t ed25519 -N '' -f "$w/id" || return 1
	cp "$w/id.pub" "$w/authorized_keys"
	mkdir -p /run/sshd "$w/home"
	chmod 700 "$w/home"
	printf 'Host *\n  IdentityFile %s/id\n  IdentitiesOnly yes\n  User root\n  UserKnownHostsFile %s/known_hosts\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n' \
		"$w" "$w" >"$w/ssh_config"
	for k in "${!NODE_NS[@]}"; do
		ssh-keygen -q -t ed25519 -N '' -f "$w/hostkey$k" || return 1
		echo "${NODE_ADDR[$k]} $(cut -d' ' -f1,2 "$w/hostkey$k.pub")" >>"$w/known_hosts"
		cat >"$w/sshd$k.conf" <<-CONF
			ListenAddress ${NODE_ADDR[$k]}
			Port 22
			HostKey $w/hostkey$k
			PidFile $w/sshd$k.pid
			AuthorizedKeysFile $w/authorized_keys
			PermitRootLogin prohibit-password
			PasswordAuthentication no
			KbdInteractiveAuthentication no
			UsePAM no
			StrictModes no
			Subsystem sftp internal-sftp
			LogLevel ERROR
		CONF
		nodes_sshd_start "$w" "$k"
	done
	export RDMACAP_SSH_CONFIG=$w/ssh_config
	# sshd starts within seconds under TCG: 50 tries 0.2 s apart
	for _ in $(seq 50); do
		ssh -F "$w/ssh_config" -o BatchMode=yes -o ConnectTimeout=5 "${NODE_ADDR[-1]}" true \
			</dev/null 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# node k's sshd, made by nodes_sshd (again after a suite killed it)
nodes_sshd_start() {
	local w=$1 k=$2
	# ip netns exec gives sshd its own mount namespace: the bind stays there
	# shellcheck disable=SC2016 # expanded by the inner sh
	ip netns exec "${NODE_NS[$k]}" sh -c 'mount --bind "$1" /root && exec /usr/sbin/sshd -D -f "$2" -E "$3"' \
		sshd "$w/home" "$w/sshd$k.conf" "$w/sshd$k.log" 3>&- </dev/null &
	NODE_SSHD+=($!)
}

nodes_remove() {
	local k pid
	for pid in "$@"; do
		kill "$pid" 2>/dev/null
	done
	# a slurmd waits KillWait (5 s) for its steps' processes: twice that, then SIGKILL
	for pid in "$@"; do
		rdc_wait_gone "$pid" 10 || kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for k in "${!NODE_NS[@]}"; do
		ip netns exec "${NODE_NS[$k]}" rdma link del "${NODE_DEV[$k]}" 2>/dev/null
	done
	for k in "${!NODE_NS[@]}"; do
		ip netns del "${NODE_NS[$k]}" 2>/dev/null
	done
	[ -z "$NODE_BR" ] || ip link del "$NODE_BR" 2>/dev/null
	return 0
}

nodes_run() {
	local name=$1
	shift
	rdc_capture "$W/$name" run "$@"
	why=$(rdc_clean_why)
	[ -n "$why" ] && { grep -m3 -E 'why=|Bail|cause' "$OUT"; tail -n3 "$W/$name.err"; } | sed 's/^/# /'
	grep -h 'hosts ready' "$W/$name.err" | sed 's/^/# /'
}

nodes_spread() {
	local n=$1 h
	shift
	[ "$(grep -c '# host=' "$OUT")" = $(($# + 1)) ] || why+=" not $(($# + 1)) host sections"
	for h in "$@"; do
		grep -q "$h agents=1 clients=$((n / $#)) connected=$((n / $#)) failed=0" "$OUT" ||
			why+=" ${h%% *} not $((n / $#))/$((n / $#))"
	done
	grep -q "hosts_total hosts=$(($# + 1)) agents=$(($# + 1)) clients=$n connected=$n" "$OUT" ||
		why+=" total"
	grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" counters not back"
}

nodes_run_dirs() {
	find /tmp -mindepth 1 -maxdepth 1 -name 'rdmacap-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-h*' | wc -l
}

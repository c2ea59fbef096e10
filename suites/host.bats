#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# --topology host on this machine: tcp over loopback, nothing created, nothing
# tuned; what the topology's options accept and refuse before anything runs.
# The rxe side (a device rdmacap did not make) is suites/vm/host-topo.sh.

# shellcheck disable=SC2154 # bats' run sets output, stderr and status
load lib/common

setup() {
	rdc_require_rdmacap
}

teardown() {
	rdc_bg_kill
}

# what rdmacap could have changed on this host
host_state() {
	ip netns list 2>/dev/null | grep '^rdc'
	ip -o link show | grep -oE '^[0-9]+: rdc[^:@]*'
	# every sysctl harness/load/tune.c sets (those this host lacks read empty);
	# suites/vm/tune-kill.sh SIGKILLs a run that changed each of them
	for k in net.core.somaxconn vm.max_map_count fs.nr_open net.ipv4.ip_local_port_range \
		net.ipv4.tcp_tw_reuse net.ipv4.tcp_max_syn_backlog net.rdma_ucm.max_backlog; do
		printf '%s=%s\n' "$k" "$(sysctl -n "$k" 2>/dev/null)"
	done
}

@test "--topology host tcp on loopback: 100%, verified, the host as found" {
	local before after
	before=$(host_state)
	rdc_run run --topology host --transport tcp --clients 50 --msgs 5
	assert_success
	[ "$(rdc_out_word connected)" = 50 ]
	[ "$(rdc_out_word verified)" = 250 ]
	[[ "$output" == *"topology=host server=127.0.0.1"* ]]
	after=$(host_state)
	[ "$before" = "$after" ]
}

@test "--topology host: a plan past net.core.somaxconn says it would help, changes nothing" {
	local cur n
	cur=$(sysctl -n net.core.somaxconn)
	n=$((cur + 1))
	[ "$n" -le 20000 ] || skip "net.core.somaxconn is $cur already"
	rdc_run run --topology host --transport tcp --clients "$n" --msgs 1 --timeout 120
	[[ "$output" == *"would_help: net.core.somaxconn=$n (is $cur"* ]]
	[ "$(sysctl -n net.core.somaxconn)" = "$cur" ]
}

@test "--topology host options: refused elsewhere and malformed, exit 2, nothing run" {
	run --separate-stderr "$RDMACAP" run --transport rc --device rxe0
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--device is an option of --topology host"* ]]
	run --separate-stderr "$RDMACAP" run --topology host --transport rc --device 'rxe0:0'
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--device"* ]]
	run --separate-stderr "$RDMACAP" run --topology host --server-addr 10.1.2
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--server-addr"* ]]
	run --separate-stderr "$RDMACAP" run --tune
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--tune is an option of --topology host"* ]]
	run --separate-stderr "$RDMACAP" run --topology pair --hosts a,b
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--hosts runs on --topology host"* ]]
	run --separate-stderr "$RDMACAP" run --hosts '-oProxyCommand=x,b'
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"bad host name"* ]]
	run --separate-stderr "$RDMACAP" run --hosts onlyone
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"a server host and at least one client host"* ]]
	run --separate-stderr "$RDMACAP" run --push
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--push is an option of --hosts"* ]]
	[ -z "$output" ]
}

@test "--launcher: refused without --hosts, with ssh's words or --push; --hosts slurm needs srun and an allocation" {
	run --separate-stderr "$RDMACAP" run --launcher srun
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--launcher is an option of --hosts"* ]]
	run --separate-stderr "$RDMACAP" run --hosts a,b --launcher pbs
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--launcher"* ]]
	run --separate-stderr "$RDMACAP" run --hosts me@a,b --launcher srun
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"user@, :port and [IPv6] are ssh's, not --launcher srun's"* ]]
	run --separate-stderr "$RDMACAP" run --hosts a,b:2222 --launcher mpirun
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"not --launcher mpirun's"* ]]
	run --separate-stderr "$RDMACAP" run --hosts 'a,[fd7a::2]' --launcher mpirun
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--hosts [fd7a::2]: "*"not --launcher mpirun's"* ]]
	run --separate-stderr "$RDMACAP" run --hosts a,b --launcher srun --push
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--push copies with scp"* ]]
	run --separate-stderr "$RDMACAP" run --hosts slurm
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"reached with --launcher srun"* ]]
	run --separate-stderr env -u SLURM_JOB_NODELIST "$RDMACAP" run --hosts slurm --launcher srun
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"not inside a Slurm allocation"* ]]
	[ -z "$output" ]
}

@test "--hosts FILE: an Open MPI hostfile's slots= words are not hosts" {
	local f
	f=$(mktemp /tmp/rdc-hostfile.XXXXXX)
	printf '# nodes\nnode0 slots=2\nnode1 slots=4 max_slots=8\n' >"$f"
	run --separate-stderr "$RDMACAP" run --hosts "$f" --launcher mpirun --clients 0
	rm -f "$f"
	# past the --hosts check: only --clients 0 is refused
	[ "$status" -eq 2 ]
	[[ "$stderr" != *"--hosts"* ]]
	[[ "$stderr" == *"--clients"* ]]
}

@test "--topology host --tune: a SIGKILLed run's sysctl is put back by rdmacap down, said in TAP" {
	local cur n before dir pid i
	rdc_require_root
	cur=$(sysctl -n net.core.somaxconn)
	n=$((cur + 1))
	[ "$n" -le 20000 ] || skip "net.core.somaxconn is $cur already"
	before=$(host_state)
	dir=$(mktemp -d /tmp/rdc-host.XXXXXX)
	# clients at 100 ms a message for 100 s: the point is running when it is killed
	RDC_BG_LOG="$dir/err" rdc_bg sh -c "exec '$RDMACAP' run --topology host --tune \
		--transport tcp --clients $n --msgs 1000 --think-ms 100 --timeout 120 >'$dir/out'"
	pid=$RDC_BG_PID
	for ((i = 0; i < 300; i++)); do
		grep -q "run: $n clients" "$dir/err" && break
		sleep 0.1
	done
	grep -q "^# tuned net.core.somaxconn=$n (was $cur, restored after the run)" "$dir/out"
	[ "$(sysctl -n net.core.somaxconn)" = "$n" ]
	kill -KILL "$pid"
	rdc_run down
	rm -rf "$dir"
	assert_success
	[[ "$output" == *"# restored net.core.somaxconn=$cur (tuned by run "* ]]
	[ "$(host_state)" = "$before" ]
}

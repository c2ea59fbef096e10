#!/bin/bash
# SPDX-License-Identifier: MIT
#
# slurm.sh: rdmacap --hosts slurm --launcher srun, agents as job steps of a
# Slurm allocation, inside the rxe VM with network namespaces standing in for
# nodes (suites/lib/nodes.sh: each its own veth, address and rxe device).
# Debian's munge, slurmctld and slurmd (22.05), configured per run in the
# suite's directory (suites/lib/slurm.sh): slurmctld in the root namespace
# (10.77.0.254), slurmd nK in namespace slN_nK at 10.77.0.K+1.
#
#   1   three slurmd answer: `srun -N3 hostname` says n0, n1 and n2
#   2   salloc -N 3 rdmacap run --hosts slurm --launcher srun --transport rc:
#       40/40, payloads verified, a section per node, every node back at
#       its baseline
#   3   the same with --transport tcp, 200 clients: 100%, verified
#   4   the JSON carries hosts[3] (node names from the allocation), total, and
#       every node back_at_base
#   5   --hosts slurm:n2/DEV2 --server-host n1: the server agents on n1, n2's
#       section names the device given, n0 a client node; rc 20/20
#   6   a client node lost mid-run (every process in n2's namespace, its
#       slurmd, slurmstepd and agent, SIGKILLed during a tcp run's traffic):
#       exit 1, "# host_lost host=n2 role=client", hosts[2].lost in the JSON,
#       n1's 10/10 kept, within 120 s, only n2's run directory left, which
#       down --hosts removes; n2's slurmd started again
#   7   a SIGKILLed rdmacap inside an allocation that outlives it: no agent on
#       any node 10 s later, no step of it left in the job
#   8   rdmacap down --hosts slurm --launcher srun removes the run directories
#       the killed run left on the nodes (its TLS files), as job steps
#   9   the RDMA counters after the suite equal those before it
#
#   timeout 600 vm/run --share $PWD -- suites/vm/slurm.sh
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/nodes.sh
. "$(dirname "$0")/../lib/nodes.sh"
# shellcheck source=../lib/slurm.sh
. "$(dirname "$0")/../lib/slurm.sh"

P=sl$(($$ % 1000))
NET=10.77.0
RDC_TIMEOUT=300
REAL_RDMACAP=$RDMACAP

cleanup() {
	[ -z "${JOB:-}" ] || scancel "$JOB" 2>/dev/null
	nodes_remove "${SLURM_DAEMONS[@]}"
	rm -rf "$W"
}

# agents anywhere: the nodes share this VM's process table
agents_running() { rdc_agents | wc -l; }
three_agents() { [ "$(agents_running)" -ge 3 ]; }
no_agent() { [ "$(agents_running)" = 0 ]; }

# srun_run NAME ARGS...: salloc -N 3 rdmacap run --hosts slurm --launcher srun ARGS
srun_run() {
	local name=$1
	shift
	nodes_run "$name" --hosts slurm --launcher srun --server-addr "${NODE_ADDR[0]}" "$@"
}

rdc_rxe_suite slurm-suite "" munged slurmctld slurmd srun salloc scontrol sinfo
chmod 755 "$W"
trap cleanup EXIT
base=$(rdc_res)
nodes_make "$P" "$NET" 3 || { tap_skip_all "could not make the namespace nodes"; exit 4; }
slurm_up "$W" "$P" "$NET.254" || { tap_skip_all "could not start munged and Slurm"; exit 4; }
tap_plan 9
# srun inside an allocation: every rdmacap below runs as `salloc -N 3 rdmacap ...`
printf '#!/bin/sh\nexec salloc -Q -N 3 %q "$@"\n' "$REAL_RDMACAP" >"$W/alloc"
chmod 755 "$W/alloc"
RDMACAP=$W/alloc

rdc_wait_for 60 slurm_idle 3
names=$(timeout 60 srun -N3 hostname 2>"$W/srun.err" | sort | paste -sd, -)
if [ "$names" = n0,n1,n2 ]; then
	tap_ok "three slurmd, one per namespace: srun -N3 hostname says $names"
else
	tap_diag "sinfo: $(sinfo -h -N -o '%N %T' 2>&1 | paste -sd';' -)"
	tail -n3 "$W/srun.err" "$W/slurmctld.log" "$W/slurmd1.log" 2>/dev/null | sed 's/^/# /'
	tap_fail "three slurmd answer srun" "got '$names'"
fi

srun_run rc --transport rc --clients 40 --msgs 10 --json "$W/rc.json"
nodes_spread 40 "host=n1 role=client .*" "host=n2 role=client .*"
if [ -z "$why" ]; then tap_ok "srun, rc over 3 nodes: 40/40, verified, 20 per client node, every node back at baseline"; else tap_fail "srun, rc over 3 nodes" "$why"; fi

srun_run tcp --transport tcp --clients 200 --msgs 5
if [ -z "$why" ]; then tap_ok "srun, tcp over 3 nodes: 200/200, verified"; else tap_fail "srun, tcp over 3 nodes" "$why"; fi

why=
jq -e '[.points[0].hosts[].host] == ["n0", "n1", "n2"]' "$W/rc.json" >/dev/null || why+=" hosts[] names"
jq -e '.points[0].total.connected == 40' "$W/rc.json" >/dev/null || why+=" total"
jq -e '[.points[0].hosts[] | .back_at_base] | all' "$W/rc.json" >/dev/null || why+=" back_at_base"
if [ -z "$why" ]; then tap_ok "JSON: hosts[] n0, n1, n2 from the allocation, total 40, every node back at base"; else tap_fail "JSON per node" "$why"; fi

nodes_run server-host --hosts "slurm:n2/${NODE_DEV[2]}" --server-host n1 --launcher srun \
	--server-addr "${NODE_ADDR[1]}" --transport rc --clients 20 --msgs 5
grep -q "# host=n1 role=server " "$OUT" || why+=" n1 not the server host"
grep -q "# host=n0 role=client " "$OUT" || why+=" n0 not a client node"
grep -q "# host=n2 role=client device=${NODE_DEV[2]} " "$OUT" || why+=" n2's device not ${NODE_DEV[2]}"
if [ -z "$why" ]; then tap_ok "--hosts slurm:n2/${NODE_DEV[2]} --server-host n1: server on n1, n2 on its named device, 20/20"; else tap_fail "--hosts slurm:NODE/DEV --server-host" "$why"; fi

# at least N of the server node's data connections (those from the client
# nodes) have echoed data: the traffic runs (ss shows bytes_acked once non-zero)
srv_traffic() {
	[ "$(ip netns exec "${NODE_NS[0]}" ss -Htni state established "( dst ${NODE_ADDR[1]} or dst ${NODE_ADDR[2]} )" |
		grep -c bytes_acked)" -ge "$1" ]
}

why=
t0=
# run directories of rdmacap already there (a suite before this one may have left some)
dirs0=$(nodes_run_dirs)
"$RDMACAP" run --hosts slurm --launcher srun --server-addr "${NODE_ADDR[0]}" --transport tcp \
	--clients 20 --msgs 600 --think-ms 25 --timeout 20 --json "$W/lost.json" >"$W/lost.tap" 2>"$W/lost.err" \
	3>&- </dev/null &
orch=$!
if rdc_wait_for 120 srv_traffic 20; then
	sleep 1
	t0=${EPOCHREALTIME%.*}
	for p in $(ip netns pids "${NODE_NS[2]}"); do kill -KILL "$p" 2>/dev/null; done
else
	why+=" no traffic on 20 connections;"
fi
rdc_wait_gone "$orch" 120 || { why+=" still running 120 s after;"; kill -KILL "$orch"; }
wait "$orch"
RC=$?
dt=$((${EPOCHREALTIME%.*} - ${t0:-${EPOCHREALTIME%.*}}))
sed -n '/host_lost\|# host=\|why=/s/^ */# /p' "$W/lost.tap" | cut -c1-300
tail -n 4 "$W/lost.err" | sed 's/^/# err: /'
[ "$RC" = 1 ] || why+=" exit $RC;"
grep -q "# host_lost host=n2 role=client " "$W/lost.tap" || why+=" n2 not named lost;"
grep -q "# host=n1 role=client .* clients=10 connected=10 failed=0 " "$W/lost.tap" ||
	why+=" n1's figures missing;"
jq -e '.points[0].hosts[2].lost.cause | length > 0' "$W/lost.json" >/dev/null 2>&1 ||
	why+=" no hosts[2].lost in the JSON;"
slurm_node_start "$W" 2
scontrol update nodename=n2 state=resume >/dev/null 2>&1
rdc_wait_for 60 slurm_idle 3 || why+=" n2 not idle again;"
rdc_wait_for 30 no_agent || why+=" agents left;"
# the lost node's run directory stays (the run does not reach it again): down removes it
[ "$(nodes_run_dirs)" = $((dirs0 + 1)) ] ||
	why+=" $(nodes_run_dirs) run directories, not n2's one beside the $dirs0 before;"
"$RDMACAP" down --hosts slurm --launcher srun >"$W/lostdown.tap" 2>&1 || why+=" down --hosts: exit $?;"
[ "$(nodes_run_dirs)" = 0 ] || why+=" run directories left after down --hosts;"
if [ -z "$why" ]; then tap_ok "srun: client node n2 lost (its processes SIGKILLed) mid-run: named, exit 1 ${dt} s after, n1's figures kept"; else tap_fail "srun: a client node lost mid-run" "${dt} s:$why"; fi

# an allocation that outlives rdmacap: its steps must end with rdmacap, not with the job
JOB=$(salloc -N 3 --no-shell 2>&1 | tee "$W/hold.err" | grep -o 'allocation [0-9]*' | grep -o '[0-9]*')
export SLURM_JOB_ID=$JOB
SLURM_JOB_NODELIST=$(squeue -h -j "$JOB" -o %N)
export SLURM_JOB_NODELIST
"$REAL_RDMACAP" run --hosts slurm --launcher srun \
	--server-addr "${NODE_ADDR[0]}" --transport tcp --clients 20 --msgs 100000 --think-ms 20 \
	>"$W/killed.tap" 2>"$W/killed.err" 3>&- </dev/null &
orch=$!
rdc_wait_for 60 three_agents
seen=$(agents_running)
kill -KILL "$orch"
wait "$orch" 2>/dev/null
t0=${EPOCHREALTIME%.*}
rdc_wait_for 10 no_agent
gone=$((${EPOCHREALTIME%.*} - t0))
left=$(agents_running)
steps=$(squeue -h -s -j "$JOB" -o %i 2>/dev/null | grep -vc '\.extern$')
if [ -n "$JOB" ] && [ "$seen" -ge 3 ] && [ "$left" = 0 ] && [ "$steps" = 0 ]; then
	tap_ok "SIGKILLed rdmacap in job $JOB: $seen agents before, none on any node ${gone} s after, no step left"
else
	pids=$(rdc_agents | paste -sd, -)
	[ -z "$pids" ] || ps -o pid,args -p "$pids" | sed 's/^/# /'
	tail -n3 "$W/killed.err" "$W/hold.err" | sed 's/^/# /'
	tap_fail "SIGKILLed rdmacap" "job '$JOB', agents before $seen, after 10 s $left, steps $steps"
fi

dirs=$(nodes_run_dirs)
"$REAL_RDMACAP" down --hosts slurm --launcher srun >"$W/down.tap" 2>&1
RC=$?
if [ "$RC" = 0 ] && [ "$dirs" = 3 ] && [ "$(nodes_run_dirs)" = 0 ] && grep -q '^ok 1 down --hosts' "$W/down.tap"; then
	tap_ok "down --hosts slurm --launcher srun: the killed run's $dirs run directories removed, as job steps"
else
	tap_fail "down --hosts slurm --launcher srun" "exit $RC, dirs before $dirs after $(nodes_run_dirs)"
fi
scancel "$JOB" 2>/dev/null
unset SLURM_JOB_ID SLURM_JOB_NODELIST
JOB=

nodes_remove "${SLURM_DAEMONS[@]}"
SLURM_DAEMONS=()
rdc_res_back "$base"
tap_totals
exit "$(tap_exit_code)"

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# hosts.sh: rdmacap --hosts, agents on other hosts through OpenSSH, inside the
# rxe VM with network namespaces standing in for hosts. Each namespace runs its
# own sshd (Debian's openssh-server: host key, authorized key and config made
# here per run, listening only on that namespace's address, killed by pid at
# the end) and has its own rxe device on its own veth. Each sshd sees an empty
# /root of the suite's (a bind mount in its own mount namespace): the VM's
# /root is the machine's, whose .bashrc may be slow (sshd runs every command
# through the user's shell, and bash reads .bashrc for ssh commands):
#
#   hsN0 10.78.0.1 (server host)   hsN1 10.78.0.2, hsN2 10.78.0.3 (client hosts)
#
# all on a bridge in the VM's root namespace (10.78.0.254), where rdmacap runs
# with RDMACAP_SSH_CONFIG naming the suite's ssh config (key, known hosts).
#
#   1   every namespace's sshd answers (BatchMode, the suite's key only)
#   2   rc over the three hosts: 100%, payloads verified, a section per host
#       with its own device, every host's counters back at its baseline
#   3   tcp over the three hosts: 100%, verified
#   4   --push (scp the agent, ldd there) then tcp: 100%
#   5   --launcher mpirun (Open MPI, its daemon over the same sshd), rc: as 2
#   6   the JSON carries hosts[3] and total; rdmacap report draws the per-host table
#   7   an unreachable host: fails at once, named, nothing left on any host
#   8   a host without the agent (--agent-path): fails at once, named, nothing left
#   9   a SIGKILLed orchestrator: no agent on any host 10 s later
#   10  the same under --launcher mpirun (mpirun gets SIGTERM, ends its job)
#   11  rdmacap down --hosts removes what those runs left (their run directories)
#   12  a client host lost mid-run, its veth taken down inside its namespace
#       during the traffic of a tcp run (20 clients, ~15 s of round trips):
#       exit 1, "# host_lost host=... role=client" and hosts[1].lost in the
#       JSON, the other client host's 10/10 kept, within LOST_S, nothing left
#       on the other hosts; once its link is back, down --hosts leaves nothing
#   13  the same with the client host's sshd and agents SIGKILLed
#   14  the server host lost (link down): named, the point's why names it,
#       both client hosts' figures kept
#   15  the server host's sshd and agents SIGKILLed: as 14
#   16  --launcher mpirun, a client host's link down: as 12
#   17  --launcher mpirun, the server host's processes SIGKILLed: as 15
#
#   timeout 900 vm/run --mem 3G --share $PWD -- suites/vm/hosts.sh
#   HOSTS_ONLY=lost (vm/run --env HOSTS_ONLY=lost): tests 1 and 12-17 only
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/nodes.sh
. "$(dirname "$0")/../lib/nodes.sh"

P=hs$(($$ % 1000))
ADDR=(10.78.0.1 10.78.0.2 10.78.0.3)
DEV=("${P}r0" "${P}r1" "${P}r2")
RDC_TIMEOUT=600
# a lost host is named and the run ends within this: ssh notices a silent
# peer in ~6 s; a launcher that does not is named at the traffic deadline
# (40 s after the traffic starts, lost() below), then the stop and the other
# hosts' readings (mpirun's link down in the VM: 95 s)
LOST_S=120

cleanup() {
	nodes_remove "${NODE_SSHD[@]}"
	rm -rf "$W"
}

# the three hosts: namespace, veth into the bridge, address, rxe, sshd
make_hosts() {
	# the names nodes.sh gives are ADDR and DEV above
	nodes_make "$P" 10.78.0 3 && nodes_sshd "$W"
}

ssh_ok() { ssh -F "$W/ssh_config" -o BatchMode=yes -o ConnectTimeout=5 "$1" true </dev/null; }

# agents anywhere: the hosts share this VM's process table
agents_running() { rdc_agents | wc -l; }
three_agents() { [ "$(agents_running)" -ge 3 ]; }
no_agents() { [ "$(agents_running)" = 0 ]; }

HOSTS_RC="${ADDR[0]}/${DEV[0]},${ADDR[1]}/${DEV[1]},${ADDR[2]}/${DEV[2]}"
HOSTS_TCP="${ADDR[0]},${ADDR[1]},${ADDR[2]}"

rdc_rxe_suite hosts-suite "" /usr/sbin/sshd ssh rdma
chmod 755 "$W"
trap cleanup EXIT
make_hosts || { tap_skip_all "could not make the namespace hosts"; exit 4; }
# HOSTS_ONLY=lost: test 1 and the lost-host tests only
if [ "${HOSTS_ONLY:-}" = lost ]; then
	tap_plan 7
else
	tap_plan 17
fi
for _ in $(seq 50); do ssh_ok "${ADDR[2]}" 2>/dev/null && break; sleep 0.2; done

ok=0
login=0
for k in 0 1 2; do
	t0=${EPOCHREALTIME%.*}
	ssh_ok "${ADDR[$k]}" || ok=1
	dt=$((${EPOCHREALTIME%.*} - t0))
	[ "$dt" -gt "$login" ] && login=$dt
done
tap_result "$([ $ok = 0 ] && echo pass || echo fail)" "three sshd, one per namespace, answer the suite's key in BatchMode"
# "at once": a few logins (seconds under TCG, more when the host is loaded), not a deadline
AT_ONCE=$((3 * login + 10))
tap_diag "one ssh login took up to ${login} s (guest load $(cut -d' ' -f1-3 /proc/loadavg)): a failing run must end within ${AT_ONCE} s"

base_tests() {
	nodes_run rc --hosts "$HOSTS_RC" --transport rc --clients 40 --msgs 10 --json "$W/rc.json"
	nodes_spread 40 "host=${ADDR[1]} role=client device=${DEV[1]}" "host=${ADDR[2]} role=client device=${DEV[2]}"
	if [ -z "$why" ]; then tap_ok "rc over 3 hosts: 40/40, verified, each host 20 on its own device, every host back at baseline"; else tap_fail "rc over 3 hosts" "$why"; fi

	nodes_run tcp --hosts "$HOSTS_TCP" --transport tcp --clients 200 --msgs 5
	if [ -z "$why" ]; then tap_ok "tcp over 3 hosts: 200/200, verified"; else tap_fail "tcp over 3 hosts" "$why"; fi

	nodes_run push --hosts "$HOSTS_TCP" --push --transport tcp --clients 20 --msgs 5
	grep -q "rdmacap-agent" "$W/push.err" && grep -q "/tmp/rdmacap-.*-h1/rdmacap-agent" "$W/push.err" ||
		why+=" the pushed path not used"
	if [ -z "$why" ]; then tap_ok "--push: the agent copied to each host's run directory, libraries checked, 100%"; else tap_fail "--push" "$why"; fi

	# Open MPI: one mpirun per agent, its daemon started over the same sshd and ssh config
	[ -z "$MPIRUN" ] || {
		nodes_run mpirun --hosts "$HOSTS_RC" --launcher mpirun --transport rc --clients 40 --msgs 10
		nodes_spread 40 "host=${ADDR[1]} role=client device=${DEV[1]}" "host=${ADDR[2]} role=client device=${DEV[2]}"
	}
	if [ -z "$MPIRUN" ]; then
		tap_skip "--launcher mpirun" "no mpirun (Debian openmpi-bin)"
	elif [ -z "$why" ]; then tap_ok "--launcher mpirun, rc over 3 hosts: 40/40, verified, each host 20 on its own device, back at baseline"; else tap_fail "--launcher mpirun, rc over 3 hosts" "$why"; fi

	why=
	jq -e '.points[0].hosts | length == 3' "$W/rc.json" >/dev/null || why+=" hosts[]"
	jq -e '.points[0].total.connected == 40' "$W/rc.json" >/dev/null || why+=" total"
	jq -e '[.points[0].hosts[] | .back_at_base] | all' "$W/rc.json" >/dev/null || why+=" back_at_base"
	"$RDMACAP" report "$W/rc.json" >"$W/report.md" 2>&1 || why+=" report exit $?"
	grep -q "| ${ADDR[1]} | client |" "$W/report.md" || why+=" no per-host table"
	if [ -z "$why" ]; then tap_ok "JSON: hosts[3] and total; rdmacap report draws the per-host table"; else tap_fail "JSON and report per host" "$why"; fi

	t0=${EPOCHREALTIME%.*}
	rdc_rdmacap run --hosts "${ADDR[0]},10.78.0.99" --transport tcp --clients 2 >"$W/unreach.tap" 2>&1
	RC=$?
	dt=$((${EPOCHREALTIME%.*} - t0))
	if [ "$RC" != 0 ] && grep -q "10.78.0.99: unreachable" "$W/unreach.tap" && [ "$dt" -le "$AT_ONCE" ] &&
		[ "$(nodes_run_dirs)" = 0 ] && [ "$(agents_running)" = 0 ]; then
		tap_ok "an unreachable host: exit $RC in ${dt} s, named, nothing left"
	else
		tap_fail "an unreachable host" "exit $RC in $dt s, dirs $(nodes_run_dirs), agents $(agents_running): $(grep -m1 Bail "$W/unreach.tap")"
	fi

	t0=${EPOCHREALTIME%.*}
	rdc_rdmacap run --hosts "$HOSTS_TCP" --agent-path /nonexistent/rdmacap-agent --transport tcp \
		--clients 2 >"$W/noagent.tap" 2>&1
	RC=$?
	dt=$((${EPOCHREALTIME%.*} - t0))
	if [ "$RC" != 0 ] && grep -q "no agent at /nonexistent/rdmacap-agent" "$W/noagent.tap" &&
		[ "$dt" -le "$AT_ONCE" ] && [ "$(nodes_run_dirs)" = 0 ] && [ "$(agents_running)" = 0 ]; then
		tap_ok "a host without the agent: exit $RC in ${dt} s, named, nothing left"
	else
		tap_fail "a host without the agent" "exit $RC in $dt s, dirs $(nodes_run_dirs), agents $(agents_running): $(grep -m1 Bail "$W/noagent.tap")"
	fi

	# killed NAME ARGS...: a tcp run with ARGS SIGKILLed while its agents run, one TAP result
	killed() {
		local name=$1 orch seen left pids
		shift
		"$RDMACAP" run --hosts "$HOSTS_TCP" "$@" --transport tcp --clients 20 --msgs 100000 \
			--think-ms 20 >"$W/$name.tap" 2>&1 3>&- </dev/null &
		orch=$!
		rdc_wait_for 60 three_agents
		seen=$(agents_running)
		kill -KILL "$orch"
		wait "$orch" 2>/dev/null
		sleep 10
		left=$(agents_running)
		if [ "$seen" -ge 3 ] && [ "$left" = 0 ]; then
			tap_ok "$name: SIGKILLed orchestrator: $seen agents running before, none on any host 10 s after"
		else
			pids=$(rdc_agents | paste -sd, -)
			[ -z "$pids" ] || ps -o pid,args -p "$pids" | sed 's/^/# /'
			tap_fail "$name: SIGKILLed orchestrator" "agents before $seen, after 10 s $left"
		fi
	}

	killed ssh
	if [ -n "$MPIRUN" ]; then killed mpirun --launcher mpirun; else tap_skip "mpirun: SIGKILLed orchestrator" "no mpirun"; fi

	dirs=$(nodes_run_dirs)
	rdc_rdmacap down --hosts "$HOSTS_TCP" >"$W/down.tap" 2>&1
	RC=$?
	if [ "$RC" = 0 ] && [ "$dirs" -ge 1 ] && [ "$(nodes_run_dirs)" = 0 ] && grep -q '^ok 1 down --hosts' "$W/down.tap"; then
		tap_ok "down --hosts: the killed run's $dirs run directories removed from every host"
	else
		tap_fail "down --hosts" "exit $RC, dirs before $dirs after $(nodes_run_dirs)"
	fi
}

# the rdmacap-agent processes in host k's namespace
agents_on() {
	local p n=0
	for p in $(ip netns pids "${NODE_NS[$1]}"); do
		case $(readlink "/proc/$p/exe" 2>/dev/null) in */rdmacap-agent*) n=$((n + 1)) ;; esac
	done
	echo "$n"
}

# at least N of the server host's data connections (those from the client
# hosts) have echoed data: the traffic runs (ss shows bytes_acked once non-zero)
srv_traffic() {
	[ "$(ip netns exec "${NODE_NS[0]}" ss -Htni state established "( dst ${ADDR[1]} or dst ${ADDR[2]} )" |
		grep -c bytes_acked)" -ge "$1" ]
}

# every rdmacap-agent of the suite's hosts gone, and what rdmacap down --hosts
# leaves: nothing (the lost host's agent ends once its link is back)
lost_cleanup() {
	rdc_rdmacap down --hosts "$HOSTS_TCP" "$@" >"$W/lostdown.tap" 2>&1
	rdc_wait_for 30 no_agents
}

# lost NAME K HOW [ARGS...]: a tcp run of 20 clients over the three hosts, host K
# lost once every client is connected and the traffic runs (about 15 s of it:
# 600 round trips 25 ms apart; --timeout 20: a silent host is named at the
# traffic deadline, 20 + 15 + 5 s after the "run"): HOW "link" takes its veth down inside its
# namespace, "kill" SIGKILLs every process in its namespace (its sshd, the
# sessions and agents under it, all started by this suite). One TAP result.
lost() {
	local name=$1 k=$2 how=$3 orch t0 dt rc=0 role=client why='' p f host=${ADDR[$2]}
	shift 3
	[ "$k" = 0 ] && role=server
	"$RDMACAP" run --hosts "$HOSTS_TCP" "$@" --transport tcp --clients 20 --msgs 600 \
		--think-ms 25 --timeout 20 --json "$W/$name.json" >"$W/$name.tap" 2>"$W/$name.err" 3>&- </dev/null &
	orch=$!
	rdc_wait_for 120 srv_traffic 20 || why+=" no traffic on 20 connections;"
	sleep 1
	t0=${EPOCHREALTIME%.*}
	case $how in
	link) ip -n "${NODE_NS[$k]}" link set "${P}v$k" down ;;
	kill) for p in $(ip netns pids "${NODE_NS[$k]}"); do kill -KILL "$p" 2>/dev/null; done ;;
	esac
	rdc_wait_gone "$orch" "$LOST_S" || { why+=" still running ${LOST_S} s after;"; kill -KILL "$orch"; }
	wait "$orch" || rc=$?
	dt=$((${EPOCHREALTIME%.*} - t0))
	f=$W/$name.tap
	sed -n '/host_lost\|# host=\|why=/s/^ */# /p' "$f" | cut -c1-400
	tail -n 5 "$W/$name.err" | sed 's/^/# err: /'
	[ "$rc" = 1 ] || why+=" exit $rc;"
	grep -q "# host_lost host=$host role=$role " "$f" || why+=" $host not named lost;"
	jq -e ".points[0].hosts[$k].lost.cause | length > 0" "$W/$name.json" >/dev/null 2>&1 ||
		why+=" no hosts[$k].lost in the JSON;"
	if [ "$k" = 0 ]; then
		grep -q "why=.*server host $host lost" "$f" || why+=" why does not name the server host;"
		for p in 1 2; do
			grep -q "# host=${ADDR[$p]} role=client .* clients=10 connected=10 " "$f" ||
				why+=" ${ADDR[$p]}'s figures missing;"
		done
	else
		grep -q "# host=${ADDR[2]} role=client .* clients=10 connected=10 failed=0 " "$f" ||
			why+=" ${ADDR[2]}'s figures missing;"
		jq -e '.points[0].hosts[2].connected == 10' "$W/$name.json" >/dev/null 2>&1 ||
			why+=" hosts[2] not in the JSON;"
	fi
	for p in 0 1 2; do
		[ "$p" = "$k" ] && continue
		[ "$(agents_on "$p")" = 0 ] || why+=" agents left on ${ADDR[$p]};"
		! compgen -G "/tmp/rdmacap-*-h$p" >/dev/null || why+=" run directory left on ${ADDR[$p]};"
	done
	# the lost host back: its sshd again, or its link
	case $how in
	link) ip -n "${NODE_NS[$k]}" link set "${P}v$k" up ;;
	kill) nodes_sshd_start "$W" "$k" ;;
	esac
	rdc_wait_for 30 ssh_ok "$host" 2>/dev/null || why+=" $host did not come back;"
	lost_cleanup "$@"
	[ "$(agents_running)" = 0 ] || why+=" agents left after down --hosts;"
	[ "$(nodes_run_dirs)" = 0 ] || why+=" run directories left after down --hosts;"
	if [ -z "$why" ]; then
		tap_ok "$name: $role host $host lost ($how) mid-run: named, exit 1 ${dt} s after, the other hosts' figures kept, nothing left"
	else
		tap_fail "$name: $role host $host lost ($how) mid-run" "${dt} s:$why"
	fi
}

lost_tests() {
	lost lost-cli-link 1 link
	lost lost-cli-kill 1 kill
	lost lost-srv-link 0 link
	lost lost-srv-kill 0 kill
	if [ -z "$MPIRUN" ]; then
		tap_skip "mpirun: a host lost" "no mpirun (Debian openmpi-bin)"
		tap_skip "mpirun: a host lost" "no mpirun (Debian openmpi-bin)"
	else
		lost lost-mpi-cli-link 1 link --launcher mpirun
		lost lost-mpi-srv-kill 0 kill --launcher mpirun
	fi
}

MPIRUN=$(command -v mpirun)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ "${HOSTS_ONLY:-}" = lost ] || base_tests
lost_tests
tap_totals
exit "$(tap_exit_code)"

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
#
#   timeout 900 vm/run --mem 3G --share $PWD -- suites/vm/hosts.sh
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

HOSTS_RC="${ADDR[0]}/${DEV[0]},${ADDR[1]}/${DEV[1]},${ADDR[2]}/${DEV[2]}"
HOSTS_TCP="${ADDR[0]},${ADDR[1]},${ADDR[2]}"

rdc_rxe_suite hosts-suite "" /usr/sbin/sshd ssh rdma
chmod 755 "$W"
trap cleanup EXIT
make_hosts || { tap_skip_all "could not make the namespace hosts"; exit 4; }
tap_plan 11

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
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=$(command -v mpirun)
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
tap_totals
exit "$(tap_exit_code)"

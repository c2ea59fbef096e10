#!/bin/bash
# SPDX-License-Identifier: MIT
#
# poll.sh: rdmacap run --transport rc with each --poll mode, and the setup step
# figures of each --cm, on a real rxe pair (the VM):
#
#   vm/run --share $PWD -- suites/vm/poll.sh
#
# Each --poll event|busy|adaptive passes a POLL_CLIENTS point (default 100) with
# every payload verified and the RDMA resource counters back to their baseline,
# and its pollers did what the mode says (the records' cq_events, cq_arms,
# cq_spins; JSON poll.server and poll.agents): event arms again on every event
# and never spins, busy spins and never arms. adaptive at one client spins
# across a ping-pong's gaps (spins, and most echoes found without an event) and
# arms once the traffic stops (the server arms again after its spin, on top of
# the arm of its first message); --server-model thread has its own poller, so
# busy runs there once too. A spinning loop gets a CPU of its own: in a busy
# and an adaptive one-client point the point's cpus figure binds the server
# agent and the client agent to two different single CPUs, and /proc's
# Cpus_allowed_list of each agent, read while the point runs, says the same;
# an event point binds nothing. Then
# each --cm must report a p50 and p99 for every setup step it has, in TAP and
# in JSON, and the JSON of the other manager's steps stays 0.
#
# TAP 13 on stdout, each point's figures as "# key=value"; exit 0 pass, 1 fail,
# 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

N=${POLL_CLIENTS:-100}
M1=2000	# round trips of the one-client points
W=

# pt NAME ARGS...: one point; its TAP in $W/NAME.tap, its JSON point in $W/NAME.json
pt() {
	local name=$1 rc=0
	shift
	rdc_rdmacap run --transport rc --size 64 --json "$W/$name.all.json" "$@" \
		>"$W/$name.tap" 2>"$W/$name.err" || rc=$?
	jq '.points[0]' "$W/$name.all.json" >"$W/$name.json" 2>/dev/null || echo '{}' >"$W/$name.json"
	return "$rc"
}

j() {
	jq -r "$2" "$W/$1.json"
}

# ptw NAME ARGS...: pt, and every agent's "ROLE CPU" read from /proc every 50 ms
# while it runs (at most 60 s), into $W/NAME.cpus: the single CPUs its
# Cpus_allowed_list named (before an agent binds itself it has them all)
ptw() {
	local name=$1 pid i p c rc=0
	pt "$@" &
	pid=$!
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		for p in /proc/[0-9]*; do
			c=
			{ read -r c <"$p/comm"; } 2>/dev/null
			[ "$c" = rdmacap-agent ] || continue
			echo "$(tr '\0' '\n' <"$p/cmdline" 2>/dev/null | sed -n 's/^--role=//p')" \
				"$(sed -n 's/^Cpus_allowed_list:\t//p' "$p/status" 2>/dev/null)"
		done
		sleep 0.05
	done | grep -E '^(server|client) [0-9]+$' | sort -u >"$W/$name.cpus"
	wait "$pid" || rc=$?
	return "$rc"
}

# t_pinned NAME MODE: the point bound its server agent and its client agent to two
# different single CPUs (its cpus figure), and /proc saw each agent there
t_pinned() {
	local name=$1 mode=$2 cpus srv cli seen
	cpus=$(j "$name" '.poll.cpus // ""')
	srv=$(sed -n 's/^srv0:\([0-9]*\),cli0:[0-9]*$/\1/p' <<<"$cpus")
	cli=$(sed -n 's/^srv0:[0-9]*,cli0:\([0-9]*\)$/\1/p' <<<"$cpus")
	seen=$(tr '\n' ';' <"$W/$name.cpus")
	tap_kv "${name}_cpus" "$cpus"
	tap_kv "${name}_proc_cpus" "$seen"
	if [ -n "$srv" ] && [ -n "$cli" ] && [ "$srv" != "$cli" ] &&
	   [ "$seen" = "client $cli;server $srv;" ]; then
		tap_ok "--poll $mode: 1 client, server agent on CPU $srv, client agent on CPU $cli"
	else
		tap_fail "--poll $mode: 1 client, server and client agents on CPUs of their own" \
			"cpus='$cpus' /proc: '$seen'"
	fi
}

# the point passed, every round trip came back verified, nothing leaked
t_clean() {
	local name=$1 desc=$2 rc=$3 exp ver bad leak

	exp=$(j "$name" '.traffic.expected // 0')
	ver=$(j "$name" '.traffic.verified // -1')
	bad=$(j "$name" '.traffic.bad // -1')
	leak=$(j "$name" '.resources.leak | tostring')
	tap_kv "${name}_lat_us_p50" "$(j "$name" '.traffic.lat_us.p50 // 0')"
	tap_kv "${name}_msgs_per_s" "$(j "$name" '.traffic.msgs_per_s // 0')"
	if [ "$rc" = 0 ] && [ "$exp" -gt 0 ] && [ "$ver" = "$exp" ] && [ "$bad" = 0 ] &&
	   [ "$leak" = false ]; then
		tap_ok "$desc"
	else
		sed 's/^/# /' "$W/$name.err" | tail -5
		tap_fail "$desc" "exit=$rc expected=$exp verified=$ver bad=$bad leak=$leak"
	fi
}

# t_cq NAME DESC JQ-CHECK: the point's poller counters (.poll) meet the check
t_cq() {
	local name=$1 desc=$2 check=$3 cq

	cq=$(j "$name" '.poll | tostring')
	tap_kv "${name}_poll" "$cq"
	if [ "$(j "$name" ".poll as \$p | $check")" = true ]; then
		tap_ok "$desc"
	else
		tap_fail "$desc" "poll=$cq"
	fi
}

# t_steps NAME CM STEPS-OF-CM OTHER-STEPS
t_steps() {
	local name=$1 cm=$2 mine=$3 other=$4 s bad=''

	for s in $mine; do
		grep -Eq "^ *# .*setup_${s}_us_p50=[0-9.]+ setup_${s}_us_p99=[0-9.]+" "$W/$name.tap" ||
			bad="$bad tap:$s"
		[ "$(j "$name" ".setup_us.$s.p50 > 0 and .setup_us.$s.p99 >= .setup_us.$s.p50")" = true ] ||
			bad="$bad json:$s"
		tap_kv "${cm}_${s}_us_p50" "$(j "$name" ".setup_us.$s.p50")"
		tap_kv "${cm}_${s}_us_p99" "$(j "$name" ".setup_us.$s.p99")"
	done
	for s in $other; do
		grep -q "setup_${s}_us" "$W/$name.tap" && bad="$bad tap-other:$s"
		[ "$(j "$name" ".setup_us.$s.p50")" = 0 ] || bad="$bad json-other:$s"
	done
	if [ -z "$bad" ]; then
		tap_ok "--cm $cm: p50/p99 of every setup step in TAP and JSON"
	else
		tap_fail "--cm $cm: p50/p99 of every setup step in TAP and JSON" "missing:$bad"
	fi
}

# the checks of t_cq are jq, whose $p must reach it unexpanded
# shellcheck disable=SC2016
main() {
	local m rc
	local cm_steps='resolve_addr create_qp resolve_route established'
	local oob_steps='create_qp tls exchange rtr_rts'

	rdc_rxe_suite poll "" jq
	tap_plan 15
	for m in event busy adaptive; do
		rc=0
		pt "$m" --clients "$N" --msgs 20 --poll "$m" || rc=$?
		t_clean "$m" "--poll $m: $N clients, payloads verified, counters back to baseline" "$rc"
	done
	t_cq event "--poll event: every side arms again after its events and never spins" \
		'[$p.server, $p.agents] | all(.arms > 0 and .arms >= .events and .spins == 0)'
	t_cq busy "--poll busy: every side spins and never arms" \
		'[$p.server, $p.agents] | all(.arms == 0 and .spins > 0)'
	t_cq adaptive "--poll adaptive: $N clients arm again, as event does (each CQ's gaps are long)" \
		'[$p.server, $p.agents] | all(.arms > 0)'
	if [ -z "$(j event '.poll.cpus // ""')$(j event '.poll.not_pinned // ""')" ] &&
	   ! grep -Eq 'cpus=|not pinned' "$W/event.tap"; then
		tap_ok "--poll event: no agent bound to a CPU"
	else
		tap_fail "--poll event: no agent bound to a CPU" "$(grep -E 'cpus=|not pinned' "$W/event.tap")"
	fi
	# 2,000 round trips of ~200-300 us keep the client agent up for about half a
	# second, several of ptw's scans of /proc (50 ms apart, slower under TCG): a
	# point of 200 can begin and end between two of them
	rc=0
	ptw adaptive1 --clients 1 --msgs "$M1" --poll adaptive || rc=$?
	t_clean adaptive1 "--poll adaptive: 1 client, payloads verified, counters back to baseline" "$rc"
	t_cq adaptive1 "--poll adaptive: 1 client spins across its gaps, then the server arms again" \
		"[\$p.server, \$p.agents] | all(.spins > 0 and .events * 2 < $M1) and \$p.server.arms >= 2"
	t_pinned adaptive1 adaptive
	rc=0
	ptw busy1 --clients 1 --msgs "$M1" --poll busy || rc=$?
	t_clean busy1 "--poll busy: 1 client, payloads verified, counters back to baseline" "$rc"
	t_pinned busy1 busy
	rc=0
	pt thread --clients "$N" --msgs 20 --poll busy --server-model thread || rc=$?
	t_clean thread "--poll busy --server-model thread: $N clients verified, no leak" "$rc"
	rc=0
	pt oob --clients 20 --msgs 5 --cm oob-tls || rc=$?
	t_steps oob oob-tls "$oob_steps" 'resolve_addr resolve_route established'
	rc=0
	pt cm --clients 20 --msgs 5 --cm rdmacm || rc=$?
	t_steps cm rdmacm "$cm_steps" 'tls exchange rtr_rts'
	tap_finished
}

main "$@"

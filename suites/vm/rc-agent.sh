#!/bin/bash
# SPDX-License-Identifier: MIT
#
# rc-agent.sh: rdmacap-agent --transport rc on a real rxe pair, driven directly
# over its stdin/stdout (common/proto.h). Runs as root where rxe works inside
# network namespaces (Linux >= 7.1), which on a host without RDMA means the VM:
#
#   vm/run -- suites/vm/rc-agent.sh
#
# Topology from `rdmacap up --topology pair --rxe`; a throwaway PKI made here with
# the openssl CLI in the profile of harness/certs/certs.c (CA, server with serverAuth and
# DNS rdmacap-server, client with clientAuth, and a client of an unrelated CA).
# The server's device counters (rdma -j resource show) are read at the baseline,
# at peak (every client connected, before "stop") and after the agents left.
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#
#   RC_AGENT_CLIENTS   clients of the main tests (100)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/rcpair.sh
. "$RDC_ROOT/suites/lib/rcpair.sh"

N=${RC_AGENT_CLIENTS:-100}

# One load point: server SRV_ARGS, one client agent of N clients with CLI_ARGS;
# results for traffic, peak counters (PEAK key=delta list), the server's own
# counters once the client left (IDLE list) and the baseline after.
t_point() {
	local desc=$1 n=$2 sargs=$3 cargs=$4 peak=$5 idle=$6 ok=0

	# shellcheck disable=SC2086 # a list of words
	if ! rcp_server srv $sargs; then
		ap_diag srv
		tap_fail "$desc: server starts"
		return
	fi
	# shellcheck disable=SC2086 # a list of words
	rcp_client cli client --clients="$n" --msgs=10 --timeout=120 $cargs &&
		ap_wait cli '^connected ' 180 || ok=1
	tap_kv connected "$(grep -m1 '^connected' "$W/cli.out" | cut -d' ' -f2-)"
	# shellcheck disable=SC2086 # a list of words
	if [ $ok = 0 ] && rcp_peak_is $peak; then
		tap_ok "$desc: server counters at peak are the baseline + $peak"
	else
		tap_fail "$desc: server counters at peak are the baseline + $peak"
	fi
	ap_send cli run
	if ap_wait cli '^result ' 120 && rcp_traffic cli "$n" 10; then
		tap_ok "$desc: $n clients connected, $((n * 10)) round trips, payloads verified"
	else
		ap_diag cli
		tap_fail "$desc: $n clients connected, $((n * 10)) round trips, payloads verified"
	fi
	ap_stop cli || ok=1
	# shellcheck disable=SC2086 # a list of words
	if [ $ok = 0 ] && rcp_idle_is 30 $idle; then
		tap_ok "$desc: when the client leaves, the server frees its side (server holds $idle)"
	else
		ap_diag srv
		tap_fail "$desc: when the client leaves, the server frees its side (server holds $idle)"
	fi
	ap_stop srv || ok=1
	if [ $ok = 0 ] && rcp_at_baseline; then
		tap_ok "$desc: agents ended cleanly, counters back at the baseline"
	else
		ap_diag srv
		tap_fail "$desc: agents ended cleanly, counters back at the baseline"
	fi
}

# hostile REASON BYTES...: a TLS client with a good certificate sends BYTES
# (printf format), then closes; the server must drop it for REASON.
hostile() {
	local reason=$1 before
	shift

	before=$(ap_count srv "^drop .*reason=$reason\$")
	# shellcheck disable=SC2059 # the arguments are a printf format: the record's escapes
	printf "$@" | ip netns exec "$CNS" timeout 30 openssl s_client -quiet -no_ign_eof -nocommands \
		-connect "$SADDR:$PORT" -CAfile "$W/pki/ca.pem" -cert "$W/pki/client.pem" \
		-key "$W/pki/client.key" -verify_hostname rdmacap-server >/dev/null 2>&1 3>&-
	ap_wait srv "^drop peer=$CADDR:[0-9]+ reason=$reason\$" 20 &&
		[ "$(ap_count srv "^drop .*reason=$reason\$")" -gt "$before" ]
}

t_hostile() {
	local h0='RDCQ\x02\x01\x00\x40' z8='\x00\x00\x00\x00\x00\x00\x00\x00' z56 pid

	z56="$z8$z8$z8$z8$z8$z8$z8"
	if ! rcp_server srv --timeout=3; then
		ap_diag srv
		tap_fail "hostile: server starts"
		return
	fi
	rcp_client rogue rogue-client --clients=5 --timeout=30
	if ap_wait rogue '^connected ok=0 fail=5' 60 &&
	   [ "$(ap_count rogue '^conn fail id=[0-9]+ call=SSL_(read|connect|write) errno=[0-9]+ err=(tlsv1_alert_unknown_ca|ECONNRESET|EPIPE)$')" = 5 ] &&
	   ap_wait srv "^drop peer=$CADDR:[0-9]+ reason=certificate_verify_failed$" 10; then
		tap_ok "wrong CA: a client certificate from another CA fails every connection, the server drops the peer"
	else
		ap_diag rogue
		ap_diag srv
		tap_fail "wrong CA: a client certificate from another CA fails every connection, the server drops the peer"
	fi
	ap_stop rogue >/dev/null

	hostile bad_magic "RDCX\\x02\\x01\\x00\\x40$z56"
	rdc_result $? "hostile: a wrong magic is dropped (bad_magic)"
	hostile bad_version "RDCQ\\x01\\x01\\x00\\x40$z56"
	rdc_result $? "hostile: a version 1 record (without the LID) is dropped (bad_version)"
	hostile bad_type "RDCQ\\x02\\x02\\x00\\x40$z56"
	rdc_result $? "hostile: a REP sent to the server is dropped (bad_type)"
	hostile bad_length 'RDCQ\x02\x01\x10\x00'
	rdc_result $? "hostile: an oversized length is dropped from the header alone (bad_length)"
	hostile bad_qpn "$h0$z56"
	rdc_result $? "hostile: a record with QPN 0 is dropped (bad_qpn)"
	hostile eof "$h0$z8"
	rdc_result $? "hostile: a peer vanishing inside a record is dropped (eof)"

	# a TCP peer that never says hello
	rdc_bg ip netns exec "$CNS" bash -c "exec 5<>/dev/tcp/$SADDR/$PORT; read -t 20 -u 5"
	pid=$RDC_BG_PID
	ap_wait srv "^drop peer=$CADDR:[0-9]+ reason=handshake_timeout$" 20
	rdc_result $? "hostile: a stalled handshake is dropped at the deadline (handshake_timeout)"
	kill "$pid" 2>/dev/null

	rcp_client good client --clients=20 --msgs=10 --timeout=60 && ap_send good run
	if ap_wait good '^result ' 120 && rcp_traffic good 20 10; then
		tap_ok "hostile: the server still serves 20 good clients after all of the above"
	else
		ap_diag good
		tap_fail "hostile: the server still serves 20 good clients after all of the above"
	fi
	ap_stop good >/dev/null
	ap_stop srv >/dev/null
	rdc_bg_kill
}

# Failures the client must name: nobody listening, and a server that cannot
# pin memory (RLIMIT_MEMLOCK without CAP_IPC_LOCK) rejecting with its own call.
t_named() {
	rcp_client nolisten client --clients=5 --timeout=30
	ap_wait nolisten '^connected ok=0 fail=5' 60 &&
		[ "$(ap_count nolisten '^conn fail id=[0-9]+ call=connect errno=111 err=ECONNREFUSED$')" = 5 ]
	rdc_result $? "oob-tls without a server: every connection fails call=connect err=ECONNREFUSED"
	ap_stop nolisten >/dev/null || ap_diag nolisten

	rcp_client nolisten client --clients=5 --timeout=30 --cm=rdmacm
	ap_wait nolisten '^connected ok=0 fail=5' 60 &&
		[ "$(ap_count nolisten '^conn fail id=[0-9]+ call=rdma_connect errno=0 err=REJECTED status=[0-9]+$')" = 5 ]
	rdc_result $? "rdmacm without a listener: every connection fails call=rdma_connect err=REJECTED"
	ap_stop nolisten >/dev/null || ap_diag nolisten

	# the server without CAP_IPC_LOCK and with 64 KiB of RLIMIT_MEMLOCK
	AP_WRAP=(setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock
		 prlimit --memlock=65536:65536 --)
	rcp_server srv
	# shellcheck disable=SC2034 # the same: back to none
	AP_WRAP=()
	rcp_client cli client --clients=20 --timeout=60
	if ap_wait cli '^connected ' 60 &&
	   [ "$(ap_count cli '^conn fail id=[0-9]+ call=ibv_reg_mr errno=12 err=ENOMEM at=server$')" -gt 0 ] &&
	   [ $(($(ap_count cli '^conn ok ') + $(ap_count cli '^conn fail .* at=server$'))) = 20 ]; then
		tap_kv connected "$(grep -m1 '^connected' "$W/cli.out" | cut -d' ' -f2-)"
		tap_ok "a server short of locked memory rejects; the client names its call (ibv_reg_mr ENOMEM at=server)"
	else
		ap_diag cli
		ap_diag srv
		tap_fail "a server short of locked memory rejects; the client names its call (ibv_reg_mr ENOMEM at=server)"
	fi
	ap_stop cli >/dev/null
	if ap_stop srv &&
	   grep -Eq '^result role=server accepted=[0-9]+ .* rejected=[1-9]' "$W/srv.out"; then
		tap_ok "the rejecting server counts its rejects and ends cleanly"
	else
		ap_diag srv
		tap_fail "the rejecting server counts its rejects and ends cleanly"
	fi
}

# a "#define NAME (K * OOB_WINDOW)" of FILE, as a number (oob.h's window: $2)
lead_of() {
	local k

	k=$(sed -n "s/^#define $1 (\([0-9]*\) \* OOB_WINDOW).*/\1/p" "$RDC_ROOT/$3")
	[ -n "$k" ] && echo $((k * $2))
}

# Flow control (agents/oob/oob.h OOB_WINDOW): a server that takes the session and
# never answers receives one window of REQs, not every client's; the others wait
# in the client, and all of them end at their deadline. The client made the
# endpoints of its lead (rc_client_oob.c RCC_OOB_LEAD) only, not one per client:
# it has 100 clients more than that.
t_window() {
	local win lead out=$W/window.bytes n got=0 desc qps=0 m

	win=$(sed -n 's/^#define OOB_WINDOW \([0-9]*\).*/\1/p' "$RDC_ROOT/agents/oob/oob.h")
	lead=$(lead_of RCC_OOB_LEAD "$win" agents/rc/rc_client_oob.c)
	m=$((${lead:-0} + 100))
	desc="flow control: a server that never answers receives $win REQs of $m (OOB_WINDOW)"
	: >"$out"
	rcp_peer_server /dev/null "$out"
	rcp_client win client --clients=$m --timeout=20
	# within the deadline, the client's endpoints reach its lead and stay there
	n=40
	while [ $n -gt 0 ] && [ "$qps" -lt "${lead:-0}" ]; do
		sleep 0.25
		rcp_res "$CDEV" && qps=$((R[qp] - BC[qp]))
		n=$((n - 1))
	done
	sleep 1
	rcp_res "$CDEV" && qps=$((R[qp] - BC[qp]))
	if ap_wait win "^connected ok=0 fail=$m" 90; then
		got=$(stat -c %s "$out")
	fi
	tap_kv window "records=$((got / 64)) bytes=$got client_qps_waiting=$qps"
	[ -n "$lead" ] && [ "$qps" = "$lead" ]
	rdc_result $? "flow control: the client made $lead endpoints of $m while the window waited (RCC_OOB_LEAD)"
	if [ "$got" = $((win * 64)) ] &&
	   [ "$(ap_count win '^conn fail id=[0-9]+ call=SSL_read errno=[0-9]+ err=(timeout|ETIMEDOUT)')" = $m ]; then
		tap_ok "$desc"
	else
		ap_diag win
		tap_fail "$desc"
	fi
	ap_stop win >/dev/null
	rdc_bg_kill
}

# The server's pool is a lead (rc_server.h RCS_POOL_LEAD), not --pool: asked for
# four leads' worth with no client coming, it makes one lead of endpoints.
t_lead() {
	local win lead desc

	win=$(sed -n 's/^#define OOB_WINDOW \([0-9]*\).*/\1/p' "$RDC_ROOT/agents/oob/oob.h")
	lead=$(lead_of RCS_POOL_LEAD "$win" agents/rc/rc_server.h)
	desc="pool: --pool=$((4 * ${lead:-0})) with no client holds one lead ($lead endpoints, RCS_POOL_LEAD)"
	if [ -n "$lead" ] && rcp_server srv --pool=$((4 * lead)) &&
	   rcp_idle_is 60 qp="$lead" cq=$((2 * lead)) mr=$((2 * lead)) pd=1 ctx=1; then
		tap_ok "$desc"
	else
		ap_diag srv
		tap_fail "$desc"
	fi
	ap_stop srv >/dev/null
	rcp_at_baseline
	rdc_result $? "pool: the unused lead is freed at the end (counters at the baseline)"
}

main() {
	rcp_setup rc-agent
	tap_plan 43
	tap_kv topology "server=$SNS/$SADDR/$SDEV client=$CNS/$CADDR/$CDEV"
	rdc_pki "$W/pki"
	rdc_result $? "throwaway PKI: CA, server, client, and a client of another CA"
	rcp_baseline
	rdc_result $? "baseline counters of $SDEV and $CDEV"
	tap_kv server_base "pd=${B[pd]} cq=${B[cq]} qp=${B[qp]} cm_id=${B[cm_id]} mr=${B[mr]} ctx=${B[ctx]}"

	t_point "oob-tls" "$N" "" "" "qp=$N cq=$((2 * N)) mr=$((2 * N)) pd=1 ctx=1" "pd=1 ctx=1"
	t_point "rdmacm" "$N" "--cm=rdmacm" "--cm=rdmacm" \
		"qp=$N cq=$((2 * N)) mr=$((2 * N)) cm_id=$((N + 1)) pd=1 ctx=1" "pd=1 ctx=1 cm_id=1"
	# the pool the harness asks for (--pool): ready endpoints taken by requests;
	# 10 more than the clients stay unused while the server runs, then go too
	t_point "oob-tls, pooled (--pool N+10)" "$N" "--pool=$((N + 10))" "" \
		"qp=$((N + 10)) cq=$((2 * N + 20)) mr=$((2 * N + 20)) pd=1 ctx=1" \
		"qp=10 cq=20 mr=20 pd=1 ctx=1"
	t_point "rdmacm, pooled (--pool N)" "$N" "--cm=rdmacm --pool=$N" "--cm=rdmacm" \
		"qp=$N cq=$((2 * N)) mr=$((2 * N)) cm_id=$((N + 1)) pd=1 ctx=1" "pd=1 ctx=1 cm_id=1"
	t_point "thread model, session per client" "$N" "--server-model=thread" \
		"--oob-session=per-conn" "qp=$N cq=$((2 * N)) mr=$((2 * N)) pd=1 ctx=1" "pd=1 ctx=1"
	t_point "shared CQs, SRQ, RDMA WRITE, pooled" 50 "--cq=shared --srq --op=write --pool=50" \
		"--cq=shared --srq --op=write" "qp=50 cq=1 srq=1 mr=100 pd=1 ctx=1" "pd=1 ctx=1 srq=1"
	t_lead
	t_hostile
	t_named
	t_window
}


main
tap_finished

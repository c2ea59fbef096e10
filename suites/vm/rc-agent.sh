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
# the openssl CLI in the profile of harness/plan/certs.c (CA, server with serverAuth and
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

N=${RC_AGENT_CLIENTS:-100}
PORT=18515
RUN=$(printf '%04x' $(($$ & 0xffff)))
W=
SNS='' CNS='' SADDR='' CADDR='' SDEV='' CDEV=''
declare -A AG_FD=() AG_PID=() R=() B=() BC=()
AG_WRAP=()	# a command the next agents start under (setpriv, prlimit)

log() { echo "rc-agent.sh: $*" >&2; }

t_res() {
	if [ "$1" = 0 ]; then tap_ok "$2"; else tap_fail "$2"; fi
}

# --- agents over their pipes -------------------------------------------------

# ag_start NAME NS ARGS...: the agent reads NAME.in (a FIFO we keep open) and
# writes NAME.out / NAME.err.
ag_start() {
	local name=$1 ns=$2 fd
	shift 2

	rm -f "$W/$name.in" "$W/$name.out" "$W/$name.err"
	mkfifo "$W/$name.in"
	exec {fd}<>"$W/$name.in"
	AG_FD[$name]=$fd
	ip netns exec "$ns" "${AG_WRAP[@]}" "$RDMACAP_AGENT" "$@" <"$W/$name.in" >"$W/$name.out" \
		2>"$W/$name.err" {fd}>&- 3>&- &
	AG_PID[$name]=$!
}

ag_send() {
	echo "$2" >&"${AG_FD[$1]}"
}

# ag_wait NAME ERE SECS: until a line of NAME's records matches (polls: a fork
# costs ~15 ms under TCG, so not too often). Fails early if the agent died.
ag_wait() {
	local name=$1 re=$2 n=$(($3 * 5))

	while [ $n -gt 0 ]; do
		grep -Eq -- "$re" "$W/$name.out" 2>/dev/null && return 0
		kill -0 "${AG_PID[$name]}" 2>/dev/null || {
			grep -Eq -- "$re" "$W/$name.out" 2>/dev/null
			return
		}
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}

# ag_stop NAME: "stop", then its "bye" and its exit within 60 s; 0 if it ended
# cleanly with status 0.
ag_stop() {
	local name=$1 pid=${AG_PID[$1]} rc=0

	local fd=${AG_FD[$name]}

	ag_send "$name" stop 2>/dev/null
	ag_wait "$name" '^bye$' 60 || rc=1
	exec {fd}>&-
	if ! ag_wait_exit "$pid" 10; then
		kill -KILL "$pid" 2>/dev/null
		rc=1
	fi
	wait "$pid" || rc=1
	unset "AG_PID[$name]" "AG_FD[$name]"
	return $rc
}

ag_wait_exit() {
	local n=$(($2 * 5))

	while [ $n -gt 0 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.2
		n=$((n - 1))
	done
	! kill -0 "$1" 2>/dev/null
}

ag_count() {
	grep -Ec -- "$2" "$W/$1.out" 2>/dev/null
}

# Last lines of an agent's records and stderr, as diagnostics.
ag_diag() {
	local f

	for f in "$W/$1.out" "$W/$1.err"; do
		[ -s "$f" ] && tail -n 5 "$f" | cut -c1-200 | sed 's/^/# /'
	done
	return 0
}

tls() {	# NAME ARGS...: --tls-* for certificate NAME, none when ARGS say --cm=rdmacm
	case " ${*:2} " in *" --cm=rdmacm "*) return 0 ;; esac
	echo "--tls-ca=$W/pki/ca.pem --tls-cert=$W/pki/$1.pem --tls-key=$W/pki/$1.key"
}

server() {	# NAME ARGS...
	local name=$1
	shift
	# shellcheck disable=SC2046
	ag_start "$name" "$SNS" --role=server --transport=rc --addr="$SADDR" --port=$PORT \
		$(tls server "$@") "$@"
	ag_wait "$name" '^hello role=server' 30
}

client() {	# NAME CERT ARGS...
	local name=$1 cert=$2
	shift 2
	# shellcheck disable=SC2046
	ag_start "$name" "$CNS" --role=client --transport=rc --addr="$SADDR" --port=$PORT \
		--bind="$CADDR" $(tls "$cert" "$@") "$@"
	ag_wait "$name" '^hello role=client' 30 || return 1
	ag_send "$name" go
}

# --- counters ----------------------------------------------------------------

# res DEV: R[pd] R[cq] R[qp] R[cm_id] R[mr] R[ctx] R[srq] of one device.
res() {
	local json obj k

	R=()
	json=$(rdma -j resource show 2>/dev/null) || return 1
	[[ $json =~ \"ifname\":\"$1\"([^\}]*) ]] || return 1
	obj=${BASH_REMATCH[1]}
	for k in pd cq qp cm_id mr ctx srq; do
		[[ $obj =~ \"$k\":([0-9]+) ]] && R[$k]=${BASH_REMATCH[1]}
	done
	return 0
}

res_str() {
	echo "pd=${R[pd]-?} cq=${R[cq]-?} qp=${R[qp]-?} cm_id=${R[cm_id]-?} mr=${R[mr]-?} ctx=${R[ctx]-?} srq=${R[srq]-?}"
}

# baseline: B (server device), BC (client device)
baseline() {
	local k

	res "$CDEV" || return 1
	for k in "${!R[@]}"; do BC[$k]=${R[$k]}; done
	res "$SDEV" || return 1
	for k in "${!R[@]}"; do B[$k]=${R[$k]}; done
}

# peak_is KEY=DELTA...: the server device's counters are the baseline plus these.
peak_is() {
	local kv k ok=0

	res "$SDEV" || return 1
	tap_kv server_peak "$(res_str)"
	for kv in "$@"; do
		k=${kv%%=*}
		[ "${R[$k]-x}" = $((B[$k] + ${kv#*=})) ] || ok=1
	done
	return $ok
}

# idle_is SECS KEY=DELTA...: within SECS the server device's counters are the
# baseline plus these (others at the baseline): what a server holds with no client.
idle_is() {
	local n=$(($1 * 5)) kv k ok
	declare -A want=()
	shift

	for k in "${!B[@]}"; do want[$k]=${B[$k]}; done
	for kv in "$@"; do want[${kv%%=*}]=$((B[${kv%%=*}] + ${kv#*=})); done
	while :; do
		ok=0
		res "$SDEV" || return 1
		for k in "${!want[@]}"; do [ "${R[$k]-x}" = "${want[$k]}" ] || ok=1; done
		[ $ok = 0 ] && break
		n=$((n - 1))
		[ $n -gt 0 ] || break
		sleep 0.2
	done
	tap_kv server_idle "$(res_str)"
	return $ok
}

# Both devices back at their baselines.
at_baseline() {
	local k ok=0

	res "$SDEV" || return 1
	tap_kv server_after "$(res_str)"
	for k in "${!B[@]}"; do [ "${R[$k]}" = "${B[$k]}" ] || ok=1; done
	res "$CDEV" || return 1
	tap_kv client_after "$(res_str)"
	for k in "${!BC[@]}"; do [ "${R[$k]}" = "${BC[$k]}" ] || ok=1; done
	return $ok
}

# --- setup -------------------------------------------------------------------

# The oob-tls PKI, same profile as harness/plan/certs.c, keys 0600.
mkpki() {
	local d=$W/pki

	mkdir -p "$d" && (
		set -e
		umask 077
		cd "$d"
		key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }
		ca() {
			key "$1.key"
			openssl req -x509 -new -key "$1.key" -subj "/O=rdmacap/CN=rdmacap CA $1" \
				-days 1 -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
				-addext "keyUsage=critical,keyCertSign,cRLSign" -out "$1.pem"
		}
		leaf() {	# NAME CA CN EKU [SAN]
			key "$1.key"
			openssl req -new -key "$1.key" -subj "/O=rdmacap/CN=$3" -out "$1.csr"
			printf '%s\n' "basicConstraints=critical,CA:FALSE" \
				"keyUsage=critical,digitalSignature" "extendedKeyUsage=$4" \
				${5:+"subjectAltName=$5"} >"$1.ext"
			openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" \
				-CAcreateserial -days 1 -extfile "$1.ext" -out "$1.pem"
		}
		ca ca
		leaf server ca rdmacap-server serverAuth DNS:rdmacap-server
		leaf client ca rdmacap-client clientAuth
		ca rogue-ca
		leaf rogue-client rogue-ca rdmacap-client clientAuth
	) >"$W/pki.log" 2>&1
}

up() {
	local out

	out=$(rdc_rdmacap up --topology pair --rxe --run "$RUN" 2>"$W/up.err") || {
		echo "$out" | sed 's/^/# /'
		return 1
	}
	rdc_up_ends "$out"
	[ -n "$SNS" ] && [ -n "$CNS" ] && [ -n "$SDEV" ] && [ -n "$CDEV" ]
}

cleanup() {
	local name pid

	for name in "${!AG_PID[@]}"; do
		pid=${AG_PID[$name]}
		kill -TERM "$pid" 2>/dev/null && ag_wait_exit "$pid" 5
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	rdc_bg_kill
	[ -n "$SNS" ] && rdc_rdmacap down --run "$RUN" >/dev/null 2>&1
	[ -n "$W" ] && rm -rf "$W"
}

# --- tests -------------------------------------------------------------------

# t_traffic NAME N M: the client's result says N up, N*M round trips, all verified.
t_traffic() {
	local line re="^result role=client ok=$2 msgs=$(($2 * $3)) verified=$(($2 * $3)) bad=0 errors=0 "

	line=$(grep -m1 '^result role=client' "$W/$1.out")
	tap_kv result "$(cut -d' ' -f3-8 <<<"$line")"
	[[ $line =~ $re ]]
}

# One load point: server SRV_ARGS, one client agent of N clients with CLI_ARGS;
# results for traffic, peak counters (PEAK key=delta list), the server's own
# counters once the client left (IDLE list) and the baseline after.
t_point() {
	local desc=$1 n=$2 sargs=$3 cargs=$4 peak=$5 idle=$6 ok=0

	# shellcheck disable=SC2086
	if ! server srv $sargs; then
		ag_diag srv
		tap_fail "$desc: server starts"
		return
	fi
	# shellcheck disable=SC2086
	client cli client --clients="$n" --msgs=10 --timeout=120 $cargs &&
		ag_wait cli '^connected ' 180 || ok=1
	tap_kv connected "$(grep -m1 '^connected' "$W/cli.out" | cut -d' ' -f2-)"
	# shellcheck disable=SC2086
	if [ $ok = 0 ] && peak_is $peak; then
		tap_ok "$desc: server counters at peak are the baseline + $peak"
	else
		tap_fail "$desc: server counters at peak are the baseline + $peak"
	fi
	ag_send cli run
	if ag_wait cli '^result ' 120 && t_traffic cli "$n" 10; then
		tap_ok "$desc: $n clients connected, $((n * 10)) round trips, payloads verified"
	else
		ag_diag cli
		tap_fail "$desc: $n clients connected, $((n * 10)) round trips, payloads verified"
	fi
	ag_stop cli || ok=1
	# shellcheck disable=SC2086
	if [ $ok = 0 ] && idle_is 30 $idle; then
		tap_ok "$desc: when the client leaves, the server frees its side (server holds $idle)"
	else
		ag_diag srv
		tap_fail "$desc: when the client leaves, the server frees its side (server holds $idle)"
	fi
	ag_stop srv || ok=1
	if [ $ok = 0 ] && at_baseline; then
		tap_ok "$desc: agents ended cleanly, counters back at the baseline"
	else
		ag_diag srv
		tap_fail "$desc: agents ended cleanly, counters back at the baseline"
	fi
}

# hostile REASON BYTES...: a TLS client with a good certificate sends BYTES
# (printf format), then closes; the server must drop it for REASON.
hostile() {
	local reason=$1 before
	shift

	before=$(ag_count srv "^drop .*reason=$reason\$")
	# shellcheck disable=SC2059
	printf "$@" | ip netns exec "$CNS" timeout 30 openssl s_client -quiet -no_ign_eof -nocommands \
		-connect "$SADDR:$PORT" -CAfile "$W/pki/ca.pem" -cert "$W/pki/client.pem" \
		-key "$W/pki/client.key" -verify_hostname rdmacap-server >/dev/null 2>&1 3>&-
	ag_wait srv "^drop peer=$CADDR:[0-9]+ reason=$reason\$" 20 &&
		[ "$(ag_count srv "^drop .*reason=$reason\$")" -gt "$before" ]
}

t_hostile() {
	local h0='RDCQ\x01\x01\x00\x40' z8='\x00\x00\x00\x00\x00\x00\x00\x00' z56 pid

	z56="$z8$z8$z8$z8$z8$z8$z8"
	if ! server srv --timeout=3; then
		ag_diag srv
		tap_fail "hostile: server starts"
		return
	fi
	client rogue rogue-client --clients=5 --timeout=30
	if ag_wait rogue '^connected ok=0 fail=5' 60 &&
	   [ "$(ag_count rogue '^conn fail id=[0-9]+ call=SSL_(read|connect|write) errno=[0-9]+ err=(tlsv1_alert_unknown_ca|ECONNRESET|EPIPE)$')" = 5 ] &&
	   ag_wait srv "^drop peer=$CADDR:[0-9]+ reason=certificate_verify_failed$" 10; then
		tap_ok "wrong CA: a client certificate from another CA fails every connection, the server drops the peer"
	else
		ag_diag rogue
		ag_diag srv
		tap_fail "wrong CA: a client certificate from another CA fails every connection, the server drops the peer"
	fi
	ag_stop rogue >/dev/null

	hostile bad_magic "RDCX\\x01\\x01\\x00\\x40$z56"
	t_res $? "hostile: a wrong magic is dropped (bad_magic)"
	hostile bad_version "RDCQ\\x02\\x01\\x00\\x40$z56"
	t_res $? "hostile: a wrong version is dropped (bad_version)"
	hostile bad_type "RDCQ\\x01\\x02\\x00\\x40$z56"
	t_res $? "hostile: a REP sent to the server is dropped (bad_type)"
	hostile bad_length 'RDCQ\x01\x01\x10\x00'
	t_res $? "hostile: an oversized length is dropped from the header alone (bad_length)"
	hostile bad_qpn "$h0$z56"
	t_res $? "hostile: a record with QPN 0 is dropped (bad_qpn)"
	hostile eof "$h0$z8"
	t_res $? "hostile: a peer vanishing inside a record is dropped (eof)"

	# a TCP peer that never says hello
	rdc_bg ip netns exec "$CNS" bash -c "exec 5<>/dev/tcp/$SADDR/$PORT; read -t 20 -u 5"
	pid=$RDC_BG_PID
	ag_wait srv "^drop peer=$CADDR:[0-9]+ reason=handshake_timeout$" 20
	t_res $? "hostile: a stalled handshake is dropped at the deadline (handshake_timeout)"
	kill "$pid" 2>/dev/null

	client good client --clients=20 --msgs=10 --timeout=60 && ag_send good run
	if ag_wait good '^result ' 120 && t_traffic good 20 10; then
		tap_ok "hostile: the server still serves 20 good clients after all of the above"
	else
		ag_diag good
		tap_fail "hostile: the server still serves 20 good clients after all of the above"
	fi
	ag_stop good >/dev/null
	ag_stop srv >/dev/null
	rdc_bg_kill
}

# Failures the client must name: nobody listening, and a server that cannot
# pin memory (RLIMIT_MEMLOCK without CAP_IPC_LOCK) rejecting with its own call.
t_named() {
	client nolisten client --clients=5 --timeout=30
	ag_wait nolisten '^connected ok=0 fail=5' 60 &&
		[ "$(ag_count nolisten '^conn fail id=[0-9]+ call=connect errno=111 err=ECONNREFUSED$')" = 5 ]
	t_res $? "oob-tls without a server: every connection fails call=connect err=ECONNREFUSED"
	ag_stop nolisten >/dev/null || ag_diag nolisten

	client nolisten client --clients=5 --timeout=30 --cm=rdmacm
	ag_wait nolisten '^connected ok=0 fail=5' 60 &&
		[ "$(ag_count nolisten '^conn fail id=[0-9]+ call=rdma_connect errno=0 err=REJECTED status=[0-9]+$')" = 5 ]
	t_res $? "rdmacm without a listener: every connection fails call=rdma_connect err=REJECTED"
	ag_stop nolisten >/dev/null || ag_diag nolisten

	AG_WRAP=(setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock
		 prlimit --memlock=65536:65536 --)
	server srv
	AG_WRAP=()
	client cli client --clients=20 --timeout=60
	if ag_wait cli '^connected ' 60 &&
	   [ "$(ag_count cli '^conn fail id=[0-9]+ call=ibv_reg_mr errno=12 err=ENOMEM at=server$')" -gt 0 ] &&
	   [ $(($(ag_count cli '^conn ok ') + $(ag_count cli '^conn fail .* at=server$'))) = 20 ]; then
		tap_kv connected "$(grep -m1 '^connected' "$W/cli.out" | cut -d' ' -f2-)"
		tap_ok "a server short of locked memory rejects; the client names its call (ibv_reg_mr ENOMEM at=server)"
	else
		ag_diag cli
		ag_diag srv
		tap_fail "a server short of locked memory rejects; the client names its call (ibv_reg_mr ENOMEM at=server)"
	fi
	ag_stop cli >/dev/null
	if ag_stop srv &&
	   grep -Eq '^result role=server accepted=[0-9]+ .* rejected=[1-9]' "$W/srv.out"; then
		tap_ok "the rejecting server counts its rejects and ends cleanly"
	else
		ag_diag srv
		tap_fail "the rejecting server counts its rejects and ends cleanly"
	fi
}

# a "#define NAME (K * OOB_WINDOW)" of FILE, as a number (oob.h's window: $2)
lead_of() {
	local k

	k=$(sed -n "s/^#define $1 (\([0-9]*\) \* OOB_WINDOW).*/\1/p" "$RDC_ROOT/$3")
	[ -n "$k" ] && echo $((k * $2))
}

# Flow control (agents/rc/oob.h OOB_WINDOW): a server that takes the session and
# never answers receives one window of REQs, not every client's; the others wait
# in the client, and all of them end at their deadline. The client made the
# endpoints of its lead (rc_client_oob.c RCC_OOB_LEAD) only, not one per client:
# it has 100 clients more than that.
t_window() {
	local win lead out=$W/window.bytes n=50 got=0 desc qps=0 m

	win=$(sed -n 's/^#define OOB_WINDOW \([0-9]*\).*/\1/p' "$RDC_ROOT/agents/rc/oob.h")
	lead=$(lead_of RCC_OOB_LEAD "$win" agents/rc/rc_client_oob.c)
	m=$((${lead:-0} + 100))
	desc="flow control: a server that never answers receives $win REQs of $m (OOB_WINDOW)"
	: >"$out"
	# stdin held open: s_server ends its session at EOF there
	rdc_bg ip netns exec "$SNS" bash -c "sleep 60 | exec openssl s_server -quiet -naccept 1 \
		-accept $SADDR:$PORT -cert $W/pki/server.pem -key $W/pki/server.key \
		-CAfile $W/pki/ca.pem -Verify 1 >$out"
	while [ $n -gt 0 ] && [ -z "$(ip netns exec "$SNS" ss -Htln "sport = :$PORT")" ]; do
		sleep 0.2
		n=$((n - 1))
	done
	client win client --clients=$m --timeout=20
	# within the deadline, the client's endpoints reach its lead and stay there
	n=40
	while [ $n -gt 0 ] && [ "$qps" -lt "${lead:-0}" ]; do
		sleep 0.25
		res "$CDEV" && qps=$((R[qp] - BC[qp]))
		n=$((n - 1))
	done
	sleep 1
	res "$CDEV" && qps=$((R[qp] - BC[qp]))
	if ag_wait win "^connected ok=0 fail=$m" 90; then
		got=$(stat -c %s "$out")
	fi
	tap_kv window "records=$((got / 64)) bytes=$got client_qps_waiting=$qps"
	[ -n "$lead" ] && [ "$qps" = "$lead" ]
	t_res $? "flow control: the client made $lead endpoints of $m while the window waited (RCC_OOB_LEAD)"
	if [ "$got" = $((win * 64)) ] &&
	   [ "$(ag_count win '^conn fail id=[0-9]+ call=SSL_read errno=[0-9]+ err=(timeout|ETIMEDOUT)')" = $m ]; then
		tap_ok "$desc"
	else
		ag_diag win
		tap_fail "$desc"
	fi
	ag_stop win >/dev/null
	rdc_bg_kill
}

# The server's pool is a lead (rc_server.h RS_POOL_LEAD), not --pool: asked for
# four leads' worth with no client coming, it makes one lead of endpoints.
t_lead() {
	local win lead desc

	win=$(sed -n 's/^#define OOB_WINDOW \([0-9]*\).*/\1/p' "$RDC_ROOT/agents/rc/oob.h")
	lead=$(lead_of RS_POOL_LEAD "$win" agents/rc/rc_server.h)
	desc="pool: --pool=$((4 * ${lead:-0})) with no client holds one lead ($lead endpoints, RS_POOL_LEAD)"
	if [ -n "$lead" ] && server srv --pool=$((4 * lead)) &&
	   idle_is 60 qp="$lead" cq=$((2 * lead)) mr=$((2 * lead)) pd=1 ctx=1; then
		tap_ok "$desc"
	else
		ag_diag srv
		tap_fail "$desc"
	fi
	ag_stop srv >/dev/null
	at_baseline
	t_res $? "pool: the unused lead is freed at the end (counters at the baseline)"
}

# Everything a suite of these agents needs before its plan: root, rxe, the pair
# topology, the work directory W; skips the whole suite (exit 4) without them.
rc_setup() {
	rdc_rxe_suite rc-agent "rdma_rxe rdma_ucm" openssl rdma
	trap cleanup EXIT

	if ! up; then
		tap_skip_all "rdmacap up --topology pair --rxe failed: $(tail -n1 "$W/up.err")"
		exit 4
	fi
}

main() {
	rc_setup
	tap_plan 43
	tap_kv topology "server=$SNS/$SADDR/$SDEV client=$CNS/$CADDR/$CDEV"
	mkpki
	t_res $? "throwaway PKI: CA, server, client, and a client of another CA"
	baseline
	t_res $? "baseline counters of $SDEV and $CDEV"
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

# suites/vm/rc-attack.sh sources this file for its helpers
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main
	tap_finished
fi

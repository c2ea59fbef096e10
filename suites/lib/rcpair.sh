# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# rcpair.sh: rc agents on an rxe pair, the ground of the suites that drive
# rdmacap-agent --transport rc themselves (suites/vm/rc-agent.sh, rc-attack.sh).
# Source after common.sh; uses agent.sh and pki.sh, which it sources.
#
#   rcp_setup NAME             the suite's start (rdc_rxe_suite NAME): root, rxe,
#                              `rdmacap up --topology pair --rxe` as run RUN; SNS
#                              SADDR SDEV (server end), CNS CADDR CDEV (client
#                              end); skips the suite without them; all of it
#                              undone at exit
#   rcp_server NAME ARGS...    a server agent on SADDR:PORT, up to its hello
#   rcp_client NAME CERT ARGS...
#                              a client agent of certificate CERT (of W/pki),
#                              up to its hello, then go
#   rcp_traffic NAME N M       NAME's result: N up, N*M round trips, all verified
#   rcp_peer_server FILE OUT   in the background, an openssl s_server on the
#                              agents' address taking one session with the
#                              server certificate: it sends FILE, writes what it
#                              receives to OUT, holds the session 60 s; returns
#                              once it listens
#   rcp_res DEV                R[pd] R[cq] R[qp] R[cm_id] R[mr] R[ctx] R[srq]
#   rcp_baseline               B (server device) and BC (client device)
#   rcp_peak_is KEY=DELTA...   the server device at the baseline plus these
#   rcp_idle_is SECS KEY=DELTA...
#                              within SECS, the server device at the baseline
#                              plus these and the rest at the baseline
#   rcp_at_baseline            both devices back at their baselines

# shellcheck source=agent.sh
. "$RDC_ROOT/suites/lib/agent.sh"
# shellcheck source=pki.sh
. "$RDC_ROOT/suites/lib/pki.sh"

PORT=18515
RUN=$(printf '%04x' $(($$ & 0xffff)))
SNS='' CNS='' SADDR='' CADDR='' SDEV='' CDEV=''
declare -gA R=() B=() BC=()

# NAME ARGS...: --tls-* for certificate NAME, none when ARGS say --cm=rdmacm
rcp_tls() {
	case " ${*:2} " in *" --cm=rdmacm "*) return 0 ;; esac
	printf '%s\n' "--tls-ca=$W/pki/ca.pem" "--tls-cert=$W/pki/$1.pem" "--tls-key=$W/pki/$1.key"
}

rcp_server() {
	local name=$1 tls

	shift
	mapfile -t tls < <(rcp_tls server "$@")
	ap_start "$name" "$SNS" --role=server --transport=rc --addr="$SADDR" --port=$PORT \
		"${tls[@]}" "$@"
	ap_wait "$name" '^hello role=server' 30
}

rcp_client() {
	local name=$1 cert=$2 tls

	shift 2
	mapfile -t tls < <(rcp_tls "$cert" "$@")
	ap_start "$name" "$CNS" --role=client --transport=rc --addr="$SADDR" --port=$PORT \
		--bind="$CADDR" "${tls[@]}" "$@"
	ap_wait "$name" '^hello role=client' 30 || return 1
	ap_send "$name" go
}

rcp_traffic() {
	local line re="^result role=client ok=$2 msgs=$(($2 * $3)) verified=$(($2 * $3)) bad=0 errors=0 "

	line=$(grep -m1 '^result role=client' "$W/$1.out")
	tap_kv result "$(cut -d' ' -f3-8 <<<"$line")"
	[[ $line =~ $re ]]
}

rcp__listens() {
	[ -n "$(ip netns exec "$SNS" ss -Htln "sport = :$PORT")" ]
}

# stdin held open after FILE: s_server ends its session at EOF there
rcp_peer_server() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	rdc_bg ip netns exec "$SNS" bash -c '{ cat "$1"; sleep 60; } | exec openssl s_server \
		-quiet -naccept 1 -accept "$2" -cert "$3/server.pem" -key "$3/server.key" \
		-CAfile "$3/ca.pem" -Verify 1 >"$4"' _ "$1" "$SADDR:$PORT" "$W/pki" "$2"
	rdc_wait_for 10 rcp__listens
}

rcp_res() {
	local line w

	R=()
	line=$(rdc_res | grep -m1 "^$1 ") || return 1
	for w in ${line#* }; do
		[[ $w =~ ^[a-z_]+=[0-9]+$ ]] && R[${w%%=*}]=${w#*=}
	done
	return 0
}

rcp__res_str() {
	echo "pd=${R[pd]-?} cq=${R[cq]-?} qp=${R[qp]-?} cm_id=${R[cm_id]-?} mr=${R[mr]-?} ctx=${R[ctx]-?} srq=${R[srq]-?}"
}

rcp_baseline() {
	local k

	rcp_res "$CDEV" || return 1
	for k in "${!R[@]}"; do BC[$k]=${R[$k]}; done
	rcp_res "$SDEV" || return 1
	for k in "${!R[@]}"; do B[$k]=${R[$k]}; done
}

rcp_peak_is() {
	local kv k ok=0

	rcp_res "$SDEV" || return 1
	tap_kv server_peak "$(rcp__res_str)"
	for kv in "$@"; do
		k=${kv%%=*}
		[ "${R[$k]-x}" = $((B[$k] + ${kv#*=})) ] || ok=1
	done
	return $ok
}

rcp_idle_is() {
	local n=$(($1 * 5)) kv k ok
	local -A want=()
	shift

	for k in "${!B[@]}"; do want[$k]=${B[$k]}; done
	for kv in "$@"; do want[${kv%%=*}]=$((B[${kv%%=*}] + ${kv#*=})); done
	while :; do
		ok=0
		rcp_res "$SDEV" || return 1
		for k in "${!want[@]}"; do [ "${R[$k]-x}" = "${want[$k]}" ] || ok=1; done
		[ $ok = 0 ] && break
		n=$((n - 1))
		[ $n -gt 0 ] || break
		sleep 0.2
	done
	tap_kv server_idle "$(rcp__res_str)"
	return $ok
}

rcp_at_baseline() {
	local k ok=0

	rcp_res "$SDEV" || return 1
	tap_kv server_after "$(rcp__res_str)"
	for k in "${!B[@]}"; do [ "${R[$k]}" = "${B[$k]}" ] || ok=1; done
	rcp_res "$CDEV" || return 1
	tap_kv client_after "$(rcp__res_str)"
	for k in "${!BC[@]}"; do [ "${R[$k]}" = "${BC[$k]}" ] || ok=1; done
	return $ok
}

rcp__up() {
	local out

	out=$(rdc_rdmacap up --topology pair --rxe --run "$RUN" 2>"$W/up.err") || {
		tap_diag "$out"
		return 1
	}
	rdc_up_ends "$out"
	[ -n "$SNS" ] && [ -n "$CNS" ] && [ -n "$SDEV" ] && [ -n "$CDEV" ]
}

rcp__cleanup() {
	ap_kill_all
	rdc_bg_kill
	[ -n "$SNS" ] && rdc_rdmacap down --run "$RUN" >/dev/null 2>&1
	[ -n "$W" ] && rm -rf "$W"
}

rcp_setup() {
	rdc_rxe_suite "$1" "rdma_rxe rdma_ucm" openssl
	trap rcp__cleanup EXIT

	if ! rcp__up; then
		tap_skip_all "rdmacap up --topology pair --rxe failed: $(tail -n1 "$W/up.err")"
		exit 4
	fi
}

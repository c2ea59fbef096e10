#!/bin/bash
# SPDX-License-Identifier: MIT
#
# rdmacap's bad command lines end before anything exists: every value the agent
# would reject (common/opt.h) exits 2 with the usage line, and leaves no rdc
# namespace, no agent process and no --json file behind. Also `report` with its
# files and options in any order. Prints TAP; RDMACAP overrides the binary.
# Touches namespaces only by listing them; run it under /tmp/rdmacap-host.lock
# like the other host tests so that a parallel run's namespaces do not count.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# the agent rdmacap would start leaves a mark: no mark, no process was created
cat >"$T/agent" <<AGENT
#!/bin/sh
touch "$T/spawned"
exec "$ROOT/build/rdmacap-agent" "\$@"
AGENT
chmod +x "$T/agent"
export RDMACAP_AGENT=$T/agent

# A PKI of throwaway files: good.pem serves both roles as the agents check them
# (server name from common/proto.h, serverAuth and clientAuth); the others each
# break one rule.
NAME=$(sed -n 's/^#define PROTO_TLS_SERVER_NAME "\(.*\)"$/\1/p' "$ROOT/common/proto.h")
ossl() { openssl "$@" >/dev/null 2>&1 || echo "cli-usage.t: openssl $1 failed" >&2; }
mkca() {
	ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
		-subj "/CN=$1" -keyout "$T/$1.key" -out "$T/$1.pem" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign
}
leaf() { # name ca extensions
	ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
		-keyout "$T/$1.key" -out "$T/$1.csr"
	printf '%b\n' "$3" >"$T/$1.ext"
	ossl x509 -req -in "$T/$1.csr" -CA "$T/$2.pem" -CAkey "$T/$2.key" -CAcreateserial \
		-days 1 -extfile "$T/$1.ext" -out "$T/$1.pem"
}
mkca ca
mkca other-ca
BOTH="basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth"
leaf good ca "$BOTH\nsubjectAltName=DNS:$NAME"
leaf foreign other-ca "$BOTH\nsubjectAltName=DNS:$NAME"
leaf noname ca "$BOTH\nsubjectAltName=DNS:elsewhere"
leaf server-only ca "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:$NAME"
echo "not a certificate" >"$T/garbage.pem"
tls() { echo "--transport rc --tls-ca $T/$1 --tls-cert $T/$2 --tls-key $T/$3"; }

rdc_ns() { ip netns list 2>/dev/null | awk '$1 ~ /^rdc/ { print $1 }' | sort; }

BAD=(
	"--server-threads 100"
	"--server-threads 0"
	"--workers 2000000"
	"--msgs 100000001"
	"--size 0"
	"--size 1048577"
	"--timeout 0"
	"--ports 65"
	"--think-ms 600001"
	"--transport udp"
	"--transport tcp --srq"
	"--transport tcp --cm rdmacm"
	"--transport tcp --oob-session per-conn"
	"--transport rc --cq both"
	"--transport uc --op read"
	"--transport rc --tls-ca $T/ca.pem"
	"--agents 1 --clients 1048577"
	"--srq=1"
	"--verbose=1"
	# --json where the result could not be written at the end
	"--json $T/no-such-dir/out.json"
	"--json $T"
	"--json /proc/version"
	"--json="
	# TLS files not as the agents would use them
	"$(tls garbage.pem good.pem good.key)"
	"$(tls ca.pem missing.pem good.key)"
	"$(tls ca.pem good.pem noname.key)"
	"$(tls ca.pem foreign.pem foreign.key)"
	"$(tls ca.pem noname.pem noname.key)"
	"$(tls ca.pem server-only.pem server-only.key)"
	"$(tls ca.pem good.pem good.key) --cm rdmacm"
	# the memory floor: MiB, 0 (off) to 1 TiB
	"--mem-floor -1"
	"--mem-floor 1048577"
	"--mem-floor 64M"
	# the host topology's --family and --server-addr must name one family
	"--topology host --family 6 --server-addr 10.0.0.1"
	"--topology host --family 4 --server-addr fd7a::2"
	# the address vector's fields: a 4-bit SL, an 8-bit traffic class
	"--transport rc --sl 16"
	"--transport rc --tclass 256"
	"--transport tcp --sl 1"
	"--transport rc --cm rdmacm --sl 1"
	# --cm-order orders rdma_cm's steps: rc and uc clients with --cm rdmacm only
	"--transport rc --cm-order phased"
	"--transport uc --cm oob-tls --cm-order pipelined"
	"--transport ud --cm rdmacm --cm-order phased"
	"--transport rc --cm rdmacm --cm-order cmtime"
	# srp: the kernel's initiator and target, in the initial namespace, on their own terms
	"--transport srp"
	"--transport srp --topology host --cm rdmacm"
	"--transport srp --topology host --nvme-io-queues 2"
)
# what the message must name, by the index of the line above
declare -A NAMED=(
	[19]=no-such-dir [20]="$T" [21]=/proc/version [22]=json
	[23]=garbage.pem [24]=missing.pem [25]=noname.key [26]=foreign.pem [27]=noname.pem
	[28]=server-only.pem [29]=rdmacm [30]=mem-floor [31]=mem-floor [32]=mem-floor
	[33]="--family 6 and --server-addr 10.0.0.1" [34]="--family 4 and --server-addr fd7a::2"
	[35]="--sl (want 0..15)" [36]="--tclass (want 0..255)" [37]=--sl [38]="--sl is not taken"
	[39]="--cm-order is an option of --cm rdmacm" [40]="--cm-order is an option of --cm rdmacm"
	[41]="--cm-order is an option of --transport rc" [42]="pipelined|phased"
	[43]="initial network namespace" [44]="ib_srp connects its channels"
	[45]="--nvme-io-queues is an option of --transport nvmf"
)

tap_init
tap_plan $((${#BAD[@]} + 6))
for i in "${!BAD[@]}"; do
	args=${BAD[$i]}
	before=$(rdc_ns)
	rm -f "$T/spawned" "$T/out.json"
	# shellcheck disable=SC2086 # args is a list of words
	timeout 20 "$RDMACAP" run --topology loop --clients 1 --json "$T/out.json" $args \
		>"$T/out" 2>"$T/err"
	rc=$?
	after=$(rdc_ns)
	why=
	[ $rc -eq 2 ] || why+=" exit=$rc"
	grep -q '^usage: rdmacap run' "$T/err" || why+=" no usage line"
	[ -e "$T/spawned" ] && why+=" an agent was started"
	[ -e "$T/out.json" ] && why+=" --json file written"
	[ "$before" = "$after" ] || why+=" namespaces changed: $(echo "$after" | tr '\n' ' ')"
	[ -s "$T/out" ] && why+=" stdout not empty"
	[ -n "${NAMED[$i]-}" ] && ! grep -qF -- "${NAMED[$i]}" "$T/err" &&
		why+=" message does not name ${NAMED[$i]}"
	desc="run $args: exit 2 before anything is created ($(head -1 "$T/err"))"
	if [ -z "$why" ]; then tap_ok "$desc"; else tap_fail "$desc" "${why# }"; fi
done

# good TLS files pass the check: the error is the next rule's, nothing is created
# shellcheck disable=SC2046 # tls prints a list of words
"$RDMACAP" limit --topology loop --start 5 --max 2 $(tls ca.pem good.pem good.key) \
	>"$T/out" 2>"$T/err"
rc=$?
desc="limit with good TLS files: the check passes them (exit $rc, $(head -1 "$T/err"))"
if [ $rc -eq 2 ] && grep -q -- "--start is above --max" "$T/err"; then
	tap_ok "$desc"
else
	tap_fail "$desc" "$(head -1 "$T/err")"
fi

# report: options and files in any order; inputs checked before output is written
cat >"$T/run.json" <<'JSON'
{"rdmacap": "test", "plan": {"transport": "tcp"},
 "points": [{"clients": 10, "connected": 10, "success_pct": 100, "verdict": "pass"}]}
JSON
"$RDMACAP" report "$T/run.json" --md "$T/a.md" >"$T/out" 2>"$T/err"
rc=$?
desc="report FILE --md OUT: reads FILE, writes OUT (exit $rc)"
if [ $rc -eq 0 ] && grep -q '| tcp | 10 |' "$T/a.md"; then
	tap_ok "$desc"
else
	tap_fail "$desc" "$(head -1 "$T/err")"
fi
"$RDMACAP" report --md "$T/b.md" "$T/run.json" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && [ -s "$T/b.md" ] && cmp -s "$T/a.md" "$T/b.md"; then
	tap_ok "report --md OUT FILE: the same table (exit $rc)"
else
	tap_fail "report --md OUT FILE: the same table (exit $rc)" "$(head -1 "$T/err")"
fi
"$RDMACAP" report "$T/missing.json" --md "$T/c.md" >"$T/out" 2>"$T/err"
rc=$?
desc="report MISSING --md OUT: exit 2 naming the file, nothing written (exit $rc)"
if [ $rc -eq 2 ] && grep -q "missing.json" "$T/err" && [ ! -e "$T/c.md" ]; then
	tap_ok "$desc"
else
	tap_fail "$desc" "$(head -1 "$T/err")"
fi
chmod 000 "$T/run.json"
"$RDMACAP" report "$T/run.json" "$T/missing.json" --md "$T/d.md" >"$T/out" 2>"$T/err"
rc=$?
chmod 644 "$T/run.json"
desc="report with one unreadable input: exit 2 naming it, nothing written (exit $rc)"
if [ $rc -eq 2 ] && grep -q "json" "$T/err" && [ ! -e "$T/d.md" ]; then
	tap_ok "$desc"
else
	tap_fail "$desc" "$(head -1 "$T/err")"
fi
# report: one row group and one series per design, named from each file's plan
rj() { # FILE PLAN-FIELDS QP CQ MR SRQ AH
	cat >"$1" <<JSON
{"plan": {"transport": "rc", "cq": "per-conn", "srq": false, "qp_share": 0, "ah": "cache", $2},
 "points": [{"clients": 100, "connected": 100, "success_pct": 100, "verdict": "pass",
  "server": {"ah": $7, "bytes_per_conn": 512},
  "resources": {"base": {"server": {"qp": 0, "cq": 0, "mr": 0, "srq": 0}},
                "peak": {"server": {"qp": $3, "cq": $4, "mr": $5, "srq": $6}}}}]}
JSON
}
rj "$T/d1.json" '"transport": "rc"' 100 200 200 0 0
rj "$T/d2.json" '"cq": "shared", "srq": true' 100 1 101 1 0
rj "$T/d3.json" '"qp_share": 16' 16 32 32 0 0
rj "$T/d4.json" '"transport": "ud"' 1 1 1 0 100
"$RDMACAP" report --md "$T/des.md" --svg "$T/des.svg" "$T"/d[1-4].json >"$T/out" 2>"$T/err"
rc=$?
why=
for row in '| rc | 100 |' '| rc shared-cq srq | 100 |' '| rc qp-share 16 | 100 |' '| ud | 100 |'; do
	grep -qF "$row" "$T/des.md" || why+=" no row '$row'"
done
# objects per client: (QP+CQ+MR+SRQ+AH)/connected
for v in '| 5.00 |' '| 2.03 |' '| 0.80 |' '| 1.03 |'; do
	grep -qF "$v" "$T/des.md" || why+=" no Objects/client cell '$v'"
done
grep -q 'Server device objects per client' "$T/des.svg" || why+=" no objects panel"
n=$(grep -c "<text [^>]*>p50 " "$T/des.svg")
[ "$n" = 4 ] || why+=" $n p50 series, not 4"
desc="report of 4 designs: a row and a series each, objects per client (exit $rc)"
if [ $rc -eq 0 ] && [ -z "$why" ]; then tap_ok "$desc"; else tap_fail "$desc" "${why# }"; fi
tap_finished

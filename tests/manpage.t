#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The man pages make builds render without a warning and have the sections of
# man/*.h2m (EXIT STATUS, EXAMPLES with one per command, ENVIRONMENT naming every
# variable the programs read, FILES, SEE ALSO with the RDMA tools) and of
# --help-all (COMMANDS, LOAD OPTIONS once, GENERAL OPTIONS); rdmacap-agent(1) has
# SYNOPSIS, EXAMPLES, ENVIRONMENT and FILES; no help line is cut; and the bash
# completion it builds completes commands, options and their words in a real
# bash. (That both name every option of the tables: build/tests/test_usage.)
# Prints TAP.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
B=${BUILD:-$ROOT/build}

tap_init
if ! command -v man >/dev/null; then
	tap_skip_all "man not installed (tests/deps)"
	exit 4
fi
tap_plan 12
for page in rdmacap.1 rdmacap-agent.1; do
	warn=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$B/$page" 2>&1 >/dev/null)
	nlines=$(MANWIDTH=80 man -l "$B/$page" 2>/dev/null | wc -l)
	desc="man -l build/$page renders ($nlines lines) without warnings"
	if [ -z "$warn" ] && [ "$nlines" -gt 40 ]; then tap_ok "$desc"; else tap_fail "$desc" "$warn"; fi
done

# the rendered page's section $2 of build/$1
section() {
	[ -f "$T/$1.txt" ] || MANWIDTH=200 man -l "$B/$1" >"$T/$1.txt" 2>/dev/null
	awk -v s="$2" '/^[A-Z]/ { on = ($0 == s) } on' "$T/$1.txt"
}
# sections: PAGE SECTION...: each is there and not empty
sections() {
	local page=$1 s miss=
	shift
	for s in "$@"; do
		[ "$(section "$page" "$s" | wc -l)" -gt 1 ] || miss+=" '$s'"
	done
	if [ -z "$miss" ]; then tap_ok "$page has the sections $*"
	else tap_fail "$page has the sections $*" "missing or empty:$miss"; fi
}
sections rdmacap.1 COMMANDS "LOAD OPTIONS" "GENERAL OPTIONS" "EXIT STATUS" ENVIRONMENT FILES \
	EXAMPLES "SEE ALSO"
sections rdmacap-agent.1 SYNOPSIS DESCRIPTION "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"

# rdmacap.1 says each option once: the load commands' under LOAD OPTIONS, not
# per command (--clients excepted: its default is each command's; --run is up's
# and down's, each its own meaning)
section rdmacap.1 "LOAD OPTIONS" >/dev/null
dup=$(grep -oE '^       --[a-z-]+' "$T/rdmacap.1.txt" | grep -vE -- '--(clients|run)$' | sort |
	uniq -d | tr -s ' \n' ' ')
nload=$(section rdmacap.1 "LOAD OPTIONS" | grep -cE '^       --[a-z-]+')
desc="rdmacap.1: every option one paragraph ($nload under LOAD OPTIONS)"
if [ -z "$dup" ] && [ "$nload" -gt 20 ]; then tap_ok "$desc"; else tap_fail "$desc" "repeated:$dup"; fi

# nothing cut: each option line of both programs' help closes what it opens
cut=$({ "$B/rdmacap-agent" --help; "$B/rdmacap" --help-all; } | grep -E '^  --' |
	awk '{ o = gsub(/\(/, "("); c = gsub(/\)/, ")"); if (o != c) print }')
desc="--help of both programs: no option line cut (every '(' closed)"
if [ -z "$cut" ]; then tap_ok "$desc"; else tap_fail "$desc" "$(head -3 <<<"$cut")"; fi

# up's help says why --topology host is not one of its words
desc="rdmacap up --help: names --topology host and why up refuses it"
if "$B/rdmacap" up --help | head -2 | grep -q -- '--topology host'; then tap_ok "$desc"
else tap_fail "$desc" "$("$B/rdmacap" up --help | head -2)"; fi

# every command has an example, every getenv of the programs is documented
want=$(cd "$ROOT" && grep -rhoE 'getenv\("[A-Z_]+"\)' --include='*.c' harness agents common \
	netns rdma tap | sed -E 's/getenv\("([A-Z_]+)"\)/\1/' | sort -u)
miss=
for v in $want; do
	section rdmacap.1 ENVIRONMENT | grep -qw -- "$v" || miss+=" $v"
done
for c in env up down run ramp limit storm report; do
	section rdmacap.1 EXAMPLES | grep -qE -- "rdmacap $c( |\$)" || miss+=" example:$c"
done
desc="rdmacap.1: ENVIRONMENT names $(wc -w <<<"$want") variables the code reads, EXAMPLES each command"
if [ -n "$want" ] && [ -z "$miss" ]; then tap_ok "$desc"; else tap_fail "$desc" "missing:$miss"; fi

miss=
for r in "ibv_devinfo(1)" "rdma(8)" "ib_send_lat(1)" "cmtime(1)"; do
	section rdmacap.1 "SEE ALSO" | grep -qF -- "$r" || miss+=" $r"
done
if [ -z "$miss" ]; then tap_ok "rdmacap.1: SEE ALSO names the RDMA tools"
else tap_fail "rdmacap.1: SEE ALSO names the RDMA tools" "missing:$miss"; fi

# complete WORDS...: what bash offers for the last word
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rdmacap
		 echo "${COMPREPLY[*]}"' _ "$B/rdmacap.bash" "$@"
}
check() {
	local want=$1 got
	shift
	got=$(complete_words "$@")
	if [ "$got" = "$want" ]; then tap_ok "complete '$*' -> '$want'"
	else tap_fail "complete '$*' -> '$want'" "got '$got'"; fi
}
check "run ramp report" rdmacap r
check "--transport" rdmacap run --tr
check "oob-tls rdmacm" rdmacap limit --cm ""
tap_finished

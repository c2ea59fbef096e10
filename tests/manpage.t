#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The man pages make builds render without a warning, and the bash completion
# it builds completes commands, options and their words in a real bash. (That
# both name every option of the tables: build/tests/test_usage.) Prints TAP.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
B=${BUILD:-$ROOT/build}

tap_init
if ! command -v man >/dev/null; then
	tap_skip_all "man not installed (tests/deps)"
	exit 4
fi
tap_plan 5
for page in rdmacap.1 rdmacap-agent.1; do
	warn=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$B/$page" 2>&1 >/dev/null)
	nlines=$(MANWIDTH=80 man -l "$B/$page" 2>/dev/null | wc -l)
	desc="man -l build/$page renders ($nlines lines) without warnings"
	if [ -z "$warn" ] && [ "$nlines" -gt 40 ]; then tap_ok "$desc"; else tap_fail "$desc" "$warn"; fi
done

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

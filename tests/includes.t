#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The include rules, read from the sources: no transport folder of agents/
# includes another transport's headers, the folders the transports share
# (oob/, verbs/, srv/) include none, agents/ never includes harness/ or tap/
# (agents/README.md); harness/'s folders include one way, down the order
# harness/README.md declares, and every folder of harness/ is in it; and
# every include says where it is looked up: quotes for the project's files
# (found from the root under `-iquote .`), angle brackets for the system's.
# The transport folders are the ones agents/transport.c takes its rows from.
# Prints TAP.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# incs FILE...: "FILE:PATH" per quoted include
incs() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1" |
		sed "s|^|$1:|"
}

# bad_in DIR PATTERN: the quoted includes under DIR whose path matches PATTERN
bad_in() {
	local f

	while IFS= read -r f; do
		incs "$f"
	done < <(find "$1" -name '*.[ch]' | sort) | grep -E ":($2)" || true
}

cd "$ROOT" || exit 1
mapfile -t TRANSPORTS < <(sed -n 's|^#include "agents/\([a-z]*\)/[a-z_]*\.h"|\1|p' agents/transport.c | sort -u)
# harness/README.md's order: "    NAME/  what" under its heading, top first
mapfile -t ORDER < <(sed -n '/^## The order of the folders/,/^## /s|^    \([a-z_]*\)/ .*|\1|p' \
	harness/README.md)

tap_init
tap_plan $((${#TRANSPORTS[@]} + 6))

tap_kv transports "${TRANSPORTS[*]}"
for t in "${TRANSPORTS[@]}"; do
	others=$(printf '%s\n' "${TRANSPORTS[@]}" | grep -vx "$t" | paste -sd '|')
	bad=$(bad_in "agents/$t" "agents/($others)/")
	tap_result "$([ -z "$bad" ] && echo pass || echo fail)" \
		"agents/$t/ includes no other transport's headers" "$bad"
done

shared=()
for d in agents/*/; do
	d=${d%/}
	printf '%s\n' "${TRANSPORTS[@]}" | grep -qx "${d#agents/}" || shared+=("$d")
done
bad=$(for d in "${shared[@]}"; do bad_in "$d" "agents/($(printf '%s\n' "${TRANSPORTS[@]}" | paste -sd '|'))/"; done)
tap_result "$([ -z "$bad" ] && echo pass || echo fail)" \
	"the shared folders (${shared[*]}) include no transport's headers" "$bad"

bad=$(bad_in agents "harness/|tap/")
tap_result "$([ -z "$bad" ] && echo pass || echo fail)" "agents/ includes nothing of harness/ or tap/" "$bad"

tap_kv harness_order "${ORDER[*]}"
bad=$(for d in harness/*/; do
	d=${d#harness/}
	d=${d%/}
	printf '%s\n' "${ORDER[@]}" | grep -qx "$d" || echo "harness/$d/"
done)
[ ${#ORDER[@]} -gt 0 ] || bad="harness/README.md: no order found"
tap_result "$([ -z "$bad" ] && echo pass || echo fail)" \
	"every folder of harness/ is in harness/README.md's order" "$bad"

# folder ORDER[i] may include only ORDER[j], j > i: the ones above it are refused
bad=$(for ((i = 1; i < ${#ORDER[@]}; i++)); do
	above=$(printf '%s\n' "${ORDER[@]:0:i}" | paste -sd '|')
	bad_in "harness/${ORDER[i]}" "harness/($above)/"
done)
tap_result "$([ -z "$bad" ] && echo pass || echo fail)" \
	"harness/'s folders include only folders below them in the order" "$bad"

C_FILES=$(find . -path ./build -prune -o -name '*.[ch]' -print | sed 's|^\./||' | sort)

# a quoted include must name a project file from the root
bad=$(for f in $C_FILES; do incs "$f"; done | while IFS=: read -r f p; do
	[ -f "$p" ] || echo "$f:\"$p\""
done)
tap_result "$([ -z "$bad" ] && echo pass || echo fail)" \
	"every quoted include is a project file, named from the root" "$bad"

# an angle include must not be a project file: -iquote . leaves those to quotes
bad=$(for f in $C_FILES; do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/\1/p' "$f" |
		while IFS= read -r p; do [ -f "$p" ] && echo "$f:<$p>"; done
done)
tap_result "$([ -z "$bad" ] && echo pass || echo fail)" \
	"no angle-bracket include names a project file" "$bad"

tap_finished

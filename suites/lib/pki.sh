# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# pki.sh: a throwaway oob-tls PKI made with the openssl CLI in the profile of
# harness/certs/certs.c (EC P-256, one day, keys 0600).
#
#   rdc_pki DIR   DIR/ca.{pem,key}; DIR/server (serverAuth, DNS rdmacap-server);
#                 DIR/client (clientAuth); DIR/rogue-ca and DIR/rogue-client,
#                 a client of an unrelated CA. openssl's talk in DIR.log;
#                 status 0 when every certificate was made

rdc_pki() {
	local d=$1

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
		leaf() { # NAME CA CN EKU [SAN]
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
	) >"$d.log" 2>&1
}

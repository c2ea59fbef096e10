/* SPDX-License-Identifier: MIT */
/*
 * certs: a throwaway PKI for one run of the oob-tls connection manager.
 *
 * certs_make(dir) writes, with fresh EC P-256 keys and one day of validity:
 *   dir/ca.pem                   self-signed CA (basicConstraints CA:TRUE, keyCertSign)
 *   dir/server.pem, server.key   CN and DNS SAN PROTO_TLS_SERVER_NAME, EKU serverAuth
 *   dir/client.pem, client.key   CN CERTS_CLIENT_NAME, EKU clientAuth
 * certs_make_rogue(dir) writes a second, unrelated CA and a client signed by it:
 *   dir/rogue-ca.pem, dir/rogue-client.pem, dir/rogue-client.key
 * A server trusting dir/ca.pem must refuse the rogue client.
 *
 * Private keys are created mode 0600. Existing files are replaced. Returns 0, or
 * -1 with "<call> <file>: <why>" in err.
 */
#ifndef RDC_HARNESS_CERTS_H
#define RDC_HARNESS_CERTS_H

#include <stddef.h>

/* the name agents check in the server certificate (SSL_set1_host) */
#include "common/proto.h" /* PROTO_TLS_SERVER_NAME */
#define CERTS_CLIENT_NAME "rdmacap-client"

int certs_make(const char *dir, char *err, size_t len);

/*
 * A run's throwaway PKI: a fresh directory /tmp/rdmacap-tls.XXXXXX (its name in
 * dir, dlen >= 24) holding certs_make's files. 0, or -1 with why in err and
 * nothing left behind.
 */
int certs_run_dir(char *dir, size_t dlen, char *err, size_t len);
/* Removes certs_run_dir's files and directory; what fails is said on stderr. */
void certs_run_dir_remove(const char *dir);

/*
 * The user's own PKI (--tls-ca/--tls-cert/--tls-key), checked before a run as
 * the agents will use it: every agent, server and client, presents the one
 * certificate. Each file readable PEM, the key unencrypted and the
 * certificate's, the certificate (with any chain after it in its file) signed
 * by the CA, usable as a server certificate for PROTO_TLS_SERVER_NAME and as a
 * client certificate. Returns 0, or -1 with "--tls-X FILE: why" in err.
 */
int certs_check(const char *ca, const char *cert, const char *key, char *err, size_t len);
int certs_make_rogue(const char *dir, char *err, size_t len);

#endif

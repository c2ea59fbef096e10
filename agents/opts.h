/* SPDX-License-Identifier: MIT */
/*
 * opts: the agent's command line, parsed and validated into struct ag_opts.
 * Kept out of main.c so unit tests can drive the parser.
 */
#ifndef RDC_AGENTS_OPTS_H
#define RDC_AGENTS_OPTS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/proto.h" /* PROTO_PORT_BASE */

enum ag_role { AG_ROLE_NONE, AG_ROLE_SERVER, AG_ROLE_CLIENT };
enum ag_transport { AG_TR_NONE, AG_TR_TCP, AG_TR_RC };
enum ag_model { AG_MODEL_EVENT, AG_MODEL_THREAD };
/* --transport rc only */
enum ag_cm { AG_CM_OOB_TLS, AG_CM_RDMACM };
enum ag_cq { AG_CQ_PER_CONN, AG_CQ_SHARED };
enum ag_op { AG_OP_SEND, AG_OP_WRITE };
enum ag_oob_session { AG_OOB_PER_AGENT, AG_OOB_PER_CONN };

#define AG_EXIT_USAGE 2

#define AG_DEF_PORT PROTO_PORT_BASE
#define AG_DEF_SIZE 64
#define AG_MAX_SIZE (1u << 20)
#define AG_DEF_TIMEOUT 60
#define AG_DEF_BACKLOG 65535
#define AG_DEF_MSGS 10
#define AG_MAX_CLIENTS (1u << 20)
#define AG_MAX_THREADS 64

struct ag_opts {
	enum ag_role role;
	enum ag_transport transport;
	struct in_addr addr;
	char addr_str[INET_ADDRSTRLEN];
	uint32_t port;
	uint32_t ports;
	uint32_t size;
	uint32_t timeout_s;
	/* server */
	enum ag_model model;
	uint32_t server_threads;
	uint32_t backlog;
	/* client */
	uint32_t clients;
	uint32_t first_id;
	uint32_t msgs;
	uint32_t think_ms;
	uint32_t stagger_ms;
	uint32_t workers;
	bool has_bind;
	struct in_addr bind;
	char bind_str[INET_ADDRSTRLEN];
	/* --transport rc */
	enum ag_cm cm;
	enum ag_cq cq;
	enum ag_op op;
	enum ag_oob_session oob_session;
	bool srq;
	const char *dev;	/* NULL: the device holding the local address */
	const char *tls_ca, *tls_cert, *tls_key;	/* point into argv */
};

/*
 * Returns 0 on success, 1 when --help was asked, -1 on a usage error with a one
 * line reason naming the offending option in err.
 */
int ag_opts_parse(struct ag_opts *o, int argc, char **argv, char *err, size_t errlen);
void ag_usage(FILE *f);

#endif

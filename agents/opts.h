/* SPDX-License-Identifier: MIT */
/*
 * opts: the agent's command line, parsed and validated into struct ag_opts.
 * Kept out of main.c so unit tests can drive the parser. The options rdmacap
 * also takes are parsed through common/opt.h, with the same words and limits.
 */
#ifndef RDC_AGENTS_OPTS_H
#define RDC_AGENTS_OPTS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/ipaddr.h"
#include "common/opt.h"
#include "rdma/port.h"

enum ag_role { AG_ROLE_NONE, AG_ROLE_SERVER, AG_ROLE_CLIENT };

/* limits and defaults of the shared options are in common/opt.h */
#define AG_DEF_BACKLOG 65535

struct ag_opts {
	enum ag_role role;
	enum opt_transport transport;
	struct ipa addr;	/* the server's; its family is the run's */
	char addr_str[IPA_STRLEN];
	uint32_t port;
	uint32_t ports;
	uint32_t size;
	uint32_t timeout_s;
	uint32_t keepidle_s;	/* tcp: --keepidle, rdmacap's dl_tcp_keepidle_s of the point */
	/* server */
	enum opt_model model;
	uint32_t server_threads;
	uint32_t backlog;
	uint32_t pool;		/* rc: requests to come, served by a pool (rc_server.h) */
	/* client */
	uint32_t clients;
	uint32_t first_id;
	uint32_t msgs;
	uint32_t think_ms;
	uint32_t stagger_ms;
	uint32_t workers;
	uint32_t qp_share;	/* QPs the clients share; 0: one each */
	bool has_bind;
	struct ipa bind;
	char bind_str[IPA_STRLEN];
	/* --transport rc */
	enum opt_cm cm;
	enum opt_cm_order cm_order;	/* --cm rdmacm, client */
	enum opt_cq cq;
	enum opt_mr mr;
	enum opt_op op;
	enum opt_oob_session oob_session;
	bool srq;
	uint32_t rx_depth;	/* --rx-depth, 0: the agent's own */
	enum opt_poll poll;
	int cpus[OPT_CPUS_MAX];	/* --cpus: a spinning loop's CPU each, in loop order */
	uint32_t ncpus;		/* 0: not bound */
	enum opt_ah ah;
	uint32_t ah_max;	/* --ah lru: AHs held at most, 0: max_ah less UD_AH_SPARE */
	const char *dev;	/* NULL: the device holding the local address */
	struct opt_dev device;	/* --device NAME[:PORT]: dev points at its name */
	int gid_index;		/* --gid-index, -1: the GID rdma/port chooses for the address */
	uint8_t sl;		/* --sl: the address vectors' service level */
	uint8_t tclass;		/* --tclass: their GRH's traffic class */
	const char *tls_ca, *tls_cert, *tls_key;	/* point into argv */
	/* --transport nvmf */
	uint32_t nvme_io_queues, nvme_queue_size;
	const char *nqn;	/* --nqn: the target subsystem's (common/nvmfname.h) */
	uint32_t slots;		/* server --slots: the clients' LBA ranges the disk holds */
	const char *run;	/* --transport srp: --run, 4 hex digits (common/srpname.h) */
	const char *fi_provider;	/* --fi-provider, into argv: fi-msg, fi-rdm */
};

/*
 * Returns 0 on success, 1 when --help was asked, -1 on a usage error with a one
 * line reason naming the offending option in err.
 */
int ag_opts_parse(struct ag_opts *o, int argc, char **argv, char *err, size_t errlen);
/* The agent's --help on f, from the option table. 0, or -1 when f fails. */
int ag_usage(FILE *f);
/*
 * A client's local address: --bind, else the source the kernel routes from
 * towards --addr (rdma/dev's rdev_route_src), whose GID the QPs use. 0, or -1
 * after a fatal "error" record.
 */
int ag_opts_local(const struct ag_opts *o, struct ipa *local);

/*
 * The path of the address vectors (rport_av) from local GID index gidx: --sl,
 * --tclass, and on InfiniBand a GRH only when --gid-index asked for one.
 */
struct rport_path ag_opts_path(const struct ag_opts *o, int gidx);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * hosttopo: --topology host, the host's own RDMA device and addresses as they
 * are. Nothing is created: no namespace, link or rxe device; the sysctls a
 * plan needs there are harness/load/tune.h's (said, or set with --tune).
 *
 * Offers
 *  - htp_topo(): the topology's hosts from --device, --gid-index and
 *    --server-addr, checked on this host's devices (rdma/dev.h); a device
 *    without an IPv4-mapped RoCEv2 GID (iWARP, InfiniBand) is the one
 *    rdma_cm binds --server-addr to;
 *  - htp_topo_hosts(): the topology of a --hosts run.
 *
 * Uses: rdma/dev.h, librdmacm, harness/hosts/hosts.h, harness/cli/plan.h.
 */
#ifndef RDC_HARNESS_HOSTTOPO_H
#define RDC_HARNESS_HOSTTOPO_H

#include <stddef.h>

#include "harness/cli/plan.h"

/*
 * Fills t (kind NN_HOST, run id 'run') for plan p: server and client share this
 * host's device and address. 0; 1 when there is no RDMA device at all (a whole
 * run SKIP, reason in why); -1 when the named device, port, GID or address is
 * not there (why names it).
 */
int htp_topo(const struct hp_plan *p, struct nn_topo *t, const char *run, char *why, size_t len);

/*
 * Fills t for --hosts: the server on the first host at --server-addr (default:
 * that host's name when it is an IPv4 address), one client host per other
 * host, each with its hosts-file device or --device ("" = the address's). No
 * device is opened here: they are the remote hosts'. 0, or -1 with why.
 */
int htp_topo_hosts(const struct hp_plan *p, struct nn_topo *t, const char *run, char *why,
		   size_t len);

#endif

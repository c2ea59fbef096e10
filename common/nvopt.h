/* SPDX-License-Identifier: MIT */
/*
 * nvopt: the cross-option rules of the kernel services, --transport nvmf and
 * srp, that rdmacap and rdmacap-agent share.
 *
 * The kernel's initiator (nvme-rdma, ib_srp) sets up the connections and the
 * kernel's target (nvmet, ib_srpt) is the server, so the options that shape
 * rdmacap's own QPs, connection manager or server are refused, each with why:
 * a choice the kernel makes. Which transports take an option at all is
 * opt_tr_takes' (common/opt.h); these are the services' refusals beyond it.
 *
 * Uses: common/opt.h and libc only. Errors are written into a caller's buffer.
 */
#ifndef RDC_COMMON_NVOPT_H
#define RDC_COMMON_NVOPT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/opt.h"

/* The rules of --transport nvmf and srp (no-op for the others). 0, or -1 with the reason in err. */
int nvopt_rules(enum opt_transport tr, const bool seen[OPT_N], char *err, size_t errlen);

#endif

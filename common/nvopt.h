/* SPDX-License-Identifier: MIT */
/*
 * nvopt: the cross-option rules of --transport nvmf that rdmacap and
 * rdmacap-agent share.
 *
 * The kernel's nvme-rdma sets up the connections and nvmet is the server, so
 * the options that shape rdmacap's own QPs, connection manager or server are
 * refused, each with why: a choice the kernel makes. Which transports take an
 * option at all is opt_tr_takes' (common/opt.h); these are nvmf's refusals
 * beyond it.
 *
 * Uses: common/opt.h and libc only. Errors are written into a caller's buffer.
 */
#ifndef RDC_COMMON_NVOPT_H
#define RDC_COMMON_NVOPT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/opt.h"

/* The rules of --transport nvmf (no-op for the others). 0, or -1 with the reason in err. */
int nvopt_rules(enum opt_transport tr, const bool seen[OPT_N], char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * fip: is a libfabric provider offered here? The check behind the SKIP of an
 * fi-msg or fi-rdm run whose --fi-provider fi_getinfo does not offer at the
 * server's address (no RDMA device for verbs, a misspelt name, a provider
 * not built): the reason names it and the providers fi_getinfo did find for
 * that endpoint type. Run where the server will run (its namespace), as the
 * provider sees only that namespace's addresses. Part of rdma/ (libc,
 * libfabric only).
 */
#ifndef RDC_RDMA_FIPROV_H
#define RDC_RDMA_FIPROV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Provider prov for FI_EP_RDM (rdm) or FI_EP_MSG at addr (a source address,
 * as the server's): 0 when offered, 1 when not (why says so and lists the
 * providers found), -1 when fi_allocinfo fails.
 */
int fip_check(const char *prov, bool rdm, const char *addr, char *why, size_t len);

#endif

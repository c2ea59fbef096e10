/* SPDX-License-Identifier: MIT */
/*
 * fip: is a libfabric provider offered here? The check behind the SKIP of an
 * fi-msg or fi-rdm run whose --fi-provider fi_getinfo does not offer at the
 * server's address (no RDMA device for verbs, a misspelt name, a provider
 * not built): the reason names it and the providers fi_getinfo did find for
 * that endpoint type. Run where the server will run (its namespace), as the
 * provider sees only that namespace's addresses. Part of rdma/ (libc,
 * libibverbs, libfabric).
 */
#ifndef RDC_RDMA_FIPROV_H
#define RDC_RDMA_FIPROV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * ofi_rxm 1.17's own sizes (prov/rxm/src/rxm.h: RXM_MSG_RXTX_SIZE,
 * RXM_MSG_SRX_SIZE) and the core's default universe (ofi_universe_size,
 * src/common.c; FI_UNIVERSE_SIZE): what it sizes each endpoint's CQ of the
 * core provider by.
 */
#define FIP_RXM_MSG_SIZE 128
#define FIP_RXM_SRX_SIZE 4096
#define FIP_UNIVERSE 1024

/*
 * Provider prov for FI_EP_RDM (rdm) or FI_EP_MSG at addr (a source address,
 * as the server's): 0 when offered, 1 when not (why says so and lists the
 * providers found) or when it cannot open an endpoint there (verbs;ofi_rxm
 * whose CQ is deeper than the device's max_cqe: fip_rxm_why; srx: the
 * endpoints take rxm's shared receive context), -1 when fi_allocinfo fails.
 */
int fip_check(const char *prov, bool rdm, bool srx, const char *addr, char *why, size_t len);

/*
 * The entries ofi_rxm asks of the verbs CQ under one endpoint (with srx, its
 * shared receive context's), from FI_UNIVERSE_SIZE and FI_OFI_RXM_MSG_RX_SIZE
 * and _TX_SIZE as libfabric reads them, else their defaults.
 */
unsigned long fip_rxm_cqe(bool srx);

/*
 * NULL when that CQ fits max_cqe of device dev, else the reason in buf: the
 * sizes, the provider function that asks them, the call that fails and the
 * variables that lift it.
 */
const char *fip_rxm_why(const char *dev, long max_cqe, bool srx, char *buf, size_t len);

/*
 * Without a shared receive context, each peer's connection beneath an rxm
 * endpoint reserves its msg rx depth of that CQ's entries (vrb_ep_bind,
 * prov/verbs/src/verbs_ep.c) and sends take what is left: the peers one
 * endpoint holds with a send credit left. fip_rxm_credit_why: that reason,
 * for peers on one endpoint, in buf; NULL when they fit.
 */
unsigned long fip_rxm_peers(void);
const char *fip_rxm_credit_why(long peers, char *buf, size_t len);

#endif

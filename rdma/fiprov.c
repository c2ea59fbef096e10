// SPDX-License-Identifier: MIT
/*
 * fi_getinfo asked for one provider, and then for all, to say which exist
 * (fiprov.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "rdma/cap.h"
#include "rdma/fiprov.h"

#define FIP_VERSION FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)

/* fi_getinfo at addr for the endpoint type, one provider or (prov NULL) all */
static int fip_getinfo(const char *prov, bool rdm, const char *addr, struct fi_info **out)
{
	struct fi_info *h = fi_allocinfo();
	int ret;

	if (!h)
		return -FI_ENOMEM;
	h->ep_attr->type = rdm ? FI_EP_RDM : FI_EP_MSG;
	h->caps = rdm ? FI_TAGGED : FI_MSG;
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	if (prov && !(h->fabric_attr->prov_name = strdup(prov))) {
		fi_freeinfo(h);
		return -FI_ENOMEM;
	}
	ret = fi_getinfo(FIP_VERSION, addr, NULL, FI_SOURCE, h, out);
	fi_freeinfo(h);
	return ret;
}

/* a size libfabric reads from the environment, or def when unset or not a number */
static unsigned long fip_env(const char *name, unsigned long def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return def;
	n = strtoul(v, &end, 0);
	return *end || !n ? def : n;
}

unsigned long fip_rxm_cqe(bool srx)
{
	unsigned long univ = fip_env("FI_UNIVERSE_SIZE", FIP_UNIVERSE);
	unsigned long tx = fip_env("FI_OFI_RXM_MSG_TX_SIZE", FIP_RXM_MSG_SIZE);
	unsigned long rx = fip_env("FI_OFI_RXM_MSG_RX_SIZE", srx ? FIP_RXM_SRX_SIZE :
				   FIP_RXM_MSG_SIZE);

	/* rxm_ep_msg_cq_open(): a shared receive context's depth is not multiplied */
	return (srx ? rx : rx * univ) + tx * univ;
}

unsigned long fip_rxm_peers(void)
{
	unsigned long rx = fip_env("FI_OFI_RXM_MSG_RX_SIZE", FIP_RXM_MSG_SIZE);

	/* a peer more than fit whole leaves the sends no credit */
	return (fip_rxm_cqe(false) + rx - 1) / rx - 1;
}

const char *fip_rxm_credit_why(long peers, char *buf, size_t len)
{
	unsigned long fit = fip_rxm_peers();

	if (peers <= 0 || (unsigned long)peers <= fit)
		return NULL;
	snprintf(buf, len, "ofi_rxm's verbs CQ under the server endpoint, (msg rx %lu + msg tx %lu) "
		 "x FI_UNIVERSE_SIZE %lu = %lu entries, gives each peer's connection rx %lu of them "
		 "(vrb_ep_bind, prov/verbs/src/verbs_ep.c): %lu peers leave its sends a credit, this "
		 "point put %ld on one endpoint; a larger FI_UNIVERSE_SIZE (while the CQ fits the "
		 "device's max_cqe), --ports, or --srq (ofi_rxm's shared receive context) lifts it",
		 fip_env("FI_OFI_RXM_MSG_RX_SIZE", FIP_RXM_MSG_SIZE),
		 fip_env("FI_OFI_RXM_MSG_TX_SIZE", FIP_RXM_MSG_SIZE),
		 fip_env("FI_UNIVERSE_SIZE", FIP_UNIVERSE), fip_rxm_cqe(false),
		 fip_env("FI_OFI_RXM_MSG_RX_SIZE", FIP_RXM_MSG_SIZE), fit, peers);
	return buf;
}

const char *fip_rxm_why(const char *dev, long max_cqe, bool srx, char *buf, size_t len)
{
	unsigned long need = fip_rxm_cqe(srx);

	if (max_cqe <= 0 || need <= (unsigned long)max_cqe)
		return NULL;
	snprintf(buf, len, "verbs;ofi_rxm cannot open an endpoint on %s: ofi_rxm sizes each "
		 "endpoint's verbs CQ as (msg rx %lu%s + msg tx %lu) x FI_UNIVERSE_SIZE %lu = %lu "
		 "entries (rxm_ep_msg_cq_open, prov/rxm/src/rxm_ep.c), above the device's "
		 "max_cqe %ld, so fi_enable fails with EINVAL (vrb_cq_open: ibv_create_cq); "
		 "FI_UNIVERSE_SIZE or FI_OFI_RXM_MSG_RX_SIZE/TX_SIZE small enough to fit lifts it",
		 dev, fip_env("FI_OFI_RXM_MSG_RX_SIZE", srx ? FIP_RXM_SRX_SIZE : FIP_RXM_MSG_SIZE),
		 srx ? " shared" : "", fip_env("FI_OFI_RXM_MSG_TX_SIZE", FIP_RXM_MSG_SIZE),
		 fip_env("FI_UNIVERSE_SIZE", FIP_UNIVERSE), need, max_cqe);
	return buf;
}

/* verbs;ofi_rxm: does the verbs CQ rxm makes under each endpoint fit the device? */
static int fip_rxm(const struct fi_info *info, bool srx, char *why, size_t len)
{
	const char *dev = info->domain_attr ? info->domain_attr->name : NULL;
	const char *prov = info->fabric_attr ? info->fabric_attr->prov_name : NULL;
	struct ibv_device_attr attr;
	enum ibv_transport_type tt;
	char err[256];

	if (!dev || !prov || strcmp(prov, "verbs;ofi_rxm"))
		return 0;
	/* the device unreadable: no reason to skip, the run names what fails */
	if (rcap_query(dev, &attr, &tt, err, sizeof(err)))
		return 0;
	return fip_rxm_why(dev, attr.max_cqe, srx, why, len) ? 1 : 0;
}

int fip_check(const char *prov, bool rdm, bool srx, const char *addr, char *why, size_t len)
{
	struct fi_info *all = NULL, *one = NULL;
	char found[256] = "";
	size_t n = 0;
	int ret = fip_getinfo(prov, rdm, addr, &one);

	if (ret == -FI_ENOMEM)
		return -1;
	if (!ret) {
		ret = rdm ? fip_rxm(one, srx, why, len) : 0;
		fi_freeinfo(one);
		return ret;
	}
	if (!fip_getinfo(NULL, rdm, addr, &all)) {
		for (struct fi_info *i = all; i; i = i->next) {
			const char *p = i->fabric_attr->prov_name;

			/* each name once, in fi_getinfo's order */
			if (!p || strstr(found, p))
				continue;
			n += (size_t)snprintf(found + n, sizeof(found) - n, "%s%s", n ? ", " : "", p);
			if (n >= sizeof(found))
				break;
		}
		fi_freeinfo(all);
	}
	snprintf(why, len, "libfabric provider '%s' not offered for %s at %s (fi_getinfo: %s); "
		 "it found: %s", prov, rdm ? "FI_EP_RDM" : "FI_EP_MSG", addr, fi_strerror(-ret),
		 found[0] ? found : "none");
	return 1;
}

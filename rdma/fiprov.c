// SPDX-License-Identifier: MIT
/*
 * fi_getinfo asked for one provider, and then for all, to say which exist
 * (fiprov.h).
 */
#include <stdio.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

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

int fip_check(const char *prov, bool rdm, const char *addr, char *why, size_t len)
{
	struct fi_info *all = NULL, *one = NULL;
	char found[256] = "";
	size_t n = 0;
	int ret = fip_getinfo(prov, rdm, addr, &one);

	if (ret == -FI_ENOMEM)
		return -1;
	if (!ret) {
		fi_freeinfo(one);
		return 0;
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

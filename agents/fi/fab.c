// SPDX-License-Identifier: MIT
/*
 * What the fi roles share: the provider's answer, fabric, domain, EQ or AV,
 * registered buffers, and libfabric's words for a failure. See fab.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/fi/fab.h"
#include "common/proto.h"

void fab_warn(const char *call, const char *obj, int err, int prov_errno)
{
	ag_warn("fi: %s %s: %s (provider errno %d)", call, obj, fi_strerror(err), prov_errno);
}

void fab_fatal(const char *call, const char *obj, int err, int prov_errno)
{
	fab_warn(call, obj, err, prov_errno);
	proto_error(call, err);
}

int fab_eq_rearm(struct fab *f, bool *hot)
{
	int ret = fi_trywait(f->fabric, &(struct fid *){ &f->eq->fid }, 1);

	if (ret && ret != -FI_EAGAIN) {
		fab_fatal("fi_trywait", "eq", fab_errno(ret), fab_errno(ret));
		return -1;
	}
	*hot = ret == -FI_EAGAIN;
	return 0;
}

void fab_cli_warn(const char *call, uint32_t id, int err, int prov_errno)
{
	char obj[48];

	snprintf(obj, sizeof(obj), "endpoint of client %u", id);
	fab_warn(call, obj, err, prov_errno);
}

void fab_cli_close(struct fab_cqs *s, uint32_t i, bool own_cq, int ep_fd, struct fid_ep **ep,
		   struct fid_mr **mr, uint8_t **buf)
{
	fab_fclose(*ep ? &(*ep)->fid : NULL, "endpoint");
	fab_fclose(*mr ? &(*mr)->fid : NULL, "mr");
	if (own_cq)
		fab_cq_close(s, i, ep_fd);
	free(*buf);
	*ep = NULL;
	*mr = NULL;
	*buf = NULL;
}

void fab_fclose(struct fid *fid, const char *what)
{
	int ret;

	if (!fid)
		return;
	ret = fi_close(fid);
	if (ret)
		fab_warn("fi_close", what, -ret, -ret);
}

static struct fi_info *fab_hints(const struct ag_opts *o)
{
	struct fi_info *h = fi_allocinfo();

	if (!h)
		return NULL;
	h->ep_attr->type = o->transport == OPT_TR_FI_RDM ? FI_EP_RDM : FI_EP_MSG;
	h->caps = o->transport == OPT_TR_FI_RDM ? FI_TAGGED : FI_MSG;
	/* every operation carries a struct fab_op, a struct fi_context2 first */
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	/* what an application that registers its own buffers can offer */
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	h->addr_format = o->addr.family == AF_INET6 ? FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
	h->fabric_attr->prov_name = strdup(o->fi_provider);
	if (!h->fabric_attr->prov_name) {
		fi_freeinfo(h);
		return NULL;
	}
	return h;
}

/*
 * fi-rdm: ofi_rxm's shared receive context is --srq's. rxm reads
 * FI_OFI_RXM_USE_SRX at every fi_getinfo and fi_endpoint (rxm_use_srx(),
 * prov/rxm/src/rxm_init.c), and over tcp its default is on: each endpoint's
 * fi_enable then preposts RXM_MSG_SRX_SIZE (4096) receives of 16 KiB
 * (rxm_prepost_recv on the srx, rxm_ep.c), ~70 MB and ~0.6 s per endpoint
 * where each client is an endpoint. Off, each connection beneath preposts
 * RXM_MSG_RXTX_SIZE (128), as over verbs.
 */
static int fab_srx(const struct ag_opts *o)
{
	if (o->transport != OPT_TR_FI_RDM)
		return 0;
	if (!setenv("FI_OFI_RXM_USE_SRX", o->srq ? "1" : "0", 1))
		return 0;
	ag_fatal("setenv", "FI_OFI_RXM_USE_SRX", errno);
	return -1;
}

static int fab_getinfo(const struct ag_opts *o, uint32_t port, bool server, struct fi_info **out)
{
	struct fi_info *h = fab_hints(o);
	char svc[8], obj[128];
	int ret;

	if (!h) {
		ag_fatal("fi_allocinfo", "hints", ENOMEM);
		return -1;
	}
	if (fab_srx(o)) {
		fi_freeinfo(h);
		return -1;
	}
	snprintf(svc, sizeof(svc), "%u", port);
	ret = fi_getinfo(FAB_VERSION, o->addr_str, svc, server ? FI_SOURCE : 0, h, out);
	fi_freeinfo(h);
	if (!ret)
		return 0;
	snprintf(obj, sizeof(obj), "provider %s at %s:%u", o->fi_provider, o->addr_str, port);
	fab_fatal("fi_getinfo", obj, fab_errno(ret), fab_errno(ret));
	return -1;
}

int fab_info_port(const struct fab *f, uint32_t port, struct fi_info **out)
{
	return fab_getinfo(f->o, port, true, out);
}

void fab_ep_depth(struct fi_info *info)
{
	info->tx_attr->size = FAB_EP_DEPTH;
	info->rx_attr->size = FAB_EP_DEPTH;
}

int fab_open(struct fab *f, const struct ag_opts *o, uint32_t port, bool server,
	     size_t eq_size)
{
	struct fi_eq_attr eqa = { .size = eq_size, .wait_obj = FI_WAIT_FD };
	struct fi_av_attr ava = { .type = FI_AV_MAP };
	const char *call;
	int ret;

	memset(f, 0, sizeof(*f));
	f->o = o;
	f->eq_fd = -1;
	if (fab_getinfo(o, port, server, &f->info))
		return -1;
	f->mr_local = f->info->domain_attr->mr_mode & FI_MR_LOCAL;
	call = "fi_fabric";
	ret = fi_fabric(f->info->fabric_attr, &f->fabric, NULL);
	if (ret)
		goto fail;
	call = "fi_domain";
	ret = fi_domain(f->fabric, f->info, &f->domain, NULL);
	if (ret)
		goto fail;
	if (o->transport == OPT_TR_FI_RDM) {
		call = "fi_av_open";
		ret = fi_av_open(f->domain, &ava, &f->av, NULL);
		if (ret)
			goto fail;
		return 0;
	}
	if (!server)
		fab_ep_depth(f->info);
	call = "fi_eq_open";
	ret = fi_eq_open(f->fabric, &eqa, &f->eq, NULL);
	if (ret)
		goto fail;
	call = "fi_control";
	ret = fi_control(&f->eq->fid, FI_GETWAIT, &f->eq_fd);
	if (ret)
		goto fail;
	return 0;
fail:
	fab_fatal(call, f->info->domain_attr->name, fab_errno(ret), fab_errno(ret));
	return -1;
}

void fab_close(struct fab *f)
{
	fab_fclose(f->av ? &f->av->fid : NULL, "av");
	fab_fclose(f->eq ? &f->eq->fid : NULL, "eq");
	fab_fclose(f->domain ? &f->domain->fid : NULL, "domain");
	fab_fclose(f->fabric ? &f->fabric->fid : NULL, "fabric");
	if (f->info)
		fi_freeinfo(f->info);
	memset(f, 0, sizeof(*f));
	f->eq_fd = -1;
}

int fab_mr(struct fab *f, void *buf, size_t len, struct fid_mr **mr, void **desc)
{
	int ret;

	*mr = NULL;
	*desc = NULL;
	if (!f->mr_local)
		return 0;
	ret = fi_mr_reg(f->domain, buf, len, FI_SEND | FI_RECV, 0, 0, 0, mr, NULL);
	if (ret)
		return ret;
	*desc = fi_mr_desc(*mr);
	return 0;
}

void fab_rej_make(struct fab_rej *r, const char *call, int err)
{
	memset(r, 0, sizeof(*r));
	r->magic = FAB_REJ_MAGIC;
	r->err = err;
	snprintf(r->call, sizeof(r->call), "%s", call);
}

int fab_rej_parse(const void *data, size_t len, char *call, size_t clen, int *err)
{
	struct fab_rej r;
	size_t n;

	if (!data || len < sizeof(r))
		return -1;
	memcpy(&r, data, sizeof(r));
	n = strnlen(r.call, sizeof(r.call));
	if (r.magic != FAB_REJ_MAGIC || r.err <= 0 || r.err > 4095 || !n ||
	    n == sizeof(r.call) || n >= clen)
		return -1;
	for (size_t k = 0; k < n; k++)
		if (!((r.call[k] >= 'a' && r.call[k] <= 'z') ||
		      (r.call[k] >= '0' && r.call[k] <= '9') || r.call[k] == '_'))
			return -1;
	memcpy(call, r.call, n + 1);
	*err = r.err;
	return 0;
}

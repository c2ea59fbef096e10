// SPDX-License-Identifier: MIT
/*
 * rcap: the device capabilities a load needs (see cap.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdma/cap.h"

static const char *rcap_tt_str(enum ibv_transport_type tt)
{
	switch (tt) {
	case IBV_TRANSPORT_IB:
		return "IB";
	case IBV_TRANSPORT_IWARP:
		return "iWARP";
	case IBV_TRANSPORT_USNIC:
		return "usNIC";
	case IBV_TRANSPORT_USNIC_UDP:
		return "usNIC UDP";
	case IBV_TRANSPORT_UNSPECIFIED:
		return "unspecified";
	default:
		return "unknown";
	}
}

const char *rcap_why(const char *name, const struct ibv_device_attr *a, enum ibv_transport_type tt,
		     unsigned need, char *buf, size_t len)
{
	/* UD and UC are IB transport services: RoCE devices report IB too */
	if ((need & (RCAP_UD | RCAP_UC)) && tt != IBV_TRANSPORT_IB) {
		snprintf(buf, len, "device %s: transport %s has no %s QPs", name, rcap_tt_str(tt),
			 need & RCAP_UD ? "UD" : "UC");
		return buf;
	}
	if ((need & RCAP_UD) && a->max_ah <= 0) {
		snprintf(buf, len, "device %s: max_ah %d (--transport ud needs address handles)",
			 name, a->max_ah);
		return buf;
	}
	if ((need & RCAP_OOB) && tt == IBV_TRANSPORT_IWARP) {
		snprintf(buf, len, "device %s: transport iWARP connects QPs only through rdma_cm "
			 "(--cm oob-tls)", name);
		return buf;
	}
	if ((need & RCAP_IMM) && tt == IBV_TRANSPORT_IWARP) {
		snprintf(buf, len, "device %s: transport iWARP has no SEND with immediate "
			 "(--qp-share with --op send)", name);
		return buf;
	}
	/* iWARP defines no atomic operations: say so, whatever atomic_cap reads */
	if ((need & RCAP_ATOMIC) && tt == IBV_TRANSPORT_IWARP) {
		snprintf(buf, len, "device %s: transport iWARP has no atomics (--op atomic)", name);
		return buf;
	}
	if ((need & RCAP_ATOMIC) && a->atomic_cap == IBV_ATOMIC_NONE) {
		snprintf(buf, len, "device %s: atomic_cap IBV_ATOMIC_NONE (--op atomic)", name);
		return buf;
	}
	/* an atomic is a read at the responder: it takes the same resources */
	if ((need & (RCAP_READ | RCAP_ATOMIC)) && a->max_qp_rd_atom <= 0) {
		snprintf(buf, len, "device %s: max_qp_rd_atom %d (--op %s)", name,
			 a->max_qp_rd_atom, need & RCAP_READ ? "read" : "atomic");
		return buf;
	}
	if ((need & (RCAP_READ | RCAP_ATOMIC)) && a->max_qp_init_rd_atom <= 0) {
		snprintf(buf, len, "device %s: max_qp_init_rd_atom %d (--op %s)", name,
			 a->max_qp_init_rd_atom, need & RCAP_READ ? "read" : "atomic");
		return buf;
	}
	return NULL;
}

int rcap_query(const char *name, struct ibv_device_attr *attr, enum ibv_transport_type *tt,
	       char *buf, size_t len)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	int n, err = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		snprintf(buf, len, "rcap: ibv_get_device_list: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < n && !dev; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			dev = list[i];
	if (!dev) {
		snprintf(buf, len, "rcap: device %s: %s", name, strerror(ENODEV));
		ibv_free_device_list(list);
		errno = ENODEV;
		return -1;
	}
	*tt = dev->transport_type;
	ctx = ibv_open_device(dev);
	if (!ctx) {
		snprintf(buf, len, "rcap: ibv_open_device %s: %s", name, strerror(errno));
		ibv_free_device_list(list);
		return -1;
	}
	err = ibv_query_device(ctx, attr);
	if (err)
		snprintf(buf, len, "rcap: ibv_query_device %s: %s", name, strerror(err));
	if (ibv_close_device(ctx) && !err) {
		err = errno;
		snprintf(buf, len, "rcap: ibv_close_device %s: %s", name, strerror(err));
	}
	ibv_free_device_list(list);
	return err ? -1 : 0;
}

int rcap_probe(const char *name, unsigned need, const char **why, char *buf, size_t len)
{
	struct ibv_device_attr attr;
	enum ibv_transport_type tt;

	*why = NULL;
	if (rcap_query(name, &attr, &tt, buf, len))
		return -1;
	*why = rcap_why(name, &attr, tt, need, buf, len);
	return 0;
}

// SPDX-License-Identifier: MIT
/* ibd: RDMA device facts through libibverbs. See ibdev.h. */
#include "harness/ibdev.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define IBD_PORT 1

static int ibd_fail(const char *call, const char *dev, int err)
{
	fprintf(stderr, "ibd: %s %s: %s\n", call, dev, strerror(err));
	errno = err;
	return -1;
}

/* ::ffff:a.b.c.d, the form RoCEv2 gives an IPv4 address. */
static int ibd_gid_v4(const struct ibv_gid_entry *e, struct in_addr *a)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	if (e->gid_type != IBV_GID_TYPE_ROCE_V2 || e->port_num != IBD_PORT ||
	    memcmp(e->gid.raw, prefix, sizeof(prefix)))
		return 0;
	memcpy(&a->s_addr, &e->gid.raw[12], sizeof(a->s_addr));
	return 1;
}

/*
 * All valid GID entries of every port, in one call. The table must have room for
 * every port's entries or the kernel refuses it, so it is sized from all ports.
 */
static ssize_t ibd_gids(struct ibv_context *ctx, const char *dev, int nports,
			struct ibv_gid_entry **out)
{
	struct ibv_port_attr pa;
	size_t total = 0;
	ssize_t n;
	int ret;

	for (int p = 1; p <= nports; p++) {
		ret = ibv_query_port(ctx, p, &pa);
		if (ret)
			return ibd_fail("ibv_query_port", dev, ret);
		total += (size_t)pa.gid_tbl_len;
	}
	*out = calloc(total ? total : 1, sizeof(**out));
	if (!*out)
		return ibd_fail("calloc(gid table)", dev, ENOMEM);
	n = ibv_query_gid_table(ctx, *out, total, 0);
	if (n < 0) {
		int err = (int)-n;

		free(*out);
		*out = NULL;
		return ibd_fail("ibv_query_gid_table", dev, err);
	}
	return n;
}

/* sysfs names the netdev behind a GID; fall back to the GID's ifindex. */
static void ibd_netdev(struct ibd_info *d, const struct ibv_gid_entry *e)
{
	char path[256], buf[IBD_IFNAME_MAX + 2];
	ssize_t n;
	int fd;

	d->netdev[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%u",
		 d->name, IBD_PORT, e->gid_index);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			n = (ssize_t)strcspn(buf, "\n");
			if (n > 0 && n < IBD_IFNAME_MAX) {
				memcpy(d->netdev, buf, (size_t)n);
				d->netdev[n] = '\0';
				return;
			}
		}
	}
	if (e->ndev_ifindex && !if_indextoname(e->ndev_ifindex, d->netdev))
		d->netdev[0] = '\0';
}

static int ibd_query(struct ibv_device *dev, struct ibd_info *d)
{
	struct ibv_gid_entry *gids = NULL;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_context *ctx;
	uint64_t g;
	ssize_t n;
	int ret;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	g = be64toh(ibv_get_device_guid(dev));
	d->node_guid = g;
	snprintf(d->node_guid_str, sizeof(d->node_guid_str), "%04x:%04x:%04x:%04x",
		 (unsigned int)(g >> 48) & 0xffff, (unsigned int)(g >> 32) & 0xffff,
		 (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
	d->roce4_gid_index = -1;

	ctx = ibv_open_device(dev);
	if (!ctx)
		return ibd_fail("ibv_open_device", d->name, errno ? errno : ENODEV);
	ret = ibv_query_device(ctx, &da);
	if (ret) {
		ibd_fail("ibv_query_device", d->name, ret);
		goto err_ctx;
	}
	d->max_qp = da.max_qp;
	d->max_qp_wr = da.max_qp_wr;
	d->max_cq = da.max_cq;
	d->max_cqe = da.max_cqe;
	d->max_mr = da.max_mr;
	d->max_mr_size = da.max_mr_size;
	d->max_pd = da.max_pd;
	d->max_srq = da.max_srq;
	d->max_ah = da.max_ah;
	d->max_sge = da.max_sge;

	ret = ibv_query_port(ctx, IBD_PORT, &pa);
	if (ret) {
		ibd_fail("ibv_query_port", d->name, ret);
		goto err_ctx;
	}
	d->port_state = pa.state;
	d->port_state_str = ibv_port_state_str(pa.state);
	d->active_mtu = pa.active_mtu ? 128 << pa.active_mtu : 0;
	d->gid_tbl_len = pa.gid_tbl_len;

	n = ibd_gids(ctx, d->name, da.phys_port_cnt, &gids);
	if (n < 0)
		goto err_ctx;
	for (ssize_t i = 0; i < n; i++) {
		struct in_addr a;

		if (gids[i].port_num != IBD_PORT)
			continue;
		if (!d->netdev[0])
			ibd_netdev(d, &gids[i]);
		if (d->roce4_gid_index < 0 && ibd_gid_v4(&gids[i], &a)) {
			d->roce4_gid_index = (int)gids[i].gid_index;
			inet_ntop(AF_INET, &a, d->roce4_addr, sizeof(d->roce4_addr));
		}
	}
	free(gids);
	if (ibv_close_device(ctx))
		return ibd_fail("ibv_close_device", d->name, errno);
	return 0;

err_ctx:
	ret = errno;
	ibv_close_device(ctx);
	errno = ret;
	return -1;
}

int ibd_list(struct ibd_info *out, int max)
{
	struct ibv_device **list;
	int n, i, ret = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		/* No uverbs at all (no RDMA in the kernel) means no devices. */
		if (errno == ENOSYS || errno == ENOENT)
			return 0;
		return ibd_fail("ibv_get_device_list", "", errno);
	}
	if (n > max) {
		ibd_fail("ibv_get_device_list", "", ENOBUFS);
		ret = -1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (ibd_query(list[i], &out[i]) < 0) {
			ret = -1;
			goto out;
		}
	}
	ret = n;
out:
	i = errno;
	ibv_free_device_list(list);
	errno = i;
	return ret;
}

int ibd_find_gid(const char *dev, const char *ipv4, int *gid_index)
{
	struct ibv_gid_entry *gids = NULL;
	struct ibv_device_attr da;
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct in_addr want, a;
	int n, i, ret = -1, err = ENODEV;
	ssize_t ng;

	if (inet_pton(AF_INET, ipv4, &want) != 1)
		return ibd_fail("inet_pton", ipv4, EINVAL);
	list = ibv_get_device_list(&n);
	if (!list) {
		if (errno == ENOSYS || errno == ENOENT) {
			errno = ENODEV;
			return -1;
		}
		return ibd_fail("ibv_get_device_list", dev, errno);
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			break;
	if (i == n)
		goto out_list;
	ctx = ibv_open_device(list[i]);
	if (!ctx) {
		err = errno ? errno : ENODEV;
		ibd_fail("ibv_open_device", dev, err);
		goto out_list;
	}
	err = ibv_query_device(ctx, &da);
	if (err) {
		ibd_fail("ibv_query_device", dev, err);
		goto out_ctx;
	}
	ng = ibd_gids(ctx, dev, da.phys_port_cnt, &gids);
	if (ng < 0) {
		err = errno;
		goto out_ctx;
	}
	err = ENOENT;
	for (ssize_t k = 0; k < ng; k++) {
		if (ibd_gid_v4(&gids[k], &a) && a.s_addr == want.s_addr) {
			*gid_index = (int)gids[k].gid_index;
			ret = 0;
			break;
		}
	}
	free(gids);
out_ctx:
	if (ibv_close_device(ctx) && !ret) {
		err = errno;
		ibd_fail("ibv_close_device", dev, err);
		ret = -1;
	}
out_list:
	ibv_free_device_list(list);
	if (ret)
		errno = err;
	return ret;
}

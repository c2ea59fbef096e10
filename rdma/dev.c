// SPDX-License-Identifier: MIT
/* rdev: RDMA device facts, the GID table, the route to a peer. See dev.h. */
#include "rdma/dev.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RDEV_ROCE_PORT 4791 /* the RoCEv2 UDP port: any port would route the same */

int rdev_vfail(struct rdev_err *e, const char *who, const char *call, int err, const char *fmt,
	       va_list ap)
{
	if (e) {
		e->call = call;
		e->err = err;
		vsnprintf(e->obj, sizeof(e->obj), fmt, ap);
		snprintf(e->msg, sizeof(e->msg), "%s: %s %s: %s", who, call, e->obj, strerror(err));
	}
	errno = err;
	return -1;
}

static int rdev_fail(struct rdev_err *e, const char *call, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int rdev_fail(struct rdev_err *e, const char *call, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rdev_vfail(e, "rdev", call, err, fmt, ap);
	va_end(ap);
	return ret;
}

/* ::ffff:a.b.c.d, the form RoCEv2 gives an IPv4 address. */
static int rdev_gid_v4(const struct ibv_gid_entry *ent, struct in_addr *a)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	if (ent->gid_type != IBV_GID_TYPE_ROCE_V2 || memcmp(ent->gid.raw, prefix, sizeof(prefix)))
		return 0;
	memcpy(&a->s_addr, &ent->gid.raw[12], sizeof(a->s_addr));
	return 1;
}

/* The table must have room for every port's entries or the kernel refuses it. */
ssize_t rdev_gid_table(struct ibv_context *ctx, uint8_t nports, struct ibv_gid_entry **ents,
		       struct rdev_err *e)
{
	const char *dev = ibv_get_device_name(ctx->device);
	struct ibv_port_attr pa;
	size_t total = 0;
	ssize_t n;
	int ret;

	*ents = NULL;
	for (int p = 1; p <= nports; p++) {
		ret = ibv_query_port(ctx, (uint8_t)p, &pa);
		if (ret)
			return rdev_fail(e, "ibv_query_port", ret, "%s port %d", dev, p);
		total += (size_t)pa.gid_tbl_len;
	}
	*ents = calloc(total ? total : 1, sizeof(**ents));
	if (!*ents)
		return rdev_fail(e, "calloc", ENOMEM, "%s GID table", dev);
	n = ibv_query_gid_table(ctx, *ents, total, 0);
	if (n < 0) {
		free(*ents);
		*ents = NULL;
		return rdev_fail(e, "ibv_query_gid_table", (int)-n, "%s", dev);
	}
	return n;
}

/* No uverbs at all (no RDMA in the kernel) means no devices. */
static struct ibv_device **rdev_devices(int *n, struct rdev_err *e)
{
	struct ibv_device **list;
	int err;

	list = ibv_get_device_list(n);
	if (!list) {
		err = errno == ENOSYS || errno == ENOENT ? ENODEV : errno ? errno : ENODEV;
		rdev_fail(e, "ibv_get_device_list", err, "devices");
	}
	return list;
}

/* sysfs names the netdev behind a GID; fall back to the GID's ifindex. */
static void rdev_netdev(struct rdev_info *d, const struct ibv_gid_entry *ent)
{
	char path[256], buf[RDEV_IFNAME_MAX + 2];
	ssize_t n;
	int fd;

	d->netdev[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%u",
		 d->name, ent->port_num, ent->gid_index);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			n = (ssize_t)strcspn(buf, "\n");
			if (n > 0 && n < RDEV_IFNAME_MAX) {
				memcpy(d->netdev, buf, (size_t)n);
				d->netdev[n] = '\0';
				return;
			}
		}
	}
	if (ent->ndev_ifindex && !if_indextoname(ent->ndev_ifindex, d->netdev))
		d->netdev[0] = '\0';
}

static void rdev_attrs(struct rdev_info *d, const struct ibv_device_attr *da)
{
	d->max_qp = da->max_qp;
	d->max_qp_wr = da->max_qp_wr;
	d->max_cq = da->max_cq;
	d->max_cqe = da->max_cqe;
	d->max_mr = da->max_mr;
	d->max_mr_size = da->max_mr_size;
	d->max_pd = da->max_pd;
	d->max_srq = da->max_srq;
	d->max_ah = da->max_ah;
	d->max_sge = da->max_sge;
	d->nports = da->phys_port_cnt;
}

/* The port's state, MTU, netdev and first IPv4 RoCEv2 GID. */
static int rdev_port(struct ibv_context *ctx, struct rdev_info *d, struct rdev_err *e)
{
	struct ibv_gid_entry *ents;
	struct ibv_port_attr pa;
	struct in_addr a;
	ssize_t n;
	int ret;

	ret = ibv_query_port(ctx, d->port, &pa);
	if (ret)
		return rdev_fail(e, "ibv_query_port", ret, "%s port %u", d->name, d->port);
	d->port_state = pa.state;
	d->port_state_str = ibv_port_state_str(pa.state);
	d->link_layer = pa.link_layer;
	d->active_mtu = pa.active_mtu ? 128 << pa.active_mtu : 0;
	d->gid_tbl_len = pa.gid_tbl_len;

	n = rdev_gid_table(ctx, (uint8_t)d->nports, &ents, e);
	if (n < 0)
		return -1;
	for (ssize_t i = 0; i < n && !d->netdev[0]; i++)
		if (ents[i].port_num == d->port)
			rdev_netdev(d, &ents[i]);
	for (ssize_t i = 0; i < n; i++) {
		/* grh.sgid_index is 8 bits wide */
		if (ents[i].port_num != d->port || ents[i].gid_index > UINT8_MAX ||
		    !rdev_gid_v4(&ents[i], &a))
			continue;
		d->roce4_gid_index = (int)ents[i].gid_index;
		inet_ntop(AF_INET, &a, d->roce4_addr, sizeof(d->roce4_addr));
		break;
	}
	free(ents);
	return 0;
}

static int rdev_query(struct ibv_device *dev, uint8_t port, struct rdev_info *d,
		      struct rdev_err *e)
{
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	uint64_t g;
	int ret;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	g = be64toh(ibv_get_device_guid(dev));
	d->node_guid = g;
	snprintf(d->node_guid_str, sizeof(d->node_guid_str), "%04x:%04x:%04x:%04x",
		 (unsigned int)(g >> 48) & 0xffff, (unsigned int)(g >> 32) & 0xffff,
		 (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
	d->port = port;
	d->roce4_gid_index = -1;

	ctx = ibv_open_device(dev);
	if (!ctx)
		return rdev_fail(e, "ibv_open_device", errno ? errno : ENODEV, "%s", d->name);
	ret = ibv_query_device(ctx, &da);
	if (ret) {
		rdev_fail(e, "ibv_query_device", ret, "%s", d->name);
		goto err_ctx;
	}
	rdev_attrs(d, &da);
	if (rdev_port(ctx, d, e))
		goto err_ctx;
	if (ibv_close_device(ctx))
		return rdev_fail(e, "ibv_close_device", errno, "%s", d->name);
	return 0;

err_ctx:
	ret = errno;
	ibv_close_device(ctx);
	errno = ret;
	return -1;
}

int rdev_list(struct rdev_info *out, int max, struct rdev_err *e)
{
	struct ibv_device **list;
	int n, i, ret = 0;

	list = rdev_devices(&n, e);
	if (!list)
		return errno == ENODEV ? 0 : -1;
	if (n > max) {
		ret = rdev_fail(e, "ibv_get_device_list", ENOBUFS, "(%d devices, room for %d)", n,
				max);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (rdev_query(list[i], 1, &out[i], e) < 0) {
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

int rdev_route_src(const struct sockaddr *dst, struct sockaddr_storage *src, struct rdev_err *e)
{
	struct sockaddr_storage sa = { .ss_family = dst->sa_family };
	char addr[INET6_ADDRSTRLEN] = "?";
	socklen_t sl;
	int fd, ret = -1, err;

	if (dst->sa_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;

		s4->sin_addr = ((const struct sockaddr_in *)dst)->sin_addr;
		s4->sin_port = htons(RDEV_ROCE_PORT);
		sl = sizeof(*s4);
		inet_ntop(AF_INET, &s4->sin_addr, addr, sizeof(addr));
	} else if (dst->sa_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;

		s6->sin6_addr = ((const struct sockaddr_in6 *)dst)->sin6_addr;
		s6->sin6_port = htons(RDEV_ROCE_PORT);
		sl = sizeof(*s6);
		inet_ntop(AF_INET6, &s6->sin6_addr, addr, sizeof(addr));
	} else {
		return rdev_fail(e, "socket", EAFNOSUPPORT, "route to family %d", dst->sa_family);
	}
	/* a UDP connect only routes: the kernel picks the source, nothing is sent */
	fd = socket(dst->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return rdev_fail(e, "socket", errno, "UDP (route to %s)", addr);
	if (connect(fd, (struct sockaddr *)&sa, sl))
		rdev_fail(e, "connect", errno, "route to %s (source address)", addr);
	else if (sl = sizeof(*src), getsockname(fd, (struct sockaddr *)src, &sl))
		rdev_fail(e, "getsockname", errno, "route to %s (source address)", addr);
	else
		ret = 0;
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

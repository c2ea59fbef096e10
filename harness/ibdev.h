/* SPDX-License-Identifier: MIT */
/*
 * ibd: facts about the RDMA devices of this host, read with libibverbs, for
 * `rdmacap env` and for naming causes (which limit a failure ran into).
 *
 * Limits are read at run time (ibv_query_device); they differ across kernels.
 * Opening a device creates a context (the "ctx" counter of rnl) for as long as the
 * call runs: do not call these inside a load point whose counters are watched.
 *
 * GIDs come from one ibv_query_gid_table() call per device (one ioctl on kernels
 * with the uverbs GID table method), not from 1024 sysfs reads.
 *
 * Errors go to stderr as "ibd: <call> <device>: <why>" and return -1 with errno.
 */
#ifndef RDC_IBDEV_H
#define RDC_IBDEV_H

#include <stdint.h>

#define IBD_NAME_MAX 64 /* IBV_SYSFS_NAME_MAX */
#define IBD_IFNAME_MAX 16 /* IFNAMSIZ */
#define IBD_MAX_DEVS 64

struct ibd_info {
	char name[IBD_NAME_MAX];
	uint64_t node_guid;        /* host byte order, as ibv_devinfo prints it */
	char node_guid_str[20];    /* "xxxx:xxxx:xxxx:xxxx" */

	/* ibv_query_device */
	int max_qp, max_qp_wr, max_cq, max_cqe, max_mr, max_pd, max_srq, max_ah, max_sge;
	uint64_t max_mr_size;

	/* port 1 */
	int port_state;            /* enum ibv_port_state */
	const char *port_state_str; /* ibv_port_state_str(): "active", "down", ... */
	int active_mtu;            /* bytes: 256 .. 4096, 0 if unknown */
	int gid_tbl_len;
	char netdev[IBD_IFNAME_MAX]; /* "" when the port has no netdev */

	/* the first RoCEv2 GID that is an IPv4-mapped address, -1 when none */
	int roce4_gid_index;
	char roce4_addr[16];       /* dotted IPv4 of that GID */
};

/*
 * Fills out[0..max-1] with every device of ibv_get_device_list(). Returns the
 * number of devices (0 when there are none, which is not an error), or -1.
 */
int ibd_list(struct ibd_info *out, int max);

/*
 * The index of the RoCEv2 GID of port 1 of device 'dev' whose address is the
 * IPv4 address 'ipv4' (dotted). 0 and *gid_index set, or -1 with errno: ENODEV no
 * such device, ENOENT no such GID (yet: the kernel adds it shortly after the
 * address appears on the netdev), EINVAL a bad address.
 */
int ibd_find_gid(const char *dev, const char *ipv4, int *gid_index);

#endif /* RDC_IBDEV_H */

/* SPDX-License-Identifier: MIT */
/*
 * rdev: facts about the RDMA devices of this host, read with libibverbs, for both
 * programs: `rdmacap env` and cause naming in the harness, an agent's source
 * address. Part of rdma/, which uses libc, libibverbs and libmnl only.
 *
 * Offers
 *  - rdev_list(): the attributes and port facts of every device, with the
 *    first RoCEv2 IPv4-mapped GID of its port for `rdmacap env`;
 *  - rdev_gid_table(): a device's whole GID table in one call, which
 *    rdma/port.h's readers place by port;
 *  - rdev_route_src(): the local address the kernel would use to reach a peer,
 *    i.e. the address whose GID a client uses;
 *  - rdev_vfail(): the error filler of rdma/'s verbs readers.
 * Which device, port and GID a QP uses is rdma/port.h's (rport_open, and
 * rdma_cm's own id for --cm rdmacm): this file opens no device for an agent.
 *
 * Limits are read at run time (ibv_query_device); they differ across kernels.
 * Opening a device creates a context (the "ctx" counter of rnl) for as long as it
 * stays open: do not call rdev_list() inside a load point whose counters are
 * watched.
 *
 * GIDs come from one ibv_query_gid_table() call per device (one ioctl on kernels
 * with the uverbs GID table method), not from 1024 sysfs reads. env's GID skips
 * indexes beyond the 8 bits of ibv_ah_attr's sgid_index, as rdma/port's rules
 * do: only GIDs a QP can use.
 *
 * Errors: -1 with errno, and, when the caller passes a struct rdev_err, the
 * failing call, the object and errno in it, with the message
 * "rdev: <call> <device>: <strerror>". Nothing is printed: the harness logs
 * msg, the agent turns call and err into its error record.
 */
#ifndef RDC_RDMA_DEV_H
#define RDC_RDMA_DEV_H

#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <infiniband/verbs.h>

#define RDEV_NAME_MAX 64  /* IBV_SYSFS_NAME_MAX */
#define RDEV_IFNAME_MAX 16 /* IFNAMSIZ */
#define RDEV_MAX_DEVS 64

struct rdev_err {
	const char *call;  /* "ibv_open_device", ...; a string literal */
	int err;           /* the errno the call left */
	char obj[96];      /* "rxe0", "rxe0 (RoCEv2 GID of 10.0.0.1)" */
	char msg[200];     /* "rdev: <call> <obj>: <strerror>" */
};

/*
 * Records call, the object (printf format) and err in e when e is given, and
 * msg as "<who>: <call> <obj>: <strerror>"; -1 with errno = err. The one
 * error filler of rdma/'s verbs readers (who: "rdev", "rport").
 */
int rdev_vfail(struct rdev_err *e, const char *who, const char *call, int err, const char *fmt,
	       va_list ap) __attribute__((format(printf, 5, 0)));

/*
 * Every valid GID entry of every port of ctx, nports ports (phys_port_cnt), in one
 * call: *ents is malloc'ed, the caller frees it. The count, or -1.
 */
ssize_t rdev_gid_table(struct ibv_context *ctx, uint8_t nports, struct ibv_gid_entry **ents,
		       struct rdev_err *e);

struct rdev_info {
	char name[RDEV_NAME_MAX];
	uint64_t node_guid;        /* host byte order, as ibv_devinfo prints it */
	char node_guid_str[20];    /* "xxxx:xxxx:xxxx:xxxx" */

	/* ibv_query_device */
	int max_qp, max_qp_wr, max_cq, max_cqe, max_mr, max_pd, max_srq, max_ah, max_sge;
	uint64_t max_mr_size;
	int nports;                /* phys_port_cnt */

	/* the port below (port 1 in rdev_list) */
	uint8_t port;
	int port_state;            /* enum ibv_port_state */
	const char *port_state_str; /* ibv_port_state_str(): "active", "down", ... */
	int link_layer;            /* IBV_LINK_LAYER_ETHERNET for RoCE */
	int active_mtu;            /* bytes: 256 .. 4096, 0 if unknown */
	int gid_tbl_len;
	char netdev[RDEV_IFNAME_MAX]; /* "" when the port has no netdev */

	/* the first RoCEv2 GID of the port that is an IPv4-mapped address and fits
	 * sgid_index (8 bits), -1 when none */
	int roce4_gid_index;
	char roce4_addr[16];       /* dotted IPv4 of that GID */
};

/*
 * Fills out[0..max-1] with every device of ibv_get_device_list(), port 1. Returns
 * the number of devices (0 when there are none or no uverbs at all, which is not
 * an error), or -1 (ENOBUFS: more than max devices).
 */
int rdev_list(struct rdev_info *out, int max, struct rdev_err *e);

/*
 * The local address the kernel would use to reach dst (AF_INET or AF_INET6, its
 * port not looked at), into *src, of dst's family: a UDP connect to the RoCEv2
 * port routes without sending anything. 0, or -1.
 */
int rdev_route_src(const struct sockaddr *dst, struct sockaddr_storage *src, struct rdev_err *e);

#endif /* RDC_RDMA_DEV_H */

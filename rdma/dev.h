/* SPDX-License-Identifier: MIT */
/*
 * rdev: facts about the RDMA devices of this host, read with libibverbs, for both
 * programs: `rdmacap env` and cause naming in the harness, the device context of
 * an rc agent. Part of rdma/, which uses libc, libibverbs and libmnl only.
 *
 * Offers
 *  - one GID lookup: the RoCEv2 GID that is an IPv4-mapped address, chosen by
 *    device, port, GID index and address, any of which may be left open
 *    (struct rdev_sel, what --device NAME[:PORT] and a GID index override fill);
 *    rdev_gid_pick() is the rule, on a table, with no device;
 *  - rdev_open(): the device context that holds such a GID;
 *  - rdev_list(): the attributes and port facts of every device;
 *  - rdev_route_src(): the local address the kernel would use to reach a peer,
 *    i.e. the address whose GID a client uses.
 *
 * Limits are read at run time (ibv_query_device); they differ across kernels.
 * Opening a device creates a context (the "ctx" counter of rnl) for as long as it
 * stays open: do not call rdev_list() inside a load point whose counters are
 * watched.
 *
 * GIDs come from one ibv_query_gid_table() call per device (one ioctl on kernels
 * with the uverbs GID table method), not from 1024 sysfs reads. The lookup skips
 * GIDs whose port or index does not fit the 8 bits of ibv_ah_attr: it returns
 * only GIDs a QP can use.
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

/* Which GID: each field may be left open (zeroed struct: any device, any GID). */
struct rdev_sel {
	const char *name;     /* device; NULL or "": the first device that has the GID */
	uint8_t port;         /* 0: any port */
	int gid_index;        /* < 0: any index (set -1: 0 is a real index) */
	struct in_addr addr;  /* INADDR_ANY: any IPv4-mapped address */
};

#define RDEV_SEL_ANY { .name = NULL, .port = 0, .gid_index = -1 }

struct rdev_gid {
	uint8_t port;
	uint8_t index;        /* ibv_ah_attr.grh.sgid_index */
	union ibv_gid gid;    /* ::ffff:a.b.c.d */
	struct in_addr addr;  /* a.b.c.d */
	uint32_t ndev_ifindex; /* the netdev the kernel bound the GID to, 0 if none */
};

/*
 * The first entry of ents[0..n-1] that is a RoCEv2, IPv4-mapped GID matching s
 * (s->name is not looked at), in table order. 0 and *g, or -1 with errno
 * EADDRNOTAVAIL.
 */
int rdev_gid_pick(const struct ibv_gid_entry *ents, ssize_t n, const struct rdev_sel *s,
		  struct rdev_gid *g);

/*
 * Every valid GID entry of every port of ctx, nports ports (phys_port_cnt), in one
 * call: *ents is malloc'ed, the caller frees it. The count, or -1.
 */
ssize_t rdev_gid_table(struct ibv_context *ctx, uint8_t nports, struct ibv_gid_entry **ents,
		       struct rdev_err *e);

/*
 * Opens the device s->name, or the first device whose GID table holds a GID
 * matching s, and finds that GID. 0 with *ctx open (the caller closes it with
 * ibv_close_device), *attr its ibv_query_device and *g; or -1 with errno: ENODEV
 * no such device (or no device at all), EADDRNOTAVAIL no such GID (yet: the
 * kernel adds it shortly after the address appears on the netdev), or the errno
 * of the failing call. Without a name, e names the last device tried.
 */
int rdev_open(const struct rdev_sel *s, struct ibv_context **ctx, struct ibv_device_attr *attr,
	      struct rdev_gid *g, struct rdev_err *e);

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

	/* the first RoCEv2 GID of the port that is an IPv4-mapped address, -1 when none */
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

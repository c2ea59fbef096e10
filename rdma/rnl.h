/* SPDX-License-Identifier: MIT */
/*
 * rnl: the kernel's RDMA resource counters, read over RDMA netlink (libmnl),
 * and the one request/reply loop that rstat.h (per-port statistic counters,
 * STAT_GET) and rqp.h (per-QP states, RES_QP_GET) use on the same socket.
 * Part of rdma/ (libc, libibverbs, libmnl only), for both programs.
 *
 * One RDMA_NLDEV_CMD_RES_GET dump returns, per device, the restrack summary that
 * `rdma resource show` prints: pd cq qp cm_id mr ctx srq. Newer kernels add a
 * per-entry maximum (RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_MAX) taken from the device
 * attributes; when present it is reported in max[] and has_max.
 *
 * Cheap enough for the sampler tick (>= 50 Hz): the socket and the receive buffer
 * are made once by rnl_open(); rnl_sample() does one send and one or two receives
 * and allocates nothing.
 *
 * Counts are what the kernel shows without driver details (like `rdma res show`,
 * not `-dd`): the GSI QP and kernel ULP objects are included, driver-internal
 * ones are not. Take a baseline before a load point.
 *
 * Errors: functions return -1 with errno set and a message "rnl: <call>: <why>" in
 * r->err (the dump covers every device, so the call names no device), for the
 * caller to log or turn into a SKIP reason. On a kernel without RDMA netlink,
 * rnl_open() fails with EPROTONOSUPPORT.
 *
 * A struct rnl is one socket and one buffer: calls on it (rnl_sample,
 * rstat_sample, rqp_scan) must not overlap; use one per thread.
 */
#ifndef RDC_RDMA_RNL_H
#define RDC_RDMA_RNL_H

#include <stddef.h>
#include <stdint.h>

enum rnl_res {
	RNL_PD,
	RNL_CQ,
	RNL_QP,
	RNL_CM_ID,
	RNL_MR,
	RNL_CTX,
	RNL_SRQ,
	RNL_NRES
};

#define RNL_NAME_MAX 64 /* IB_DEVICE_NAME_MAX */

struct rnl_dev {
	uint32_t index;            /* kernel ib_device index */
	char name[RNL_NAME_MAX];
	uint64_t cur[RNL_NRES];
	uint64_t max[RNL_NRES];    /* valid where has_max has the bit */
	uint32_t has;              /* bit (1u << res): the kernel reported cur[res] */
	uint32_t has_max;          /* bit (1u << res): the kernel reported max[res] */
};

struct rnl {
	struct mnl_socket *nl;
	uint32_t portid, seq;
	int kernel_err; /* the last failure was the kernel's reply, not the socket */
	char *buf;
	size_t buflen;
	char err[160];
};

/* Opens the NETLINK_RDMA socket and the receive buffer. 0, or -1 and errno. */
int rnl_open(struct rnl *r);
void rnl_close(struct rnl *r);

/*
 * Dumps the summary of every device visible to the caller's net namespace into
 * devs[0..maxdevs-1]. Returns the number of devices, or -1 with errno: ENOBUFS
 * when there are more than maxdevs (the dump is still drained, so the next call
 * works), or the kernel's error.
 */
int rnl_sample(struct rnl *r, struct rnl_dev *devs, int maxdevs);

/* "pd","cq","qp","cm_id","mr","ctx","srq" (the kernel's entry names), NULL if bad. */
const char *rnl_res_name(enum rnl_res res);

/* The device named 'name' in devs[0..n-1], or NULL. */
const struct rnl_dev *rnl_find(const struct rnl_dev *devs, int n, const char *name);

/*
 * The module's own plumbing, for rstat.c, rqp.c and the unit tests.
 *
 * rnl_req() starts a request to the RDMA_NL_NLDEV command 'cmd' in r->buf, with
 * a new sequence number; the caller appends attributes (mnl_attr_put_*) and
 * calls rnl_talk(), which sends it and feeds every reply message of that command
 * to cb until the dump's DONE or, for a plain request, the one reply. The buffer
 * is reused for receiving: no allocation. A callback returning -1 marks the reply
 * malformed (EBADMSG after the rest is drained, so the socket stays in step). With
 * timeout_ns (0: none) a reply still arriving after that long is dropped with a
 * new socket (a dump half read would block the next one) and the call fails
 * with ETIMEDOUT. Errors as everywhere here: -1, errno, r->err; r->kernel_err
 * says the kernel refused the request (the socket is fine).
 */
struct nlmsghdr;
struct nlattr;
typedef int rnl_cb(const struct nlmsghdr *nlh, void *data);

struct nlmsghdr *rnl_req(struct rnl *r, unsigned int cmd, uint16_t flags);
int rnl_talk(struct rnl *r, const char *what, uint64_t timeout_ns, rnl_cb *cb, void *data);
/* Sets r->err to "rnl: <what>: strerror(err)", errno to err; returns -1. */
int rnl_fail(struct rnl *r, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * The attributes of a message (nest NULL) or of a nest, by type, into tb[];
 * types from RNL_TB_N on are ignored. -1 (EBADMSG) when they do not parse.
 * rnl_u32/rnl_str: 0, or -1 when a is absent or not of that type.
 */
#define RNL_TB_N 96 /* RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC + 1 */
int rnl_attrs(const struct nlmsghdr *nlh, const struct nlattr *nest,
	      const struct nlattr *tb[RNL_TB_N]);
int rnl_u32(const struct nlattr *a, uint32_t *v);
int rnl_str(const struct nlattr *a, char *dst, size_t size);

#endif /* RDC_RDMA_RNL_H */

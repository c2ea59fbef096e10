/* SPDX-License-Identifier: MIT */
/*
 * rnl: the kernel's RDMA resource counters, read over RDMA netlink (libmnl).
 * Part of rdma/ (libc, libibverbs, libmnl only), for both programs: today the
 * harness's sampler; later per-port statistics (RDMA_NLDEV_CMD_STAT_GET) and
 * per-QP dumps (RES_QP_GET) on the same socket.
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
 * r->err (the dump covers every device, so the call names no device), for the caller to log or turn into a SKIP reason. On a kernel without
 * RDMA netlink, rnl_open() fails with EPROTONOSUPPORT.
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

#endif /* RDC_RDMA_RNL_H */

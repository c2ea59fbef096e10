/* SPDX-License-Identifier: MIT */
/*
 * rstat: the statistic counters of every RDMA port, as `rdma statistic show`
 * prints them (RDMA_NLDEV_CMD_STAT_GET without a counter object: the port's
 * default hardware counters). Part of rdma/ (libc, libibverbs, libmnl only), over
 * an rnl socket (rnl.h); prints nothing.
 *
 * The names are the device's own, kept as given and in its order (on rxe:
 * sent_pkts, rcvd_pkts, duplicate_request, out_of_seq_request, rcvd_rnr_err,
 * send_rnr_err, rcvd_seq_err, retry_exceeded_err, ... ; mlx5 offers others):
 * callers look them up by name and treat a missing name as "not offered".
 * Optional counters a user disabled are not reported by the kernel.
 *
 * Cost, for a sampler tick: one RDMA_NLDEV_CMD_GET dump lists the devices and
 * their port counts, then one STAT_GET request per port; nothing is allocated.
 * Counters are cumulative since the device was made: take a baseline, use
 * rstat_delta().
 *
 * Errors: -1 with errno and r->err as in rnl.h. A port whose STAT_GET the kernel
 * refuses (a device without hardware counters: EINVAL/EOPNOTSUPP) is not an error
 * of the sample: it comes back with n = 0 and err set.
 */
#ifndef RDC_RDMA_RSTAT_H
#define RDC_RDMA_RSTAT_H

#include <stdint.h>

#include "rdma/rnl.h"

#define RSTAT_MAX 128  /* counters kept per port (rxe offers ~20, mlx5 ~100) */
#define RSTAT_NAME 48  /* longest counter name kept, with its NUL */

struct rstat_port {
	uint32_t index;              /* kernel ib_device index */
	uint32_t port;               /* 1.. */
	char dev[RNL_NAME_MAX];
	int err;                     /* the kernel's errno for this port's STAT_GET, or 0 */
	int n;                       /* counters in name[] and val[] */
	int dropped;                 /* counters offered beyond RSTAT_MAX or too long a name */
	char name[RSTAT_MAX][RSTAT_NAME];
	uint64_t val[RSTAT_MAX];
};

/*
 * Every port of every device visible to the caller's net namespace, into
 * ports[0..maxports-1]. Returns the number of ports, or -1 with errno: ENOBUFS
 * when there are more than maxports (the first maxports are filled), or the
 * socket's or kernel's error for the device list.
 */
int rstat_sample(struct rnl *r, struct rstat_port *ports, int maxports);

/* The port 'port' of device 'dev' in ports[0..n-1], or NULL. */
const struct rstat_port *rstat_find(const struct rstat_port *ports, int n, const char *dev,
				    uint32_t port);

/* The counter 'name' of p into *val: 0, or -1 (ENOENT) when p does not offer it. */
int rstat_get(const struct rstat_port *p, const char *name, uint64_t *val);

/*
 * now - base of counter 'name' (two samples of the same port): 0, or -1
 * (ENOENT) when either lacks it. Negative only when the counter was reset
 * (the device was made again) between the samples.
 */
int rstat_delta(const struct rstat_port *now, const struct rstat_port *base, const char *name,
		int64_t *delta);

/*
 * One STAT_GET reply into p (its counters replace p's; index, port and dev
 * from the message): 0, or -1 (EBADMSG) when malformed. rstat_sample's parser,
 * for tests.
 */
int rstat_parse(const struct nlmsghdr *nlh, struct rstat_port *p);

#endif /* RDC_RDMA_RSTAT_H */

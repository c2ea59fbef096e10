/* SPDX-License-Identifier: MIT */
/*
 * rcap: does a device offer what a load needs? The decision behind the
 * capability refusals of `rdmacap run|ramp|limit|storm` (--transport ud|uc,
 * --cm oob-tls, --op read|atomic): a device without it makes the run a usage
 * error (a device named with --topology host) or a TAP SKIP whose reason
 * names the device and the attribute or transport, instead of a run that
 * fails at ibv_create_qp, ibv_modify_qp or ibv_post_send. Part of rdma/ (libc,
 * libibverbs only).
 *
 * iWARP (siw, Chelsio, E810 in iWARP mode) offers RC only, connected by its
 * iw_cm only and no atomics: the kernel refuses RTS for a QP the iw_cm did
 * not connect (siw_qp.c), so every QP of such a device comes from
 * rdma_create_qp on a cm_id. It has no RDMA WRITE with immediate either, which
 * the agents make up for (--op write: a WRITE, then a SEND; agents/rc/rc.h),
 * so that is no need here. A SEND with immediate it has no stand-in for: rc's
 * --qp-share with --op send names each message's client in the immediate.
 *
 * rcap_why() is the rule, on a filled struct ibv_device_attr and the device's
 * transport type, with no device (unit-tested so); rcap_probe() opens the
 * device by name and applies it. Soft-RoCE offers all of it.
 */
#ifndef RDC_RDMA_CAP_H
#define RDC_RDMA_CAP_H

#include <stddef.h>

#include <infiniband/verbs.h>

/* What a load needs, or-ed. */
enum rcap_need {
	RCAP_READ = 0x1,   /* RDMA READ: max_qp_rd_atom and max_qp_init_rd_atom > 0 */
	RCAP_ATOMIC = 0x2, /* atomic_cap != IBV_ATOMIC_NONE, and READ's responder resources */
	RCAP_UD = 0x4,	   /* an IB-transport device (RoCE, IB) with address handles (max_ah > 0) */
	RCAP_UC = 0x8,	   /* an IB-transport device: iWARP has RC only */
	RCAP_OOB = 0x10,   /* QPs moved to RTS by hand (--cm oob-tls): not iWARP */
	RCAP_IMM = 0x20,   /* SEND with immediate (a shared QP's messages name their client): not iWARP */
};

/*
 * NULL when attr and tt (ibv_device.transport_type) offer every need, else the
 * first missing one in buf: "device NAME: ATTRIBUTE VALUE (what needs it)".
 */
const char *rcap_why(const char *name, const struct ibv_device_attr *attr,
		     enum ibv_transport_type tt, unsigned need, char *buf, size_t len);

/*
 * The attributes and transport type of the device called name (opened,
 * queried, closed). 0, or -1 with buf naming the failed call (ENODEV: no
 * such device).
 */
int rcap_query(const char *name, struct ibv_device_attr *attr, enum ibv_transport_type *tt,
	       char *buf, size_t len);

/*
 * rcap_why() on the device called name. 0 with *why NULL (all there) or
 * pointing at buf (a reason to SKIP); -1 when the device could not be found
 * (errno ENODEV), opened or queried (buf says which call and why). The device is closed again:
 * call it outside the load points whose counters are watched.
 */
int rcap_probe(const char *name, unsigned need, const char **why, char *buf, size_t len);

#endif /* RDC_RDMA_CAP_H */

/* SPDX-License-Identifier: MIT */
/*
 * rsiw: Soft-iWARP's (siw) mmap key collision, and the plug that keeps a
 * context clear of it. Part of rdma/ (libc, libibverbs only).
 *
 * The siw kernel driver gives every queue it maps to userspace (a CQ ring, a
 * QP's SQ and RQ, an SRQ) the lowest free range of page offsets of the device
 * context, from 0 (rdma_user_mmap_entry_insert, Linux 5.5 on), and returns its
 * byte offset as the key to mmap. rdma-core's libsiw reads the key
 * SIW_INVAL_UOBJ_KEY (0x90000, <rdma/siw-abi.h>) as "the kernel could not map
 * it": the queue whose range starts at page 0x90 of a context is destroyed
 * again and ibv_create_cq (qp, srq) returns NULL without setting errno
 * ("libsiw: prepare CQ mapping failed" under VERBS_LOG_LEVEL). Its offset is
 * then the lowest free one again, so every later create fails alike: a context
 * holds at most 144 mapped queues, 36 connections at four each (two CQ rings,
 * SQ, RQ).
 *
 * rsiw_plug() makes, on a siw context whose queues are not mapped yet, one CQ
 * whose ring spans page offsets 0 to 0x90 (rsiw_plug_cqe() entries): no later
 * queue can start at 0x90. Keep it as long as the context; its cost is one
 * ring of 1 MiB (siw rounds the entries up to a power of two).
 */
#ifndef RDC_RDMA_SIW_H
#define RDC_RDMA_SIW_H

#include <stdbool.h>
#include <stddef.h>

#include <infiniband/verbs.h>

/* ibv_device_attr.vendor_id of every siw device (siw.h: ASCII "bmt") */
#define RSIW_VENDOR_ID 0x626d74

/* a is a siw device's */
bool rsiw_is(const struct ibv_device_attr *a);

/* entries of a CQ whose ring, mapped from page offset 0, covers SIW_INVAL_UOBJ_KEY */
int rsiw_plug_cqe(void);

/*
 * On a siw device (a: ctx's attributes), *cq is the plug, to destroy before
 * the context closes; on any other device NULL. -1 when the plug could not be
 * made: buf says "rsiw: ibv_create_cq DEVICE (N entries): strerror".
 */
int rsiw_plug(struct ibv_context *ctx, const struct ibv_device_attr *a, struct ibv_cq **cq,
	      char *buf, size_t len);

#endif /* RDC_RDMA_SIW_H */

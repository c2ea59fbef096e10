// SPDX-License-Identifier: MIT
/* rnl: RDMA netlink resource summary sampler. See rnl.h. */
#include "rdma/rnl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

/*
 * RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_MAX is newer than the uapi copy of rdma-core 44
 * we build against, and an enum cannot be probed with #ifdef. enum rdma_nldev_attr
 * is ABI and only grows at its end; in the kernel uapi that adds ENTRY_MAX
 * ("RDMA/nldev: add resource summary max values", linux-next 2026) it follows
 * STAT_HWCOUNTER_DYNAMIC (95, the last one known here) after PRIVILEGED_QKEY_MODE,
 * DRIVER_DETAILS, RES_SUBTYPE, DEV_TYPE, PARENT_NAME, NAME_ASSIGN_TYPE, EVENT_TYPE,
 * MONITOR_MODE, STAT_OPCOUNTER_ENABLED and 13 FRMR_POOL* attributes: 118.
 * Because it was counted from a patch rather than a release, it is trusted only as
 * an 8-byte attribute inside a summary entry (where the kernel puts nothing but
 * NAME, CURR, PAD and MAX); every other unknown attribute there is ignored.
 */
#define RNL_ATTR_ENTRY_MAX 118
_Static_assert(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC == 95,
	       "rdma_nldev_attr base for RNL_ATTR_ENTRY_MAX moved");

/* The kernel fills a dump skb up to the reader's buffer size, at most 32 KiB. */
#define RNL_BUFLEN 32768

_Static_assert(RNL_TB_N == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC + 1, "RNL_TB_N");

static const char *const rnl_names[RNL_NRES] = {
	[RNL_PD] = "pd",       [RNL_CQ] = "cq",   [RNL_QP] = "qp",
	[RNL_CM_ID] = "cm_id", [RNL_MR] = "mr",   [RNL_CTX] = "ctx",
	[RNL_SRQ] = "srq",
};

/* State of one dump as it is parsed. */
struct rnl_walk {
	struct rnl_dev *devs;
	int max;
	int n;   /* devices seen, also past max */
};

struct rnl_entry {
	const struct nlattr *name, *cur, *max;
};

const char *rnl_res_name(enum rnl_res res)
{
	if ((unsigned int)res >= RNL_NRES)
		return NULL;
	return rnl_names[res];
}

const struct rnl_dev *rnl_find(const struct rnl_dev *devs, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(devs[i].name, name))
			return &devs[i];
	return NULL;
}

int rnl_fail(struct rnl *r, int err, const char *fmt, ...)
{
	char what[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof(r->err), "rnl: %s: %s", what, strerror(err));
	errno = err;
	return -1;
}

int rnl_open(struct rnl *r)
{
	memset(r, 0, sizeof(*r));
	r->buflen = RNL_BUFLEN;
	r->buf = malloc(r->buflen);
	if (!r->buf)
		return rnl_fail(r, ENOMEM, "malloc(%zu)", r->buflen);
	r->nl = mnl_socket_open(NETLINK_RDMA);
	if (!r->nl) {
		int err = errno;

		rnl_fail(r, err, "mnl_socket_open(NETLINK_RDMA)");
		goto err_buf;
	}
	if (mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = errno;

		rnl_fail(r, err, "mnl_socket_bind(NETLINK_RDMA)");
		goto err_sock;
	}
	r->portid = mnl_socket_get_portid(r->nl);
	return 0;

err_sock:
	mnl_socket_close(r->nl);
	r->nl = NULL;
err_buf:
	free(r->buf);
	r->buf = NULL;
	return -1;
}

void rnl_close(struct rnl *r)
{
	if (r->nl)
		mnl_socket_close(r->nl);
	free(r->buf);
	r->nl = NULL;
	r->buf = NULL;
}

struct nlmsghdr *rnl_req(struct rnl *r, unsigned int cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(r->buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++r->seq;
	return nlh;
}

static uint64_t rnl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A dump left unread blocks the next one on its socket (EBUSY): the one way to
 * drop it is a new socket.
 */
static int rnl_reopen(struct rnl *r)
{
	struct mnl_socket *nl;

	nl = mnl_socket_open(NETLINK_RDMA);
	if (!nl)
		return -1;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = errno;

		mnl_socket_close(nl);
		errno = err;
		return -1;
	}
	mnl_socket_close(r->nl);
	r->nl = nl;
	r->portid = mnl_socket_get_portid(nl);
	return 0;
}

struct rnl_call {
	uint16_t type;
	rnl_cb *cb;
	void *data;
	int err; /* first callback error, reported after the reply is drained */
};

/* 1 when the reply is complete, 0 for more, -1 with errno on a kernel error. */
static int rnl_parse(struct rnl *r, struct rnl_call *c, size_t len)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)r->buf;
	int len_left = (int)len;

	for (; mnl_nlmsg_ok(nlh, len_left); nlh = mnl_nlmsg_next(nlh, &len_left)) {
		/* Leftovers of a dump cut short by an earlier error. */
		if (nlh->nlmsg_seq != r->seq || nlh->nlmsg_pid != r->portid)
			continue;
		if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR) {
			const int *code = mnl_nlmsg_get_payload(nlh);

			if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*code)) {
				errno = EBADMSG;
				return -1;
			}
			/* A dump ends with DONE carrying 0 or the error that cut it. */
			if (*code < 0) {
				r->kernel_err = 1;
				errno = -*code;
				return -1;
			}
			return 1;
		}
		if (nlh->nlmsg_type != c->type)
			continue;
		if (c->cb(nlh, c->data) < 0)
			c->err = EBADMSG;
		/* The reply of a plain request is one message, without ACK. */
		if (!(nlh->nlmsg_flags & NLM_F_MULTI))
			return 1;
	}
	return 0;
}

int rnl_talk(struct rnl *r, const char *what, uint64_t timeout_ns, rnl_cb *cb, void *data)
{
	const struct nlmsghdr *req = (const struct nlmsghdr *)r->buf;
	struct rnl_call c = { .type = req->nlmsg_type, .cb = cb, .data = data };
	uint64_t end = timeout_ns ? rnl_now_ns() + timeout_ns : 0;
	int ret = 0;

	r->kernel_err = 0;
	if (mnl_socket_sendto(r->nl, req, req->nlmsg_len) < 0)
		return rnl_fail(r, errno, "sendto(%s)", what);
	do {
		ssize_t n;

		if (end && rnl_now_ns() > end) {
			if (rnl_reopen(r) < 0)
				return rnl_fail(r, errno, "%s: timed out, reopen", what);
			return rnl_fail(r, ETIMEDOUT, "%s: unfinished after %llu ms", what,
					(unsigned long long)(timeout_ns / 1000000));
		}
		n = mnl_socket_recvfrom(r->nl, r->buf, r->buflen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return rnl_fail(r, errno, "recvfrom(%s)", what);
		}
		ret = rnl_parse(r, &c, (size_t)n);
		if (ret < 0)
			return rnl_fail(r, errno, "%s", what);
	} while (ret == 0);
	if (c.err)
		return rnl_fail(r, c.err, "%s: malformed message", what);
	return 0;
}

static int rnl_tb_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type < RNL_TB_N)
		tb[type] = a;
	return MNL_CB_OK;
}

int rnl_attrs(const struct nlmsghdr *nlh, const struct nlattr *nest,
	      const struct nlattr *tb[RNL_TB_N])
{
	int ret;

	memset(tb, 0, RNL_TB_N * sizeof(tb[0]));
	/* RDMA netlink has no family header: attributes start at the payload. */
	ret = nest ? mnl_attr_parse_nested(nest, rnl_tb_cb, tb)
		   : mnl_attr_parse(nlh, 0, rnl_tb_cb, tb);
	if (ret < 0) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int rnl_u32(const struct nlattr *a, uint32_t *v)
{
	if (!a || mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return -1;
	*v = mnl_attr_get_u32(a);
	return 0;
}

int rnl_str(const struct nlattr *a, char *dst, size_t size)
{
	if (!a || mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return -1;
	snprintf(dst, size, "%s", mnl_attr_get_str(a));
	return 0;
}

static int rnl_entry_cb(const struct nlattr *a, void *data)
{
	struct rnl_entry *e = data;

	switch (mnl_attr_get_type(a)) {
	case RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_ERROR;
		e->name = a;
		break;
	case RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		e->cur = a;
		break;
	case RNL_ATTR_ENTRY_MAX:
		if (mnl_attr_get_payload_len(a) == sizeof(uint64_t))
			e->max = a;
		break;
	}
	return MNL_CB_OK;
}

static int rnl_summary(const struct nlattr *summary, struct rnl_dev *d)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, summary) {
		struct rnl_entry e = { 0 };
		const char *name;
		int i;

		if (mnl_attr_get_type(a) != RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY)
			continue;
		if (mnl_attr_parse_nested(a, rnl_entry_cb, &e) < 0)
			return -1;
		if (!e.name || !e.cur)
			return -1;
		name = mnl_attr_get_str(e.name);
		/* Newer kernels add entries (e.g. "comp_cntr"): not ours to track. */
		for (i = 0; i < RNL_NRES; i++)
			if (!strcmp(name, rnl_names[i]))
				break;
		if (i == RNL_NRES)
			continue;
		d->cur[i] = mnl_attr_get_u64(e.cur);
		d->has |= 1u << i;
		if (e.max) {
			d->max[i] = mnl_attr_get_u64(e.max);
			d->has_max |= 1u << i;
		}
	}
	return 0;
}

struct rnl_top {
	const struct nlattr *index, *name, *summary;
};

static int rnl_top_cb(const struct nlattr *a, void *data)
{
	struct rnl_top *t = data;

	switch (mnl_attr_get_type(a)) {
	case RDMA_NLDEV_ATTR_DEV_INDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		t->index = a;
		break;
	case RDMA_NLDEV_ATTR_DEV_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_ERROR;
		t->name = a;
		break;
	case RDMA_NLDEV_ATTR_RES_SUMMARY:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return MNL_CB_ERROR;
		t->summary = a;
		break;
	}
	return MNL_CB_OK;
}

/* The one device message of a RES_GET dump into w. */
static int rnl_dev_msg(const struct nlmsghdr *nlh, void *data)
{
	struct rnl_walk *w = data;
	struct rnl_top t = { 0 };
	struct rnl_dev *d;

	/* RDMA netlink has no family header: attributes start at the payload. */
	if (mnl_attr_parse(nlh, 0, rnl_top_cb, &t) < 0 || !t.index || !t.name ||
	    !t.summary)
		return -1;
	if (w->n++ >= w->max)
		return 0;
	d = &w->devs[w->n - 1];
	memset(d, 0, sizeof(*d));
	d->index = mnl_attr_get_u32(t.index);
	snprintf(d->name, sizeof(d->name), "%s", mnl_attr_get_str(t.name));
	return rnl_summary(t.summary, d);
}

int rnl_sample(struct rnl *r, struct rnl_dev *devs, int maxdevs)
{
	struct rnl_walk w = { .devs = devs, .max = maxdevs > 0 ? maxdevs : 0 };

	rnl_req(r, RDMA_NLDEV_CMD_RES_GET, NLM_F_DUMP);
	if (rnl_talk(r, "RES_GET dump", 0, rnl_dev_msg, &w) < 0)
		return -1;
	if (w.n > w.max)
		return rnl_fail(r, ENOBUFS, "RES_GET dump: %d devices, room for %d",
				w.n, w.max);
	return w.n;
}

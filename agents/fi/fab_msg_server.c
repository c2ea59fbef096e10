// SPDX-License-Identifier: MIT
/*
 * fi-msg echo server: a passive endpoint per --ports, their connection
 * requests on one EQ, each accepted into an FI_EP_MSG endpoint of its own,
 * one epoll loop over stdin, the EQ and the CQs. A message is echoed from the
 * slot it came into; the other slot takes the next. See fab.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "agents/fi/fab.h"
#include "agents/tag.h"
#include "common/proto.h"

#define FMS_EVENTS 256
/* endpoint slots the table grows by */
#define FMS_GROW 1024
/* --cq per-conn: CQs indexed by endpoint slot, this many at most per process */
#define FMS_CQS_MAX (1u << 18)

enum { FMS_T_CTL = 1, FMS_T_EQ, FMS_T_CQ };
enum { FMS_OP_TX = 1, FMS_OP_RX };

/*
 * A slot's state outlives its endpoint: a completion of a closed endpoint
 * still in a shared CQ leads here, never to freed memory.
 */
struct fms_conn {
	struct fid_ep *ep;
	struct fid_mr *mr;
	void *desc;
	uint8_t *buf;		/* FAB_SLOTS slots: a message is echoed from its own */
	struct fab_op tx[FAB_SLOTS], rx[FAB_SLOTS];
	bool up;		/* FI_CONNECTED seen, not yet shut down */
	bool tx_busy[FAB_SLOTS];
	bool rx_want[FAB_SLOTS];	/* a receive waits for the slot's echo to complete */
};

struct fms_srv {
	const struct ag_opts *o;
	struct fab f;
	struct fid_pep **pep;	/* one per port */
	struct fab_cqs cqs;
	struct ctl ctl;
	int ep;
	struct fms_conn **c;	/* slots, made once; free ones on free_ids */
	uint32_t nc, cap;
	uint32_t *free_ids;
	uint32_t nfree;
	uint64_t accepted, live, peak, echoed, bytes, dropped;
	bool stop, eq_hot;
};

static uint8_t *fms_slot(struct fms_srv *s, struct fms_conn *c, unsigned k)
{
	return c->buf + (size_t)k * s->o->size;
}

static void fms_close(struct fms_srv *s, uint32_t i)
{
	struct fms_conn *c = s->c[i];

	if (!c || !c->ep)
		return;
	if (c->up)
		s->live--;
	fab_fclose(&c->ep->fid, "endpoint");
	fab_fclose(c->mr ? &c->mr->fid : NULL, "mr");
	if (s->o->cq == OPT_CQ_PER_CONN && i < s->cqs.cap)
		fab_cq_close(&s->cqs, i, s->ep);
	free(c->buf);
	memset(c, 0, sizeof(*c));
	s->free_ids[s->nfree++] = i;
}

static void fms_drop(struct fms_srv *s, uint32_t i, const char *call, int err, int prov)
{
	char obj[48], peer[16];

	snprintf(obj, sizeof(obj), "endpoint %u", i);
	snprintf(peer, sizeof(peer), "ep%u", i);
	fab_warn(call, obj, err, prov);
	s->dropped++;
	proto_drop(peer, proto_errname(err));
	fms_close(s, i);
}

/* a free slot index, the tables grown when full: 0, or -1 */
static int fms_slot_new(struct fms_srv *s, uint32_t *out)
{
	uint32_t cap;
	void *c, *f;

	if (s->nfree) {
		*out = s->free_ids[--s->nfree];
		return 0;
	}
	if (s->nc == s->cap) {
		cap = s->cap + FMS_GROW;
		c = realloc(s->c, cap * sizeof(*s->c));
		if (c)
			s->c = c;
		f = c ? realloc(s->free_ids, cap * sizeof(*s->free_ids)) : NULL;
		if (f)
			s->free_ids = f;
		if (!c || !f)
			return -1;
		s->cap = cap;
	}
	s->c[s->nc] = NULL;
	*out = s->nc++;
	return 0;
}

static ssize_t fms_post_rx(struct fms_srv *s, struct fms_conn *c, unsigned k)
{
	c->rx_want[k] = false;
	return fi_recv(c->ep, fms_slot(s, c, k), s->o->size, c->desc, 0, &c->rx[k].ctx);
}

/* FI_CONNREQ on pep: the endpoint, its buffer, its receive, fi_accept */
static void fms_connreq(struct fms_srv *s, struct fid_pep *pep, struct fi_info *info)
{
	const struct ag_opts *o = s->o;
	struct fms_conn *c = NULL;
	struct fab_rej rej;
	const char *call = "malloc";
	uint32_t i, q;
	ssize_t ret = -FI_ENOMEM;

	if (fms_slot_new(s, &i))
		goto reject;
	q = fab_cq_of(o, i);
	if (!s->c[i])
		s->c[i] = calloc(1, sizeof(*c));
	if (!s->c[i]) {
		s->free_ids[s->nfree++] = i;
		goto reject;
	}
	c = s->c[i];
	c->buf = malloc((size_t)FAB_SLOTS * o->size);
	if (!c->buf)
		goto fail_ep;
	for (unsigned k = 0; k < FAB_SLOTS; k++) {
		c->tx[k] = (struct fab_op){ .who = i, .kind = FMS_OP_TX, .slot = (uint8_t)k };
		c->rx[k] = (struct fab_op){ .who = i, .kind = FMS_OP_RX, .slot = (uint8_t)k };
	}
	/* per-conn CQs are indexed by slot: past FMS_CQS_MAX, no more endpoints */
	if (q >= s->cqs.cap)
		goto fail_ep;
	if (!s->cqs.cq[q]) {
		ret = fab_cq_open(&s->cqs, q, o->cq == OPT_CQ_PER_CONN ? 4 * FAB_EP_DEPTH :
				  FAB_CQ_SHARED, s->ep, TAG(FMS_T_CQ, 0, q), &call);
		if (ret)
			goto fail_ep;
	}
	/* the request's own answer, sized down to what an echo keeps in flight */
	fab_ep_depth(info);
	call = "fi_endpoint";
	ret = fi_endpoint(s->f.domain, info, &c->ep, &c->tx[0]);
	if (ret) {
		c->ep = NULL;
		goto fail_ep;
	}
	call = "fi_ep_bind";
	ret = fi_ep_bind(c->ep, &s->f.eq->fid, 0);
	if (!ret)
		ret = fi_ep_bind(c->ep, &s->cqs.cq[q]->fid, FI_TRANSMIT | FI_RECV);
	if (ret)
		goto fail;
	call = "fi_enable";
	ret = fi_enable(c->ep);
	if (ret)
		goto fail;
	call = "fi_mr_reg";
	ret = fab_mr(&s->f, c->buf, (size_t)FAB_SLOTS * o->size, &c->mr, &c->desc);
	if (ret)
		goto fail;
	call = "fi_recv";
	ret = fms_post_rx(s, c, 0);
	if (ret)
		goto fail;
	call = "fi_accept";
	ret = fi_accept(c->ep, NULL, 0);
	if (ret)
		goto fail;
	/* a request answered by fi_reject was not accepted */
	s->accepted++;
	fi_freeinfo(info);
	return;
fail:
	fab_warn(call, "accepted endpoint", fab_errno(ret), fab_errno(ret));
	fms_close(s, i);
	goto reject;
fail_ep:
	fab_warn(call, "connection request", fab_errno(ret), fab_errno(ret));
	if (o->cq == OPT_CQ_PER_CONN && q < s->cqs.cap)
		fab_cq_close(&s->cqs, q, s->ep);
	free(c->buf);
	memset(c, 0, sizeof(*c));
	s->free_ids[s->nfree++] = i;
reject:
	s->dropped++;
	proto_drop("connreq", proto_errname(fab_errno(ret)));
	/* the client learns now, not at its timeout, and what failed here */
	fab_rej_make(&rej, call, fab_errno(ret));
	if (fi_reject(pep, info->handle, &rej, sizeof(rej)))
		ag_warn("fi_reject: a connection request stays unanswered");
	fi_freeinfo(info);
}

static void fms_echo(struct fms_srv *s, uint32_t i, unsigned k, size_t len)
{
	struct fms_conn *c = s->c[i];
	unsigned n = (k + 1) % FAB_SLOTS;
	ssize_t ret;

	/* the next message goes into the other slot, once its echo has left */
	if (c->tx_busy[n])
		c->rx_want[n] = true;
	else if ((ret = fms_post_rx(s, c, n))) {
		fms_drop(s, i, "fi_recv", fab_errno(ret), fab_errno(ret));
		return;
	}
	ret = fi_send(c->ep, fms_slot(s, c, k), len, c->desc, 0, &c->tx[k].ctx);
	if (ret) {
		fms_drop(s, i, "fi_send", fab_errno(ret), fab_errno(ret));
		return;
	}
	c->tx_busy[k] = true;
	s->echoed++;
	s->bytes += len;
}

static void fms_cq(void *arg, struct fab_op *op, const struct fi_cq_tagged_entry *e,
		   const struct fi_cq_err_entry *err)
{
	struct fms_srv *s = arg;
	uint32_t i = op->who;
	struct fms_conn *c = i < s->nc ? s->c[i] : NULL;
	ssize_t ret;

	/* a flushed operation of an endpoint closed */
	if (!c || !c->up)
		return;
	if (err) {
		if (err->err != FI_ECANCELED)
			fms_drop(s, i, op->kind == FMS_OP_TX ? "fi_send" : "fi_recv", err->err,
				 err->prov_errno);
		return;
	}
	if (op->kind == FMS_OP_RX) {
		fms_echo(s, i, op->slot, e->len);
		return;
	}
	c->tx_busy[op->slot] = false;
	if (c->rx_want[op->slot] && (ret = fms_post_rx(s, c, op->slot)))
		fms_drop(s, i, "fi_recv", fab_errno(ret), fab_errno(ret));
}

static void fms_eq_event(struct fms_srv *s, uint32_t ev, struct fi_eq_cm_entry *e)
{
	struct fab_op *op;
	uint32_t i;

	if (ev == FI_CONNREQ) {
		fms_connreq(s, (struct fid_pep *)e->fid, e->info);
		return;
	}
	op = e->fid ? e->fid->context : NULL;
	if (!op || op->who >= s->nc || !s->c[op->who] || !s->c[op->who]->ep)
		return;
	i = op->who;
	if (ev == FI_CONNECTED && !s->c[i]->up) {
		s->c[i]->up = true;
		if (++s->live > s->peak)
			s->peak = s->live;
	} else if (ev == FI_SHUTDOWN) {
		fms_close(s, i);
	}
}

static int fms_eq(struct fms_srv *s)
{
	struct fi_eq_cm_entry e;
	struct fi_eq_err_entry err;
	struct fab_op *op;
	uint32_t ev;
	ssize_t ret;

	for (int turn = 0; turn < 1024; turn++) {
		ret = fi_eq_read(s->f.eq, &ev, &e, sizeof(e), 0);
		if (ret == -FI_EAGAIN)
			return 0;
		if (ret == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_eq_readerr(s->f.eq, &err, 0) < 0)
				continue;
			op = err.fid ? err.fid->context : NULL;
			if (op && op->who < s->nc && s->c[op->who] && s->c[op->who]->ep)
				fms_drop(s, op->who, "fi_accept", err.err, err.prov_errno);
			continue;
		}
		if (ret < 0) {
			fab_fatal("fi_eq_read", "eq", fab_errno(ret), fab_errno(ret));
			return -1;
		}
		fms_eq_event(s, ev, &e);
	}
	return 0;
}

static void fms_ctl(struct fms_srv *s)
{
	enum ctl_cmd cmd;

	/* go and run are the clients'; EOF repeats itself, so the first one ends it */
	while ((cmd = ctl_next(&s->ctl)) != CTL_NONE)
		if (cmd == CTL_STOP || cmd == CTL_EOF) {
			s->stop = true;
			return;
		}
}

/* the EQ and CQs that woke; >0 when the loop must not sleep, -1 fatal */
static int fms_spin(struct fms_srv *s)
{
	int busy = 0, ret;

	if (s->eq_hot) {
		if (fms_eq(s) || fab_eq_rearm(&s->f, &s->eq_hot))
			return -1;
		busy = s->eq_hot;
	}
	ret = fab_cqs_poll(&s->cqs);
	return ret < 0 ? -1 : busy || ret;
}

static int fms_loop(struct fms_srv *s)
{
	struct epoll_event ev[FMS_EVENTS];
	int n, busy = 0;

	while (!s->stop && !proto_dead()) {
		if (!s->ctl.pollable)
			fms_ctl(s);
		n = epoll_wait(s->ep, ev, FMS_EVENTS, busy ? 0 : 1000);
		if (n < 0 && errno != EINTR) {
			ag_fatal("epoll_wait", "server loop", errno);
			return -1;
		}
		for (int k = 0; k < n; k++) {
			uint64_t tag = ev[k].data.u64;

			if (TAG_TYPE(tag) == FMS_T_CTL)
				fms_ctl(s);
			else if (TAG_TYPE(tag) == FMS_T_EQ)
				s->eq_hot = true;
			else if (TAG_TYPE(tag) == FMS_T_CQ)
				fab_cq_woken(&s->cqs, TAG_VAL(tag));
		}
		busy = fms_spin(s);
		if (busy < 0)
			return -1;
	}
	return 0;
}

/* a passive endpoint per port, on the EQ, listening */
static int fms_listen(struct fms_srv *s)
{
	const struct ag_opts *o = s->o;
	struct fi_info *info;
	char obj[64];
	int ret;

	s->pep = calloc(o->ports, sizeof(*s->pep));
	if (!s->pep) {
		ag_fatal("calloc", "passive endpoints", ENOMEM);
		return -1;
	}
	for (uint32_t p = 0; p < o->ports; p++) {
		snprintf(obj, sizeof(obj), "passive endpoint %s:%u", o->addr_str, o->port + p);
		if (p && fab_info_port(&s->f, o->port + p, &info))
			return -1;
		ret = fi_passive_ep(s->f.fabric, p ? info : s->f.info, &s->pep[p], NULL);
		if (p)
			fi_freeinfo(info);
		if (ret) {
			fab_fatal("fi_passive_ep", obj, fab_errno(ret), fab_errno(ret));
			return -1;
		}
		ret = fi_pep_bind(s->pep[p], &s->f.eq->fid, 0);
		if (!ret)
			ret = fi_listen(s->pep[p]);
		if (ret) {
			fab_fatal("fi_listen", obj, fab_errno(ret), fab_errno(ret));
			return -1;
		}
	}
	return 0;
}

static int fms_init(struct fms_srv *s)
{
	const struct ag_opts *o = s->o;

	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		ag_fatal("epoll_create1", "server loop", errno);
		return -1;
	}
	if (ctl_init(&s->ctl, STDIN_FILENO) || ctl_watch(&s->ctl, s->ep, TAG(FMS_T_CTL, 0, 0)))
		return -1;
	if (fab_open(&s->f, o, o->port, true, 65536))
		return -1;
	/* per-conn CQs are indexed by endpoint slot: as many as the fd limit allows */
	if (fab_cqs_init(&s->cqs, &s->f, fab_cq_count(o, FMS_CQS_MAX), fms_cq, s))
		return -1;
	if (tag_watch(s->ep, s->f.eq_fd, EPOLLIN, TAG(FMS_T_EQ, 0, 0), "eq"))
		return -1;
	return fms_listen(s);
}

int fab_msg_server_run(const struct ag_opts *o)
{
	struct fms_srv s = { .o = o, .ep = -1 };
	int ret = 1;

	if (o->ncpus && ag_pin(o->cpus[0]))
		return 1;
	if (fms_init(&s))
		goto out;
	proto_hello_server(o->ports, o->port, -1);
	ret = fms_loop(&s) ? 1 : 0;
	if (!ret)
		proto_result_server(&(struct proto_result_server){
			.accepted = s.accepted, .peak = s.peak, .echoed = s.echoed,
			.bytes = s.bytes, .dropped = s.dropped, .rejected = PROTO_NONE,
			.cq_events = PROTO_NONE, .ah = PROTO_NONE, .ah_made = PROTO_NONE,
			.cq_arms = PROTO_NONE, .cq_spins = PROTO_NONE });
out:
	for (uint32_t i = 0; i < s.nc; i++) {
		fms_close(&s, i);
		free(s.c[i]);
	}
	for (uint32_t p = 0; s.pep && p < o->ports; p++)
		fab_fclose(s.pep[p] ? &s.pep[p]->fid : NULL, "passive endpoint");
	free(s.pep);
	fab_cqs_fini(&s.cqs);
	fab_close(&s.f);
	if (s.ep >= 0)
		close(s.ep);
	free(s.c);
	free(s.free_ids);
	if (!ret)
		proto_bye();
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * fi-rdm echo server: one FI_EP_RDM endpoint per --ports on one AV, each with
 * FRS_RX receive buffers posted. A hello puts its sender's name into the AV
 * and is answered, from its own buffer, tagged with the sender's new peer
 * slot; a round trip, tagged with the slot, is echoed to that peer from its
 * buffer. A buffer is posted again once its answer has left. An answer
 * ofi_rxm refuses with -FI_EAGAIN (the peer's connection still being
 * accepted, or no send credit left on the verbs CQ beneath) waits in a FIFO,
 * tried again after each round of CQ reads, which is what moves ofi_rxm on,
 * until DL_FI_RETRY_MS (common/deadline.h). See fab.h.
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
#include "common/clock.h"
#include "common/deadline.h"
#include "common/proto.h"

#define FRS_EVENTS 64
/*
 * Receive buffers per endpoint: the messages in flight it takes without
 * leaving them to the provider's unexpected-message queue (ofi_rxm keeps
 * those in buffers of its own, so more clients still work, more slowly).
 */
#define FRS_RX 512
/* peer slots the table grows by */
#define FRS_GROW 4096
/* the loop's sleep while answers wait: progress without spinning a core */
#define FRS_WAIT_MS 1

enum { FRS_T_CTL = 1, FRS_T_CQ };
/* a buffer's kind: posted as a receive, or 0 while it is out as an answer */
enum { FRS_OP_RX = 1 };

struct frs_buf {
	struct fab_op op;	/* who: the buffer's index; slot: its endpoint */
	uint8_t *data;
	/* an answer waiting in the FIFO: to whom, its tag and length, until when */
	fi_addr_t to;
	uint64_t tag, due;
	size_t len;
};

struct frs_srv {
	const struct ag_opts *o;
	struct fab f;
	struct fab_cqs cqs;
	struct ctl ctl;
	int ep;
	struct fid_ep **rep;	/* one per port */
	struct fid_mr *mr;	/* every buffer, one registration */
	void *desc;
	uint8_t *mem;
	struct frs_buf *buf;	/* FRS_RX per endpoint */
	uint32_t nbuf;
	size_t slen;
	fi_addr_t *peer;	/* by slot */
	uint32_t npeer, cap;
	uint32_t *wait;		/* the FIFO of waiting answers, buffer indices: nbuf */
	uint32_t whead, nwait;
	uint64_t accepted, echoed, bytes, dropped;
	bool stop;
};

static ssize_t frs_post(struct frs_srv *s, struct frs_buf *b)
{
	return fi_trecv(s->rep[b->op.slot], b->data, s->slen, s->desc, FI_ADDR_UNSPEC, 0, ~0ull,
			&b->op.ctx);
}

/* a hello: the sender's name into the AV, its slot the answer's tag */
static int frs_hello(struct frs_srv *s, struct frs_buf *b, uint64_t *tag)
{
	fi_addr_t *p;
	int ret;

	if (s->npeer == s->cap) {
		p = realloc(s->peer, (s->cap + FRS_GROW) * sizeof(*s->peer));
		if (!p)
			return -FI_ENOMEM;
		s->peer = p;
		s->cap += FRS_GROW;
	}
	ret = fi_av_insert(s->f.av, b->data, 1, &s->peer[s->npeer], 0, NULL);
	if (ret != 1)
		return ret < 0 ? ret : -FI_EINVAL;
	*tag = FAB_TAG_HELLO | s->npeer++;
	s->accepted++;
	return 0;
}

static void frs_drop(struct frs_srv *s, struct frs_buf *b, const char *call, int err, int prov)
{
	ssize_t ret;

	fab_warn(call, "peer message", err, prov);
	s->dropped++;
	proto_drop("rdm", proto_errname(err));
	b->op.kind = FRS_OP_RX;
	ret = frs_post(s, b);
	if (ret)
		fab_warn("fi_trecv", "endpoint", fab_errno(ret), fab_errno(ret));
}

/* the answer in b out to its peer: 0, 1 when it must wait, or dropped (-1) */
static int frs_answer(struct frs_srv *s, struct frs_buf *b)
{
	ssize_t ret = fi_tsend(s->rep[b->op.slot], b->data, b->len, s->desc, b->to, b->tag,
			       &b->op.ctx);

	if (ret == -FI_EAGAIN && clock_ns() < b->due)
		return 1;
	if (ret) {
		frs_drop(s, b, "fi_tsend", fab_errno(ret), fab_errno(ret));
		return -1;
	}
	b->op.kind = 0;	/* the buffer is out, as an answer */
	if (!(b->tag & FAB_TAG_HELLO)) {
		s->echoed++;
		s->bytes += b->len;
	}
	return 0;
}

/* the waiting answers, in order, once each: those still refused wait on */
static void frs_retry(struct frs_srv *s)
{
	uint32_t n = s->nwait, k;

	for (uint32_t i = 0; i < n; i++) {
		k = s->wait[s->whead];
		s->whead = (s->whead + 1) % s->nbuf;
		s->nwait--;
		if (frs_answer(s, &s->buf[k]) == 1)
			s->wait[(s->whead + s->nwait++) % s->nbuf] = k;
	}
}

static void frs_recv(struct frs_srv *s, struct frs_buf *b, const struct fi_cq_tagged_entry *e)
{
	uint64_t tag = e->tag;
	ssize_t ret;

	if (tag & FAB_TAG_HELLO) {
		ret = frs_hello(s, b, &tag);
		if (ret) {
			frs_drop(s, b, "fi_av_insert", fab_errno(ret), fab_errno(ret));
			return;
		}
	} else if (tag >= s->npeer) {
		frs_drop(s, b, "fi_trecv", EPROTO, 0);
		return;
	}
	b->to = s->peer[tag & FAB_TAG_SLOT];
	b->tag = tag;
	b->len = e->len;
	b->due = clock_ns() + DL_FI_RETRY_MS * 1000000ull;
	/* behind those already waiting: a peer's answers leave in order */
	if (s->nwait || frs_answer(s, b) == 1) {
		b->op.kind = 0;
		s->wait[(s->whead + s->nwait++) % s->nbuf] = b->op.who;
	}
}

static void frs_cq(void *arg, struct fab_op *op, const struct fi_cq_tagged_entry *e,
		   const struct fi_cq_err_entry *err)
{
	struct frs_srv *s = arg;
	struct frs_buf *b = (struct frs_buf *)op;
	ssize_t ret;

	if (err) {
		if (err->err != FI_ECANCELED)
			frs_drop(s, b, b->op.kind ? "fi_trecv" : "fi_tsend", err->err,
				 err->prov_errno);
		return;
	}
	if (b->op.kind) {
		frs_recv(s, b, e);
		return;
	}
	b->op.kind = FRS_OP_RX;
	ret = frs_post(s, b);
	if (ret)
		fab_warn("fi_trecv", "endpoint", fab_errno(ret), fab_errno(ret));
}

static void frs_ctl(struct frs_srv *s)
{
	enum ctl_cmd cmd;

	/* go and run are the clients'; EOF repeats itself, so the first one ends it */
	while ((cmd = ctl_next(&s->ctl)) != CTL_NONE)
		if (cmd == CTL_STOP || cmd == CTL_EOF) {
			s->stop = true;
			return;
		}
}

static int frs_loop(struct frs_srv *s)
{
	struct epoll_event ev[FRS_EVENTS];
	int n, busy = 0;

	while (!s->stop && !proto_dead()) {
		if (!s->ctl.pollable)
			frs_ctl(s);
		n = epoll_wait(s->ep, ev, FRS_EVENTS, busy ? 0 : s->nwait ? FRS_WAIT_MS : 1000);
		if (n < 0 && errno != EINTR) {
			ag_fatal("epoll_wait", "server loop", errno);
			return -1;
		}
		for (int k = 0; k < n; k++) {
			if (TAG_TYPE(ev[k].data.u64) == FRS_T_CTL)
				frs_ctl(s);
			else
				fab_cq_woken(&s->cqs, TAG_VAL(ev[k].data.u64));
		}
		busy = fab_cqs_poll(&s->cqs);
		if (busy < 0)
			return -1;
		frs_retry(s);
	}
	return 0;
}

/* endpoint p on its port's address, its CQ, enabled */
static int frs_endpoint(struct frs_srv *s, uint32_t p)
{
	const struct ag_opts *o = s->o;
	uint32_t q = o->cq == OPT_CQ_SHARED ? 0 : p;
	struct fi_info *info = s->f.info;
	const char *call = "fi_getinfo";
	char obj[64];
	int ret = 0;

	snprintf(obj, sizeof(obj), "endpoint %s:%u", o->addr_str, o->port + p);
	if (p && fab_info_port(&s->f, o->port + p, &info))
		return -1;
	if (!s->cqs.cq[q]) {
		ret = fab_cq_open(&s->cqs, q, FAB_CQ_SHARED, s->ep, TAG(FRS_T_CQ, 0, q), &call);
		if (ret)
			goto fail;
	}
	call = "fi_endpoint";
	ret = fi_endpoint(s->f.domain, info, &s->rep[p], NULL);
	if (ret)
		goto fail;
	call = "fi_ep_bind";
	ret = fi_ep_bind(s->rep[p], &s->f.av->fid, 0);
	if (!ret)
		ret = fi_ep_bind(s->rep[p], &s->cqs.cq[q]->fid, FI_TRANSMIT | FI_RECV);
	if (ret)
		goto fail;
	call = "fi_enable";
	ret = fi_enable(s->rep[p]);
fail:
	if (p)
		fi_freeinfo(info);
	if (ret)
		fab_fatal(call, obj, fab_errno(ret), fab_errno(ret));
	return ret ? -1 : 0;
}

static int frs_init(struct frs_srv *s)
{
	const struct ag_opts *o = s->o;
	ssize_t ret;

	s->slen = o->size > FAB_NAME_MAX ? o->size : FAB_NAME_MAX;
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		ag_fatal("epoll_create1", "server loop", errno);
		return -1;
	}
	if (ctl_init(&s->ctl, STDIN_FILENO) || ctl_watch(&s->ctl, s->ep, TAG(FRS_T_CTL, 0, 0)))
		return -1;
	if (fab_open(&s->f, o, o->port, true, 0))
		return -1;
	if (fab_cqs_init(&s->cqs, &s->f, o->cq == OPT_CQ_SHARED ? 1 : o->ports, frs_cq, s))
		return -1;
	s->rep = calloc(o->ports, sizeof(*s->rep));
	s->nbuf = o->ports * FRS_RX;
	s->buf = calloc(s->nbuf, sizeof(*s->buf));
	s->wait = calloc(s->nbuf, sizeof(*s->wait));
	s->mem = malloc(s->nbuf * s->slen);
	if (!s->rep || !s->buf || !s->wait || !s->mem) {
		ag_fatal("calloc", "server buffers", ENOMEM);
		return -1;
	}
	ret = fab_mr(&s->f, s->mem, s->nbuf * s->slen, &s->mr, &s->desc);
	if (ret) {
		fab_fatal("fi_mr_reg", "server buffers", fab_errno(ret), fab_errno(ret));
		return -1;
	}
	for (uint32_t p = 0; p < o->ports; p++)
		if (frs_endpoint(s, p))
			return -1;
	for (uint32_t k = 0; k < s->nbuf; k++) {
		s->buf[k] = (struct frs_buf){ .op = { .who = k, .kind = FRS_OP_RX,
						      .slot = (uint8_t)(k / FRS_RX) },
					      .data = s->mem + k * s->slen };
		ret = frs_post(s, &s->buf[k]);
		if (ret) {
			fab_fatal("fi_trecv", "server endpoint", fab_errno(ret), fab_errno(ret));
			return -1;
		}
	}
	return 0;
}

int fab_rdm_server_run(const struct ag_opts *o)
{
	struct frs_srv s = { .o = o, .ep = -1 };
	int ret = 1;

	if (o->ncpus && ag_pin(o->cpus[0]))
		return 1;
	if (frs_init(&s))
		goto out;
	proto_hello_server(o->ports, o->port, -1);
	ret = frs_loop(&s) ? 1 : 0;
	if (!ret)
		proto_result_server(&(struct proto_result_server){
			.accepted = s.accepted, .peak = s.npeer, .echoed = s.echoed,
			.bytes = s.bytes, .dropped = s.dropped, .rejected = PROTO_NONE,
			.cq_events = PROTO_NONE, .ah = PROTO_NONE, .ah_made = PROTO_NONE,
			.cq_arms = PROTO_NONE, .cq_spins = PROTO_NONE });
out:
	for (uint32_t p = 0; s.rep && p < o->ports; p++)
		fab_fclose(s.rep[p] ? &s.rep[p]->fid : NULL, "endpoint");
	fab_fclose(s.mr ? &s.mr->fid : NULL, "mr");
	fab_cqs_fini(&s.cqs);
	fab_close(&s.f);
	if (s.ep >= 0)
		close(s.ep);
	free(s.rep);
	free(s.buf);
	free(s.wait);
	free(s.mem);
	free(s.peer);
	if (!ret)
		proto_bye();
	return ret;
}

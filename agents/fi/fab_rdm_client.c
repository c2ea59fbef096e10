// SPDX-License-Identifier: MIT
/*
 * fi-rdm client agent: --clients FI_EP_RDM endpoints in one epoll loop
 * (phase.h), the server's address in the process's AV. A client is up once
 * its hello (its endpoint name) is answered with its peer slot; its round
 * trips are tagged with the slot. A round trip whose echo has not come
 * dl_fi_echo_ns() after its send fails as "fi_trecv ETIMEDOUT": ofi_rxm says
 * nothing to a receive from any source when the connection beneath dies
 * (common/deadline.h). See fab.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/fi/fab.h"
#include "agents/load.h"
#include "agents/phase.h"
#include "common/clock.h"
#include "common/deadline.h"
#include "common/proto.h"

#define FRC_BATCH 64
#define FRC_EVENTS 256

enum { FRC_T_CQ = PH_T_USER, FRC_T_TICK };
enum frc_state { FRC_NEW, FRC_CONNECTING, FRC_UP, FRC_FAILED, FRC_CLOSED };
enum { FRC_OP_TX = 1, FRC_OP_RX };

struct frc_conn {
	struct fid_ep *ep;
	struct fid_mr *mr;
	void *desc;
	uint8_t *buf;		/* FAB_SLOTS receive slots, then the send slot, each slen */
	struct fab_op tx, rx[FAB_SLOTS];
	uint64_t tag;		/* the server's slot for us */
	uint32_t nlen;		/* our name's bytes, in the send slot until the answer */
	uint8_t state;
	bool tx_busy;		/* a send not yet completed: its context is in use */
	bool tx_want;		/* a send waits: for the last, or for the provider */
};

struct frc_ctx {
	const struct ag_opts *o;
	struct ph ph;
	struct fab f;
	struct fab_cqs cqs;
	fi_addr_t srv;		/* the server's port in the AV */
	struct frc_conn *c;
	uint32_t n;
	uint32_t nwant;		/* connections whose tx_want the loop must retry */
	size_t slen;		/* a slot: a message or a hello, the larger */
	int tick;		/* every DL_FI_TICK_MS: lost echoes */
};

static uint8_t *frc_slot(struct frc_ctx *x, uint32_t i, unsigned k)
{
	return x->c[i].buf + (size_t)k * x->slen;
}

static void frc_close(struct frc_ctx *x, uint32_t i)
{
	struct frc_conn *c = &x->c[i];

	if (c->tx_want)
		x->nwant--;
	c->tx_want = false;
	fab_cli_close(&x->cqs, i, x->o->cq == OPT_CQ_PER_CONN, x->ph.ep, &c->ep, &c->mr, &c->buf);
	c->state = FRC_CLOSED;
}

static void frc_fail(struct frc_ctx *x, uint32_t i, const char *call, int err, int prov)
{
	fab_cli_warn(call, x->o->first_id + i, err, prov);
	ph_fail(&x->ph, i, call, err, NULL, false, -1);
	frc_close(x, i);
	x->c[i].state = FRC_FAILED;
}

static void frc_broken(struct frc_ctx *x, uint32_t i, const char *call, int err, int prov)
{
	fab_cli_warn(call, x->o->first_id + i, err, prov);
	load_fail(&x->ph.load, i, call, err, NULL);
	frc_close(x, i);
}

static ssize_t frc_post_rx(struct frc_ctx *x, uint32_t i, unsigned k)
{
	struct frc_conn *c = &x->c[i];

	/* from the server only, any tag: a hello's answer or an echo */
	return fi_trecv(c->ep, frc_slot(x, i, k), x->slen, c->desc, FI_ADDR_UNSPEC, 0, ~0ull,
			&c->rx[k].ctx);
}

static void frc_broken(struct frc_ctx *x, uint32_t i, const char *call, int err, int prov);
static void frc_fail(struct frc_ctx *x, uint32_t i, const char *call, int err, int prov);

/*
 * The hello while connecting, else the round trip's message. ofi_rxm answers
 * -FI_EAGAIN while it makes the connection beneath: the loop tries again
 * after reading the CQs, which is what moves that connection on.
 */
static void frc_send(struct frc_ctx *x, uint32_t i)
{
	struct frc_conn *c = &x->c[i];
	uint8_t *tx = frc_slot(x, i, FAB_SLOTS);
	bool hello = c->state == FRC_CONNECTING;
	ssize_t ret;

	if (c->tx_busy) {
		c->tx_want = true;
		return;
	}
	if (!hello)
		load_tx_fill(&x->ph.load, i, 0, tx, x->o->size);
	ret = fi_tsend(c->ep, tx, hello ? c->nlen : x->o->size, c->desc, x->srv,
		       hello ? FAB_TAG_HELLO : c->tag, &c->tx.ctx);
	if (ret == -FI_EAGAIN) {
		if (!c->tx_want)
			x->nwant++;
		c->tx_want = true;
		return;
	}
	if (c->tx_want)
		x->nwant--;
	c->tx_want = false;
	if (ret && hello)
		frc_fail(x, i, "fi_tsend", fab_errno(ret), fab_errno(ret));
	else if (ret)
		frc_broken(x, i, "fi_tsend", fab_errno(ret), fab_errno(ret));
	else
		c->tx_busy = true;
}

/* the endpoint, its CQ and buffer, then the hello: our name to the server */
static void frc_start(void *arg, uint32_t i)
{
	struct frc_ctx *x = arg;
	struct frc_conn *c = &x->c[i];
	uint32_t q = x->o->cq == OPT_CQ_SHARED ? 0 : i;
	uint8_t *tx;
	size_t nlen = FAB_NAME_MAX;
	const char *call = "malloc";
	ssize_t ret = -FI_ENOMEM;

	c->tx = (struct fab_op){ .who = i, .kind = FRC_OP_TX };
	for (unsigned k = 0; k < FAB_SLOTS; k++)
		c->rx[k] = (struct fab_op){ .who = i, .kind = FRC_OP_RX, .slot = (uint8_t)k };
	c->state = FRC_CONNECTING;
	c->buf = malloc((FAB_SLOTS + 1) * x->slen);
	if (!c->buf)
		goto fail;
	tx = frc_slot(x, i, FAB_SLOTS);
	if (!x->cqs.cq[q]) {
		ret = fab_cq_open(&x->cqs, q, x->o->cq == OPT_CQ_PER_CONN ? 2 * FAB_EP_DEPTH :
				  FAB_CQ_SHARED, x->ph.ep, PH_TAG(FRC_T_CQ, q), &call);
		if (ret)
			goto fail;
	}
	call = "fi_endpoint";
	ret = fi_endpoint(x->f.domain, x->f.info, &c->ep, &c->tx);
	if (ret)
		goto fail;
	call = "fi_ep_bind";
	ret = fi_ep_bind(c->ep, &x->f.av->fid, 0);
	if (!ret)
		ret = fi_ep_bind(c->ep, &x->cqs.cq[q]->fid, FI_TRANSMIT | FI_RECV);
	if (ret)
		goto fail;
	call = "fi_enable";
	ret = fi_enable(c->ep);
	if (ret)
		goto fail;
	call = "fi_mr_reg";
	ret = fab_mr(&x->f, c->buf, (FAB_SLOTS + 1) * x->slen, &c->mr, &c->desc);
	if (ret)
		goto fail;
	call = "fi_getname";
	ret = fi_getname(&c->ep->fid, tx, &nlen);
	if (ret)
		goto fail;
	ph_step(&x->ph, i, PROTO_STEP_QP);
	call = "fi_trecv";
	ret = frc_post_rx(x, i, 0);
	if (ret)
		goto fail;
	c->nlen = (uint32_t)nlen;
	frc_send(x, i);
	return;
fail:
	frc_fail(x, i, call, fab_errno(ret), fab_errno(ret));
}

static bool frc_pending(void *arg, uint32_t i)
{
	struct frc_ctx *x = arg;

	return x->c[i].state == FRC_CONNECTING;
}

static void frc_expire(void *arg, uint32_t i)
{
	struct frc_ctx *x = arg;

	ph_fail(&x->ph, i, "fi_tsend", 0, "timeout", false, -1);
	frc_close(x, i);
	x->c[i].state = FRC_FAILED;
}

static void frc_load_start(void *arg, uint32_t i)
{
	frc_send(arg, i);
}

static const struct load_ops frc_load_ops = { .start = frc_load_start };

static void frc_rx(struct frc_ctx *x, uint32_t i, unsigned k, const struct fi_cq_tagged_entry *e)
{
	struct frc_conn *c = &x->c[i];
	ssize_t ret;

	ret = frc_post_rx(x, i, (k + 1) % FAB_SLOTS);
	if (ret) {
		if (c->state == FRC_CONNECTING)
			frc_fail(x, i, "fi_trecv", fab_errno(ret), fab_errno(ret));
		else
			frc_broken(x, i, "fi_trecv", fab_errno(ret), fab_errno(ret));
		return;
	}
	if (c->state == FRC_CONNECTING) {
		if (!(e->tag & FAB_TAG_HELLO)) {
			frc_fail(x, i, "fi_trecv", EPROTO, 0);
			return;
		}
		c->tag = e->tag & FAB_TAG_SLOT;
		ph_step(&x->ph, i, PROTO_STEP_CONN);
		c->state = FRC_UP;
		ph_up(&x->ph, i);
		return;
	}
	if (x->ph.phase != PH_RUN || load_finished(&x->ph.load) || !load_want(&x->ph.load, i) ||
	    e->tag != c->tag) {
		load_fail(&x->ph.load, i, "fi_trecv", EPROTO, NULL);
		frc_close(x, i);
		return;
	}
	if (load_rx(&x->ph.load, i, frc_slot(x, i, k), e->len) < 0)
		frc_close(x, i);
}

static void frc_cq(void *arg, struct fab_op *op, const struct fi_cq_tagged_entry *e,
		   const struct fi_cq_err_entry *err)
{
	struct frc_ctx *x = arg;
	uint32_t i = op->who;
	struct frc_conn *c = &x->c[i];

	if (c->state != FRC_UP && c->state != FRC_CONNECTING)
		return;
	if (err) {
		const char *call = op->kind == FRC_OP_TX ? "fi_tsend" : "fi_trecv";

		if (err->err == FI_ECANCELED)
			return;
		if (c->state == FRC_CONNECTING)
			frc_fail(x, i, call, err->err, err->prov_errno);
		else
			frc_broken(x, i, call, err->err, err->prov_errno);
		return;
	}
	if (op->kind == FRC_OP_TX) {
		c->tx_busy = false;
		if (c->tx_want) {
			c->tx_want = false;
			x->nwant--;
			frc_send(x, i);
		}
		return;
	}
	frc_rx(x, i, op->slot, e);
}

/* every round trip in flight longer than dl_fi_echo_ns(): its echo is lost */
static void frc_tick(struct frc_ctx *x)
{
	uint64_t now = clock_ns(), exp;

	if (read(x->tick, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		ag_warn("echo tick: %s", strerror(errno));
	for (uint32_t i = 0; i < x->n; i++) {
		if (x->c[i].state != FRC_UP || !load_want(&x->ph.load, i) ||
		    now - x->ph.load.c[i].t < dl_fi_echo_ns())
			continue;
		ag_warn("client %u: fi-rdm: no echo %.0f ms after the send; ofi_rxm reports no "
			"error to a receive from any source", x->o->first_id + i,
			(double)(now - x->ph.load.c[i].t) / 1e6);
		load_fail(&x->ph.load, i, "fi_trecv", ETIMEDOUT, NULL);
		frc_close(x, i);
	}
}

/* the echo tick, from the start: before traffic it finds nothing in flight */
static int frc_tick_init(struct frc_ctx *x)
{
	struct timespec p = { .tv_sec = DL_FI_TICK_MS / 1000,
			      .tv_nsec = DL_FI_TICK_MS % 1000 * 1000000l };
	struct itimerspec t = { .it_value = p, .it_interval = p };

	x->tick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (x->tick < 0 || timerfd_settime(x->tick, 0, &t, NULL)) {
		ag_fatal(x->tick < 0 ? "timerfd_create" : "timerfd_settime", "echo tick", errno);
		return -1;
	}
	return ph_watch(&x->ph, x->tick, EPOLLIN, PH_TAG(FRC_T_TICK, 0), "echo tick");
}

static int frc_event(void *arg, uint32_t t, uint32_t v, uint32_t events)
{
	struct frc_ctx *x = arg;

	(void)events;
	if (t == FRC_T_CQ)
		fab_cq_woken(&x->cqs, v);
	else if (t == FRC_T_TICK)
		frc_tick(x);
	return 0;
}

/* the CQs, then the sends the provider pushed back: busy while any waits */
static int frc_spin(void *arg)
{
	struct frc_ctx *x = arg;
	int ret = fab_cqs_poll(&x->cqs);

	for (uint32_t i = 0; ret >= 0 && x->nwant && i < x->n; i++)
		if (x->c[i].tx_want && !x->c[i].tx_busy) {
			x->c[i].tx_want = false;
			x->nwant--;
			frc_send(x, i);
		}
	return ret < 0 ? -1 : ret || x->nwant;
}

static const struct ph_ops frc_ph_ops = {
	.batch = FRC_BATCH, .events = FRC_EVENTS, .start = frc_start,
	.pending = frc_pending, .expire = frc_expire, .event = frc_event, .spin = frc_spin,
};

/* the server's address, from fi_getinfo's answer, into the AV */
static int frc_server(struct frc_ctx *x)
{
	int ret = fi_av_insert(x->f.av, x->f.info->dest_addr, 1, &x->srv, 0, NULL);

	if (ret == 1)
		return 0;
	fab_fatal("fi_av_insert", "server address", ret < 0 ? fab_errno(ret) : EINVAL,
		  fab_errno(ret));
	return -1;
}

int fab_rdm_client_run(const struct ag_opts *o)
{
	struct frc_ctx x = { .o = o, .n = o->clients, .tick = -1 };
	int ret = 1;

	x.slen = o->size > FAB_NAME_MAX ? o->size : FAB_NAME_MAX;
	if (o->ncpus && ag_pin(o->cpus[0]))
		return 1;
	if (ph_init(&x.ph, o, &frc_ph_ops, &frc_load_ops, &x))
		goto out_ph;
	if (frc_tick_init(&x))
		goto out_ph;
	if (fab_open(&x.f, o, o->port, false, 0) || frc_server(&x))
		goto out_fab;
	if (fab_cqs_init(&x.cqs, &x.f, o->cq == OPT_CQ_SHARED ? 1 : x.n, frc_cq, &x))
		goto out_cqs;
	x.c = calloc(x.n, sizeof(*x.c));
	if (!x.c) {
		ag_fatal("calloc", "client state", ENOMEM);
		goto out_cqs;
	}
	proto_hello_client(o->first_id, o->clients);
	ret = ph_loop(&x.ph) ? 1 : 0;
	for (uint32_t i = 0; i < x.n; i++)
		if (x.c[i].ep || x.c[i].buf)
			frc_close(&x, i);
	free(x.c);
	if (!ret)
		proto_bye();
out_cqs:
	fab_cqs_fini(&x.cqs);
out_fab:
	fab_close(&x.f);
out_ph:
	if (x.tick >= 0)
		close(x.tick);
	ph_fini(&x.ph);
	return ret;
}

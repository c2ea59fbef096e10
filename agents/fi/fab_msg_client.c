// SPDX-License-Identifier: MIT
/*
 * fi-msg client agent: --clients FI_EP_MSG endpoints in one epoll loop (phase.h),
 * each connected by fi_connect, its CM events on the process's EQ; then the
 * round trips of load.h, each a fi_send and the echo's receive. See fab.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "agents/ag.h"
#include "agents/fi/fab.h"
#include "agents/load.h"
#include "agents/phase.h"
#include "common/proto.h"

#define FMC_BATCH 64
#define FMC_EVENTS 256

enum { FMC_T_EQ = PH_T_USER, FMC_T_CQ };
enum fmc_state { FMC_NEW, FMC_CONNECTING, FMC_UP, FMC_FAILED, FMC_CLOSED };
/* a fab_op's kind: the send, or receive slot op.slot */
enum { FMC_OP_TX = 1, FMC_OP_RX };

struct fmc_conn {
	struct fid_ep *ep;
	struct fid_mr *mr;
	void *desc;
	uint8_t *buf;		/* FAB_SLOTS receive slots, then the send slot */
	struct fab_op tx, rx[FAB_SLOTS];
	uint8_t state;
	uint8_t slot;		/* the receive slot posted */
	bool tx_busy;		/* a send not yet completed: its context is in use */
	bool tx_want;		/* a send waits: for the last, or for the provider */
};

struct fmc_ctx {
	const struct ag_opts *o;
	struct ph ph;
	struct fab f;
	struct fab_cqs cqs;
	struct fmc_conn *c;
	uint32_t n;
	uint32_t nwant;		/* connections whose tx_want the loop must retry */
	bool eq_hot;
};

static uint8_t *fmc_slot(struct fmc_ctx *x, uint32_t i, unsigned k)
{
	return x->c[i].buf + (size_t)k * x->o->size;
}

static void fmc_close(struct fmc_ctx *x, uint32_t i)
{
	struct fmc_conn *c = &x->c[i];

	if (c->tx_want)
		x->nwant--;
	c->tx_want = false;
	fab_cli_close(&x->cqs, i, x->o->cq == OPT_CQ_PER_CONN, x->ph.ep, &c->ep, &c->mr, &c->buf);
	c->state = FMC_CLOSED;
}

static void fmc_fail(struct fmc_ctx *x, uint32_t i, const char *call, int err, int prov)
{
	fab_cli_warn(call, x->o->first_id + i, err, prov);
	ph_fail(&x->ph, i, call, err, NULL, false, -1);
	fmc_close(x, i);
	x->c[i].state = FMC_FAILED;
}

/* in traffic: the connection is lost to the round trips */
static void fmc_broken(struct fmc_ctx *x, uint32_t i, const char *call, int err, int prov)
{
	fab_cli_warn(call, x->o->first_id + i, err, prov);
	load_fail(&x->ph.load, i, call, err, NULL);
	fmc_close(x, i);
}

static ssize_t fmc_post_rx(struct fmc_ctx *x, uint32_t i, unsigned k)
{
	struct fmc_conn *c = &x->c[i];

	c->slot = (uint8_t)k;
	return fi_recv(c->ep, fmc_slot(x, i, k), x->o->size, c->desc, 0, &c->rx[k].ctx);
}

/* the endpoint, its CQ, buffer and first receive, then fi_connect */
static void fmc_start(void *arg, uint32_t i)
{
	struct fmc_ctx *x = arg;
	const struct ag_opts *o = x->o;
	struct fmc_conn *c = &x->c[i];
	uint32_t q = fab_cq_of(o, i);
	const char *call = "malloc";
	ssize_t ret = -FI_ENOMEM;

	c->tx = (struct fab_op){ .who = i, .kind = FMC_OP_TX };
	for (unsigned k = 0; k < FAB_SLOTS; k++)
		c->rx[k] = (struct fab_op){ .who = i, .kind = FMC_OP_RX, .slot = (uint8_t)k };
	c->state = FMC_CONNECTING;
	c->buf = malloc((size_t)(FAB_SLOTS + 1) * o->size);
	if (!c->buf)
		goto fail;
	if (!x->cqs.cq[q]) {
		ret = fab_cq_open(&x->cqs, q, x->o->cq == OPT_CQ_PER_CONN ? 2 * FAB_EP_DEPTH :
				  FAB_CQ_SHARED, x->ph.ep,
				  PH_TAG(FMC_T_CQ, q), &call);
		if (ret)
			goto fail;
	}
	call = "fi_endpoint";
	ret = fi_endpoint(x->f.domain, x->f.info, &c->ep, &c->tx);
	if (ret)
		goto fail;
	call = "fi_ep_bind";
	ret = fi_ep_bind(c->ep, &x->f.eq->fid, 0);
	if (!ret)
		ret = fi_ep_bind(c->ep, &x->cqs.cq[q]->fid, FI_TRANSMIT | FI_RECV);
	if (ret)
		goto fail;
	call = "fi_enable";
	ret = fi_enable(c->ep);
	if (ret)
		goto fail;
	call = "fi_mr_reg";
	ret = fab_mr(&x->f, c->buf, (size_t)(FAB_SLOTS + 1) * o->size, &c->mr, &c->desc);
	if (ret)
		goto fail;
	ph_step(&x->ph, i, PROTO_STEP_QP);
	call = "fi_recv";
	ret = fmc_post_rx(x, i, 0);
	if (ret)
		goto fail;
	call = "fi_connect";
	ret = fi_connect(c->ep, x->f.info->dest_addr, NULL, 0);
	if (ret)
		goto fail;
	return;
fail:
	fmc_fail(x, i, call, fab_errno(ret), fab_errno(ret));
}

static bool fmc_pending(void *arg, uint32_t i)
{
	struct fmc_ctx *x = arg;

	return x->c[i].state == FMC_CONNECTING;
}

static void fmc_expire(void *arg, uint32_t i)
{
	struct fmc_ctx *x = arg;

	ph_fail(&x->ph, i, "fi_connect", 0, "timeout", false, -1);
	fmc_close(x, i);
	x->c[i].state = FMC_FAILED;
}

static void fmc_send(struct fmc_ctx *x, uint32_t i)
{
	struct fmc_conn *c = &x->c[i];
	uint8_t *tx = fmc_slot(x, i, FAB_SLOTS);
	ssize_t ret;

	if (c->tx_busy) {
		c->tx_want = true;
		return;
	}
	load_tx_fill(&x->ph.load, i, 0, tx, x->o->size);
	ret = fi_send(c->ep, tx, x->o->size, c->desc, 0, &c->tx.ctx);
	if (ret == -FI_EAGAIN) {
		/*
		 * no send credit on the CQ (vrb_post_send): another endpoint's
		 * completion may free it, so the loop tries again after each read
		 */
		if (!c->tx_want)
			x->nwant++;
		c->tx_want = true;
		return;
	}
	if (c->tx_want)
		x->nwant--;
	c->tx_want = false;
	if (ret)
		fmc_broken(x, i, "fi_send", fab_errno(ret), fab_errno(ret));
	else
		c->tx_busy = true;
}

static void fmc_load_start(void *arg, uint32_t i)
{
	fmc_send(arg, i);
}

static const struct load_ops fmc_load_ops = { .start = fmc_load_start };

static void fmc_rx(struct fmc_ctx *x, uint32_t i, unsigned k, size_t len)
{
	ssize_t ret;

	if (x->ph.phase != PH_RUN || load_finished(&x->ph.load) || !load_want(&x->ph.load, i)) {
		/* nothing asked: stray bytes end the connection, as tcp's */
		load_fail(&x->ph.load, i, "fi_recv", EPROTO, NULL);
		fmc_close(x, i);
		return;
	}
	/* the next receive before this one is read: the echo may start the next trip */
	ret = fmc_post_rx(x, i, (k + 1) % FAB_SLOTS);
	if (ret) {
		fmc_broken(x, i, "fi_recv", fab_errno(ret), fab_errno(ret));
		return;
	}
	if (load_rx(&x->ph.load, i, fmc_slot(x, i, k), len) < 0)
		fmc_close(x, i);
}

static void fmc_cq(void *arg, struct fab_op *op, const struct fi_cq_tagged_entry *e,
		   const struct fi_cq_err_entry *err)
{
	struct fmc_ctx *x = arg;
	uint32_t i = op->who;
	struct fmc_conn *c = &x->c[i];

	if (c->state != FMC_UP)
		return;	/* a flushed operation of a closed endpoint */
	if (err) {
		if (err->err != FI_ECANCELED)
			fmc_broken(x, i, op->kind == FMC_OP_TX ? "fi_send" : "fi_recv",
				   err->err, err->prov_errno);
		return;
	}
	if (op->kind == FMC_OP_TX) {
		c->tx_busy = false;
		if (c->tx_want) {
			c->tx_want = false;
			x->nwant--;
			fmc_send(x, i);
		}
		return;
	}
	fmc_rx(x, i, op->slot, e->len);
}

static void fmc_eq_event(struct fmc_ctx *x, uint32_t ev, struct fi_eq_cm_entry *e)
{
	struct fab_op *op = e->fid ? e->fid->context : NULL;
	uint32_t i;

	if (!op || op->who >= x->n)
		return;
	i = op->who;
	if (ev == FI_CONNECTED && x->c[i].state == FMC_CONNECTING) {
		ph_step(&x->ph, i, PROTO_STEP_CONN);
		x->c[i].state = FMC_UP;
		ph_up(&x->ph, i);
	} else if (ev == FI_SHUTDOWN && x->c[i].state == FMC_UP) {
		/* before the result a loss is news; after it, the end */
		if (x->ph.phase <= PH_RUN && !load_finished(&x->ph.load))
			load_fail(&x->ph.load, i, "fi_eq_read", ECONNRESET, "shutdown");
		fmc_close(x, i);
	}
}

static void fmc_eq_err(struct fmc_ctx *x)
{
	struct fi_eq_err_entry e = { 0 };
	struct fab_op *op;
	char call[sizeof(((struct fab_rej *)0)->call)];
	int err;
	ssize_t ret = fi_eq_readerr(x->f.eq, &e, 0);

	if (ret < 0)
		return;
	op = e.fid ? e.fid->context : NULL;
	if (!op || op->who >= x->n || x->c[op->who].state != FMC_CONNECTING)
		return;
	/* a server's reject that says what failed there, as rc's REJ does */
	if (e.err == FI_ECONNREFUSED &&
	    !fab_rej_parse(e.err_data, e.err_data_size, call, sizeof(call), &err)) {
		fab_warn("fi_connect", "endpoint (the server's own failure follows)", e.err,
			 e.prov_errno);
		fab_warn(call, "server endpoint", err, err);
		ph_fail(&x->ph, op->who, call, err, NULL, true, -1);
		fmc_close(x, op->who);
		x->c[op->who].state = FMC_FAILED;
		return;
	}
	/* a refused or failed connect, in the provider's words (ECONNREFUSED, ...) */
	fmc_fail(x, op->who, "fi_connect", e.err, e.prov_errno);
}

/* Reads the EQ until empty; 0, or -1 on a fatal error. */
static int fmc_eq(struct fmc_ctx *x)
{
	struct fi_eq_cm_entry e;
	uint32_t ev;
	ssize_t ret;

	for (int turn = 0; turn < 1024; turn++) {
		ret = fi_eq_read(x->f.eq, &ev, &e, sizeof(e), 0);
		if (ret == -FI_EAGAIN)
			return 0;
		if (ret == -FI_EAVAIL) {
			fmc_eq_err(x);
			continue;
		}
		if (ret < 0) {
			fab_fatal("fi_eq_read", "eq", fab_errno(ret), fab_errno(ret));
			return -1;
		}
		fmc_eq_event(x, ev, &e);
	}
	return 0;
}

static int fmc_event(void *arg, uint32_t t, uint32_t v, uint32_t events)
{
	struct fmc_ctx *x = arg;

	(void)events;
	if (t == FMC_T_EQ)
		x->eq_hot = true;
	else if (t == FMC_T_CQ)
		fab_cq_woken(&x->cqs, v);
	return 0;
}

/* every turn: the EQ and the CQs that woke, until fi_trywait lets the loop sleep */
static int fmc_spin(void *arg)
{
	struct fmc_ctx *x = arg;
	int busy = 0, ret;

	if (x->eq_hot) {
		if (fmc_eq(x) || fab_eq_rearm(&x->f, &x->eq_hot))
			return -1;
		busy = x->eq_hot;
	}
	ret = fab_cqs_poll(&x->cqs);
	if (ret < 0)
		return -1;
	/* the sends the provider pushed back: busy while any waits */
	for (uint32_t i = 0; x->nwant && i < x->n; i++)
		if (x->c[i].tx_want && !x->c[i].tx_busy) {
			x->c[i].tx_want = false;
			x->nwant--;
			fmc_send(x, i);
		}
	return busy || ret || x->nwant;
}

static const struct ph_ops fmc_ph_ops = {
	.batch = FMC_BATCH, .events = FMC_EVENTS, .start = fmc_start,
	.pending = fmc_pending, .expire = fmc_expire, .event = fmc_event, .spin = fmc_spin,
};

int fab_msg_client_run(const struct ag_opts *o)
{
	struct fmc_ctx x = { .o = o, .n = o->clients };
	int ret = 1;

	if (o->ncpus && ag_pin(o->cpus[0]))
		return 1;
	if (ph_init(&x.ph, o, &fmc_ph_ops, &fmc_load_ops, &x))
		goto out_ph;
	if (fab_open(&x.f, o, o->port, false, x.n + 64))
		goto out_fab;
	if (fab_cqs_init(&x.cqs, &x.f, fab_cq_count(o, x.n), fmc_cq, &x))
		goto out_cqs;
	x.c = calloc(x.n, sizeof(*x.c));
	if (!x.c) {
		ag_fatal("calloc", "client state", ENOMEM);
		goto out_cqs;
	}
	if (ph_watch(&x.ph, x.f.eq_fd, EPOLLIN, PH_TAG(FMC_T_EQ, 0), "eq"))
		goto out_conns;
	proto_hello_client(o->first_id, o->clients);
	ret = ph_loop(&x.ph) ? 1 : 0;
out_conns:
	for (uint32_t i = 0; i < x.n; i++)
		if (x.c[i].ep || x.c[i].buf)
			fmc_close(&x, i);
	free(x.c);
	if (!ret)
		proto_bye();
out_cqs:
	fab_cqs_fini(&x.cqs);
out_fab:
	fab_close(&x.f);
out_ph:
	ph_fini(&x.ph);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * Transport-neutral client traffic engine: scheduling, payloads, verification,
 * latency. See load.h for the model.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/load.h"
#include "common/deadline.h"
#include "common/proto.h"

#define LOAD_GOLDEN 0x9e3779b97f4a7c15ull

/* splitmix64's finalizer: a cheap, well-mixed counter-mode generator */
static inline uint64_t load_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t load_word(uint64_t key, uint64_t w)
{
	return load_mix(key + (w + 1) * LOAD_GOLDEN);
}

static inline uint64_t load_key(uint32_t id, uint32_t seq)
{
	return load_mix(((uint64_t)id << 32) | seq);
}

/* byte off of the pattern: byte off % 8 of word off / 8, little-endian */
static inline uint8_t load_byte(uint64_t key, size_t off)
{
	return (uint8_t)(load_word(key, off / 8) >> (8 * (off % 8)));
}

/*
 * Whole words where the offset is aligned: filled and checked a byte at a
 * time, a 4 KiB fi-msg round trip took a median 1.16x fi_pingpong's
 * (docs/results/bench-fi-busy), a word at a time 1.01x (bench-fi-words).
 */
void load_payload(uint32_t id, uint32_t seq, size_t off, uint8_t *buf, size_t len)
{
	uint64_t key = load_key(id, seq), w;
	size_t i = 0;

	for (; i < len && off % 8; i++, off++)
		buf[i] = load_byte(key, off);
	for (; len - i >= 8; i += 8, off += 8) {
		w = htole64(load_word(key, off / 8));
		memcpy(buf + i, &w, 8);
	}
	for (; i < len; i++, off++)
		buf[i] = load_byte(key, off);
}

size_t load_payload_check(uint32_t id, uint32_t seq, size_t off,
			  const uint8_t *buf, size_t len)
{
	uint64_t key = load_key(id, seq), w, got;
	size_t i = 0;

	for (; i < len && off % 8; i++, off++)
		if (buf[i] != load_byte(key, off))
			return i;
	for (; len - i >= 8; i += 8, off += 8) {
		w = htole64(load_word(key, off / 8));
		memcpy(&got, buf + i, 8);
		if (got != w)
			break;	/* the byte that differs is found below */
	}
	for (; i < len; i++, off++)
		if (buf[i] != load_byte(key, off))
			return i;
	return len;
}

static int load_fifo_init(struct fifo *f, uint32_t cap)
{
	f->v = calloc(cap ? cap : 1, sizeof(*f->v));
	f->cap = cap;
	f->head = f->len = 0;
	return f->v ? 0 : -1;
}

/* each connection sits in a fifo at most once, so cap = nconn never overflows */
static void load_fifo_push(struct fifo *f, uint32_t x)
{
	f->v[(f->head + f->len) % f->cap] = x;
	f->len++;
}

static uint32_t load_fifo_front(const struct fifo *f)
{
	return f->v[f->head];
}

static uint32_t load_fifo_pop(struct fifo *f)
{
	uint32_t x = f->v[f->head];

	f->head = (f->head + 1) % f->cap;
	f->len--;
	return x;
}

int load_init(struct load *l, const struct load_cfg *cfg,
	      const struct load_ops *ops, void *arg)
{
	memset(l, 0, sizeof(*l));
	l->cfg = *cfg;
	l->ops = ops;
	l->arg = arg;
	l->tfd = -1;
	l->c = calloc(cfg->nconn ? cfg->nconn : 1, sizeof(*l->c));
	if (!l->c || load_fifo_init(&l->ready, cfg->nconn) || load_fifo_init(&l->think, cfg->nconn)) {
		ag_warn("calloc load state for %u connections: %s", cfg->nconn,
			strerror(ENOMEM));
		goto err;
	}
	l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (l->tfd < 0) {
		ag_warn("timerfd_create think timer: %s", strerror(errno));
		goto err;
	}
	return 0;

err:
	/* l was zeroed: whatever was not allocated is NULL */
	free(l->think.v);
	free(l->ready.v);
	free(l->c);
	return -1;
}

void load_fini(struct load *l)
{
	if (l->tfd >= 0)
		close(l->tfd);
	free(l->think.v);
	free(l->ready.v);
	free(l->c);
	l->tfd = -1;
	l->c = NULL;
	l->think.v = l->ready.v = NULL;
}

void load_attach(struct load *l, uint32_t idx)
{
	if (l->c[idx].state != LS_OFF)
		return;
	l->c[idx].state = LS_IDLE;
	l->attached++;
}

static int load_arm(struct load *l)
{
	struct itimerspec its = { 0 };
	uint64_t at = l->deadline;

	if (l->think.len && l->c[load_fifo_front(&l->think)].t < at)
		at = l->c[load_fifo_front(&l->think)].t;
	if (l->finished)
		at = 0;
	if (at == l->armed)
		return 0;
	/* an absolute time of 0 would disarm: a due expiry must still fire */
	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	if (at && !its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	if (timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL)) {
		ag_warn("timerfd_settime think timer: %s", strerror(errno));
		return -1;
	}
	l->armed = at;
	return 0;
}

static void load_check_done(struct load *l)
{
	if (!l->running || l->finished || l->active)
		return;
	l->finished = true;
	l->t_end = clock_ns();
	load_arm(l);
}

static void load_pump(struct load *l)
{
	struct load_conn *c;
	uint32_t idx;

	if (l->pumping || !l->running || l->finished)
		return;
	l->pumping = true;
	while (l->ready.len && (!l->cfg.workers || l->inflight < l->cfg.workers)) {
		idx = load_fifo_pop(&l->ready);
		c = &l->c[idx];
		if (c->state != LS_READY)
			continue;
		c->state = LS_BUSY;
		c->rx = 0;
		c->bad = 0;
		l->inflight++;
		c->t = clock_ns();
		l->ops->start(l->arg, idx);
	}
	l->pumping = false;
	load_check_done(l);
}

int load_run(struct load *l)
{
	uint32_t i;

	if (l->running)
		return 0;
	l->running = true;
	l->t_run = clock_ns();
	l->deadline = l->t_run + dl_traffic_ns(l->cfg.timeout_s, l->cfg.think_ms, l->cfg.msgs);
	for (i = 0; i < l->cfg.nconn; i++) {
		if (l->c[i].state != LS_IDLE)
			continue;
		l->active++;
		if (!l->cfg.msgs) {
			l->c[i].state = LS_DONE;
			l->active--;
			continue;
		}
		l->c[i].state = LS_READY;
		load_fifo_push(&l->ready, i);
	}
	if (load_arm(l))
		return -1;
	load_pump(l);
	return 0;
}

void load_fail(struct load *l, uint32_t idx, const char *call, int err,
	       const char *errname)
{
	struct load_conn *c = &l->c[idx];

	if (c->state == LS_OFF || c->state == LS_DONE || c->state == LS_FAIL)
		return;
	proto_msg_fail(l->cfg.first_id + idx, call, err, errname);
	if (c->state == LS_BUSY)
		l->inflight--;
	/* IDLE is before "run"; READY/THINK entries are skipped when they leave their fifo */
	if (c->state != LS_IDLE)
		l->active--;
	c->state = LS_FAIL;
	l->errors++;
	load_pump(l);
}

uint32_t load_want(const struct load *l, uint32_t idx)
{
	const struct load_conn *c = &l->c[idx];

	return c->state == LS_BUSY ? l->cfg.size - c->rx : 0;
}

void load_tx_fill(const struct load *l, uint32_t idx, size_t off, uint8_t *buf,
		  size_t len)
{
	load_payload(l->cfg.first_id + idx, l->c[idx].seq, off, buf, len);
}

static void load_complete(struct load *l, uint32_t idx)
{
	struct load_conn *c = &l->c[idx];
	uint64_t now = clock_ns();

	proto_hist_add(&l->hist, now - c->t);
	l->inflight--;
	l->msgs++;
	if (c->bad)
		l->bad++;
	else
		l->verified++;
	c->seq++;
	if (c->seq == l->cfg.msgs) {
		c->state = LS_DONE;
		l->active--;
	} else if (l->cfg.think_ms) {
		c->state = LS_THINK;
		c->t = now + (uint64_t)l->cfg.think_ms * 1000000ull;
		load_fifo_push(&l->think, idx);
		load_arm(l);
	} else {
		c->state = LS_READY;
		load_fifo_push(&l->ready, idx);
	}
	load_pump(l);
}

int load_rx(struct load *l, uint32_t idx, const uint8_t *buf, size_t len)
{
	struct load_conn *c = &l->c[idx];
	size_t at;

	if (c->state != LS_BUSY || len > l->cfg.size - c->rx) {
		/* bytes nobody asked for: the peer is not an echo of this stream */
		load_fail(l, idx, "recv", EPROTO, NULL);
		return -1;
	}
	if (!c->bad) {
		at = load_payload_check(l->cfg.first_id + idx, c->seq, c->rx, buf, len);
		if (at < len) {
			c->bad = 1;
			proto_verify_fail(l->cfg.first_id + idx, c->seq);
		}
	}
	c->rx += (uint32_t)len;
	if (c->rx < l->cfg.size)
		return 0;
	load_complete(l, idx);
	return 1;
}

int load_checked(struct load *l, uint32_t idx, bool ok)
{
	struct load_conn *c = &l->c[idx];

	if (c->state != LS_BUSY) {
		load_fail(l, idx, "ibv_poll_cq", EPROTO, NULL);
		return -1;
	}
	if (!ok && !c->bad) {
		c->bad = 1;
		proto_verify_fail(l->cfg.first_id + idx, c->seq);
	}
	load_complete(l, idx);
	return 1;
}

static bool load_unfinished(const struct load_conn *c)
{
	return c->state == LS_BUSY || c->state == LS_READY || c->state == LS_THINK;
}

void load_cut(struct load *l, bool named)
{
	uint32_t idx;

	if (!l->running || l->finished)
		return;
	/* finished first, so the failures below start no new round trips */
	l->finished = true;
	l->t_end = clock_ns();
	for (idx = 0; idx < l->cfg.nconn; idx++) {
		if (!load_unfinished(&l->c[idx]))
			continue;
		if (named) {
			/* a round trip in flight waited for its echo; the others for a turn */
			load_fail(l, idx, l->c[idx].state == LS_BUSY ? "recv" : "deadline", 0,
				  "timeout");
			continue;
		}
		if (l->c[idx].state == LS_BUSY)
			l->inflight--;
		l->active--;
		l->c[idx].state = LS_FAIL;
		l->errors++;
	}
	load_arm(l);
}

int load_on_timer(struct load *l)
{
	uint64_t now = clock_ns(), exp;
	uint32_t idx;
	ssize_t r;

	r = read(l->tfd, &exp, sizeof(exp));
	if (r < 0 && errno != EAGAIN && errno != EINTR) {
		ag_warn("read think timer: %s", strerror(errno));
		return -1;
	}
	l->armed = 0;
	if (!l->running || l->finished)
		return 0;
	if (now >= l->deadline) {
		load_cut(l, true);
		return 0;
	}
	while (l->think.len && l->c[load_fifo_front(&l->think)].t <= now) {
		idx = load_fifo_pop(&l->think);
		if (l->c[idx].state != LS_THINK)
			continue;
		l->c[idx].state = LS_READY;
		load_fifo_push(&l->ready, idx);
	}
	if (load_arm(l))
		return -1;
	load_pump(l);
	return 0;
}

int load_report(const struct load *l, const struct proto_hist *steps)
{
	struct proto_result_client c = {
		.ok = l->attached, .msgs = l->msgs, .verified = l->verified, .bad = l->bad,
		.errors = l->errors, .us = (l->t_end - l->t_run) / 1000,
		.retried = l->resends ? l->retried : PROTO_NONE,
		.late = l->resends ? l->late : PROTO_NONE,
		.qps = l->qps ? l->qps : PROTO_NONE,
		.cq = l->cq ? *l->cq : (struct proto_cq){ PROTO_NONE, PROTO_NONE, PROTO_NONE },
	};

	return proto_result_client(&c, &l->hist, steps);
}

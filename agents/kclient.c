// SPDX-License-Identifier: MIT
/*
 * The client agent of a kernel service (kclient.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/kclient.h"
#include "agents/load.h"
#include "agents/nullb.h"
#include "agents/phase.h"
#include "common/clock.h"
#include "common/proto.h"

/* one device per loop turn: each make blocks the loop while it runs */
#define KC_BATCH 1
#define KC_EVENTS 64
/* a new device shows in sysfs once the kernel scanned it */
#define KC_SCAN_POLL_MS 10

struct kc_ctx {
	const struct ag_opts *o;
	const struct kc_ops *ops;
	void *arg;
	struct ph ph;
	int *fd;
	uint32_t n;
	uint64_t slot;
	uint8_t *txb, *rxb;
};

static void kc_close(struct kc_ctx *x, uint32_t i)
{
	if (x->fd[i] >= 0 && close(x->fd[i]))
		ag_warn("close the device of client %u: %s", x->o->first_id + i, strerror(errno));
	x->fd[i] = -1;
	x->ops->remove(x->arg, i);
}

/*
 * Client i's block device, opened, waited for up to --timeout: it shows in
 * sysfs once the kernel scanned it, its node once udev or devtmpfs made it,
 * and it opens once the disk is added (ENXIO until then: sd probes a SCSI
 * disk asynchronously). The fd, or -1 with errno and *call the step.
 */
static int kc_open(struct kc_ctx *x, uint32_t i, const char **call)
{
	uint64_t end = clock_ns() + (uint64_t)x->o->timeout_s * 1000000000ull;
	struct timespec ts = { 0, KC_SCAN_POLL_MS * 1000000L };
	char dev[80];
	int r, fd;

	for (;;) {
		*call = x->ops->find_call;
		r = x->ops->find(x->arg, i, dev, sizeof(dev));
		if (r < 0)
			return -1;
		if (!r) {
			*call = "open";
			fd = open(dev, O_RDWR | O_DIRECT | O_CLOEXEC);
			if (fd >= 0 || (errno != ENOENT && errno != ENXIO))
				return fd;
		}
		if (clock_ns() > end) {
			errno = ETIMEDOUT;
			return -1;
		}
		nanosleep(&ts, NULL);
	}
}

static void kc_start(void *arg, uint32_t i)
{
	struct kc_ctx *x = arg;
	const char *call;

	if (x->ops->make(x->arg, i, &call))
		goto fail;
	x->fd[i] = kc_open(x, i, &call);
	if (x->fd[i] < 0)
		goto fail;
	ph_up(&x->ph, i);
	return;
fail:
	ph_fail(&x->ph, i, call, errno, errno == ETIMEDOUT ? "timeout" : NULL, false, -1);
	kc_close(x, i);
}

static bool kc_pending(void *arg, uint32_t i)
{
	(void)arg;
	(void)i;
	return false;	/* every setup settles within kc_start */
}

static void kc_expire(void *arg, uint32_t i)
{
	struct kc_ctx *x = arg;

	ph_fail(&x->ph, i, x->ops->make_call, 0, "timeout", false, -1);
}

/* One round trip: the payload written to i's range, read back, checked by load.h. */
static void kc_load_start(void *arg, uint32_t i)
{
	struct kc_ctx *x = arg;
	off_t off = (off_t)((x->o->first_id + i) * x->slot);
	ssize_t r;

	load_tx_fill(&x->ph.load, i, 0, x->txb, x->o->size);
	r = pwrite(x->fd[i], x->txb, x->slot, off);
	if (r != (ssize_t)x->slot) {
		load_fail(&x->ph.load, i, x->ops->write_call, r < 0 ? errno : EIO, NULL);
		return;
	}
	memset(x->rxb, 0, x->o->size);
	r = pread(x->fd[i], x->rxb, x->slot, off);
	if (r != (ssize_t)x->slot) {
		load_fail(&x->ph.load, i, x->ops->read_call, r < 0 ? errno : EIO, NULL);
		return;
	}
	load_rx(&x->ph.load, i, x->rxb, x->o->size);
}

static const struct load_ops kc_load_ops = { .start = kc_load_start };

static int kc_event(void *arg, uint32_t t, uint32_t v, uint32_t events)
{
	(void)arg;
	(void)t;
	(void)v;
	(void)events;
	return 0;	/* no fds of its own: the I/O is synchronous */
}

static const struct ph_ops kc_ph_ops = {
	.batch = KC_BATCH, .events = KC_EVENTS, .start = kc_start,
	.pending = kc_pending, .expire = kc_expire, .event = kc_event,
};

static int kc_init(struct kc_ctx *x)
{
	if (ph_init(&x->ph, x->o, &kc_ph_ops, &kc_load_ops, x))
		return -1;
	x->n = x->o->clients;
	x->slot = nullb_slot_bytes(x->o->size);
	x->fd = calloc(x->n, sizeof(*x->fd));
	if (!x->fd || posix_memalign((void **)&x->txb, NULLB_BLOCK, x->slot) ||
	    posix_memalign((void **)&x->rxb, NULLB_BLOCK, x->slot)) {
		ag_fatal("calloc", "client state", ENOMEM);
		return -1;
	}
	/* the range's tail past --size is written as zeros */
	memset(x->txb, 0, x->slot);
	for (uint32_t i = 0; i < x->n; i++)
		x->fd[i] = -1;
	return 0;
}

int kc_run(const struct ag_opts *o, const struct kc_ops *ops, void *arg)
{
	struct kc_ctx x = { .o = o, .ops = ops, .arg = arg };
	int ret = 1;

	if (kc_init(&x))
		goto out;
	proto_hello_client(o->first_id, o->clients);
	ret = ph_loop(&x.ph) ? 1 : 0;
	for (uint32_t i = 0; i < x.n; i++)
		kc_close(&x, i);
	if (!ret)
		proto_bye();
out:
	ph_fini(&x.ph);
	free(x.rxb);
	free(x.txb);
	free(x.fd);
	return ret;
}

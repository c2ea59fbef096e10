// SPDX-License-Identifier: MIT
/*
 * The nvmf client agent: one controller per client, set up in phase.h's loop
 * one at a time (the kernel's connect is one blocking write), its round
 * trips an O_DIRECT write of the client's LBA range and a read of it, fed
 * to load.h, which checks every byte. Controllers are deleted when the loop
 * ends. See nvmf.h and nvmf_host.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/load.h"
#include "agents/nvmf/nvmf.h"
#include "agents/nvmf/nvmf_host.h"
#include "agents/phase.h"
#include "common/nvmfname.h"
#include "common/proto.h"

/* one controller per loop turn: each connect blocks the loop while it runs */
#define NVC_BATCH 1
#define NVC_EVENTS 64
/* the namespace of a new controller shows in sysfs once the kernel scanned it */
#define NVC_SCAN_POLL_MS 10

struct nvc_conn {
	int instance;		/* -1: no controller */
	int fd;
	char hostnqn[NVMFN_NQN_MAX + 1];
};

struct nvc_ctx {
	const struct ag_opts *o;
	struct ph ph;
	struct nvc_conn *c;
	uint32_t n, run;
	uint64_t slot;
	uint8_t *txb, *rxb;
};

static void nvc_close(struct nvc_ctx *x, uint32_t i)
{
	struct nvc_conn *c = &x->c[i];

	if (c->fd >= 0 && close(c->fd))
		ag_warn("close controller nvme%d: %s", c->instance, strerror(errno));
	c->fd = -1;
	if (c->instance >= 0 && nvh_delete(c->instance, c->hostnqn))
		ag_warn("delete controller nvme%d (%s): %s", c->instance, c->hostnqn,
			strerror(errno));
	c->instance = -1;
}

/*
 * The block device of i's controller, opened, waited for up to --timeout: its
 * namespace shows in sysfs once the kernel scanned it, and the device node
 * once udev or devtmpfs made it. The fd, or -1 with errno and *call the step.
 */
static int nvc_open_ns(struct nvc_ctx *x, uint32_t i, const char **call)
{
	uint64_t end = clock_ns() + (uint64_t)x->o->timeout_s * 1000000000ull;
	struct timespec ts = { 0, NVC_SCAN_POLL_MS * 1000000L };
	char dev[80];
	int r, fd;

	for (;;) {
		*call = "nvme_find";
		r = nvh_find(x->c[i].instance, dev, sizeof(dev));
		if (r < 0)
			return -1;
		if (!r) {
			*call = "open";
			fd = open(dev, O_RDWR | O_DIRECT | O_CLOEXEC);
			if (fd >= 0 || errno != ENOENT)
				return fd;
		}
		if (clock_ns() > end) {
			errno = ETIMEDOUT;
			return -1;
		}
		nanosleep(&ts, NULL);
	}
}

static void nvc_start(void *arg, uint32_t i)
{
	struct nvc_ctx *x = arg;
	const struct ag_opts *o = x->o;
	struct nvc_conn *c = &x->c[i];
	char hostid[40];
	struct nvh_conn nc = { .traddr = o->addr_str, .nqn = o->nqn, .hostnqn = c->hostnqn,
			       .hostid = hostid, .io_queues = o->nvme_io_queues,
			       .queue_size = o->nvme_queue_size };
	const char *call;
	int cntlid;

	call = "nvh_host";
	if (nvh_host(o->nqn, x->run, o->first_id + i, c->hostnqn, sizeof(c->hostnqn), hostid,
		     sizeof(hostid))) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	call = "nvmf_connect";
	if (nvh_connect(&nc, &c->instance, &cntlid)) {
		c->instance = -1;
		goto fail;
	}
	c->fd = nvc_open_ns(x, i, &call);
	if (c->fd < 0)
		goto fail;
	ph_up(&x->ph, i);
	return;
fail:
	ph_fail(&x->ph, i, call, errno, errno == ETIMEDOUT ? "timeout" : NULL, false, -1);
	nvc_close(x, i);
}

static bool nvc_pending(void *arg, uint32_t i)
{
	(void)arg;
	(void)i;
	return false;	/* every setup settles within nvc_start */
}

static void nvc_expire(void *arg, uint32_t i)
{
	struct nvc_ctx *x = arg;

	ph_fail(&x->ph, i, "nvmf_connect", 0, "timeout", false, -1);
}

/* One round trip: the payload written to i's slot, read back, checked by load.h. */
static void nvc_load_start(void *arg, uint32_t i)
{
	struct nvc_ctx *x = arg;
	struct nvc_conn *c = &x->c[i];
	off_t off = (off_t)((x->o->first_id + i) * x->slot);
	ssize_t r;

	load_tx_fill(&x->ph.load, i, 0, x->txb, x->o->size);
	r = pwrite(c->fd, x->txb, x->slot, off);
	if (r != (ssize_t)x->slot) {
		load_fail(&x->ph.load, i, "nvme_write", r < 0 ? errno : EIO, NULL);
		return;
	}
	memset(x->rxb, 0, x->o->size);
	r = pread(c->fd, x->rxb, x->slot, off);
	if (r != (ssize_t)x->slot) {
		load_fail(&x->ph.load, i, "nvme_read", r < 0 ? errno : EIO, NULL);
		return;
	}
	load_rx(&x->ph.load, i, x->rxb, x->o->size);
}

static const struct load_ops nvc_load_ops = { .start = nvc_load_start };

static int nvc_event(void *arg, uint32_t t, uint32_t v, uint32_t events)
{
	(void)arg;
	(void)t;
	(void)v;
	(void)events;
	return 0;	/* no fds of its own: the I/O is synchronous */
}

static const struct ph_ops nvc_ph_ops = {
	.batch = NVC_BATCH, .events = NVC_EVENTS, .start = nvc_start,
	.pending = nvc_pending, .expire = nvc_expire, .event = nvc_event,
};

static int nvc_init(struct nvc_ctx *x)
{
	if (ph_init(&x->ph, x->o, &nvc_ph_ops, &nvc_load_ops, x))
		return -1;
	x->n = x->o->clients;
	x->slot = nvmf_slot_bytes(x->o->size);
	x->run = (uint32_t)strtoul(nvmfn_nqn_run(x->o->nqn), NULL, 16);
	x->c = calloc(x->n, sizeof(*x->c));
	if (!x->c || posix_memalign((void **)&x->txb, NVMF_BLOCK, x->slot) ||
	    posix_memalign((void **)&x->rxb, NVMF_BLOCK, x->slot)) {
		ag_fatal("calloc", "client state", ENOMEM);
		return -1;
	}
	/* the slot's tail past --size is written as zeros */
	memset(x->txb, 0, x->slot);
	for (uint32_t i = 0; i < x->n; i++) {
		x->c[i].instance = -1;
		x->c[i].fd = -1;
	}
	return 0;
}

int nvmf_client_run(const struct ag_opts *o)
{
	struct nvc_ctx x = { .o = o };
	int ret = 1;

	if (nvc_init(&x))
		goto out;
	proto_hello_client(o->first_id, o->clients);
	ret = ph_loop(&x.ph) ? 1 : 0;
	for (uint32_t i = 0; i < x.n; i++)
		nvc_close(&x, i);
	if (!ret)
		proto_bye();
out:
	ph_fini(&x.ph);
	free(x.rxb);
	free(x.txb);
	free(x.c);
	return ret;
}

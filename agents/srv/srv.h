/* SPDX-License-Identifier: MIT */
/*
 * srv: the server base every server model shares (tcp event and thread, rc
 * oob-tls event and thread): the --ports listeners of one loop, watched with
 * one tag type (tag.h), paused and resumed as a set, and accept() with its
 * error handling, including shedding on EMFILE/ENFILE: a spare fd (an open
 * /dev/null) is spent to take one peer off the full queue and close it, so it
 * learns now instead of at its timeout. And the size of the tables indexed
 * by fd (the RLIMIT_NOFILE soft limit).
 *
 * May use: the engine (ag, opts, tag), srv/sock.h, libc.
 */
#ifndef RDC_AGENTS_SRV_SRV_H
#define RDC_AGENTS_SRV_SRV_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "agents/opts.h"
#include "agents/srv/sock.h"

struct srv_lis {
	const struct ag_opts *o;
	int *fd;	/* listener i is on port o->port + i */
	uint32_t n;
	int ep;
	uint8_t type;	/* listener i's tag: TAG(type, 0, i) */
	int reserve;	/* the spare fd for shedding; -1 when not shedding */
	bool paused;
};

/*
 * Opens o->ports nonblocking listeners on ep with tag type; reuseport lets
 * several loops listen on the same ports; shed keeps a spare fd. A fatal
 * "error" record on failure; srv_lis_close() is safe after any outcome.
 */
int srv_lis_open(struct srv_lis *l, const struct ag_opts *o, int ep, uint8_t type,
		 bool reuseport, bool shed);
void srv_lis_close(struct srv_lis *l);
/* Stop (or resume) polling the listeners: a full queue stays readable. */
void srv_lis_pause(struct srv_lis *l, bool pause);
/*
 * accept4() on listener i, past EINTR and ECONNABORTED. On -1, errno EAGAIN
 * means the queue is empty; anything else is the caller's to handle (shed).
 */
int srv_accept(struct srv_lis *l, uint32_t i, int flags, struct sockaddr_storage *sa);
/*
 * After accept failed with err: for EMFILE/ENFILE with a spare fd, shed one
 * peer and name it in peer (SK_PEER_MAX). 1 when a peer was shed, 0 when the
 * queue was empty, -1 when the caller must back off (no spare, other errors).
 */
int srv_shed(struct srv_lis *l, uint32_t i, int err, char *peer);
/* The RLIMIT_NOFILE soft limit, at most 2^24: the size of fd-indexed tables. */
uint32_t srv_fd_limit(void);

#endif

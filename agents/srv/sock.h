/* SPDX-License-Identifier: MIT */
/*
 * sock: the IPv4 and IPv6 listeners and peer names every server model shares (tcp's
 * echo servers and rc's TLS side channel), and the dead-peer socket options
 * of every TCP socket the agents open. May use: ag.h, opts.h, libc.
 */
#ifndef RDC_AGENTS_SOCK_H
#define RDC_AGENTS_SOCK_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "agents/opts.h"
#include "common/ipaddr.h"

#define SK_PEER_MAX IPA_PORT_STRLEN

/* "A.B.C.D:PORT" or "[IPv6]:PORT" of sa (AF_INET or AF_INET6) into buf (SK_PEER_MAX bytes) */
void sk_peer(char *buf, const struct sockaddr *sa);
/*
 * The dead-peer deadlines of common/deadline.h on a TCP socket: keepalive
 * (first probe after keepidle_s) and TCP_USER_TIMEOUT. On a listener, accepted
 * sockets inherit them. 0, or -1 with errno.
 */
int sk_detect(int fd, uint32_t keepidle_s);
/* A listening socket on o->addr:port (with sk_detect), or -1 after a fatal "error" record. */
int sk_listen(const struct ag_opts *o, uint32_t port, int nonblock, int reuseport);

#endif

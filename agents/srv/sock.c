// SPDX-License-Identifier: MIT
/*
 * IPv4 and IPv6 listeners and peer names for the server models. See sock.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents/ag.h"
#include "common/deadline.h"
#include "agents/srv/sock.h"
#include "common/proto.h"

void sk_peer(char *buf, const struct sockaddr *sa)
{
	uint16_t port = 0;
	struct ipa a;

	if (ipa_from_sa(&a, sa, &port))
		memset(&a, 0, sizeof(a));
	ipa_str_port(&a, port, buf, SK_PEER_MAX);
}

int sk_detect(int fd, uint32_t keepidle_s)
{
	int one = 1, idle = (int)keepidle_s, intvl = DL_TCP_KEEPINTVL_S, cnt = DL_TCP_KEEPCNT;
	unsigned int uto = DL_TCP_USER_TIMEOUT_MS;

	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &uto, sizeof(uto)))
		return -1;
	return 0;
}

int sk_listen(const struct ag_opts *o, uint32_t port, int nonblock, int reuseport)
{
	struct sockaddr_storage sa;
	socklen_t sl = ipa_to_sa(&o->addr, (uint16_t)port, &sa);
	char obj[SK_PEER_MAX];
	const char *call;
	int fd, one = 1;

	sk_peer(obj, (struct sockaddr *)&sa);
	fd = socket(o->addr.family, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0) {
		ag_fatal("socket", obj, errno);
		return -1;
	}
	/* TIME_WAIT from the previous run must not block the next one */
	call = "setsockopt";
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		goto err;
	if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)))
		goto err;
	if (sk_detect(fd, o->keepidle_s))
		goto err;
	/* the run's family only: an IPv6 listener must not take IPv4 peers too */
	if (o->addr.family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))
		goto err;
	call = "bind";
	if (bind(fd, (struct sockaddr *)&sa, sl))
		goto err;
	call = "listen";
	if (listen(fd, (int)o->backlog))
		goto err;
	return fd;
err:
	ag_fatal(call, obj, errno);
	close(fd);
	return -1;
}

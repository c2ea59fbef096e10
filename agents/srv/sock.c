// SPDX-License-Identifier: MIT
/*
 * IPv4 listeners and peer names for the server models. See sock.h.
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

void sk_peer(char *buf, const struct sockaddr_in *sa)
{
	char ip[INET_ADDRSTRLEN];

	if (!inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof(ip)))
		strcpy(ip, "0.0.0.0");
	snprintf(buf, SK_PEER_MAX, "%s:%u", ip, ntohs(sa->sin_port));
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
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr = o->addr,
	};
	char obj[SK_PEER_MAX];
	const char *call;
	int fd, one = 1;

	sk_peer(obj, &sa);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
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
	call = "bind";
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
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

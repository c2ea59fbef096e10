// SPDX-License-Identifier: MIT
/* ipaddr: an IP address of either family (ipaddr.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/ipaddr.h"

static void ipa_set4(struct ipa *ip, const struct in_addr *a4)
{
	memset(ip, 0, sizeof(*ip));
	ip->family = AF_INET;
	ip->a.s6_addr[10] = 0xff;
	ip->a.s6_addr[11] = 0xff;
	memcpy(&ip->a.s6_addr[12], a4, 4);
}

int ipa_parse(struct ipa *ip, const char *s)
{
	struct in_addr a4;

	memset(ip, 0, sizeof(*ip));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		ipa_set4(ip, &a4);
		return 0;
	}
	/* an IPv4-mapped IPv6 text would pass for IPv6: refuse it, say a.b.c.d */
	if (inet_pton(AF_INET6, s, &ip->a) == 1 && !IN6_IS_ADDR_V4MAPPED(&ip->a)) {
		ip->family = AF_INET6;
		return 0;
	}
	memset(ip, 0, sizeof(*ip));
	errno = EINVAL;
	return -1;
}

void ipa_str(const struct ipa *ip, char *buf, size_t len)
{
	const void *src = ip->family == AF_INET ? (const void *)&ip->a.s6_addr[12] : &ip->a;

	if (!len)
		return;
	buf[0] = '\0';
	if ((ip->family != AF_INET && ip->family != AF_INET6) ||
	    !inet_ntop(ip->family, src, buf, (socklen_t)len))
		buf[0] = '\0';
}

void ipa_str_port(const struct ipa *ip, uint16_t port, char *buf, size_t len)
{
	char s[IPA_STRLEN];

	ipa_str(ip, s, sizeof(s));
	snprintf(buf, len, ip->family == AF_INET6 ? "[%s]:%u" : "%s:%u", s, port);
}

socklen_t ipa_to_sa(const struct ipa *ip, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ip->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, &ip->a.s6_addr[12], 4);
		return sizeof(*s4);
	}
	if (ip->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_addr = ip->a;
		return sizeof(*s6);
	}
	return 0;
}

int ipa_from_sa(struct ipa *ip, const struct sockaddr *sa, uint16_t *port)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		ipa_set4(ip, &s4->sin_addr);
		if (port)
			*port = ntohs(s4->sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		ipa_from_gid(ip, s6->sin6_addr.s6_addr);
		if (port)
			*port = ntohs(s6->sin6_port);
		return 0;
	}
	errno = EAFNOSUPPORT;
	return -1;
}

/* family's address: in6 for AF_INET6, else the IPv4 one (host order) */
static void ipa_set(struct ipa *ip, int family, const struct in6_addr *in6, uint32_t v4)
{
	struct in_addr a4 = { .s_addr = htonl(v4) };

	if (family == AF_INET6) {
		memset(ip, 0, sizeof(*ip));
		ip->family = AF_INET6;
		ip->a = *in6;
	} else {
		ipa_set4(ip, &a4);
	}
}

void ipa_any(struct ipa *ip, int family)
{
	ipa_set(ip, family, &in6addr_any, INADDR_ANY);
}

void ipa_loopback(struct ipa *ip, int family)
{
	ipa_set(ip, family, &in6addr_loopback, INADDR_LOOPBACK);
}

bool ipa_eq(const struct ipa *x, const struct ipa *y)
{
	return x->family == y->family && !memcmp(&x->a, &y->a, sizeof(x->a));
}

void ipa_gid(const struct ipa *ip, uint8_t gid[16])
{
	memcpy(gid, &ip->a, 16);
}

void ipa_from_gid(struct ipa *ip, const uint8_t gid[16])
{
	memset(ip, 0, sizeof(*ip));
	memcpy(&ip->a, gid, 16);
	ip->family = IN6_IS_ADDR_V4MAPPED(&ip->a) ? AF_INET : AF_INET6;
}

// SPDX-License-Identifier: MIT
/*
 * common/ipaddr: both families parsed, printed canonically, carried through a
 * sockaddr and a RoCE v2 GID and back; garbage and an IPv4-mapped IPv6 text
 * refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "common/ipaddr.h"
#include "tap/tap.h"

static struct tap T;

static void t_text(void)
{
	char buf[IPA_PORT_STRLEN];
	struct ipa a;

	tap_ok(&T, ipa_parse(&a, "10.222.0.1") == 0 && a.family == AF_INET, "a.b.c.d is IPv4");
	ipa_str(&a, buf, sizeof(buf));
	tap_ok(&T, !strcmp(buf, "10.222.0.1"), "IPv4 prints as a.b.c.d (%s)", buf);
	tap_ok(&T, ipa_parse(&a, "fd7a:0:0::1") == 0 && a.family == AF_INET6, "fd7a:0:0::1 is IPv6");
	ipa_str(&a, buf, sizeof(buf));
	tap_ok(&T, !strcmp(buf, "fd7a::1"), "IPv6 prints canonically (%s)", buf);
	ipa_str_port(&a, 9000, buf, sizeof(buf));
	tap_ok(&T, !strcmp(buf, "[fd7a::1]:9000"), "IPv6 with a port is bracketed (%s)", buf);
	ipa_parse(&a, "10.0.0.1");
	ipa_str_port(&a, 9000, buf, sizeof(buf));
	tap_ok(&T, !strcmp(buf, "10.0.0.1:9000"), "IPv4 with a port is not (%s)", buf);
	errno = 0;
	tap_ok(&T, ipa_parse(&a, "::ffff:10.0.0.1") == -1 && errno == EINVAL && !a.family,
	       "an IPv4-mapped IPv6 text is refused (say a.b.c.d)");
	tap_ok(&T, ipa_parse(&a, "10.0.0.256") == -1 && ipa_parse(&a, "[fd7a::1]") == -1 &&
			   ipa_parse(&a, "fd7a::1%eth0") == -1 && ipa_parse(&a, "") == -1,
	       "garbage, brackets and scopes are refused");
	memset(&a, 0, sizeof(a));
	ipa_str(&a, buf, sizeof(buf));
	tap_ok(&T, !buf[0], "an unset address prints empty");
}

static void t_sa(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 m = { .sin6_family = AF_INET6, .sin6_port = htons(7) };
	struct ipa a, b;
	uint16_t port = 0;
	socklen_t n;

	ipa_parse(&a, "10.222.0.2");
	n = ipa_to_sa(&a, 9000, &ss);
	tap_ok(&T, n == sizeof(struct sockaddr_in) && ss.ss_family == AF_INET &&
			   ((struct sockaddr_in *)&ss)->sin_port == htons(9000),
	       "IPv4 to sockaddr_in with the port");
	tap_ok(&T, ipa_from_sa(&b, (struct sockaddr *)&ss, &port) == 0 && ipa_eq(&a, &b) && port == 9000,
	       "and back");
	ipa_parse(&a, "fd7a::2");
	n = ipa_to_sa(&a, 9001, &ss);
	tap_ok(&T, n == sizeof(struct sockaddr_in6) && ss.ss_family == AF_INET6,
	       "IPv6 to sockaddr_in6");
	tap_ok(&T, ipa_from_sa(&b, (struct sockaddr *)&ss, &port) == 0 && ipa_eq(&a, &b) && port == 9001,
	       "and back");
	inet_pton(AF_INET6, "::ffff:10.222.0.3", &m.sin6_addr);
	ipa_parse(&a, "10.222.0.3");
	tap_ok(&T, ipa_from_sa(&b, (struct sockaddr *)&m, NULL) == 0 && ipa_eq(&a, &b),
	       "an IPv4-mapped sockaddr_in6 reads as IPv4");
	ss.ss_family = AF_UNIX;
	tap_ok(&T, ipa_from_sa(&b, (struct sockaddr *)&ss, NULL) == -1 && errno == EAFNOSUPPORT,
	       "another family is EAFNOSUPPORT");
	memset(&a, 0, sizeof(a));
	tap_ok(&T, ipa_to_sa(&a, 1, &ss) == 0, "an unset address has no sockaddr");
}

static void t_gid(void)
{
	uint8_t gid[16], want4[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 222, [15] = 1 };
	struct ipa a, b, c;

	ipa_parse(&a, "10.222.0.1");
	ipa_gid(&a, gid);
	tap_ok(&T, !memcmp(gid, want4, 16), "IPv4's GID is ::ffff:a.b.c.d");
	ipa_from_gid(&b, gid);
	tap_ok(&T, ipa_eq(&a, &b), "and reads back as IPv4");
	ipa_parse(&a, "fd7a::1");
	ipa_gid(&a, gid);
	tap_ok(&T, gid[0] == 0xfd && gid[1] == 0x7a && gid[15] == 1, "IPv6's GID is itself");
	ipa_from_gid(&b, gid);
	tap_ok(&T, ipa_eq(&a, &b), "and reads back as IPv6");
	ipa_parse(&c, "10.222.0.1");
	tap_ok(&T, !ipa_eq(&a, &c), "different families differ");
	ipa_any(&a, AF_INET6);
	ipa_loopback(&b, AF_INET);
	ipa_parse(&c, "127.0.0.1");
	tap_ok(&T, a.family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&a.a) && ipa_eq(&b, &c),
	       "wildcard and loopback of each family");
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 22);
	t_text();
	t_sa();
	t_gid();
	tap_totals(&T);
	return tap_exit_code(&T);
}

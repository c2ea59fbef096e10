/* SPDX-License-Identifier: MIT */
/*
 * ipaddr: one IP address of either family, as both programs take, store, send,
 * compare and print it (--server-addr, --addr, --bind, topologies, peers).
 * Uses libc only; never prints.
 *
 * Offers struct ipa (the family and the address, an IPv4 one held as
 * ::ffff:a.b.c.d so one 16-byte field compares either family), its parser and
 * canonical text (alone, or with a port), its sockaddr both ways, and the RoCE v2 GID an address has
 * (IPv4 as the IPv4-mapped GID, IPv6 as itself).
 *
 * Text is canonical (inet_ntop), so records and logs never echo user text. An
 * address alone is never bracketed; with a port, an IPv6 one is ("[fd7a::1]:9000",
 * RFC 3986's form), so the port's colon stays apart from the address's.
 */
#ifndef RDC_COMMON_IPADDR_H
#define RDC_COMMON_IPADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* the longest text of either family, with its NUL */
#define IPA_STRLEN INET6_ADDRSTRLEN
/* and with a port: "[" IPv6 "]:65535" */
#define IPA_PORT_STRLEN (IPA_STRLEN + 8)

struct ipa {
	int family;	    /* AF_INET or AF_INET6; 0: unset */
	struct in6_addr a;  /* AF_INET: ::ffff:a.b.c.d */
};

/* a.b.c.d or an IPv6 address (no brackets, no scope). 0, or -1 with EINVAL. */
int ipa_parse(struct ipa *ip, const char *s);

/* The canonical text into buf (IPA_STRLEN bytes); "" for an unset address. */
void ipa_str(const struct ipa *ip, char *buf, size_t len);

/* "A.B.C.D:PORT" or "[IPv6]:PORT" into buf (IPA_PORT_STRLEN bytes) */
void ipa_str_port(const struct ipa *ip, uint16_t port, char *buf, size_t len);

/* Fills ss with ip and port (host order); returns its length (0: unset ip). */
socklen_t ipa_to_sa(const struct ipa *ip, uint16_t port, struct sockaddr_storage *ss);

/*
 * The address of sa (AF_INET or AF_INET6; an IPv4-mapped IPv6 one is read as
 * IPv4, what a dual-stack socket reports for an IPv4 peer), its port in *port
 * when port is not NULL. 0, or -1 with EAFNOSUPPORT.
 */
int ipa_from_sa(struct ipa *ip, const struct sockaddr *sa, uint16_t *port);

/* the wildcard address of family (INADDR_ANY or in6addr_any) */
void ipa_any(struct ipa *ip, int family);

/* the loopback address of family (127.0.0.1 or ::1) */
void ipa_loopback(struct ipa *ip, int family);

/* same family and address */
bool ipa_eq(const struct ipa *x, const struct ipa *y);

/* the RoCE v2 GID of ip: the IPv4-mapped address or the IPv6 one */
void ipa_gid(const struct ipa *ip, uint8_t gid[16]);

/*
 * The address a RoCE v2 GID stands for: IPv4 for ::ffff:a.b.c.d, IPv6
 * otherwise (any 16 bytes are an IPv6 address).
 */
void ipa_from_gid(struct ipa *ip, const uint8_t gid[16]);

#endif /* RDC_COMMON_IPADDR_H */

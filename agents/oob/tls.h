/* SPDX-License-Identifier: MIT */
/*
 * tls: TLS 1.3 with mutual certificate verification for the oob-tls exchange.
 *
 * Contexts: TLS 1.3 only, the peer's certificate must chain to --tls-ca. The
 * server demands a client certificate (SSL_VERIFY_PEER |
 * SSL_VERIFY_FAIL_IF_NO_PEER_CERT) with clientAuth purpose; the client checks the
 * server certificate's purpose and its name PROTO_TLS_SERVER_NAME (the CN/SAN that
 * harness/certs/certs.c issues; peers are reached by address, which is no identity).
 * No session tickets: every session is a full handshake, as measured.
 *
 * tls_io: one nonblocking TLS stream for an epoll loop. Writes are queued and
 * flushed as the socket allows; tls_io_events() says what to wait for next.
 * Failures leave a word for records in io->why ("eof", "tlsv1_alert_unknown_ca",
 * "ECONNRESET", ...) and the full story on stderr.
 */
#ifndef RDC_AGENTS_TLS_H
#define RDC_AGENTS_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <openssl/ssl.h>

#include "common/proto.h" /* PROTO_TLS_SERVER_NAME */
#define TLS_WHY_MAX 48

/* NULL on failure with "<call> <file>: <why>" in err */
SSL_CTX *tls_ctx_new(bool server, const char *ca, const char *cert, const char *key,
		     char *err, size_t errlen);

/* The reason of the last failed SSL call as a record-safe word. */
void tls_why(SSL *ssl, int ret, char *buf, size_t len);

enum { TLS_AGAIN = -2, TLS_ERR = -1 };

struct tls_io {
	SSL *ssl;
	int fd;
	bool up;		/* handshake done */
	bool want_write;	/* the last call stopped on SSL_ERROR_WANT_WRITE */
	uint8_t *out;
	size_t olen, ocap, ooff;
	char why[TLS_WHY_MAX];
};

/* fd is connected (or connecting) and nonblocking; it is closed by tls_io_free */
int tls_io_init(struct tls_io *t, SSL_CTX *ctx, int fd, bool server);
void tls_io_free(struct tls_io *t);
/* 1 done, TLS_AGAIN, or TLS_ERR */
int tls_io_handshake(struct tls_io *t);
/* bytes read, 0 on the peer's clean end, TLS_AGAIN, or TLS_ERR */
ssize_t tls_io_read(struct tls_io *t, void *buf, size_t len);
int tls_io_queue(struct tls_io *t, const void *p, size_t len);
/* 1 nothing left, 0 more to write later, TLS_ERR */
int tls_io_flush(struct tls_io *t);
static inline size_t tls_io_pending(const struct tls_io *t)
{
	return t->olen - t->ooff;
}
/* EPOLLIN, plus EPOLLOUT while the stream waits for room */
uint32_t tls_io_events(const struct tls_io *t);

#endif

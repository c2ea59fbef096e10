// SPDX-License-Identifier: MIT
/*
 * TLS 1.3 contexts with mutual verification, and a nonblocking stream on top.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "agents/ag.h"
#include "agents/oob/tls.h"
#include "common/proto.h"

static SSL_CTX *tls_ctx_fail(SSL_CTX *ctx, const char *call, const char *obj,
			     char *err, size_t errlen)
{
	unsigned long e = ERR_get_error();
	char why[160];

	if (e)
		ERR_error_string_n(e, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "failed");
	ERR_clear_error();
	snprintf(err, errlen, "%s %s: %s", call, obj, why);
	SSL_CTX_free(ctx);
	return NULL;
}

SSL_CTX *tls_ctx_new(bool server, const char *ca, const char *cert, const char *key,
		     char *err, size_t errlen)
{
	STACK_OF(X509_NAME) *names;
	SSL_CTX *ctx;

	ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	if (!ctx)
		return tls_ctx_fail(NULL, "SSL_CTX_new", server ? "server" : "client",
				    err, errlen);
	if (!SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION))
		return tls_ctx_fail(ctx, "SSL_CTX_set_min_proto_version", "TLS1_3",
				    err, errlen);
	if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1)
		return tls_ctx_fail(ctx, "SSL_CTX_load_verify_locations", ca, err, errlen);
	if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1)
		return tls_ctx_fail(ctx, "SSL_CTX_use_certificate_chain_file", cert,
				    err, errlen);
	if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1)
		return tls_ctx_fail(ctx, "SSL_CTX_use_PrivateKey_file", key, err, errlen);
	if (SSL_CTX_check_private_key(ctx) != 1)
		return tls_ctx_fail(ctx, "SSL_CTX_check_private_key", key, err, errlen);
	/* a peer that vanishes is handled by the caller, by where it vanished */
	SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	/* queued writes are retried from a buffer that may have grown since */
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (server) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
		if (!SSL_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT))
			return tls_ctx_fail(ctx, "SSL_CTX_set_purpose", "sslclient", err, errlen);
		names = SSL_load_client_CA_file(ca);
		if (!names)
			return tls_ctx_fail(ctx, "SSL_load_client_CA_file", ca, err, errlen);
		SSL_CTX_set_client_CA_list(ctx, names);
		if (!SSL_CTX_set_num_tickets(ctx, 0))
			return tls_ctx_fail(ctx, "SSL_CTX_set_num_tickets", "0", err, errlen);
		SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	} else {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		if (!SSL_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER))
			return tls_ctx_fail(ctx, "SSL_CTX_set_purpose", "sslserver", err, errlen);
	}
	return ctx;
}

static void tls_word(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++) {
		char ch = s[i];

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		else if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
			   ch == '.' || ch == '-'))
			ch = '_';
		buf[i] = ch;
	}
	buf[i] = '\0';
}

void tls_why(SSL *ssl, int ret, char *buf, size_t len)
{
	int e = SSL_get_error(ssl, ret), serr = errno;
	unsigned long ec;
	const char *r;
	long v;

	switch (e) {
	case SSL_ERROR_ZERO_RETURN:
		snprintf(buf, len, "eof");
		break;
	case SSL_ERROR_SYSCALL:
		ec = ERR_peek_last_error();
		if (!ec && !serr) {
			snprintf(buf, len, "eof");
			break;
		}
		snprintf(buf, len, "%s", serr ? proto_errname(serr) : "syscall");
		break;
	case SSL_ERROR_SSL:
		ec = ERR_peek_last_error();
		r = ec ? ERR_reason_error_string(ec) : NULL;
		tls_word(r ? r : "tls_error", buf, len);
		v = SSL_get_verify_result(ssl);
		ag_warn("TLS: %s%s%s", r ? r : "error", v != X509_V_OK ? ": " : "",
			v != X509_V_OK ? X509_verify_cert_error_string(v) : "");
		break;
	default:
		snprintf(buf, len, "ssl_error_%d", e);
	}
	ERR_clear_error();
}

int tls_io_init(struct tls_io *t, SSL_CTX *ctx, int fd, bool server)
{
	memset(t, 0, sizeof(*t));
	t->fd = fd;
	t->ssl = SSL_new(ctx);
	if (!t->ssl)
		goto err;
	if (SSL_set_fd(t->ssl, fd) != 1)
		goto err_ssl;
	if (server) {
		SSL_set_accept_state(t->ssl);
	} else {
		if (SSL_set1_host(t->ssl, PROTO_TLS_SERVER_NAME) != 1)
			goto err_ssl;
		SSL_set_connect_state(t->ssl);
	}
	return 0;
err_ssl:
	SSL_free(t->ssl);
	t->ssl = NULL;
err:
	tls_word(ERR_reason_error_string(ERR_peek_last_error()) ?
		 ERR_reason_error_string(ERR_peek_last_error()) : "SSL_new",
		 t->why, sizeof(t->why));
	ERR_clear_error();
	return -1;
}

void tls_io_free(struct tls_io *t)
{
	if (t->ssl) {
		/* say goodbye if the socket takes it at once; never wait for the peer */
		if (t->up && !(SSL_get_shutdown(t->ssl) & SSL_SENT_SHUTDOWN))
			SSL_shutdown(t->ssl);
		ERR_clear_error();
		SSL_free(t->ssl);
	}
	if (t->fd >= 0 && close(t->fd))
		ag_warn("close TLS socket: %s", strerror(errno));
	free(t->out);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

/* ret from an SSL call that did not succeed: TLS_AGAIN, or TLS_ERR with why */
static int tls_io_fail(struct tls_io *t, int ret)
{
	int e = SSL_get_error(t->ssl, ret);

	if (e == SSL_ERROR_WANT_READ) {
		t->want_write = false;
		return TLS_AGAIN;
	}
	if (e == SSL_ERROR_WANT_WRITE) {
		t->want_write = true;
		return TLS_AGAIN;
	}
	tls_why(t->ssl, ret, t->why, sizeof(t->why));
	return TLS_ERR;
}

int tls_io_handshake(struct tls_io *t)
{
	int r;

	if (t->up)
		return 1;
	ERR_clear_error();
	errno = 0;
	r = SSL_do_handshake(t->ssl);
	if (r == 1) {
		t->up = true;
		t->want_write = false;
		return 1;
	}
	return tls_io_fail(t, r);
}

ssize_t tls_io_read(struct tls_io *t, void *buf, size_t len)
{
	size_t got = 0;
	int r;

	ERR_clear_error();
	errno = 0;
	r = SSL_read_ex(t->ssl, buf, len, &got);
	if (r == 1) {
		t->want_write = false;
		return (ssize_t)got;
	}
	if (SSL_get_error(t->ssl, r) == SSL_ERROR_ZERO_RETURN) {
		ERR_clear_error();
		return 0;
	}
	return tls_io_fail(t, r);
}

int tls_io_queue(struct tls_io *t, const void *p, size_t len)
{
	size_t cap;
	uint8_t *n;

	if (t->ooff && t->ooff == t->olen)
		t->ooff = t->olen = 0;
	if (t->olen + len > t->ocap) {
		/* move the unsent tail down before growing */
		if (t->ooff) {
			memmove(t->out, t->out + t->ooff, t->olen - t->ooff);
			t->olen -= t->ooff;
			t->ooff = 0;
		}
		cap = t->ocap ? t->ocap : 1024;
		while (cap < t->olen + len)
			cap *= 2;
		if (cap != t->ocap) {
			n = realloc(t->out, cap);
			if (!n) {
				snprintf(t->why, sizeof(t->why), "ENOMEM");
				return -1;
			}
			t->out = n;
			t->ocap = cap;
		}
	}
	memcpy(t->out + t->olen, p, len);
	t->olen += len;
	return 0;
}

int tls_io_flush(struct tls_io *t)
{
	size_t done;
	int r;

	if (!t->up)
		return t->ooff == t->olen ? 1 : 0;
	while (t->ooff < t->olen) {
		ERR_clear_error();
		errno = 0;
		r = SSL_write_ex(t->ssl, t->out + t->ooff, t->olen - t->ooff, &done);
		if (r == 1) {
			t->ooff += done;
			continue;
		}
		r = tls_io_fail(t, r);
		return r == TLS_AGAIN ? 0 : TLS_ERR;
	}
	t->want_write = false;
	t->ooff = t->olen = 0;
	return 1;
}

uint32_t tls_io_events(const struct tls_io *t)
{
	return EPOLLIN | EPOLLRDHUP | (t->want_write ? EPOLLOUT : 0);
}

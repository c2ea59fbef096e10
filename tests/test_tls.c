// SPDX-License-Identifier: MIT
/*
 * Unit tests of the TLS layer the oob-tls exchange travels over (agents/oob/tls),
 * over 127.0.0.1 with a throwaway PKI (harness/certs/certs): a good client completes
 * the handshake and exchanges a record both ways; a client from another CA, one
 * without a certificate, one that does not trust the server, one offering only
 * TLS 1.2, and a server presenting a client certificate are all refused.
 * The records themselves are tests/test_oob.c. TAP 13 on stdout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "agents/oob/oob.h"
#include "agents/oob/tls.h"
#include "harness/certs/certs.h"
#include "tap/tap.h"
#include "tests/oob_recs.h"

static struct tap T;

struct t_end {
	struct tls_io io;
	int res;	/* 1 up, TLS_ERR, TLS_AGAIN */
};

static int t_listen(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl)) {
		perror("test_oob: listen 127.0.0.1");
		exit(1);
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

/* A connected pair of nonblocking sockets over 127.0.0.1. */
static void t_pair(int lfd, uint16_t port, int *cfd, int *sfd)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	*cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*cfd < 0 || connect(*cfd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("test_oob: connect 127.0.0.1");
		exit(1);
	}
	*sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (*sfd < 0 || fcntl(*cfd, F_SETFL, O_NONBLOCK)) {
		perror("test_oob: accept");
		exit(1);
	}
}

/* Drives both handshakes until each is done or failed (at most 5 s). */
static void t_handshake(struct t_end *c, struct t_end *s)
{
	struct pollfd pf[2];
	int i;

	c->res = s->res = TLS_AGAIN;
	for (i = 0; i < 500 && (c->res == TLS_AGAIN || s->res == TLS_AGAIN); i++) {
		if (c->res == TLS_AGAIN)
			c->res = tls_io_handshake(&c->io);
		if (s->res == TLS_AGAIN)
			s->res = tls_io_handshake(&s->io);
		pf[0] = (struct pollfd){ .fd = c->io.fd, .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = s->io.fd, .events = POLLIN };
		if (c->res == TLS_AGAIN || s->res == TLS_AGAIN)
			poll(pf, 2, 10);
	}
}

/* Reads up to len bytes within 2 s: count, 0 at EOF, or TLS_ERR. */
static ssize_t t_read(struct t_end *e, uint8_t *buf, size_t len)
{
	struct pollfd pf = { .fd = e->io.fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;
	int i;

	for (i = 0; i < 200 && got < len; i++) {
		n = tls_io_read(&e->io, buf + got, len - got);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0 || n == TLS_ERR)
			return got ? (ssize_t)got : n;
		poll(&pf, 1, 10);
	}
	return (ssize_t)got;
}

struct t_case {
	const char *name;
	const char *srv_ca, *srv_cert, *srv_key;
	const char *cli_ca, *cli_cert, *cli_key;	/* cli_cert NULL: no certificate */
	bool tls12;
	bool ok;
	const char *srv_why, *cli_why;	/* substrings of the expected reasons */
};

static char t_dir[64];

static const char *t_path(const char *f)
{
	static char buf[8][128];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", t_dir, f);
	return buf[k];
}

static SSL_CTX *t_ctx(bool server, const char *ca, const char *cert, const char *key,
		      bool tls12)
{
	char err[320];
	SSL_CTX *ctx;

	if (cert) {
		ctx = tls_ctx_new(server, t_path(ca), t_path(cert), t_path(key), err, sizeof(err));
		if (!ctx)
			tap_diag(&T, "tls_ctx_new: %s", err);
		if (ctx && tls12) {
			/* a peer that cannot speak TLS 1.3 */
			SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
			SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
		}
		return ctx;
	}
	/* a client with no certificate at all, but that trusts the server */
	ctx = SSL_CTX_new(TLS_client_method());
	if (ctx && SSL_CTX_load_verify_locations(ctx, t_path(ca), NULL) != 1) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

static void t_tls_case(int lfd, uint16_t port, const struct t_case *k)
{
	SSL_CTX *sc = t_ctx(true, k->srv_ca, k->srv_cert, k->srv_key, false);
	SSL_CTX *cc = t_ctx(false, k->cli_ca, k->cli_cert, k->cli_key, k->tls12);
	struct oob_rec req = t_req(), rep = t_rep_write(), got;
	struct t_end c, s;
	uint8_t b[OOB_REC_LEN], in[OOB_REC_LEN];
	const char *cwhy = "", *swhy = "";
	int cfd, sfd, ok;
	ssize_t n;

	if (!sc || !cc) {
		tap_ok(&T, 0, "tls: %s (contexts)", k->name);
		SSL_CTX_free(sc);
		SSL_CTX_free(cc);
		return;
	}
	t_pair(lfd, port, &cfd, &sfd);
	if (tls_io_init(&c.io, cc, cfd, false) || tls_io_init(&s.io, sc, sfd, true)) {
		tap_ok(&T, 0, "tls: %s (tls_io_init)", k->name);
		return;
	}
	t_handshake(&c, &s);
	/* TLS 1.3: a client learns that its certificate was refused on its first read */
	oob_encode(&req, b);
	if (c.res == 1 && (tls_io_queue(&c.io, b, sizeof(b)) || tls_io_flush(&c.io) != 1))
		c.res = TLS_ERR;
	n = s.res == 1 ? t_read(&s, in, sizeof(in)) : TLS_ERR;
	ok = n == OOB_REC_LEN && !oob_parse(in, OOB_REC_LEN, OOB_T(OOB_REQ), &got) &&
		got.id == req.id;
	if (ok) {
		oob_encode(&rep, b);
		ok = !tls_io_queue(&s.io, b, sizeof(b)) && tls_io_flush(&s.io) == 1;
	}
	n = c.res == 1 ? t_read(&c, in, sizeof(in)) : TLS_ERR;
	ok = ok && n == OOB_REC_LEN && !oob_parse(in, OOB_REC_LEN, OOB_T(OOB_REP), &got) &&
		got.rkey == rep.rkey;
	if (c.io.why[0])
		cwhy = c.io.why;
	if (s.io.why[0])
		swhy = s.io.why;
	tap_kv(&T, "server_why", "%s", *swhy ? swhy : "-");
	tap_kv(&T, "client_why", "%s", *cwhy ? cwhy : "-");
	if (k->ok)
		tap_ok(&T, ok && !*swhy && !*cwhy, "tls: %s", k->name);
	else
		tap_ok(&T, !ok && (!k->srv_why || strstr(swhy, k->srv_why)) &&
		       (!k->cli_why || strstr(cwhy, k->cli_why)), "tls: %s", k->name);
	tls_io_free(&c.io);
	tls_io_free(&s.io);
	SSL_CTX_free(sc);
	SSL_CTX_free(cc);
}

static int t_rm(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void t_tls(void)
{
	static const struct t_case cases[] = {
		{ "a client of the same CA completes the handshake and exchanges records both ways",
		  "ca.pem", "server.pem", "server.key", "ca.pem", "client.pem", "client.key",
		  false, true, NULL, NULL },
		{ "a client certificate from another CA is refused by the server",
		  "ca.pem", "server.pem", "server.key", "ca.pem", "rogue-client.pem",
		  "rogue-client.key", false, false, "certificate_verify_failed", "unknown_ca" },
		{ "a client without a certificate is refused",
		  "ca.pem", "server.pem", "server.key", "ca.pem", NULL, NULL,
		  false, false, "certificate", NULL },
		{ "a client that trusts another CA refuses the server",
		  "ca.pem", "server.pem", "server.key", "rogue-ca.pem", "client.pem", "client.key",
		  false, false, NULL, "certificate_verify_failed" },
		{ "a server presenting a client certificate is refused (purpose)",
		  "ca.pem", "client.pem", "client.key", "ca.pem", "client.pem", "client.key",
		  false, false, NULL, "certificate_verify_failed" },
		{ "a client limited to TLS 1.2 is refused (TLS 1.3 minimum)",
		  "ca.pem", "server.pem", "server.key", "ca.pem", "client.pem", "client.key",
		  true, false, "protocol", NULL },
	};
	char err[256];
	uint16_t port;
	unsigned i;
	int lfd;

	snprintf(t_dir, sizeof(t_dir), "/tmp/rdc-test-oob-XXXXXX");
	if (!mkdtemp(t_dir)) {
		tap_ok(&T, 0, "tls: mkdtemp: %s", strerror(errno));
		return;
	}
	if (certs_make(t_dir, err, sizeof(err)) || certs_make_rogue(t_dir, err, sizeof(err))) {
		tap_diag(&T, "%s", err);
		tap_ok(&T, 0, "tls: throwaway CA, server, client and rogue certificates");
		goto out;
	}
	{
		struct stat st;

		tap_ok(&T, !stat(t_path("server.key"), &st) && (st.st_mode & 0777) == 0600 &&
		       !stat(t_path("rogue-client.key"), &st) && (st.st_mode & 0777) == 0600,
		       "tls: throwaway CA, server, client and rogue certificates (keys 0600)");
	}
	{
		SSL_CTX *x = tls_ctx_new(true, t_path("ca.pem"), t_path("nosuch.pem"),
					 t_path("server.key"), err, sizeof(err));

		tap_ok(&T, !x && strstr(err, "nosuch.pem"), "tls: a missing file is named in the error");
		SSL_CTX_free(x);
		x = tls_ctx_new(true, t_path("ca.pem"), t_path("server.pem"),
				t_path("client.key"), err, sizeof(err));
		tap_ok(&T, !x && strstr(err, "client.key"),
		       "tls: a key that does not match its certificate is refused");
		SSL_CTX_free(x);
	}
	lfd = t_listen(&port);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		t_tls_case(lfd, port, &cases[i]);
	close(lfd);
out:
	nftw(t_dir, t_rm, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 9);
	t_tls();
	tap_totals(&T);
	return tap_exit_code(&T);
}

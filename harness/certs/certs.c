// SPDX-License-Identifier: MIT
/*
 * Throwaway CA and leaf certificates for oob-tls, with the OpenSSL 3 API.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "harness/certs/certs.h"

/* long enough for a run, short enough that a leaked key is soon worthless */
#define CERTS_VALID_S (24 * 3600)
/* clocks in namespaces and VMs drift a little; do not start in the future */
#define CERTS_BACKDATE_S 300

struct certs_id {
	EVP_PKEY *key;
	X509 *crt;
};

static int certs_fail(char *err, size_t len, const char *call, const char *obj)
{
	unsigned long e = ERR_get_error();
	char why[160];

	if (e)
		ERR_error_string_n(e, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "%s", errno ? strerror(errno) : "failed");
	ERR_clear_error();
	snprintf(err, len, "%s %s: %s", call, obj, why);
	return -1;
}

static void certs_id_free(struct certs_id *id)
{
	X509_free(id->crt);
	EVP_PKEY_free(id->key);
	id->crt = NULL;
	id->key = NULL;
}

static int certs_ext(X509 *crt, X509V3_CTX *ctx, int nid, const char *val)
{
	X509_EXTENSION *ex = X509V3_EXT_conf_nid(NULL, ctx, nid, val);
	int ok;

	if (!ex)
		return -1;
	ok = X509_add_ext(crt, ex, -1);
	X509_EXTENSION_free(ex);
	return ok ? 0 : -1;
}

static int certs_serial(X509 *crt)
{
	unsigned char b[16];
	BIGNUM *bn;
	int ok;

	if (RAND_bytes(b, sizeof(b)) != 1)
		return -1;
	b[0] &= 0x7f;	/* serials are positive */
	b[0] |= 0x40;	/* and never shorter than 15 bytes */
	bn = BN_bin2bn(b, sizeof(b), NULL);
	if (!bn)
		return -1;
	ok = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(crt)) != NULL;
	BN_free(bn);
	return ok ? 0 : -1;
}

/*
 * A certificate for a fresh key, signed by issuer (NULL: self-signed CA).
 * kind: "ca", "server" or "client".
 */
static int certs_issue(struct certs_id *id, const struct certs_id *issuer, const char *cn,
		    const char *kind, char *err, size_t len)
{
	X509V3_CTX ctx;
	X509_NAME *name;
	int is_ca = !strcmp(kind, "ca");

	id->key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	if (!id->key)
		return certs_fail(err, len, "EVP_PKEY_Q_keygen", cn);
	id->crt = X509_new();
	if (!id->crt)
		goto fail;
	name = X509_get_subject_name(id->crt);
	if (!X509_set_version(id->crt, X509_VERSION_3) || certs_serial(id->crt) ||
	    !X509_gmtime_adj(X509_getm_notBefore(id->crt), -CERTS_BACKDATE_S) ||
	    !X509_gmtime_adj(X509_getm_notAfter(id->crt), CERTS_VALID_S) ||
	    !X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
					(const unsigned char *)"rdmacap", -1, -1, 0) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
					(const unsigned char *)cn, -1, -1, 0) ||
	    !X509_set_issuer_name(id->crt, issuer ? X509_get_subject_name(issuer->crt) : name) ||
	    !X509_set_pubkey(id->crt, id->key))
		goto fail;
	X509V3_set_ctx(&ctx, issuer ? issuer->crt : id->crt, id->crt, NULL, NULL, 0);
	if (certs_ext(id->crt, &ctx, NID_subject_key_identifier, "hash") ||
	    certs_ext(id->crt, &ctx, NID_authority_key_identifier, "keyid:always"))
		goto fail;
	if (is_ca) {
		if (certs_ext(id->crt, &ctx, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
		    certs_ext(id->crt, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign"))
			goto fail;
	} else {
		if (certs_ext(id->crt, &ctx, NID_basic_constraints, "critical,CA:FALSE") ||
		    certs_ext(id->crt, &ctx, NID_key_usage, "critical,digitalSignature") ||
		    certs_ext(id->crt, &ctx, NID_ext_key_usage,
			   !strcmp(kind, "server") ? "serverAuth" : "clientAuth"))
			goto fail;
		if (!strcmp(kind, "server")) {
			char san[80];

			snprintf(san, sizeof(san), "DNS:%s", cn);
			if (certs_ext(id->crt, &ctx, NID_subject_alt_name, san))
				goto fail;
		}
	}
	if (!X509_sign(id->crt, issuer ? issuer->key : id->key, EVP_sha256()))
		goto fail;
	return 0;
fail:
	certs_fail(err, len, "X509", cn);
	certs_id_free(id);
	return -1;
}

static int certs_open(const char *dir, const char *file, mode_t mode, FILE **f,
		   char *err, size_t len)
{
	char path[4096];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return certs_fail(err, len, "open", file);
	}
	/* unlink first: an existing key file may be readable by others */
	if (unlink(path) && errno != ENOENT)
		return certs_fail(err, len, "unlink", path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return certs_fail(err, len, "open", path);
	*f = fdopen(fd, "w");
	if (!*f) {
		certs_fail(err, len, "fdopen", path);
		close(fd);
		return -1;
	}
	return 0;
}

static int certs_close(FILE *f, int ok, const char *file, char *err, size_t len)
{
	if (fclose(f) || !ok)
		return certs_fail(err, len, "write", file);
	return 0;
}

/* dir/<base>.pem, and with key also dir/<base>.key (0600) */
static int certs_write(const char *dir, const char *base, const struct certs_id *id, int key,
		    char *err, size_t len)
{
	char file[64];
	FILE *f;

	snprintf(file, sizeof(file), "%s.pem", base);
	if (certs_open(dir, file, 0644, &f, err, len))
		return -1;
	if (certs_close(f, PEM_write_X509(f, id->crt), file, err, len))
		return -1;
	if (!key)
		return 0;
	snprintf(file, sizeof(file), "%s.key", base);
	if (certs_open(dir, file, 0600, &f, err, len))
		return -1;
	return certs_close(f, PEM_write_PrivateKey(f, id->key, NULL, NULL, 0, NULL, NULL),
			file, err, len);
}

int certs_make(const char *dir, char *err, size_t len)
{
	struct certs_id ca = { 0 }, srv = { 0 }, cli = { 0 };
	int ret = -1;

	if (certs_issue(&ca, NULL, "rdmacap throwaway CA", "ca", err, len))
		goto out;
	if (certs_issue(&srv, &ca, PROTO_TLS_SERVER_NAME, "server", err, len))
		goto out_ca;
	if (certs_issue(&cli, &ca, CERTS_CLIENT_NAME, "client", err, len))
		goto out_srv;
	if (certs_write(dir, "ca", &ca, 0, err, len) ||
	    certs_write(dir, "server", &srv, 1, err, len) ||
	    certs_write(dir, "client", &cli, 1, err, len))
		goto out_cli;
	ret = 0;
out_cli:
	certs_id_free(&cli);
out_srv:
	certs_id_free(&srv);
out_ca:
	certs_id_free(&ca);
out:
	return ret;
}

/* what certs_make writes */
static const char *const certs_files[] = { "ca.pem", "server.pem", "server.key", "client.pem",
					    "client.key" };

void certs_run_dir_remove(const char *dir)
{
	char path[128];

	for (size_t i = 0; i < sizeof(certs_files) / sizeof(certs_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, certs_files[i]);
		if (unlink(path) && errno != ENOENT)
			fprintf(stderr, "rdmacap: unlink %s: %s\n", path, strerror(errno));
	}
	if (rmdir(dir))
		fprintf(stderr, "rdmacap: rmdir %s: %s\n", dir, strerror(errno));
}

int certs_run_dir(char *dir, size_t dlen, char *err, size_t len)
{
	snprintf(dir, dlen, "/tmp/rdmacap-tls.XXXXXX");
	if (!mkdtemp(dir)) {
		snprintf(err, len, "mkdtemp %s: %s", dir, strerror(errno));
		dir[0] = '\0';
		return -1;
	}
	if (certs_make(dir, err, len)) {
		certs_run_dir_remove(dir);
		dir[0] = '\0';
		return -1;
	}
	return 0;
}

int certs_make_rogue(const char *dir, char *err, size_t len)
{
	struct certs_id ca = { 0 }, cli = { 0 };
	int ret = -1;

	/* same names as the real ones: only the signature chain tells them apart */
	if (certs_issue(&ca, NULL, "rdmacap throwaway CA", "ca", err, len))
		goto out;
	if (certs_issue(&cli, &ca, CERTS_CLIENT_NAME, "client", err, len))
		goto out_ca;
	if (certs_write(dir, "rogue-ca", &ca, 0, err, len) ||
	    certs_write(dir, "rogue-client", &cli, 1, err, len))
		goto out_cli;
	ret = 0;
out_cli:
	certs_id_free(&cli);
out_ca:
	certs_id_free(&ca);
out:
	return ret;
}

static int certs_bad(char *err, size_t len, const char *opt, const char *file, const char *why)
{
	ERR_clear_error();
	snprintf(err, len, "--%s %s: %s", opt, file, why);
	return -1;
}

/* a key with a passphrase is refused here, not prompted for on the terminal */
static int certs_no_pass(char *buf, int size, int rwflag, void *u)
{
	(void)buf, (void)size, (void)rwflag, (void)u;
	return 0;
}

/* the first PEM certificate of file; the ones after it, if chain, go there */
static int certs_read_crt(const char *opt, const char *file, X509 **crt, STACK_OF(X509) *chain,
		       char *err, size_t len)
{
	FILE *f = fopen(file, "re");
	X509 *x;

	if (!f)
		return certs_bad(err, len, opt, file, strerror(errno));
	*crt = PEM_read_X509(f, NULL, certs_no_pass, NULL);
	while (*crt && chain && (x = PEM_read_X509(f, NULL, certs_no_pass, NULL)))
		if (!sk_X509_push(chain, x)) {
			X509_free(x);
			break;
		}
	fclose(f);
	if (!*crt)
		return certs_bad(err, len, opt, file, "no PEM certificate in it");
	ERR_clear_error();	/* the end of the file, after the last certificate */
	return 0;
}

static int certs_read_key(const char *file, EVP_PKEY **key, char *err, size_t len)
{
	FILE *f = fopen(file, "re");

	if (!f)
		return certs_bad(err, len, "tls-key", file, strerror(errno));
	*key = PEM_read_PrivateKey(f, NULL, certs_no_pass, NULL);
	fclose(f);
	if (!*key)
		return certs_bad(err, len, "tls-key", file,
			      "no unencrypted PEM private key in it");
	return 0;
}

/* Verifies crt against the CA store for purpose (and host). NULL, or why not. */
static const char *certs_verify(X509_STORE *st, X509 *crt, STACK_OF(X509) *chain, int purpose,
			     const char *host)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	const char *why = "out of memory";

	if (!ctx)
		return why;
	if (X509_STORE_CTX_init(ctx, st, crt, chain) == 1 &&
	    (!purpose || X509_STORE_CTX_set_purpose(ctx, purpose) == 1) &&
	    (!host || X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(ctx), host, 0) == 1))
		why = X509_verify_cert(ctx) == 1 ? NULL :
		      X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
	X509_STORE_CTX_free(ctx);
	ERR_clear_error();
	return why;
}

/* crt (with its chain) for both roles: the server's name and purpose, the client's */
static int certs_check_roles(X509_STORE *st, X509 *crt, STACK_OF(X509) *chain, const char *ca,
			  const char *cert, char *err, size_t len)
{
	char msg[512];
	const char *why;

	why = certs_verify(st, crt, chain, 0, NULL);
	if (why) {
		snprintf(msg, sizeof(msg), "not signed by --tls-ca %s (%s)", ca, why);
		return certs_bad(err, len, "tls-cert", cert, msg);
	}
	why = certs_verify(st, crt, chain, X509_PURPOSE_SSL_SERVER, PROTO_TLS_SERVER_NAME);
	if (why) {
		snprintf(msg, sizeof(msg), "not a server certificate for the name %s, which "
			 "client agents check (%s)", PROTO_TLS_SERVER_NAME, why);
		return certs_bad(err, len, "tls-cert", cert, msg);
	}
	why = certs_verify(st, crt, chain, X509_PURPOSE_SSL_CLIENT, NULL);
	if (why) {
		snprintf(msg, sizeof(msg), "not a client certificate, which the server "
			 "agent requires (%s)", why);
		return certs_bad(err, len, "tls-cert", cert, msg);
	}
	return 0;
}

int certs_check(const char *ca, const char *cert, const char *key, char *err, size_t len)
{
	STACK_OF(X509) *chain = sk_X509_new_null();
	X509_STORE *st = X509_STORE_new();
	X509 *ca_crt = NULL, *crt = NULL;
	EVP_PKEY *pkey = NULL;
	int ret = -1;

	if (!chain || !st) {
		certs_bad(err, len, "tls-ca", ca, "out of memory");
		goto out;
	}
	/* read each file first: its own error names it */
	if (certs_read_crt("tls-ca", ca, &ca_crt, NULL, err, len) ||
	    certs_read_crt("tls-cert", cert, &crt, chain, err, len) ||
	    certs_read_key(key, &pkey, err, len))
		goto out;
	if (X509_STORE_load_file(st, ca) != 1) {
		certs_bad(err, len, "tls-ca", ca, "not loadable as a CA file");
		goto out;
	}
	if (X509_check_private_key(crt, pkey) != 1) {
		char msg[320];

		snprintf(msg, sizeof(msg), "not the key of --tls-cert %s", cert);
		certs_bad(err, len, "tls-key", key, msg);
		goto out;
	}
	ret = certs_check_roles(st, crt, chain, ca, cert, err, len);
out:
	EVP_PKEY_free(pkey);
	X509_free(crt);
	X509_free(ca_crt);
	X509_STORE_free(st);
	sk_X509_pop_free(chain, X509_free);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * Throwaway CA and leaf certificates for oob-tls, with the OpenSSL 3 API.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "harness/certs.h"

/* long enough for a run, short enough that a leaked key is soon worthless */
#define HC_VALID_S (24 * 3600)
/* clocks in namespaces and VMs drift a little; do not start in the future */
#define HC_BACKDATE_S 300

struct hc_id {
	EVP_PKEY *key;
	X509 *crt;
};

static int hc_fail(char *err, size_t len, const char *call, const char *obj)
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

static void hc_id_free(struct hc_id *id)
{
	X509_free(id->crt);
	EVP_PKEY_free(id->key);
	id->crt = NULL;
	id->key = NULL;
}

static int hc_ext(X509 *crt, X509V3_CTX *ctx, int nid, const char *val)
{
	X509_EXTENSION *ex = X509V3_EXT_conf_nid(NULL, ctx, nid, val);
	int ok;

	if (!ex)
		return -1;
	ok = X509_add_ext(crt, ex, -1);
	X509_EXTENSION_free(ex);
	return ok ? 0 : -1;
}

static int hc_serial(X509 *crt)
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
static int hc_issue(struct hc_id *id, const struct hc_id *issuer, const char *cn,
		    const char *kind, char *err, size_t len)
{
	X509V3_CTX ctx;
	X509_NAME *name;
	int is_ca = !strcmp(kind, "ca");

	id->key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	if (!id->key)
		return hc_fail(err, len, "EVP_PKEY_Q_keygen", cn);
	id->crt = X509_new();
	if (!id->crt)
		goto fail;
	name = X509_get_subject_name(id->crt);
	if (!X509_set_version(id->crt, X509_VERSION_3) || hc_serial(id->crt) ||
	    !X509_gmtime_adj(X509_getm_notBefore(id->crt), -HC_BACKDATE_S) ||
	    !X509_gmtime_adj(X509_getm_notAfter(id->crt), HC_VALID_S) ||
	    !X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
					(const unsigned char *)"rdmacap", -1, -1, 0) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
					(const unsigned char *)cn, -1, -1, 0) ||
	    !X509_set_issuer_name(id->crt, issuer ? X509_get_subject_name(issuer->crt) : name) ||
	    !X509_set_pubkey(id->crt, id->key))
		goto fail;
	X509V3_set_ctx(&ctx, issuer ? issuer->crt : id->crt, id->crt, NULL, NULL, 0);
	if (hc_ext(id->crt, &ctx, NID_subject_key_identifier, "hash") ||
	    hc_ext(id->crt, &ctx, NID_authority_key_identifier, "keyid:always"))
		goto fail;
	if (is_ca) {
		if (hc_ext(id->crt, &ctx, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
		    hc_ext(id->crt, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign"))
			goto fail;
	} else {
		if (hc_ext(id->crt, &ctx, NID_basic_constraints, "critical,CA:FALSE") ||
		    hc_ext(id->crt, &ctx, NID_key_usage, "critical,digitalSignature") ||
		    hc_ext(id->crt, &ctx, NID_ext_key_usage,
			   !strcmp(kind, "server") ? "serverAuth" : "clientAuth"))
			goto fail;
		if (!strcmp(kind, "server")) {
			char san[80];

			snprintf(san, sizeof(san), "DNS:%s", cn);
			if (hc_ext(id->crt, &ctx, NID_subject_alt_name, san))
				goto fail;
		}
	}
	if (!X509_sign(id->crt, issuer ? issuer->key : id->key, EVP_sha256()))
		goto fail;
	return 0;
fail:
	hc_fail(err, len, "X509", cn);
	hc_id_free(id);
	return -1;
}

static int hc_open(const char *dir, const char *file, mode_t mode, FILE **f,
		   char *err, size_t len)
{
	char path[4096];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return hc_fail(err, len, "open", file);
	}
	/* unlink first: an existing key file may be readable by others */
	if (unlink(path) && errno != ENOENT)
		return hc_fail(err, len, "unlink", path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return hc_fail(err, len, "open", path);
	*f = fdopen(fd, "w");
	if (!*f) {
		hc_fail(err, len, "fdopen", path);
		close(fd);
		return -1;
	}
	return 0;
}

static int hc_close(FILE *f, int ok, const char *file, char *err, size_t len)
{
	if (fclose(f) || !ok)
		return hc_fail(err, len, "write", file);
	return 0;
}

/* dir/<base>.pem, and with key also dir/<base>.key (0600) */
static int hc_write(const char *dir, const char *base, const struct hc_id *id, int key,
		    char *err, size_t len)
{
	char file[64];
	FILE *f;

	snprintf(file, sizeof(file), "%s.pem", base);
	if (hc_open(dir, file, 0644, &f, err, len))
		return -1;
	if (hc_close(f, PEM_write_X509(f, id->crt), file, err, len))
		return -1;
	if (!key)
		return 0;
	snprintf(file, sizeof(file), "%s.key", base);
	if (hc_open(dir, file, 0600, &f, err, len))
		return -1;
	return hc_close(f, PEM_write_PrivateKey(f, id->key, NULL, NULL, 0, NULL, NULL),
			file, err, len);
}

int hc_certs_make(const char *dir, char *err, size_t len)
{
	struct hc_id ca = { 0 }, srv = { 0 }, cli = { 0 };
	int ret = -1;

	if (hc_issue(&ca, NULL, "rdmacap throwaway CA", "ca", err, len))
		goto out;
	if (hc_issue(&srv, &ca, PROTO_TLS_SERVER_NAME, "server", err, len))
		goto out_ca;
	if (hc_issue(&cli, &ca, HC_CLIENT_NAME, "client", err, len))
		goto out_srv;
	if (hc_write(dir, "ca", &ca, 0, err, len) ||
	    hc_write(dir, "server", &srv, 1, err, len) ||
	    hc_write(dir, "client", &cli, 1, err, len))
		goto out_cli;
	ret = 0;
out_cli:
	hc_id_free(&cli);
out_srv:
	hc_id_free(&srv);
out_ca:
	hc_id_free(&ca);
out:
	return ret;
}

int hc_certs_make_rogue(const char *dir, char *err, size_t len)
{
	struct hc_id ca = { 0 }, cli = { 0 };
	int ret = -1;

	/* same names as the real ones: only the signature chain tells them apart */
	if (hc_issue(&ca, NULL, "rdmacap throwaway CA", "ca", err, len))
		goto out;
	if (hc_issue(&cli, &ca, HC_CLIENT_NAME, "client", err, len))
		goto out_ca;
	if (hc_write(dir, "rogue-ca", &ca, 0, err, len) ||
	    hc_write(dir, "rogue-client", &cli, 1, err, len))
		goto out_cli;
	ret = 0;
out_cli:
	hc_id_free(&cli);
out_ca:
	hc_id_free(&ca);
out:
	return ret;
}

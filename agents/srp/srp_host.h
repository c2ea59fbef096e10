/* SPDX-License-Identifier: MIT */
/*
 * srp_host: one SCSI host of the kernel's SRP initiator (ib_srp), made and
 * removed through its sysfs, as srp_daemon and blktests do, without them:
 * a target string written to /sys/class/infiniband_srp/srp-DEV-PORT/
 * add_target (the login over rdma_cm to dest=ADDR:PORT, with the client's
 * own initiator_ext, common/srpname.h's srpn_ext, so that its I_T nexus is
 * its own at the target), its LUN 0's disk found in sysfs, and "1" written
 * to its SRP remote port's delete.
 *
 * ib_srp shows no host's initiator_ext in sysfs: the host of a login is the
 * SRP host that the write added, found by the SRP remote ports before and
 * after it, with add_target locked (flock) so that rdmacap's agents log in
 * one at a time (ib_srp does so anyway: one add_target per RDMA port). A
 * host is known as a run's by its LUN 0's model, the target's T10 product
 * id (srpname.h).
 *
 * The parsers (srh_opts, srh_ext, srh_lun0) are pure, for
 * tests/test_srh.c. Uses libc, common/ and agents/kattr.h.
 */
#ifndef RDC_AGENTS_SRP_HOST_H
#define RDC_AGENTS_SRP_HOST_H

#include <stddef.h>
#include <stdint.h>

/* ib_srpt's id_ext and ioc_guid, the GUID its logins must name */
#define SRH_SERVICE_GUID "/sys/module/ib_srpt/parameters/srpt_service_guid"

struct srh_login {
	uint64_t guid;		/* the target's srpt_service_guid */
	const char *dest;	/* "ADDR:PORT" or "[ADDR6]:PORT" */
	uint64_t ext;		/* initiator_ext */
};

/* The add_target string of l into buf. 0, or -1 when it does not fit. */
int srh_opts(const struct srh_login *l, char *buf, size_t len);
/* "0x0123456789abcdef" (ib_srp's initiator_ext and id_ext in sysfs): 0 and *v, or -1. */
int srh_ext(const char *s, uint64_t *v);
/*
 * A SCSI device entry of /sys/bus/scsi/devices, "H:C:T:L": whether it is
 * LUN 0 of host host. 1 yes, 0 no.
 */
int srh_lun0(const char *entry, int host);

/* The target's GUID from ib_srpt's parameter. 0, or -1 with errno. */
int srh_guid(uint64_t *guid);
/*
 * Logs l in through RDMA port port of device dev; the SCSI host it made
 * into *host. 0, or -1 with errno (the kernel's, of the write: EEXIST the
 * same nexus logged in already, ECONNRESET the target refused it;
 * ENOENT no new host).
 */
int srh_add(const char *dev, unsigned port, const struct srh_login *l, int *host);
/* The model of host's LUN 0, its padding cut, into buf. 0, or -1 with errno. */
int srh_model(int host, char *buf, size_t len);
/* The disk of host's LUN 0, "/dev/sdX" into dev: 0; 1 not scanned yet; -1 with errno. */
int srh_find(int host, char *dev, size_t len);
/*
 * Removes host unless its LUN 0 shows a model other than model (a host
 * number is reused once freed), and waits until it is gone. 0, or -1 with
 * errno (ESTALE: another's host now).
 */
int srh_delete(int host, const char *model);

#endif

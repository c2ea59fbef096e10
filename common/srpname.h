/* SPDX-License-Identifier: MIT */
/*
 * srpname: the names of what an srp point makes in the kernel, the one place
 * both programs read them: the srp server agent makes the target, the client
 * agents the initiator's SCSI hosts (agents/srp/), `rdmacap down` finds a
 * killed run's by them (harness/ulp/). Everything is named after the run
 * ("rdc" and its 4 hex digits), so no other LIO configuration is touched.
 *
 *   null_blk disk     common/nvmfname.h's         /dev/rdc1a2b
 *   LIO backstore     iblock_<srpn_hba(run)>/rdc<run>  target/core/iblock_64043/rdc1a2b
 *   srpt port         the RDMA port's GUID        target/srpt/5054:00ff:fe12:3456
 *                     (ib_srpt's own name for it; not ours, made if missing)
 *   its TPG           rdc<run>                    .../5054:00ff:fe12:3456/rdc1a2b
 *   the TPG's ACL     the address the logins come to, as ib_srpt prints it
 *   the disk's model  rdc<run>: the backstore's T10 product id, which each
 *                     SCSI host's LUN 0 shows (sysfs model): how `down`
 *                     knows the initiator's hosts of a run
 *   a client          initiator_ext srpn_ext(run, id): its own I_T nexus
 *
 * ib_srpt names an rdma_cm login's session after the address of the login's
 * cm_id (%pIS: IPv4 dotted, IPv6 in 8 groups of 4 hex digits), so the ACL
 * that lets the clients in is named that way. ib_srp shows no host's
 * initiator_ext in sysfs, hence the model. Uses libc only.
 */
#ifndef RDC_COMMON_SRPNAME_H
#define RDC_COMMON_SRPNAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/nvmfname.h"

#define SRPN_TARGET NVMFN_CONFIGFS "/target"
#define SRPN_CORE SRPN_TARGET "/core"
#define SRPN_SRPT SRPN_TARGET "/srpt"
/* ib_srpt's one rdma_cm listener, on every address: a global attribute */
#define SRPN_CM_PORT_ATTR SRPN_SRPT "/discovery_auth/rdma_cm_port"
/* SRP over rdma_cm has no assigned port; blktests' srp tests use 5555 */
#define SRPN_CM_PORT 5555
#define SRPN_PREFIX "rdc"
/* LIO backstore HBAs are "iblock_<index>": ours from here, one per run */
#define SRPN_HBA_BASE 0xf000u
/* ib_srp's initiator_ext of our clients: "rdc" in the top 3 bytes, for the target's log */
#define SRPN_EXT_MAGIC 0x726463ull
#define SRPN_EXT_ID_BITS 24
#define SRPN_HOSTS "/sys/class/scsi_host"
#define SRPN_RPORTS "/sys/class/srp_remote_ports"
#define SRPN_INITIATORS "/sys/class/infiniband_srp"

/* The backstore HBA index of run (4 hex digits), or 0 when run is not one. */
static inline unsigned srpn_hba(const char *run)
{
	char *end;
	unsigned long v = strtoul(run, &end, 16);

	return *run && !*end && v <= 0xffff ? SRPN_HBA_BASE + (unsigned)(v & 0xfff) : 0;
}

/* A client's initiator_ext: the magic, the run's 16 bits, the client id's 24. */
static inline uint64_t srpn_ext(unsigned run, uint32_t id)
{
	return SRPN_EXT_MAGIC << 40 | (uint64_t)(run & 0xffff) << SRPN_EXT_ID_BITS |
	       (id & ((1u << SRPN_EXT_ID_BITS) - 1));
}

/* A TPG, backstore or model name of ours (SRPN_PREFIX and [0-9a-f]), of run when not NULL. */
static inline bool srpn_name_ours(const char *name, const char *run)
{
	size_t n = strlen(SRPN_PREFIX), l = strlen(name);

	return l > n && l - n <= 8 && !strncmp(name, SRPN_PREFIX, n) &&
	       strspn(name + n, "0123456789abcdef") == l - n && (!run || !strcmp(name + n, run));
}

/* An SRP remote port's name, "port-H:N" (SRPN_RPORTS): its SCSI host H, or -1. */
static inline int srpn_rport_host(const char *entry)
{
	unsigned h, n;
	int used = 0;

	return sscanf(entry, "port-%u:%u%n", &h, &n, &used) == 2 && !entry[used] &&
	       h < 0x7fffffffu ? (int)h : -1;
}

/* A SCSI device's model as sysfs shows it, its padding of blanks cut. */
static inline void srpn_model_trim(char *model)
{
	size_t n = strlen(model);

	while (n && model[n - 1] == ' ')
		model[--n] = '\0';
}

#endif

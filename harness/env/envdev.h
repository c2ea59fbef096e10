/* SPDX-License-Identifier: MIT */
/*
 * envdev: `rdmacap env`'s view of one device's ports: state, link layer,
 * active MTU and every GID (index, type, address), for choosing --device
 * NAME:PORT and --gid-index on a host with a real RNIC.
 *
 * Uses: libibverbs, rdma/dev.h (the GID table), rdma/port.h (transport, LIDs,
 * GID kinds), tap/, jansson.
 */
#ifndef RDC_HARNESS_ENVDEV_H
#define RDC_HARNESS_ENVDEV_H

#include <jansson.h>

#include "tap/tap.h"

/*
 * One "# dev=NAME port=P ..." diagnostic per port of device 'name', and
 * "ports": [...] into dev. 0, or -1 (the device could not be opened: said).
 */
int envdev_ports(struct tap *t, json_t *dev, const char *name);

#endif

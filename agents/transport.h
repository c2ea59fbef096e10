/* SPDX-License-Identifier: MIT */
/*
 * transport: what the agent's engine needs from a transport, and the table of
 * them (transport.c, one row each).
 *
 * A transport is a row: one server entry and one client entry, from a folder
 * under agents/ (tcp/, rc/, ud/; rc/ serves the rows of rc and uc, whose code
 * differs only in the QP type). Each runs the whole life of its role: the
 * "hello" record, the phases of common/proto.h (clients through phase.h,
 * servers on srv/'s listeners and accept loop), "bye", and returns the exit
 * status. Adding a transport is a folder (or a parameter of one), a word in
 * common/opt.c and one row in transport.c; main.c and the engine do not change.
 *
 * May use: agents/opts.h. The folders may use the engine (ag, ctl, load,
 * phase, tag), srv/, oob/, verbs/, common/ and rdma/; never another
 * transport's folder, harness/ or tap/ (tests/includes.t checks).
 */
#ifndef RDC_AGENTS_TRANSPORT_H
#define RDC_AGENTS_TRANSPORT_H

#include "agents/opts.h"
#include "common/opt.h"

struct transport {
	enum opt_transport id;	/* its word: opt_word(OPT_TRANSPORT, id) */
	/* the role's whole run; the process exit status */
	int (*server)(const struct ag_opts *o);
	int (*client)(const struct ag_opts *o);
};

/* The row of transport id, or NULL when none is built in. */
const struct transport *transport_find(enum opt_transport id);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * deadline: the one rule for how long a phase may take, shared by the agent
 * (which enforces it and names what it cut) and the orchestrator (which waits
 * DL_GRACE_S longer, so the agent's deadline always fires first and its result
 * record still arrives). May use libc only.
 *
 * Connect: every setup has --timeout from its own start, and setup k starts
 * k x --stagger-ms after "go". Traffic: --timeout for the round trips
 * themselves plus the think time the plan asks for (--think-ms x --msgs), so a
 * long think time is never mistaken for a stall.
 */
#ifndef RDC_COMMON_DEADLINE_H
#define RDC_COMMON_DEADLINE_H

#include <stdint.h>

/* seconds the orchestrator waits beyond the agent's deadline */
#define DL_GRACE_S 5

/* One setup, from its own start. */
static inline uint64_t dl_setup_ns(uint64_t timeout_s)
{
	return timeout_s * 1000000000ull;
}

/* The connect phase of an agent with `clients` setups, from "go". */
static inline uint64_t dl_connect_ns(uint64_t timeout_s, uint64_t stagger_ms, uint64_t clients)
{
	return dl_setup_ns(timeout_s) + stagger_ms * clients * 1000000ull;
}

/* The traffic phase, from "run". */
static inline uint64_t dl_traffic_ns(uint64_t timeout_s, uint64_t think_ms, uint64_t msgs)
{
	return timeout_s * 1000000000ull + think_ms * msgs * 1000000ull;
}

#endif

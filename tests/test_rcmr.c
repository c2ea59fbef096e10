// SPDX-License-Identifier: MIT
/*
 * Unit tests of --mr shared's slice arithmetic (agents/rc/rc_mr.c), no device
 * needed: a slice holds both halves, its recv half is 8-aligned for an atomic
 * and ends before the next slice, chunks double to RC_MR_CHUNK and stay
 * within RC_MR_CHUNK_BYTES, and rc's old wall takes a handful of MRs.
 */
#include "agents/rc/rc.h"
#include "tap/tap.h"

static struct tap T;

/* the recv half of slice i starts here (rc_rbuf) */
static size_t t_roff(uint32_t size, size_t stride, uint32_t i)
{
	return rc_mr_off(stride, i) + ((size + 7) & ~7u);
}

static void t_stride(void)
{
	static const uint32_t sizes[] = { 1, 7, 8, 9, 64, 100, 4095, 4096, 1u << 20 };
	int ok = 1, fit = 1, note = 1;

	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint32_t size = sizes[s], rlen = size < 8 ? 8 : size;
		size_t st = rc_mr_stride(size, false), nst = rc_mr_stride(size, true);

		for (uint32_t i = 0; i < 5; i++) {
			if (rc_mr_off(st, i) % 64 || t_roff(size, st, i) % 8)
				ok = 0;
			if (t_roff(size, st, i) + rlen > rc_mr_off(st, i + 1))
				fit = 0;
			/* rc_note: 8 bytes after the 8-aligned recv half */
			if (t_roff(size, nst, i) + ((rlen + 7) & ~7u) + RC_NOTE_LEN >
			    rc_mr_off(nst, i + 1) || rc_mr_off(nst, i) % 64)
				note = 0;
		}
	}
	tap_ok(&T, ok, "slices are 64-aligned and their recv halves 8-aligned (atomics)");
	tap_ok(&T, fit, "a slice's recv half (at least 8 bytes) ends before the next slice");
	tap_ok(&T, note, "with --op write on iWARP, the note after the recv half ends there too");
	tap_ok(&T,
	       rc_mr_stride(1, false) == 64 && rc_mr_stride(64, false) == 128 &&
		       rc_mr_stride(100, false) == 256,
	       "stride: 1 B -> 64, 64 B -> 128, 100 B -> 256 (%zu %zu %zu)", rc_mr_stride(1, false),
	       rc_mr_stride(64, false), rc_mr_stride(100, false));
}

static void t_chunks(void)
{
	size_t st = rc_mr_stride(64, false), big = rc_mr_stride(1u << 20, false);
	uint64_t n = 0;
	uint32_t c, bytes_ok = 1;

	tap_ok(&T, rc_mr_slices(0, st) == RC_MR_FIRST && rc_mr_slices(1, st) == 2 * RC_MR_FIRST &&
		   rc_mr_slices(5, st) == 32 * RC_MR_FIRST,
	       "chunks double from %d slices", RC_MR_FIRST);
	tap_ok(&T, rc_mr_slices(6, st) == RC_MR_CHUNK && rc_mr_slices(40, st) == RC_MR_CHUNK &&
		   rc_mr_slices(UINT32_MAX, st) == RC_MR_CHUNK,
	       "and stop at %d (no shift past 32 bits)", RC_MR_CHUNK);
	for (c = 0; c < 64; c++)
		if (rc_mr_slices(c, big) * big > RC_MR_CHUNK_BYTES || !rc_mr_slices(c, big))
			bytes_ok = 0;
	tap_ok(&T, bytes_ok && rc_mr_slices(10, big) == RC_MR_CHUNK_BYTES / big,
	       "1 MiB messages: %u slices a chunk, within %u bytes", rc_mr_slices(10, big),
	       RC_MR_CHUNK_BYTES);
	tap_ok(&T, rc_mr_slices(0, (size_t)RC_MR_CHUNK_BYTES * 2) == 1,
	       "a slice larger than the byte cap is a chunk of its own");
	for (c = 0; n < 260000; c++)
		n += rc_mr_slices(c, st);
	tap_ok(&T, c == 69, "260,000 connections of 64 B take %u MRs (per-conn: 520,000)", c);
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 9);
	t_stride();
	t_chunks();
	tap_totals(&T);
	return tap_exit_code(&T);
}
